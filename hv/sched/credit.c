/* Credit: Xen credit1 semantics (xen/common/sched/credit.c) on the hv/sched
 * framework. Credits are kept in ns of pCPU time. Priorities BOOST > UNDER >
 * OVER; per-pCPU runqueue with one FIFO per priority; credit refill every
 * accounting period (= tslice) on the master pCPU; 10 ms tick demotes BOOST;
 * rate limit; work stealing by idle or OVER pCPUs; caps park a VM.
 * Differences from Xen are listed in docs/sched.md. This file: runqueues,
 * burning and caps, tickling, wake/sleep/yield, pick and stealing, the
 * registration; placement, setup and the services for variants are
 * credit_place.c, the accounting (tick, refill, carry across a switch,
 * balloon budget) credit_acct.c, the state they share credit_priv.h.
 *
 * Lock order: pCPU runqueue lock(s) -> csched_prv.lock -> sched_sys.vm_lock.
 * Peer runqueues are only ever trylocked (work stealing).
 */
#include "sched/credit_priv.h"
#include "sched/option.h"
#include "log.h"
#include "errno.h"
#include "lib/string.h"

#pragma weak vprof_accounting_suspended

const struct csched_ext *csched_hooks;
struct csched_prv csched_prv;

/* ---- runqueue: one FIFO per priority; locked(p) ----------------------- */
static void rq_insert(struct sched_pcpu *p, struct csched_vcpu *cv)
{
	struct csched_pcpu *pc = CP(p);
	unsigned c = cv->pri;

	cv->qpri = (uint8_t)c;
	cv->next = NULL;
	cv->prev = pc->tail[c];
	if (pc->tail[c])
		pc->tail[c]->next = cv;
	else
		pc->head[c] = cv;
	pc->tail[c] = cv;
	if (pc->nq[c]++ == 0)
		cpumask_set(&csched_prv.qmask[c], p->id);
	cv->queued = 1;
}

/* Queue cv at the head of its priority's FIFO (a demoted vCPU, see
 * csched_refresh). locked(p). */
static void rq_insert_head(struct sched_pcpu *p, struct csched_vcpu *cv)
{
	struct csched_pcpu *pc = CP(p);
	unsigned c = cv->pri;

	cv->qpri = (uint8_t)c;
	cv->prev = NULL;
	cv->next = pc->head[c];
	if (pc->head[c])
		pc->head[c]->prev = cv;
	else
		pc->tail[c] = cv;
	pc->head[c] = cv;
	if (pc->nq[c]++ == 0)
		cpumask_set(&csched_prv.qmask[c], p->id);
	cv->queued = 1;
}

static void rq_remove(struct sched_pcpu *p, struct csched_vcpu *cv)
{
	struct csched_pcpu *pc = CP(p);
	unsigned c = cv->qpri;

	if (cv->prev)
		cv->prev->next = cv->next;
	else
		pc->head[c] = cv->next;
	if (cv->next)
		cv->next->prev = cv->prev;
	else
		pc->tail[c] = cv->prev;
	if (--pc->nq[c] == 0)
		cpumask_clear(&csched_prv.qmask[c], p->id);
	cv->queued = 0;
	cv->next = cv->prev = NULL;
}

static void park_insert(struct sched_pcpu *p, struct csched_vcpu *cv)
{
	cv->next = CP(p)->parked;
	cv->prev = NULL;
	if (cv->next)
		cv->next->prev = cv;
	CP(p)->parked = cv;
	cv->queued = 2;
	cpumask_set(&csched_prv.parked_cpus, p->id);
}

static void park_remove(struct sched_pcpu *p, struct csched_vcpu *cv)
{
	if (cv->prev)
		cv->prev->next = cv->next;
	else
		CP(p)->parked = cv->next;
	if (cv->next)
		cv->next->prev = cv->prev;
	cv->queued = 0;
	cv->next = cv->prev = NULL;
	if (!CP(p)->parked)
		cpumask_clear(&csched_prv.parked_cpus, p->id);
}

static void csched_dequeue(struct sched_pcpu *p, struct csched_vcpu *cv)
{
	if (cv->queued == 1)
		rq_remove(p, cv);
	else if (cv->queued == 2)
		park_remove(p, cv);
}

