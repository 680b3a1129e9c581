/* Virtual CPU objects: saved guest registers, the VMCS, exit counters. */
#ifndef HV_VM_VCPU_H
#define HV_VM_VCPU_H
#include "compiler.h"
#include "spinlock.h"
#include "dev/vlapic.h"
#include "vmx/exit_reasons.h"
#include "vmx/fpu.h"
#include "vmx/kvm_pv.h"

struct vm;

/* Guest GPRs not held in the VMCS; layout shared with hv/vmx/entry.asm. */
struct guest_regs {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t cr2;
};
_Static_assert(offsetof(struct guest_regs, rdi) == 40, "entry.asm GR_RDI");
_Static_assert(offsetof(struct guest_regs, r15) == 112, "entry.asm GR_R15");

enum vcpu_state {
	VCPU_WAIT_SIPI,   /* AP before its start-up IPI */
	VCPU_RUNNABLE,
	VCPU_HALTED,      /* HLT: blocked until an interrupt */
	VCPU_DEAD,
};

struct vcpu {
	struct guest_regs regs;            /* first: entry.asm gets &vcpu->regs */
	struct vm *vm;
	unsigned id;                       /* index in the VM */
	unsigned pcpu;                     /* pCPU it runs on */
	volatile int state;                /* enum vcpu_state */
	paddr_t vmcs;
	bool launched;
	volatile int sipi_vector;          /* -1 none; set by start_vcpu(SIPI) */
	volatile bool init_pending;
	void *apic_page;                   /* vLAPIC registers = virtual-APIC page */
	struct vlapic lapic;
	struct fpu_state fpu;              /* x87/SSE/AVX state and XCR0 */
	struct kvm_pv_vcpu kvm;            /* KVM PV: kvmclock, steal time, kicks */
	struct vcpu *next_on_pcpu;         /* simple per-pCPU run list */
	uint64_t exits_total;
	uint64_t exits[EXIT_REASON_MAX];
	uint64_t ple_exits;
	uint64_t cycles_in_guest;
};

int vcpu_create(struct vm *vm, unsigned id, unsigned pcpu);
/* Run on this pCPU until it halts, dies or is asked to yield. */
void vcpu_run(struct vcpu *v);
#endif
