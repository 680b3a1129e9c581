/* Virtual CPU objects: saved guest registers, the VMCS, exit counters. */
#ifndef HV_VM_VCPU_H
#define HV_VM_VCPU_H
#include "compiler.h"
#include "spinlock.h"
#include "dev/vlapic.h"
#include "vmx/exit_reasons.h"
#include "vmx/vcpu.h"
#include "vmx/kvm_pv.h"
#include "sched/sched.h"

struct vm;

#define VCPU_DBG_STACK_WORDS 48

struct vcpu {
	/* hv/vmx's part (vmx/vcpu.h: GPRs, vLAPIC, FPU, windows, pending
	 * exception); first, so entry.asm's regs pointer and the handlers'
	 * struct vmx_vcpu * are the vCPU's address (vcpu_of()). */
	struct vmx_vcpu vmx;
	struct vm *vm;
	/* One state machine (issue 11): whether v runs, waits or is off is the
	 * scheduler's (v->sv.state: RUNNING, RUNNABLE, BLOCKED, OFFLINE); these
	 * two flags are the guest's activity state (SDM Vol. 3 §24.4.2) that
	 * the scheduler cannot know. docs/architecture.md has the mapping. */
	volatile bool wait_sipi;           /* wait-for-SIPI: an AP before its SIPI, or after INIT */
	volatile bool halted;              /* HLT (or HC_SCHED_BLOCK): until an interrupt it takes */
	paddr_t vmcs;
	bool launched;
	volatile int sipi_vector;          /* -1 none; set by start_vcpu(SIPI) */
	volatile bool init_pending;
	struct kvm_pv_vcpu kvm;            /* KVM PV: kvmclock, steal time, kicks */
	struct sched_vcpu sv;              /* hv/sched's view (state, accounting) */
	int vmcs_cpu;                      /* pCPU whose host state the VMCS holds; -1 none */
	int vmcs_active;                   /* pCPU where the VMCS is current (loaded, not yet
					    * put); -1 none. vcpu_load waits for -1 (SDM Vol. 3
					    * §25.1: a VMCS is active on one processor at most) */
	volatile bool unpark_req;          /* another pCPU waits for this parked VMCS */
	uint64_t sched_vectors[4];         /* vectors the scheduler asked to inject */
	uint64_t shared_gpa;               /* per-vCPU scheduler shared page, 0 = none */
	volatile bool kicked;              /* an interrupt may have become pending */
	bool halt_if;                      /* RFLAGS.IF when the guest halted */
	bool halt_nmi_blocked;             /* ... and it was blocked by NMI (virtual NMIs) */
	volatile bool halt_polling;        /* halt poll running: no kick IPI needed (vm/halt_poll.c) */
	stime_t halt_since;                /* when the current halt began, 0 = not halted */
	bool nmi_injected;                 /* an NMI was injected (virtual NMIs) */
	bool exit_unconsumed;              /* last exit's IDT-vectoring info not yet re-injected */
	uint64_t fast_deadline_tsc;        /* fast re-entry allowed until this TSC */
	const volatile bool *resched;      /* need_resched of the pCPU running v (vcpu_run) */
	const volatile bool *vprof_on;     /* v's VM is profiled (vm/vprof_platform.h) */
	uint64_t exits_total;
	uint64_t exits[EXIT_REASON_MAX];
	uint64_t vid_released;             /* of vmx.vid_held: released at the HLT or window
					    * exit without the run loop (issue 18) */
	uint64_t hlt_delivered;            /* no gate: HLTs ended at once by a deliverable
					    * virtual interrupt (vcpu_hlt_deliver_reenter) */
	uint64_t nrekick;   /* entries that re-raised a kick taken after the need_resched test */
	uint32_t ple_window_set;   /* VMCS_PLE_WINDOW as written; 0 = PLE not in use */
	uint64_t cycles_in_guest;
	/* For the watchdog dump (issue 17: a hang explains itself): guest
	 * state at the last HLT, taken on the HLT exit only (not per exit),
	 * with a copy of the stack top when IF=0 (kvm_wait() and friends:
	 * the words that look like kernel text name the callers), the RIP of
	 * the last PAUSE-loop exit, and a stack copy the dump asks for. */
	struct {
		uint64_t halt_rip, halt_rflags;
		uint64_t snap_rip, snap_rsp;          /* where stack[] was copied */
		uint64_t stack[VCPU_DBG_STACK_WORDS]; /* 0 words = not copied */
		unsigned nstack;
		uint64_t ple_rip;
		volatile bool snap_req;               /* copy the stack at the next slow exit */
	} dbg;
};

_Static_assert(offsetof(struct vcpu, vmx) == 0, "vcpu_of() and entry.asm's regs pointer");

/* The vCPU whose hv/vmx part is x (exit handlers and vmx_vm_ops hooks get
 * x; hv/vmx itself never converts back). */
static inline struct vcpu *vcpu_of(struct vmx_vcpu *x)
{
	return container_of(x, struct vcpu, vmx);
}

/* Why vcpu_run() returned. */
enum vcpu_run_end {
	VCPU_RUN_PREEMPTED,   /* the scheduler wants this pCPU (or the VM ended) */
	VCPU_RUN_BLOCKED,     /* HLT with nothing to take */
	VCPU_RUN_YIELD,       /* PAUSE-loop exit */
	VCPU_RUN_OFFLINE,     /* waiting for a SIPI, or the VM is gone */
};

int vcpu_create(struct vm *vm, unsigned id);
/* Run v on this pCPU until it blocks, yields, goes offline or the scheduler
 * wants the pCPU back. */
enum vcpu_run_end vcpu_run(struct vcpu *v);
/* v leaves this pCPU: VMCLEAR its VMCS so any pCPU can load it next. */
void vcpu_put(struct vcpu *v);
bool vcpu_has_wakeup(struct vcpu *v);
#endif
