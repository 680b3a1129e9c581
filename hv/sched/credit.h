/* The credit core's extension interface (docs/sched.md "Co-scheduling
 * family"). credit.c keeps all of credit's accounting (credits, BOOST/UNDER/
 * OVER, caps, weights, rate limit, stealing); a variant is one file that
 * registers its own policy with CSCHED_POLICY_OPS(its_init) and, from that
 * init, hands the core a table of hooks with csched_init_ext(). Only the
 * selected policy's init runs, so one global hook table suffices.
 *
 * Locking: hooks marked locked(p) run with p's runqueue lock held; they may
 * take their own global lock (after credit's csched_prv.lock in the lock order,
 * before sched_sys.vm_lock) and only trylock peer runqueues.
 */
#ifndef HV_SCHED_CREDIT_H
#define HV_SCHED_CREDIT_H
#include "sched/policy.h"

/* Credit priorities. COS (seed 003 Alg. 2) is above BOOST and used only by
 * bcs; credit itself never sets it. */
enum { CPRI_IDLE = 0, CPRI_OVER = 1, CPRI_UNDER = 2, CPRI_BOOST = 3, CPRI_COS = 4, CPRI_N = 5 };

struct csched_ext {
	/* prev (RUNNING on p) must leave p at this decision whatever its slice
	 * and the rate limit say: a co-scheduling signal or co-descheduling is
	 * pending for p. No side effects (also asked by preempt_check, so
	 * delayed preemption and SA holds see the preemption). locked(p). */
	bool (*must_switch)(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now);
	/* The decision: cand is credit's choice (queued on p, or stolen and
	 * unqueued; NULL = nothing). Return cand, another vCPU queued on p, or
	 * NULL to idle. prev is the vCPU p ran (already requeued if RUNNABLE),
	 * or p->curr when it blocked; may be NULL. locked(p). */
	struct sched_vcpu *(*pick)(struct sched_pcpu *p, struct sched_vcpu *prev,
				   struct sched_vcpu *cand, stime_t now);
	/* May p steal v, queued on a peer? (keeps a CON VM scattered) */
	bool (*may_steal)(struct sched_pcpu *p, struct sched_vcpu *v);
	/* Wake placement override: a pCPU, or -1 for credit's choice. locked(v->pcpu). */
	int (*pick_cpu)(struct sched_vcpu *v, stime_t now);
	/* New vCPU placement (scatter): a pCPU, or -1 for credit's least loaded. */
	int (*place)(struct sched_vcpu *v);
	/* After credit's vm_adjust (a VM's type may have changed). No lock. */
	void (*vm_adjust)(struct sched_vm *vm);
	/* After credit's tick / accounting. */
	void (*tick)(struct sched_pcpu *p, stime_t now);
	void (*acct)(stime_t now);
	void (*dump)(struct sched_pcpu *p, stime_t now);
};

/* Credit's ops, for a variant's table. The variant's init must call
 * csched_init_ext(&its_hooks) (which runs credit's init). */
int csched_init_ext(const struct csched_ext *ext);
void csched_pcpu_init(struct sched_pcpu *p);
int csched_vm_init(struct sched_vm *vm);
void csched_vm_adjust(struct sched_vm *vm);
int csched_vcpu_insert(struct sched_vcpu *v);
void csched_vcpu_remove(struct sched_vcpu *v);
void csched_wake(struct sched_vcpu *v, stime_t now);
void csched_sleep(struct sched_vcpu *v, stime_t now);
struct sched_vcpu *csched_pick(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now,
			       stime_t *slice);
