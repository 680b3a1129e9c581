/* The hypervisor side of the scheduler contract (hv/sched/platform.h): time,
 * per-pCPU one-shot timers, kicks, vector injection, shared pages
 * (vm/sched_platform.c); the per-pCPU loop that runs whatever
 * sched_schedule() picks (vm/pcpu_loop.c) and its loop-top poll with the
 * device sweep of blocked vCPUs (vm/dev_sweep.c). */
#ifndef HV_VM_SCHED_PLATFORM_H
#define HV_VM_SCHED_PLATFORM_H
#include "vm/vm.h"
#include "cpu.h"

static inline struct vcpu *to_vcpu(struct sched_vcpu *sv)
{
	return sv ? container_of(sv, struct vcpu, sv) : NULL;
}

/* vm/sched_platform.c */
void sched_plat_init(void);                    /* BSP, after SMP bring-up */
int sched_plat_vm_add(struct vm *vm);          /* VM and its vCPUs (OFFLINE) */
void sched_plat_vcpu_start(struct vcpu *v);    /* boot vCPU, or an AP's SIPI */
/* Something for v happened (interrupt, SIPI): wake it if blocked, and make
 * its pCPU look at it (IPI) if it runs elsewhere. Any context but IRQ. */
void sched_plat_notify(struct vcpu *v);
/* Another pCPU moved a deadline of v's devices earlier: make v's pCPU look
 * again (an idle one leaves its halt and re-polls; a running v exits and
 * re-arms its preemption timer). */
void sched_plat_repoll(struct vcpu *v);
void sched_plat_vm_stopped(struct vm *vm);     /* every vCPU goes OFFLINE */
/* Vectors queued by the scheduler (SA upcalls) for v, delivered before entry. */
void sched_plat_deliver_pending(struct vcpu *v);

/* vm/dev_sweep.c */
/* Poll this pCPU's scheduler timer and its blocked vCPUs' device timers. */
void dev_sweep_poll(struct cpu *c, stime_t now);
/* Any scheduler upcall vector (plat_inject) not yet moved into the vLAPIC? */
bool dev_sweep_vectors_pending(struct vcpu *v);

/* vm/pcpu_loop.c */
/* The per-pCPU loop's calls take this pCPU's object (cpu_this()). Deadline
 * the running vCPU's preemption timer must honour on this pCPU. */
stime_t pcpu_deadline(struct cpu *c);
bool pcpu_need_resched(struct cpu *c);
/* Before an entry from vcpu_run(): is v this pCPU's running vCPU? If not,
 * stops v's VM (only it) and returns false. */
bool pcpu_entry_check(struct vcpu *v, struct cpu *c);
/* Its two loads inline (issue 19: the call on every pass of the run loop
 * was part of the apicv=off self-IPI and EOI rows' rise since 9653719). */
static inline bool sched_plat_entry_ok(struct vcpu *v, struct cpu *c)
{
	uint8_t st = READ_ONCE(v->sv.state);

	if (likely(READ_ONCE(v->sv.pcpu) == c->sched.rq.id && st != SCHED_RUNNABLE &&
		   st != SCHED_BLOCKED))
		return true;
	return pcpu_entry_check(v, c);
}
/* The flag pcpu_need_resched() reads, for lock-free polling (vcpu exits). */
const volatile bool *pcpu_resched_flag(struct cpu *c);
void pcpu_print(void);                    /* per-pCPU counters */

/* What the watchdog (vm/watchdog.c) reads of a pCPU, lock-free. */
struct pcpu_view {
	stime_t heartbeat;          /* last scheduler poll on it */
	stime_t sched_deadline, blocked_deadline;
	bool idle;                  /* halted in the idle loop */
};
void pcpu_view(unsigned cpu, struct pcpu_view *out);
#endif