/* Queue a RUNNABLE vCPU, or hold it back if its VM is capped out. */
static void csched_enqueue(struct sched_pcpu *p, struct csched_vcpu *cv)
{
	if (READ_ONCE(CD(cv->v->vm)->parked))
		park_insert(p, cv);
	else
		rq_insert(p, cv);
}

/* After an accounting period: move vCPUs whose priority changed, release
 * parked ones whose VM got budget again (Xen's csched_runq_sort). locked(p).
 * Xen's sort keeps the queue's order: a vCPU demoted (a queued BOOST or COS
 * vCPU that the refill set to UNDER) stays ahead of the class it falls into,
 * so it goes to that FIFO's head (the lower source classes first, each from
 * its tail, so the old order holds); a promoted one joins its new FIFO's
 * tail. Appending a demoted waker instead put a BOOST wake behind every
 * UNDER vCPU queued before it: with a co-stop (relaxed) ending the current
 * vCPU inside a delayed-preemption hold, the waker then waited a whole
 * slice (docs/sched.md "Conformance"). */
void csched_refresh(struct sched_pcpu *p)
{
	struct csched_pcpu *pc = CP(p);
	struct csched_vcpu *cv, *nx;
	uint64_t e = READ_ONCE(csched_prv.epoch);

	if (pc->epoch == e && !__atomic_exchange_n(&pc->resort, 0, __ATOMIC_ACQ_REL))
		return;
	pc->epoch = e;
	for (unsigned c = CPRI_OVER; c < CPRI_N; c++) {
		for (cv = pc->tail[c]; cv; cv = nx) {
			nx = cv->prev;
			if (cv->pri < cv->qpri) {
				rq_remove(p, cv);
				rq_insert_head(p, cv);
			}
		}
		for (cv = pc->head[c]; cv; cv = nx) {
			nx = cv->next;
			if (cv->pri > cv->qpri) {
				rq_remove(p, cv);
				rq_insert(p, cv);
			}
		}
	}
	for (cv = pc->parked; cv; cv = nx) {
		nx = cv->next;
		if (!READ_ONCE(CD(cv->v->vm)->parked)) {
			park_remove(p, cv);
			rq_insert(p, cv);
		}
	}
}

/* ---- credit burning and caps ------------------------------------------ */
static void csched_vm_park(struct sched_vm *vm)
{
	struct sched_vcpu *v;

	WRITE_ONCE(CD(vm)->parked, 1);
	spin_lock(&sched_sys.vm_lock);
	for (v = vm->vcpus; v; v = v->vm_next)
		if (READ_ONCE(v->state) == SCHED_RUNNING)
			sched_cpu_resched(READ_ONCE(v->pcpu));
	spin_unlock(&sched_sys.vm_lock);
}

/* Charge the running v for the time since its last burn. locked(v->pcpu). */
void csched_burn(struct sched_vcpu *v, stime_t now)
{
	struct csched_vcpu *cv = CV(v);
	struct csched_vm *cd = CD(v->vm);
	stime_t d = now - cv->start;

	if (d <= 0)
		return;
	cv->start = now;
	if (vprof_accounting_suspended && vprof_accounting_suspended())
		return;   /* dedicated mode does not debit (seed 001 §2.3) */
	__atomic_fetch_sub(&cv->credit, d, __ATOMIC_RELAXED);
	/* Charged => takes part in the next refill. Xen activates only vCPUs
	 * sampled at a tick; a vCPU that always blocks before the tick then
	 * piles up debt outside accounting and loses BOOST (docs/sched.md). */
	WRITE_ONCE(cv->active, 1);
	if (v->vm->params.cap &&
	    __atomic_sub_fetch(&cd->cap_left, d, __ATOMIC_RELAXED) <= 0 && !READ_ONCE(cd->parked))
		csched_vm_park(v->vm);
}

/* ---- tickling ----------------------------------------------------------- */
/* A vCPU was queued on p: preempt p's current one if it has lower priority,
 * else wake an idle pCPU that may steal it (Xen's __runq_tickle). */
static void csched_tickle(struct sched_pcpu *p, struct csched_vcpu *cv)
{
	unsigned c;

	if (!p->curr || cv->pri > CV(p->curr)->pri) {
		cpumask_clear(&csched_prv.idlers, p->id);
		sched_cpu_resched(p->id);
		return;
	}
	c = cpumask_next_and_wrap(&csched_prv.idlers, &cv->v->affinity, p->id + 1);
	if (c < SCHED_MAX_PCPUS && c != p->id) {
		cpumask_clear(&csched_prv.idlers, c);   /* one tickle per idler */
		sched_cpu_resched(c);
	}
}

