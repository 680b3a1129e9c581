/* Scheduler core, pCPU side: the schedule entry, the per-pCPU timer that
 * multiplexes slice end, accounting tick, master accounting and preemption
 * holds onto one platform one-shot timer, and kicks. */
#include "sched/policy.h"
#include "log.h"

void sched_vcpu_set_state(struct sched_pcpu *p, struct sched_vcpu *v, enum sched_state to,
			  stime_t now);

static const struct sched_platform *plat(void)
{
	return sched_platform_get();
}

/* When a preemption hold ends. locked(p). The slice end is a deadline only
 * for its delayed-preemption part (dp_until), and only if it was still ahead
 * when the hold began: a delayed wake-up preemption never outlasts the slice,
 * an SA wait gets its ack or limit whenever it began (sched_preempt_hold,
 * point 4). Counting the slice end for an SA wait that began mid-slice
 * re-armed the timer at a slice end already past, forever, once the slice
 * ran out before the ack (hvsim, balloon=dynamic sa=on, 4 vCPUs capped). */
static stime_t sched_hold_end(const struct sched_pcpu *p)
{
	if (p->dp_until != STIME_MAX && p->slice_end > p->hold_since)
		return MIN(p->hold_until, p->slice_end);
	return p->hold_until;
}

/* Earliest of everything p waits for; arm it if it changed. locked(p). */
static void sched_timer_rearm(struct sched_pcpu *p)
{
	stime_t t = p->slice_end;

	if (p->hold_until != STIME_MAX)
		t = sched_hold_end(p);

	if (p->curr)
		t = MIN(t, p->next_tick);
	if (p->id == sched_sys.master)
		t = MIN(t, MIN(sched_sys.next_acct, sched_sys.next_balloon));
	t = MIN(t, p->sleep_next);
	if (p->curr && (p->curr->flags & SCHED_VF_SA_PEND))
		t = MIN(t, p->curr->sa_deadline);
	if (t != p->timer_at) {
		p->timer_at = t;
		plat()->timer_arm(plat()->ctx, p->id, t);
	}
}

/* The accounting tick is periodic on each busy pCPU (as Xen's per-CPU tick
 * timer), not restarted at each switch: phase = multiples of tick_ns. */
static stime_t sched_tick_next(stime_t now)
{
	stime_t t = sched_sys.tick_ns;

	return t > 0 ? now - now % t + t : STIME_MAX;
}

void sched_cpu_resched(unsigned cpu)
{
	struct sched_pcpu *p = sched_pcpu_get(cpu);

	if (!p)
		return;
	/* Every request but a wake's (core.c sets in_wake around the policy's
	 * wake under p's lock) is never delayed. A request racing with a wake on
	 * the same runqueue may be taken for the wake's: delayed by at most one
	 * DP delay, never past the slice end. */
	if (!READ_ONCE(p->in_wake))
		WRITE_ONCE(p->resched_hard, true);
	if (READ_ONCE(p->need_resched))
		return;
	WRITE_ONCE(p->need_resched, true);
	plat()->kick(plat()->ctx, cpu);
}

void sched_cpus_resched(const struct cpumask *m, stime_t now)
{
	unsigned c;

	for_each_cpu_word(c, m)
		sched_cpu_resched(c);
}

/* seed 003 Alg. 1 cpu_raise(CoCPUs, SCHED_SIG). One VPE_COSCHED_SIGNAL per
 * target (arg = target pCPU, any width), charged to the vCPU on whose behalf
 * it is sent (the CON vCPU that launched the co-scheduling, or the one whose
 * descheduling co-deschedules its siblings) on the sender's pCPU; the
 * policy's pick must honour it even against an equal-priority current vCPU
 * (csched_ext.must_switch). */
void sched_cosched_signal(unsigned from, struct sched_vcpu *by, const struct cpumask *m,
			  stime_t now)
{
	unsigned c;

	for_each_cpu_word(c, m) {
		sched_trace_event(from, by, VPE_COSCHED_SIGNAL, now, c);
		sched_cpu_resched(c);
	}
}