void csched_yield(struct sched_vcpu *v, struct sched_vcpu *target, int why);
unsigned csched_pick_cpu(struct sched_vcpu *v, stime_t now);
void csched_tick(struct sched_pcpu *p, stime_t now);
void csched_acct(stime_t now);
bool csched_preempt_check(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now);
stime_t csched_vm_budget(struct sched_vm *vm, stime_t now, stime_t *refill_at);
bool csched_balloon_unboost(struct sched_vcpu *v);
void csched_dump(struct sched_pcpu *p, stime_t now);
void csched_carry_out(struct sched_vcpu *v, struct sched_carry *c);
void csched_carry_in(struct sched_vcpu *v, const struct sched_carry *c);

/* Everything but name, desc and caps. */
#define CSCHED_POLICY_OPS(init_fn)                                              \
	.vcpu_priv = CSCHED_VCPU_BYTES + CSCHED_VCPU_EXT_BYTES,                 \
	.vm_priv = CSCHED_VM_BYTES + CSCHED_VM_EXT_BYTES,                       \
	.pcpu_priv = CSCHED_PCPU_BYTES,                                         \
	.init = (init_fn), .pcpu_init = csched_pcpu_init,                       \
	.vm_init = csched_vm_init, .vm_adjust = csched_vm_adjust,               \
	.vcpu_insert = csched_vcpu_insert, .vcpu_remove = csched_vcpu_remove,   \
	.wake = csched_wake, .sleep = csched_sleep, .pick = csched_pick,        \
	.yield = csched_yield, .pick_cpu = csched_pick_cpu,                     \
	.tick = csched_tick, .acct = csched_acct,                               \
	.preempt_check = csched_preempt_check, .vm_budget = csched_vm_budget,   \
	.balloon_unboost = csched_balloon_unboost, .dump = csched_dump,         \
	.vcpu_carry_out = csched_carry_out, .vcpu_carry_in = csched_carry_in

/* Private areas: credit's part first, then the variant's (zeroed by credit
 * at vm_init / vcpu_insert). */
#define CSCHED_VCPU_BYTES     56
#define CSCHED_VM_BYTES       16
#define CSCHED_PCPU_BYTES     136
#define CSCHED_VCPU_EXT_BYTES (sizeof(((struct sched_vcpu *)0)->priv) - CSCHED_VCPU_BYTES)
#define CSCHED_VM_EXT_BYTES   (sizeof(((struct sched_vm *)0)->priv) - CSCHED_VM_BYTES)
static inline void *csched_vcpu_ext(struct sched_vcpu *v)
{
	return (char *)v->priv + CSCHED_VCPU_BYTES;
}
static inline void *csched_vm_ext(struct sched_vm *vm)
{
	return (char *)vm->priv + CSCHED_VM_BYTES;
}

/* Services for variants. */
int csched_vcpu_pri(struct sched_vcpu *v);
/* Raise a queued vCPU on another runqueue to pri: takes effect at its pCPU's
 * next decision (re-sort), and tickles that pCPU if its current vCPU has a
 * lower priority (credit's __runq_tickle). Any lock state. */
void csched_vcpu_raise(struct sched_vcpu *v, int pri);
/* Set the priority of a vCPU that is not queued (the one being picked). */
void csched_vcpu_set_pri(struct sched_vcpu *v, int pri);
/* First vCPU queued on p (priority order, FIFO) with match(v, arg). locked(p). */
struct sched_vcpu *csched_runq_find(struct sched_pcpu *p,
				    bool (*match)(struct sched_vcpu *v, void *arg), void *arg);
/* One pass for a co-scheduling signal (seed 003 Alg. 1 lines 4-11): the
 * first vCPU of vm queued on p, and in *hit the first before it or, with
 * none, in the whole queue with is_hit(its VM) (evaluated until one is
 * found). O(queue on p), no call per vCPU of vm. locked(p). */
struct sched_vcpu *csched_runq_find_vm(struct sched_pcpu *p, const struct sched_vm *vm,
				       bool (*is_hit)(const struct sched_vm *vm),
				       struct sched_vcpu **hit);
/* Queued/running load of a pCPU (credit's measure). */
unsigned csched_pcpu_load(unsigned cpu);
#endif