/* ---- ops ----------------------------------------------------------------- */
int csched_init_ext(const struct csched_ext *e)
{
	csched_hooks = e;
	memset(&csched_prv, 0, sizeof(csched_prv));
	csched_prv.tslice = sched_opts.credit_tslice;
	csched_prv.ratelimit = MIN(sched_opts.ratelimit, csched_prv.tslice);
	sched_sys.tick_ns = MIN(sched_opts.credit_tick, csched_prv.tslice);
	sched_sys.acct_ns = csched_prv.tslice;
	return 0;
}

void csched_vcpu_remove(struct sched_vcpu *v)
{
	csched_dequeue(sched_pcpu_get(v->pcpu), CV(v));
}

void csched_wake(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_pcpu_get(v->pcpu);
	struct csched_vcpu *cv = CV(v);

	if (cv->queued)
		return;
	cv->yield = 0;
	/* BOOST: woken from blocking with credit left (Xen csched_unit_wake). */
	if ((v->flags & SCHED_VF_WOKEN) && cv->pri == CPRI_UNDER && !CD(v->vm)->parked)
		cv->pri = CPRI_BOOST;
	csched_enqueue(p, cv);
	if (cv->queued == 1)
		csched_tickle(p, cv);
}

/*
 * Wake and run here (issue 19; the core's sched_wake_run, policy.h
 * wake_local). Xen's csched_unit_wake followed by csched_schedule on the
 * vCPU's own pCPU p, folded into one step where their outcome is known:
 * - _csched_cpu_pick keeps v on p: p may run it, runs nothing and queues
 *   nothing (csched_pick_cpu's first test);
 * - csched_unit_wake: BOOST if it woke from blocking with credit left (UNDER)
 *   and its VM is not capped out; a capped-out VM's vCPU would be parked
 *   instead, and the normal path does that;
 * - __runq_tickle would only tickle p itself (idle, nothing queued);
 * - csched_schedule: runq_sort (csched_refresh: p queues nothing, so only
 *   its epoch moves); the best queued vCPU would be v alone; load balancing
 *   runs only when that is OVER (or nothing): an OVER v goes the normal way,
 *   where p may steal an UNDER or BOOST vCPU from a peer instead; then
 *   v's charge starts, p leaves the idlers, the slice is tslice (cut for a
 *   cap as csched_pick does).
 * Variants (csched_hooks: co-scheduling, gang, ...) pick through their own
 * hooks, and the core refuses when p has a reschedule (tickle, cap,
 * co-scheduling signal), a hold or a directed yield pending. locked(p).
 */
static bool csched_wake_local(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now,
			      stime_t *slice)
{
	struct csched_vcpu *cv = CV(v);
	uint8_t pri = cv->pri;

	if (csched_hooks || cv->queued || CP(p)->parked || csched_load(p) ||
	    !cpumask_test(&v->affinity, p->id) || READ_ONCE(CD(v->vm)->parked))
		return false;
	if ((v->flags & SCHED_VF_WOKEN) && pri == CPRI_UNDER)
		pri = CPRI_BOOST;
	if (pri <= CPRI_OVER)
		return false;
	csched_refresh(p);
	cv->pri = pri;
	cv->yield = 0;
	cv->start = now;
	cpumask_clear(&csched_prv.idlers, p->id);
	*slice = csched_prv.tslice;
	if (v->vm->params.cap)
		*slice = MAX(MIN(*slice, READ_ONCE(CD(v->vm)->cap_left) /
				 MAX(v->vm->nvcpus, (uint16_t)1)), csched_prv.ratelimit / 2 + 1);
	return true;
}

void csched_sleep(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_pcpu_get(v->pcpu);

	if (p->curr == v && v->state == SCHED_RUNNING)
		csched_burn(v, now);
	csched_dequeue(p, CV(v));
	if (CV(v)->pri == CPRI_COS)
		CV(v)->pri = CPRI_UNDER;
}

void csched_yield(struct sched_vcpu *v, struct sched_vcpu *target, int why)
{
	CV(v)->yield = 1;   /* a directed target is honoured in csched_pick */
}