/* Takes p->lock, then (master only, after dropping it) the policy's own locks. */
bool sched_timer_fire(struct sched_pcpu *p, stime_t now)
{
	bool acct = false, balloon = false, sleepers = false;

	spin_lock(&p->lock);
	p->timer_at = STIME_MAX;   /* the one-shot has fired */
	if (p->curr && now >= p->next_tick) {
		p->next_tick = sched_tick_next(now);
		if (sched_sys.ops->tick)
			sched_sys.ops->tick(p, now);
	}
	if (p->id == sched_sys.master && now >= sched_sys.next_acct) {
		sched_sys.next_acct += sched_sys.acct_ns;
		if (sched_sys.next_acct <= now)
			sched_sys.next_acct = now + sched_sys.acct_ns;
		acct = true;
	}
	if (p->id == sched_sys.master && (acct || now >= sched_sys.next_balloon)) {
		sched_sys.next_balloon = STIME_MAX;
		balloon = sched_sys.ops->vm_budget != NULL;
	}
	if (now >= p->sleep_next) {
		p->sleep_next = STIME_MAX;
		sleepers = true;
	}
	if (now >= p->hold_until) {
		p->hold_until = p->dp_until = STIME_MAX;
		p->force_preempt = true;
		p->need_resched = true;
	}
	if (p->curr && (p->curr->flags & SCHED_VF_SA_PEND) && now >= p->curr->sa_deadline) {
		sched_sa_timeout(p, p->curr, now);
		p->force_preempt = true;
		p->need_resched = true;
	}
	if (now >= p->slice_end)
		p->need_resched = true;
	if (!p->need_resched)
		sched_timer_rearm(p);
	spin_unlock(&p->lock);
	if (READ_ONCE(sched_sys.switching))   /* policy switch: no global policy call */
		acct = balloon = false;
	if (acct && sched_sys.ops->acct)
		sched_sys.ops->acct(now);
	if (acct && sched_sys.hooks && sched_sys.hooks->acct)
		sched_sys.hooks->acct(now);   /* adaptive DP: eq. 1-2 once a period */
	if (acct)
		sched_dedicated_epoch(p->id, now);   /* one epoch = one accounting period */
	if (balloon || sleepers) {
		/* After ops->acct: the mode of the period that starts now (seed 004
		 * §4.3), and balloon sleeps whose timeout passed. Both timers are
		 * re-armed on p (sleepers of any pCPU are watched by the one that
		 * found them). */
		stime_t nb = balloon ? sched_balloon_update(now) : STIME_MAX;
		stime_t ns = sleepers ? sched_sleep_expire(now) : STIME_MAX;

		spin_lock(&p->lock);
		if (balloon)
			sched_sys.next_balloon = MIN(sched_sys.next_balloon, nb);
		p->sleep_next = MIN(p->sleep_next, ns);
		if (!p->need_resched)
			sched_timer_rearm(p);
		spin_unlock(&p->lock);
	}
	return READ_ONCE(p->need_resched);
}

bool sched_kicked(struct sched_pcpu *p, stime_t now)
{
	return READ_ONCE(p->need_resched);
}

/* locked(p): move prev off / next on, with the state machine and events. */
static void sched_switch(struct sched_pcpu *p, struct sched_vcpu *prev, struct sched_vcpu *next,
			 stime_t now)
{
	if (prev && prev->state == SCHED_RUNNING) {
		bool yielded = prev->flags & SCHED_VF_YIELD;

		/* An SA upcall not answered before prev leaves is moot (the
		 * delay or a hard request ended the hold): its deadline must not
		 * fire when prev runs again. */
		sched_sa_cancel(p, prev, false, now);
		if (!yielded) {
			prev->st.npreempt++;
			sched_trace_event(p->id, prev, VPE_PREEMPT, now, 0);
		}
		sched_vcpu_set_state(p, prev, SCHED_RUNNABLE, now);
		if (!yielded) {   /* for directed yield (ple.c) */
			prev->flags |= SCHED_VF_PREEMPTED;
			prev->preempted_kernel = READ_ONCE(prev->guest_kernel);
		}
	}
	if (!prev) {
		p->idle_time += now - p->idle_since;
		sched_trace_event(p->id, NULL, VPE_IDLE_END, now, 0);
	}
	if (next) {
		ASSERT(next->state == SCHED_RUNNABLE && next->pcpu == p->id);
		sched_vcpu_set_state(p, next, SCHED_RUNNING, now);
		if (!prev || p->next_tick <= now)
			p->next_tick = sched_tick_next(now);
	} else {
		p->idle_since = now;
		sched_trace_event(p->id, NULL, VPE_IDLE_BEGIN, now, 0);
	}
	p->nswitch++;
	p->curr = next;
	p->curr_since = now;
	if (sched_sys.hooks && sched_sys.hooks->switched)
		sched_sys.hooks->switched(p, prev, next, now);
}

