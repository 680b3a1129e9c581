/* Virtual machines: created from the boot modules, each with its RAM (one
 * contiguous host block mapped at guest-physical 0 by EPT), vCPUs, devices. */
#ifndef HV_VM_VM_H
#define HV_VM_VM_H
#include "compiler.h"
#include "spinlock.h"
#include "lib/ratelimit.h"
#include "bootinfo.h"
#include "vm/vcpu.h"
#include "vm/modstr.h"
#include "vm/devs.h"
#include "vmx/vcpu.h"
#include "load/loader.h"
#include "vm_limits.h"   /* VM_MAX */

enum vm_state { VM_RUNNING = 0, VM_DEAD = 1 };

struct vm {
	unsigned id;
	struct vm_params p;              /* from the module string */
	struct sched_vm sv;              /* hv/sched's view */
	volatile int state;
	int exit_status;
	const char *exit_reason;
	unsigned nr_vcpus;
	struct vcpu *vcpu[VM_MAX_VCPUS];
	uint8_t *ram;                    /* host pointer (= host physical) of gpa 0 */
	uint64_t ram_size;
	struct vmx_vm vmx;               /* hv/vmx's part: EPT, bitmaps, CPUID/MSR policy */
	struct vm_devs devs;
	struct guest_entry entry;        /* boot vCPU's first state */
	spinlock_t lock;
	char line[160];                  /* guest console line being assembled */
	unsigned line_len;
	/* Console output an unprivileged VM causes by hypercall (hypercall.c,
	 * docs/security.md); under lock. */
	struct ratelimit rl_console;      /* test-result lines, console puts */
	struct ratelimit rl_vprof;        /* vProfile starts (each stop dumps) */
};

extern struct vm *vms[VM_MAX];
extern unsigned nr_vms;

/* Create every VM the boot modules describe (errors end that VM only). */
void vm_create_all(const struct boot_info *bi);
/* End a VM: its vCPUs stop, others keep running. Safe from any pCPU. */
void vm_stop(struct vm *vm, int status, const char *reason);
/* The per-pCPU loop (vm/pcpu_loop.c): run what the scheduler picks. */
__noreturn void vm_cpu_loop(void);
/* A vCPU has something new to handle: wake it, make its pCPU look. */
void vm_kick_vcpu(struct vcpu *v);
void vm_wait_ready(void);
bool vm_all_dead(void);
__noreturn void vm_finish(void);   /* summary and the end of the run */
void vm_print_exits(struct vm *vm);
/* Directed yield (KVM_HC_SCHED_YIELD, PLE): give the pCPU up in favour of target. */
void vm_vcpu_yield_to(struct vcpu *self, struct vcpu *target);
#endif