/* Best queued vCPU on p; a yielder goes behind one lower-priority vCPU. */
static struct csched_vcpu *csched_runq_best(struct sched_pcpu *p)
{
	struct csched_pcpu *pc = CP(p);

	for (int c = CPRI_COS; c > CPRI_IDLE; c--) {
		struct csched_vcpu *cv = pc->head[c];

		if (!cv)
			continue;
		for (struct csched_vcpu *n = cv; n && cv->yield; n = n->next)
			if (!n->yield)
				return n;
		if (cv->yield)
			for (int l = c - 1; l > CPRI_IDLE; l--)
				if (pc->head[l])
					return pc->head[l];
		return cv;
	}
	return NULL;
}

/* A vCPU on peer q that p may run: priority above `above`, not yielding,
 * not current there, allowed on p. locked(p), q trylocked. */
static struct csched_vcpu *csched_steal_from(struct sched_pcpu *p, struct sched_pcpu *q,
					     int above)
{
	for (int c = CPRI_COS; c > above; c--)
		for (struct csched_vcpu *cv = CP(q)->head[c]; cv; cv = cv->next)
			if (!cv->yield && q->curr != cv->v && cpumask_test(&cv->v->affinity, p->id) &&
			    (!csched_hooks || !csched_hooks->may_steal || csched_hooks->may_steal(p, cv->v)))
				return cv;
	return NULL;
}

/* Xen's csched_load_balance: an idle or OVER pCPU takes work from peers
 * that queue something better than `above`, starting after itself. */
static struct csched_vcpu *csched_steal(struct sched_pcpu *p, int above, stime_t now)
{
	struct cpumask cand;
	unsigned start = p->id + 1;

	cpumask_zero(&cand);
	for (int l = above + 1; l < CPRI_N; l++)
		for (unsigned i = 0; i < CPUMASK_WORDS; i++)
			cand.w[i] |= READ_ONCE(csched_prv.qmask[l].w[i]);
	cpumask_clear(&cand, p->id);
	for (int pass = 0; pass < 2; pass++) {
		unsigned end = pass ? start : SCHED_MAX_PCPUS, c;

		for (c = cpumask_next_and(&cand, NULL, pass ? 0 : start); c < end;
		     c = cpumask_next_and(&cand, NULL, c + 1)) {
			struct sched_pcpu *q = sched_pcpu_get(c);
			struct csched_vcpu *cv;

			if (!q || !spin_trylock(&q->lock))
				continue;
			cv = csched_steal_from(p, q, above);
			if (cv) {
				rq_remove(q, cv);
				sched_vcpu_migrate(cv->v, p->id, now);
			}
			spin_unlock(&q->lock);
			if (cv)
				return cv;
		}
	}
	return NULL;
}

/* Work left queued on p while pCPUs idle: wake one that may take it. */
static void csched_spill(struct sched_pcpu *p)
{
	struct csched_vcpu *head = csched_runq_best(p);
	unsigned c;

	if (!head || cpumask_empty(&csched_prv.idlers))
		return;
	c = cpumask_next_and_wrap(&csched_prv.idlers, &head->v->affinity, p->id + 1);
	if (c < SCHED_MAX_PCPUS && c != p->id) {
		cpumask_clear(&csched_prv.idlers, c);
		sched_cpu_resched(c);
	}
}