/*
 * sched_wake_run (core.c): v, BLOCKED on p, woke while p runs nothing. If
 * the policy's wake_local says its wake and pick would choose v, switch p
 * to v here as sched_schedule would (sched_switch with prev NULL and the
 * tail of sched_schedule), without the RUNNABLE step in between: v waited
 * 0 ns for the pCPU (a wake-latency sample of 0, no steal time), its
 * BLOCKED time ends now and its RUNNING time starts now. Nothing pending
 * on p may be skipped: no reschedule request (a co-scheduling signal, a
 * cap, a tickle), no hold, no directed yield, no policy switch. p's loop
 * takes v with sched_wake_run_take(). locked(p).
 */
bool sched_switch_woken(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now)
{
	stime_t slice = STIME_MAX;

	if (!sched_sys.ops->wake_local || p->curr || v->pcpu != p->id ||
	    READ_ONCE(p->need_resched) || READ_ONCE(p->resched_hard) || p->sw_quiesced ||
	    __atomic_load_n(&sched_sys.switching, __ATOMIC_ACQUIRE) ||
	    p->hold_until != STIME_MAX || p->yield_target)
		return false;
	if (now < p->idle_since)   /* a remote caller's clock read before p idled */
		now = p->idle_since;
	if (!sched_sys.ops->wake_local(p, v, now, &slice))
		return false;
	p->idle_time += now - p->idle_since;
	sched_trace_event(p->id, NULL, VPE_IDLE_END, now, 0);
	v->st.nwake_lat++;   /* woken -> RUNNING in 0 ns */
	sched_vcpu_set_state(p, v, SCHED_RUNNING, now);
	p->next_tick = sched_tick_next(now);
	p->nswitch++;
	p->curr = v;
	p->curr_since = now;
	if (sched_sys.hooks && sched_sys.hooks->switched)
		sched_sys.hooks->switched(p, NULL, v, now);
	p->force_preempt = false;
	p->dp_waker = NULL;
	slice = sched_slice_adjust(p, slice, now);
	p->slice_end = slice == STIME_MAX || slice > STIME_MAX - now ? STIME_MAX : now + slice;
	sched_timer_rearm(p);
	p->nwake_run++;
	__atomic_store_n(&p->woke_run, true, __ATOMIC_RELEASE);
	return true;
}

/* Re-place v (RUNNABLE, unqueued, descheduled from p) on an allowed pCPU.
 * No lock held on entry; takes p's and the target's. */
static void sched_evict(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now)
{
	unsigned to = cpumask_next_and(&v->affinity, &sched_sys.online, 0);
	struct sched_pcpu *q = sched_pcpu_get(to);

	if (!q)
		q = p;
	sched_lock_pair(p, q);
	if (v->pcpu == p->id && v->state == SCHED_RUNNABLE && p->curr != v) {
		sched_vcpu_migrate(v, q->id, now);
		if (!q->sw_quiesced)   /* else the policy switch's install queues it */
			sched_sys.ops->wake(v, now);
	}
	sched_unlock_pair(p, q);
}

/* Run-time policy switch under way (switch.c): this is p's safe point. The
 * running vCPU is preempted first (the old policy charges it, the core makes
 * it RUNNABLE and counts the preemption), then p's vCPUs leave the old
 * policy and p idles until the install; the last pCPU to get here installs
 * the new policy and schedules under it. Entered with p->lock held. */
