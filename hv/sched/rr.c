/* rr: plain round robin, one FIFO per pCPU, fixed 10 ms slice, no weights,
 * idle pCPUs steal. The smallest complete policy: a baseline for experiments
 * and a second client of the framework and of the conformance suite.
 * Lock order: pCPU runqueue lock -> (trylock) peer runqueue lock. */
#include "sched/policy.h"
#include "lib/string.h"

#define RR_SLICE 10000000   /* ns */

struct rr_vcpu {
	struct sched_vcpu *v;
	struct rr_vcpu *next, *prev;
	bool queued;
};

struct rr_pcpu {
	struct rr_vcpu *head, *tail;
	unsigned nq;
};

_Static_assert(sizeof(struct rr_vcpu) <= sizeof(((struct sched_vcpu *)0)->priv), "vcpu");
_Static_assert(sizeof(struct rr_pcpu) <= sizeof(((struct sched_pcpu *)0)->priv), "pcpu");

static struct cpumask rr_idlers, rr_busyq;

static inline struct rr_vcpu *RV(struct sched_vcpu *v) { return (void *)v->priv; }
static inline struct rr_pcpu *RP(struct sched_pcpu *p) { return (void *)p->priv; }

static void rr_push(struct sched_pcpu *p, struct rr_vcpu *rv)
{
	struct rr_pcpu *rp = RP(p);

	rv->next = NULL;
	rv->prev = rp->tail;
	if (rp->tail)
		rp->tail->next = rv;
	else
		rp->head = rv;
	rp->tail = rv;
	rv->queued = true;
	if (rp->nq++ == 0)
		cpumask_set(&rr_busyq, p->id);
}

static void rr_del(struct sched_pcpu *p, struct rr_vcpu *rv)
{
	struct rr_pcpu *rp = RP(p);

	if (!rv->queued)
		return;
	if (rv->prev)
		rv->prev->next = rv->next;
	else
		rp->head = rv->next;
	if (rv->next)
		rv->next->prev = rv->prev;
	else
		rp->tail = rv->prev;
	rv->queued = false;
	if (--rp->nq == 0)
		cpumask_clear(&rr_busyq, p->id);
}

static int rr_init(void)
{
	cpumask_zero(&rr_idlers);
	cpumask_zero(&rr_busyq);
	sched_sys.tick_ns = 0;
	sched_sys.acct_ns = 0;
	return 0;
}

static void rr_pcpu_init(struct sched_pcpu *p)
{
	memset(RP(p), 0, sizeof(struct rr_pcpu));
	cpumask_set(&rr_idlers, p->id);
}

/* Fewest queued + running among allowed pCPUs (O(pCPUs): rr has no
 * periodic balancing, so placement at wake-up is what spreads vCPUs). */
static unsigned rr_least_loaded(struct sched_vcpu *v)
{
	unsigned c, best = v->pcpu, load = ~0u;

	for_each_cpu(c, &sched_sys.online) {
		struct sched_pcpu *p = sched_pcpu_get(c);
		unsigned l = 2 * (RP(p)->nq + (p->curr != NULL)) + (c != v->pcpu);

		if (cpumask_test(&v->affinity, c) && l < load) {
			best = c;
			load = l;
		}
	}
	return best;
}

static int rr_vcpu_insert(struct sched_vcpu *v)
{
	memset(RV(v), 0, sizeof(struct rr_vcpu));
	RV(v)->v = v;
	v->pcpu = rr_least_loaded(v);
	return 0;
}

static void rr_vcpu_remove(struct sched_vcpu *v)
{
	rr_del(sched_pcpu_get(v->pcpu), RV(v));
}

static unsigned rr_pick_cpu(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_pcpu_get(v->pcpu);
	unsigned c;

	if (cpumask_test(&v->affinity, v->pcpu) && !p->curr && !RP(p)->nq)
		return v->pcpu;
	c = cpumask_next_and_wrap(&rr_idlers, &v->affinity, v->pcpu + 1);
	if (c < SCHED_MAX_PCPUS && sched_pcpu_get(c)) {
		cpumask_clear(&rr_idlers, c);
		return c;
	}
	return rr_least_loaded(v);
}

static void rr_wake(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_pcpu_get(v->pcpu);
	unsigned c;

	if (RV(v)->queued)
		return;
	rr_push(p, RV(v));
	if (!p->curr) {
		sched_cpu_resched(p->id);
		return;
	}
	c = cpumask_next_and_wrap(&rr_idlers, &v->affinity, p->id + 1);
	if (c < SCHED_MAX_PCPUS && c != p->id) {
		cpumask_clear(&rr_idlers, c);
		sched_cpu_resched(c);
	}
}

static void rr_sleep(struct sched_vcpu *v, stime_t now)
{
	rr_del(sched_pcpu_get(v->pcpu), RV(v));
}

/* An idle pCPU takes the first queued vCPU allowed on it from a peer. */
static struct rr_vcpu *rr_steal(struct sched_pcpu *p, stime_t now)
{
	unsigned c;

	for_each_cpu(c, &rr_busyq) {
		struct sched_pcpu *q = sched_pcpu_get(c);
		struct rr_vcpu *rv = NULL;

		if (c == p->id || !q || !spin_trylock(&q->lock))
			continue;
		for (rv = RP(q)->head; rv; rv = rv->next)
			if (q->curr != rv->v && cpumask_test(&rv->v->affinity, p->id))
				break;
		if (rv) {
			rr_del(q, rv);
			sched_vcpu_migrate(rv->v, p->id, now);
		}
		spin_unlock(&q->lock);
		if (rv)
			return rv;
	}
	return NULL;
}

static struct sched_vcpu *rr_pick(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now,
				  stime_t *slice)
{
	struct rr_vcpu *rv;

	if (prev && !(prev->flags & SCHED_VF_YIELD) && now < p->slice_end) {
		*slice = p->slice_end - now;   /* spurious reschedule: keep it */
		return prev;
	}
	if (prev)
		rr_push(p, RV(prev));
	rv = RP(p)->head;
	if (!rv)
		rv = rr_steal(p, now);
	if (!rv) {
		cpumask_set(&rr_idlers, p->id);
		return NULL;
	}
	rr_del(p, rv);
	cpumask_clear(&rr_idlers, p->id);
	*slice = RR_SLICE;
	return rv->v;
}

static bool rr_preempt_check(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now)
{
	return RP(p)->nq && now >= p->slice_end;
}

SCHED_POLICY_REGISTER(rr) = {
	.name = "rr",
	.desc = "round robin, 10 ms slice, no weights (baseline)",
	.caps = SCHED_CAP_WORKCONS | SCHED_CAP_BALANCE,
	.vcpu_priv = sizeof(struct rr_vcpu),
	.pcpu_priv = sizeof(struct rr_pcpu),
	.init = rr_init,
	.pcpu_init = rr_pcpu_init,
	.vcpu_insert = rr_vcpu_insert,
	.vcpu_remove = rr_vcpu_remove,
	.wake = rr_wake,
	.sleep = rr_sleep,
	.pick = rr_pick,
	.pick_cpu = rr_pick_cpu,
	.preempt_check = rr_preempt_check,
};