struct sched_vcpu *csched_pick(struct sched_pcpu *p, struct sched_vcpu *prev,
			       stime_t now, stime_t *slice)
{
	struct csched_vcpu *cv, *pv = prev ? CV(prev) : NULL;
	struct csched_vm *cd;
	bool force = pv && csched_hooks && csched_hooks->must_switch &&
		     csched_hooks->must_switch(p, prev, now);

	csched_refresh(p);
	if (pv) {
		csched_burn(prev, now);
		cd = CD(prev->vm);
		/* A reschedule before the slice ends only preempts for a
		 * higher priority (tickle); equal ones wait for the slice.
		 * A co-scheduling signal (force) preempts regardless. */
		cv = csched_runq_best(p);
		if (!force && !pv->yield && !cd->parked && now < p->slice_end &&
		    (!cv || cv->pri <= pv->pri)) {
			*slice = p->slice_end - now;
			return prev;
		}
		/* Rate limit: a vCPU keeps the pCPU for at least ratelimit. */
		if (!force && !pv->yield && !cd->parked && csched_prv.ratelimit &&
		    now - p->curr_since < csched_prv.ratelimit) {
			*slice = csched_prv.ratelimit - (now - p->curr_since);
			return prev;
		}
		csched_enqueue(p, pv);
	}
	cv = csched_runq_best(p);
	/* Directed yield (PLE, hv/sched/ple.c): the core pulled the target onto
	 * p; it runs next whatever its priority (one slice, as KVM's yield_to). */
	if (pv && pv->yield && p->yield_target && p->yield_target->pcpu == p->id &&
	    CV(p->yield_target)->queued == 1)
		cv = CV(p->yield_target);
	if (!cv || cv->pri <= CPRI_OVER) {
		struct csched_vcpu *st = csched_steal(p, cv ? cv->pri : CPRI_IDLE, now);

		if (st)
			cv = st;
	}
	if (csched_hooks && csched_hooks->pick) {
		struct sched_vcpu *n = csched_hooks->pick(p, prev ? prev : p->curr, cv ? cv->v : NULL, now);

		if (cv && n != cv->v && !cv->queued)
			csched_enqueue(p, cv);   /* a stolen candidate the variant refused */
		cv = n ? CV(n) : NULL;
	}
	if (!cv) {
		cpumask_set(&csched_prv.idlers, p->id);
		if (pv)
			pv->yield = 0;
		return NULL;
	}
	if (cv->queued == 1)
		rq_remove(p, cv);
	csched_spill(p);
	cv->yield = 0;
	/* A yield affects this one decision only (Xen clears the flag in
	 * csched_schedule): left set, a queued yielder would be skipped by
	 * stealing and, once every queued vCPU had yielded, the queue would
	 * keep returning the same one. */
	if (pv)
		pv->yield = 0;
	cv->start = now;
	cpumask_clear(&csched_prv.idlers, p->id);
	*slice = csched_prv.tslice;
	/* A capped VM: cut the slice to this vCPU's part of the VM's budget
	 * left, so siblings running at once (co-scheduled) cannot together
	 * overshoot the cap by up to a tick each. */
	if (cv->v->vm->params.cap)
		*slice = MAX(MIN(*slice, READ_ONCE(CD(cv->v->vm)->cap_left) /
				 MAX(cv->v->vm->nvcpus, (uint16_t)1)), csched_prv.ratelimit / 2 + 1);
	return cv->v;
}

/* Would schedule() now replace prev? (for delayed preemption / SA). locked(p). */
bool csched_preempt_check(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now)
{
	struct csched_vcpu *best = csched_runq_best(p);
	int pri = CV(prev)->pri;

	if (CD(prev->vm)->parked ||
	    (csched_hooks && csched_hooks->must_switch && csched_hooks->must_switch(p, prev, now)))
		return true;
	if (!best)
		return false;
	return best->pri > pri || (now >= p->slice_end && best->pri >= pri);
}

/* ---- registration -------------------------------------------------------- */
static int csched_init(void)
{
	return csched_init_ext(NULL);
}


SCHED_POLICY_REGISTER(credit) = {
	.name = "credit",
	.desc = "Xen credit1: weights, caps, BOOST, work stealing",
	.caps = SCHED_CAP_WEIGHTS | SCHED_CAP_CAPS | SCHED_CAP_WORKCONS | SCHED_CAP_BOOST |
		SCHED_CAP_BALANCE,
	CSCHED_POLICY_OPS(csched_init),
	.wake_local = csched_wake_local,
};

/* Options (sched/option.h). */
SCHED_OPT_INT(sched_credit_tslice_ms, sched_opts.credit_tslice, SCHED_MS(1), SCHED_MS(1),
	      SCHED_MS(1000), SCHED_MS(30), "credit time slice and accounting period, ms (30)");
SCHED_OPT_INT(sched_credit_tick_ms, sched_opts.credit_tick, SCHED_MS(1), SCHED_MS(1),
	      SCHED_MS(100), SCHED_MS(10), "credit accounting tick, ms (10)");
SCHED_OPT_INT(sched_ratelimit_us, sched_opts.ratelimit, SCHED_US(1), 0, SCHED_MS(500),
	      SCHED_US(1000), "minimum run time before a preemption, us (1000)");