static struct sched_vcpu *sched_schedule_switch(struct sched_pcpu *p, stime_t now, stime_t *until)
{
	struct sched_vcpu *prev = p->curr;
	bool last = false;

	if (!p->sw_quiesced) {
		if (prev) {
			if (prev->state == SCHED_RUNNING)
				sched_sys.ops->sleep(prev, now);   /* charged; never queued */
			sched_switch(p, prev, NULL, now);
			prev->flags &= (uint8_t)~SCHED_VF_YIELD;
		}
		last = sched_switch_quiesce(p, now);
	}
	if (!last)
		sched_timer_rearm(p);
	spin_unlock(&p->lock);
	if (!last) {
		*until = STIME_MAX;
		return NULL;
	}
	sched_switch_install(now);
	return sched_schedule(p, now, until);
}

/* Called on p itself. Takes p->lock; the policy may trylock peers. */
struct sched_vcpu *sched_schedule(struct sched_pcpu *p, stime_t now, stime_t *until)
{
	struct sched_vcpu *prev, *next;
	stime_t slice = STIME_MAX, hold, old_end;
	bool evict, hard, fresh;

	spin_lock(&p->lock);
	p->nschedule++;
	WRITE_ONCE(p->need_resched, false);
	WRITE_ONCE(p->woke_run, false);   /* a woken curr not taken yet is prev */
	hard = __atomic_exchange_n(&p->resched_hard, false, __ATOMIC_ACQ_REL);
	if (__atomic_load_n(&sched_sys.switching, __ATOMIC_ACQUIRE))
		return sched_schedule_switch(p, now, until);
	prev = p->curr;
	if (prev && prev->state == SCHED_RUNNING && !(prev->flags & SCHED_VF_YIELD) &&
	    (hold = sched_preempt_hold(p, prev, hard, now)) > now) {
		/* Delayed preemption / waiting for an SA acknowledgement. */
		if (p->hold_until == STIME_MAX)
			p->hold_since = now;
		p->hold_until = hold;
		sched_timer_rearm(p);
		spin_unlock(&p->lock);
		*until = sched_hold_end(p);
		return prev;
	}
	/* Not holding (any more): a block or yield of prev cancels the one-shot
	 * delay at once (seed 001 §5.1: "if the current running vCPU voluntarily
	 * yields CPU, the timer is stopped"). */
	p->force_preempt = false;
	p->hold_until = p->dp_until = STIME_MAX;
	p->dp_waker = NULL;
	old_end = p->slice_end;
	/* A running vCPU whose affinity no longer allows p is re-placed below. */
	evict = prev && prev->state == SCHED_RUNNING && !cpumask_test(&prev->affinity, p->id);
	if (evict)
		sched_sys.ops->sleep(prev, now);
	if (p->yield_target && prev && prev->state == SCHED_RUNNING && (prev->flags & SCHED_VF_YIELD))
		sched_yield_pull(p, now);
	else
		p->yield_target = NULL;
	next = sched_sys.ops->pick(p, prev && prev->state == SCHED_RUNNING && !evict ? prev : NULL,
				   now, &slice);
	sched_ple_after_pick(p, prev, next);
	/* A new slice starts when another vCPU runs or prev's slice was over;
	 * a kept slice (the policy keeps prev inside its slice, e.g. on a kick)
	 * is not re-drawn by differential slices (seed 001 §5.2). */
	fresh = next != prev || (prev && prev->state != SCHED_RUNNING) || now >= old_end;
	if (next != prev || (prev && prev->state != SCHED_RUNNING))
		sched_switch(p, prev, next, now);
	if (prev)
		prev->flags &= (uint8_t)~SCHED_VF_YIELD;
	slice = next && fresh ? sched_slice_adjust(p, slice, now) : next ? slice : STIME_MAX;
	p->slice_end = slice == STIME_MAX || slice > STIME_MAX - now ? STIME_MAX : now + slice;
	sched_timer_rearm(p);
	*until = p->slice_end;
	spin_unlock(&p->lock);
	if (evict)
		sched_evict(p, prev, now);
	return next;
}
