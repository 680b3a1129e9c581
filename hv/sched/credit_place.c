/* Credit (see credit.c for the policy and the lock order): placement (the
 * pCPU a vCPU gets at creation and on a wake-up), the per-pCPU, VM and vCPU
 * setup and a VM's parameter change, the balloon's unboost, the dump, and
 * the services variants call (credit.h). */
#include "sched/credit_priv.h"
#include "log.h"
#include "errno.h"
#include "lib/string.h"

/* ---- placement ---------------------------------------------------------- */
/* Where a waking vCPU should go: stay if its pCPU is idle, else an idle pCPU
 * it may use (Xen's _csched_cpu_pick, without SMT/NUMA awareness). */
unsigned csched_pick_cpu(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_pcpu_get(v->pcpu);
	unsigned c;
	int e = csched_hooks && csched_hooks->pick_cpu ? csched_hooks->pick_cpu(v, now) : -1;

	if (e >= 0)
		return (unsigned)e;

	if (cpumask_test(&v->affinity, v->pcpu) && !p->curr && !csched_load(p))
		return v->pcpu;
	c = cpumask_next_and_wrap(&csched_prv.idlers, &v->affinity, v->pcpu + 1);
	if (c < SCHED_MAX_PCPUS && sched_pcpu_get(c)) {
		cpumask_clear(&csched_prv.idlers, c);   /* claimed: the next waker looks elsewhere */
		return c;
	}
	if (cpumask_test(&v->affinity, v->pcpu))
		return v->pcpu;
	c = cpumask_next_and(&v->affinity, &sched_sys.online, 0);
	return c < SCHED_MAX_PCPUS ? c : v->pcpu;
}

/* ---- setup ------------------------------------------------------------- */
void csched_pcpu_init(struct sched_pcpu *p)
{
	memset(CP(p), 0, sizeof(struct csched_pcpu));
	CP(p)->epoch = csched_prv.epoch;
	cpumask_set(&csched_prv.idlers, p->id);
}

int csched_vm_init(struct sched_vm *vm)
{
	memset(vm->priv, 0, CSCHED_VM_BYTES + CSCHED_VM_EXT_BYTES);
	CD(vm)->cap_left = (stime_t)vm->params.cap * csched_prv.tslice / 100;
	return 0;
}

void csched_vm_adjust(struct sched_vm *vm)
{
	spin_lock(&csched_prv.lock);
	if (!vm->params.cap)
		WRITE_ONCE(CD(vm)->parked, 0);
	CD(vm)->cap_left = MIN(CD(vm)->cap_left, (stime_t)vm->params.cap * csched_prv.tslice / 100);
	csched_prv.epoch++;
	spin_unlock(&csched_prv.lock);
	if (csched_hooks && csched_hooks->vm_adjust)
		csched_hooks->vm_adjust(vm);
}

/* Least loaded allowed pCPU at creation: spreads a VM's vCPUs. */
int csched_vcpu_insert(struct sched_vcpu *v)
{
	struct csched_vcpu *cv = CV(v);
	unsigned c, best = SCHED_MAX_PCPUS, load = ~0u;

	memset(v->priv, 0, CSCHED_VCPU_BYTES + CSCHED_VCPU_EXT_BYTES);
	cv->v = v;
	cv->pri = CPRI_UNDER;
	if (csched_hooks && csched_hooks->place) {
		int e = csched_hooks->place(v);

		if (e >= 0) {
			v->pcpu = (unsigned)e;
			return 0;
		}
	}
	for_each_cpu(c, &sched_sys.online) {
		unsigned l = csched_load(sched_pcpu_get(c));

		if (cpumask_test(&v->affinity, c) && l < load) {
			best = c;
			load = l;
		}
	}
	if (best == SCHED_MAX_PCPUS)
		return trace_error(-EINVAL);
	v->pcpu = best;
	/* Count it as load right away so the next insert goes elsewhere. */
	cv->active = 0;
	return 0;
}

/*
 * sched_balloon_share=excl (preempt.c): the vCPU's VM just turned WC. A
 * BOOST it still holds came from waking for I/O (or for the mode change);
 * the compute it runs now must not keep it, or the other ballooning VM's
 * BOOSTed wake cannot preempt it (equal priority), and the tick's demotion
 * (csched_tick) does not re-pick: the waker would wait out the slice
 * (seed 004 §4.3 "CPU sharing": the compute task must not impede the I/O
 * task preempting other VMs). locked(v->pcpu).
 */
bool csched_balloon_unboost(struct sched_vcpu *v)
{
	struct csched_vcpu *cv = CV(v);

	if (cv->pri != CPRI_BOOST)
		return false;
	cv->pri = CPRI_UNDER;
	if (cv->queued)   /* csched_refresh moves it to the UNDER queue */
		__atomic_store_n(&CP(sched_pcpu_get(v->pcpu))->resort, 1, __ATOMIC_RELEASE);
	return v->state == SCHED_RUNNING;
}

void csched_dump(struct sched_pcpu *p, stime_t now)
{
	struct csched_pcpu *pc = CP(p);

	pr_info("credit: cpu%u curr=%d.%d boost=%u under=%u over=%u parked=%d\n", p->id,
		p->curr ? p->curr->vm->id : -1, p->curr ? p->curr->id : -1,
		pc->nq[CPRI_BOOST], pc->nq[CPRI_UNDER], pc->nq[CPRI_OVER], pc->parked != NULL);
	if (csched_hooks && csched_hooks->dump)
		csched_hooks->dump(p, now);
}

/* ---- services for variants (credit.h) ----------------------------------- */
int csched_vcpu_pri(struct sched_vcpu *v)
{
	return READ_ONCE(CV(v)->pri);
}

void csched_vcpu_set_pri(struct sched_vcpu *v, int pri)
{
	CV(v)->pri = (uint8_t)pri;
}

void csched_vcpu_raise(struct sched_vcpu *v, int pri)
{
	unsigned c = READ_ONCE(v->pcpu);
	struct sched_pcpu *q = sched_pcpu_get(c);
	struct sched_vcpu *cur;

	WRITE_ONCE(CV(v)->pri, (uint8_t)pri);
	if (!q)
		return;
	__atomic_store_n(&CP(q)->resort, 1, __ATOMIC_RELEASE);
	cur = READ_ONCE(q->curr);
	if (!cur || READ_ONCE(CV(cur)->pri) < pri)
		sched_cpu_resched(c);
}

struct sched_vcpu *csched_runq_find(struct sched_pcpu *p,
				    bool (*match)(struct sched_vcpu *v, void *arg), void *arg)
{
	for (int c = CPRI_COS; c > CPRI_IDLE; c--)
		for (struct csched_vcpu *cv = CP(p)->head[c]; cv; cv = cv->next)
			if (match(cv->v, arg))
				return cv->v;
	return NULL;
}

struct sched_vcpu *csched_runq_find_vm(struct sched_pcpu *p, const struct sched_vm *vm,
				       bool (*is_hit)(const struct sched_vm *vm),
				       struct sched_vcpu **hit)
{
	*hit = NULL;
	for (int c = CPRI_COS; c > CPRI_IDLE; c--)
		for (struct csched_vcpu *cv = CP(p)->head[c]; cv; cv = cv->next) {
			if (cv->v->vm == vm)
				return cv->v;
			if (!*hit && is_hit(cv->v->vm))
				*hit = cv->v;
		}
	return NULL;
}

unsigned csched_pcpu_load(unsigned cpu)
{
	struct sched_pcpu *p = sched_pcpu_get(cpu);

	return p ? csched_load(p) : 0;
}
