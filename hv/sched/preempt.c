/* Preemption plumbing shared by every policy: the hold decision that
 * combines delayed preemption (the hooks, sched/dp_ds.c) with the
 * scheduler-activation upcall and its hard limit (seed 000 Alg. 1), the
 * slice adjustment (differential slices, sched/dp_ds.c), SA registration and
 * ack, and the balloon (seed 004 §4.3). */
#include "sched/policy.h"
#include "sched/option.h"
#include "log.h"
#include "errno.h"
#include "abi.h"

void sched_hooks_set(const struct sched_hooks *h)
{
	sched_sys.hooks = h;
	pr_info("sched: preemption hooks '%s'\n", h && h->name ? h->name : "none");
}

uint64_t sched_cpu_random(struct sched_pcpu *p)
{
	uint64_t x = p->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	p->rng = x;
	return x;
}

/* ---- SA upcall (seed 000 Alg. 1; PV ABI v1, docs/pv-abi.md) ------------- */

/* OR upcall reasons into v's page before its vector is injected (the guest
 * takes them with xchg, so a bit set here is never lost). */
static void sched_upcall_reason(struct sched_shared_page *sp, uint32_t bit)
{
	__atomic_fetch_or(&sp->reasons, bit, __ATOMIC_SEQ_CST);
}

/* Drop v's pending upcall and tell the guest. locked(v's pCPU). */
static void sched_sa_clear(struct sched_vcpu *v)
{
	struct sched_shared_page *sp = sched_vcpu_shared(v);

	v->flags &= (uint8_t)~SCHED_VF_SA_PEND;
	if (sp) {
		sched_shared_begin(sp);
		sp->sa_pending = 0;
		sched_shared_end(sp);
	}
}

void sched_sa_cancel(struct sched_pcpu *p, struct sched_vcpu *v, bool moot, stime_t now)
{
	if (!(v->flags & SCHED_VF_SA_PEND))
		return;
	sched_sa_clear(v);
	if (moot)
		v->st.nsa_moot++;
}

void sched_sa_timeout(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now)
{
	v->st.nsa_timeout++;
	sched_trace_event(p->id, v, VPE_SA_TIMEOUT, now, v->sa_seq);
	sched_sa_clear(v);
}

/* SA sender (seed 000 Alg. 1 lines 4-7): notify a runnable vCPU once, let it
 * run until it acknowledges (block/yield) or sa_limit passes. locked(p).
 * Order (PV ABI v1): sa_seq++, sa_pending = 1, reasons |= SA, inject. */
static stime_t sched_sa_send(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now)
{
	struct sched_shared_page *sp;

	if (v->flags & SCHED_VF_SA_PEND)
		return v->sa_deadline;
	if (!v->vm->params.sa || !v->sa_vector || sched_opts.sa_limit <= 0)
		return 0;
	v->flags |= SCHED_VF_SA_PEND;
	v->sa_deadline = now + sched_opts.sa_limit;
	v->sa_sent_at = now;
	v->sa_seq++;
	v->st.nsa_upcall++;
	sp = sched_vcpu_shared(v);
	if (sp) {
		sched_shared_begin(sp);
		sp->sa_seq = v->sa_seq;
		sp->sa_pending = 1;
		sched_shared_end(sp);
		sched_upcall_reason(sp, HV_UPCALL_SA);
	}
	sched_vcpu_inject(v, v->sa_vector);
	sched_trace_event(p->id, v, VPE_SA_UPCALL, now, v->sa_seq);
	return v->sa_deadline;
}

/*
 * Until when prev keeps p although the scheduler wants to preempt it; 0
 * means "preempt now". locked(p). `hard`: a reschedule request that is never
 * delayed (cap, co-scheduling signal, affinity) arrived since the last one.
 *
 * Order of the decision (seed 001 §5.1 with seed 000 Alg. 1):
 *  1. the policy's preempt_check confirms prev would really lose p;
 *  2. delayed preemption applies only to a wake-up preemption: p->dp_waker
 *     set by the wake, no hard request, slice not expired; the hook gets the
 *     waker (adaptive DP uses the waker's own delay); dp_until = now + delay;
 *  3. the SA upcall, if prev's VM wants it, goes out at the same decision
 *     (not after the delay), with its hard limit sa_deadline;
 *  4. the hold ends at the earliest of: dp_until, sa_deadline, the SA ack
 *     (sched_sa_ack), prev blocking or yielding (the normal reschedule),
 *     a hard request or the slice end (which end the DP part only; a pending
 *     SA still gets its ack or limit).
 */
stime_t sched_preempt_hold(struct sched_pcpu *p, struct sched_vcpu *prev, bool hard, stime_t now)
{
	const struct sched_hooks *h = sched_sys.hooks;
	struct sched_vcpu *waker = p->dp_waker;
	stime_t d = 0, sa;

	p->dp_waker = NULL;
	if (p->force_preempt)
		return 0;
	if (p->hold_until != STIME_MAX && now < p->hold_until) {
		/* Already holding: a second wake does not restart the one-shot. */
		if (p->dp_until != STIME_MAX && (hard || now >= p->slice_end)) {
			p->dp_until = STIME_MAX;
			p->hold_until = (prev->flags & SCHED_VF_SA_PEND) ? prev->sa_deadline
									 : STIME_MAX;
		}
		return p->hold_until != STIME_MAX && now < p->hold_until ? p->hold_until : 0;
	}
	if (!(h && h->preempt_delay && waker) && !(prev->vm->params.sa && prev->sa_vector))
		return 0;
	if (sched_sys.ops->preempt_check && !sched_sys.ops->preempt_check(p, prev, now))
		return 0;
	if (h && h->preempt_delay && waker && waker != prev && !hard && now < p->slice_end)
		d = h->preempt_delay(p, prev, waker, now);
	sa = sched_sa_send(p, prev, now);
	p->dp_until = STIME_MAX;
	if (d > 0) {
		p->dp_until = now + d;
		prev->st.ndelayed++;
		sched_trace_event(p->id, prev, VPE_DELAY_PREEMPT, now, (uint64_t)d);
	}
	if (sa > now)
		return MIN(p->dp_until, sa);
	return d > 0 ? p->dp_until : 0;
}

stime_t sched_slice_adjust(struct sched_pcpu *p, stime_t slice, stime_t now)
{
	const struct sched_hooks *h = sched_sys.hooks;

	if (h && h->slice_pick && slice != STIME_MAX)
		return MIN(h->slice_pick(p, slice, now), slice);
	return slice;
}

/* HC_SCHED_SA_REGISTER: vector 32..255 (0 disables), HV_SA_REG_BALLOON
 * subscribes to the balloon mode upcall (docs/pv-abi.md: opt-in, so a guest
 * that registered only for SA, e.g. IRS, is never woken by mode changes). */
int sched_sa_register(struct sched_vcpu *v, uint32_t reg)
{
	uint32_t vector = reg & HV_SA_REG_VECTOR, flags = reg & ~HV_SA_REG_VECTOR;

	if ((vector && vector < 32) || (flags & ~HV_SA_REG_BALLOON) || (flags && !vector))
		return trace_error(-EINVAL);
	v->sa_vector = (uint8_t)vector;
	WRITE_ONCE(v->balloon_sub, !!(flags & HV_SA_REG_BALLOON));
	return 0;
}

/* HC_SCHED_SA_ACK (seed 000 Alg. 1 line 15: the receiver answers with
 * SCHEDOP_block or SCHEDOP_yield). The ack names the upcall it answers by
 * seq; anything but the pending one is stale and changes nothing. vProfile:
 * VPE_SA_ACK arg = op << 56 | ns since injection; VPE_SA_STALE arg = seq. */
int sched_sa_ack(struct sched_vcpu *v, unsigned op, uint32_t seq, stime_t now)
{
	struct sched_pcpu *p;
	stime_t lat;

	if (op != HV_SA_ACK_YIELD && op != HV_SA_ACK_BLOCK)
		return -EINVAL;
	p = sched_vcpu_lock(v);
	if (!(v->flags & SCHED_VF_SA_PEND) || seq != v->sa_seq) {
		v->st.nsa_stale++;
		sched_trace_event(p->id, v, VPE_SA_STALE, now, seq);
		sched_vcpu_unlock(p);
		return -ESTALE;
	}
	lat = MAX(now - v->sa_sent_at, (stime_t)0);
	sched_sa_clear(v);
	if (op == HV_SA_ACK_BLOCK)
		v->st.nsa_ack_block++;
	else
		v->st.nsa_ack_yield++;
	sched_trace_event(p->id, v, VPE_SA_ACK, now,
			  (uint64_t)op << 56 | ((uint64_t)lat & ((1ull << 56) - 1)));
	sched_vcpu_unlock(p);
	/* Block: as HLT, which the platform performs (it owns the halted state
	 * and the wake-up), unless an interrupt is already pending. */
	if (op == HV_SA_ACK_BLOCK && !sched_vcpu_irq_pending(v))
		return 1;
	sched_vcpu_yield(v, NULL, SCHED_YIELD_SA, now);
	return 0;
}

/* ---- balloon (seed 004 §4.3 semi-work-conserving mode) -------------------- */

/*
 * The VM and vCPU lists are walked under vm_lock, but the work on each entry
 * takes locks that come before vm_lock (vm_budget, runqueue locks; lock
 * order: runqueue -> prv -> vm_lock). So the walks collect entries in
 * batches of SCHED_BALLOON_BATCH on the stack, drop the lock, handle the
 * batch, and resume at the next list position: every VM and every vCPU is
 * handled whatever their number (no silent 64-VM / 64-vCPU limit). An entry
 * added meanwhile at the list head shifts positions by one, so an entry may
 * be handled twice (harmless: the writes repeat, a second wake is a no-op).
 * Removal (VM teardown, after its vCPUs stopped) between two batches could
 * make the walk skip one entry until the next period or scan.
 */
#define SCHED_BALLOON_BATCH 32

/*
 * sched_balloon_share=excl (our extension; off by default, docs/sched.md
 * "Balloon mode"): ballooning VMs sharing pCPUs. Seed 004 §4.3 ("CPU
 * sharing") lets a VM be WC while that cannot make it OVER, so that its I/O
 * can still BOOST past the other VM; it says nothing of two ballooning VMs
 * on one pCPU. Both can pass that test together (each holds the credit it
 * saved), both hogs then run, and a vCPU preempted by the other VM's hog is
 * RUNNABLE: an interrupt for it is no wake from blocked, so credit (as Xen's
 * credit1) does not BOOST it, and its I/O waits out the other's slice.
 * With excl, among VMs that listen to the mode upcall and share a pCPU:
 *  - at most one is WC at a time (the first the §4.3 test lets through in
 *    a period; the credits still decide who, so the turns alternate); the
 *    others stay NWC, their vCPUs sleep between requests (the balloon) and
 *    each request is a BOOSTed wake, as in §6.2.1 where the other VM is
 *    CPU-bound;
 *  - a VM turning WC has its balloon sleepers woken quietly (RUNNABLE,
 *    no BOOST: the guest notices WC when its balloon next runs, §4.3 step 2)
 *    before the mode upcall's interrupt, which would BOOST them;
 *  - and its vCPUs drop a BOOST they still hold from waking for I/O, so
 *    its compute never runs BOOSTed (the policy's balloon_unboost).
 * The host stays work-conserving: the WC VM runs whenever the others sleep.
 * Measured in hvsim only so far; in Bochs with Linux guests the quiet wake
 * goes with a user-space segfault in one guest (docs/sched.md): keep it off
 * there until that is understood.
 */
enum { SCHED_BALLOON_SHARE_PAPER = 0, SCHED_BALLOON_SHARE_EXCL = 1 };
static uint8_t balloon_share;

/*
 * sched_balloon_guard=P (our extension; 0 = off, the default; docs/sched.md
 * "Balloon mode"): seed 004 §4.3 wants compute to run "only when there are
 * sufficient credits left until the next accounting period to avoid a
 * forcible suspension" (capping) and "only if it will not cause the VM to
 * enter the OVER state" (sharing). With static priority (§4.4) NWC does
 * that: the balloon outranks compute. With dynamic priority (§4.5, footnote
 * 2) compute keeps running in NWC and CFS gives it (1 - r_io)/2 of each
 * vCPU, so a VM whose share is 50% asks for (1 + r_io)/2 and is parked
 * before the refill (capped) or lands OVER, its next wake not BOOSTed
 * (sharing). The guard marks an NWC VM whose budget has fallen below P% of
 * what its vCPUs could burn until the refill, left < P/100 x n x (refill -
 * now), in the shared page (`balloon_guard` = 1, with the mode upcall): the
 * guest then ranks the balloon above compute, as with static priority,
 * until the refill decides afresh. P is the share of a vCPU the guest's
 * I/O is assumed to need in that last stretch.
 */
static stime_t balloon_guard_pct;

/* Does a listening VM other than vm use one of vm's pCPUs; *wc: one of
 * those is WC in the period ending at refill. Master pCPU (every balloon
 * decision runs there), vm_lock for the list. */
static bool sched_balloon_shares(const struct sched_vm *vm, stime_t refill, bool *wc)
{
	bool share = false;

	*wc = false;
	spin_lock(&sched_sys.vm_lock);
	for (const struct sched_vm *o = sched_sys.vms; o; o = o->next) {
		bool hit = false;

		if (o == vm || !o->balloon_listened)
			continue;
		for (unsigned w = 0; w < CPUMASK_WORDS; w++)
			hit |= (o->balloon_cpus.w[w] & vm->balloon_cpus.w[w]) != 0;
		share |= hit;
		*wc |= hit && READ_ONCE(o->balloon_mode) == SCHED_BALLOON_WC &&
		       o->balloon_wc_until == refill;
	}
	spin_unlock(&sched_sys.vm_lock);
	return share;
}

/*
 * One VM's mode for the rest of the period. Seed 004 §4.3: NWC at the start
 * of the period; WC "once the hypervisor finds that the maximum amount of
 * credits can be debited from the VM until the next credit refill will not
 * cause either a VM suspension due to capping or an entry to the OVER state".
 * The most it can be debited is every non-paused vCPU running flat out until
 * the refill, n x (refill - now), with n at most the pCPUs its vCPUs may use. So WC iff budget >= n x (refill - now),
 * else NWC; an NWC VM is checked again at refill - budget / n, the earliest
 * time the inequality can hold (its budget only shrinks meanwhile, so the
 * check may find it NWC again and pick a later time). Returns that time, or
 * STIME_MAX. No lock held.
 */
static stime_t sched_balloon_vm(struct sched_vm *vm, stime_t now)
{
	struct sched_vcpu *vc[SCHED_BALLOON_BATCH], *v;
	stime_t refill = STIME_MAX, left, span, next = STIME_MAX;
	unsigned n = 0, nv, pos, ncpu;
	struct cpumask cpus;
	uint8_t mode;
	bool changed, guard, listened = false, shared = false, other_wc = false;

	left = sched_sys.ops->vm_budget(vm, now, &refill);
	cpumask_zero(&cpus);
	spin_lock(&sched_sys.vm_lock);
	for (v = vm->vcpus; v; v = v->vm_next) {
		listened |= v->sa_vector && v->balloon_sub;
		if (READ_ONCE(v->state) != SCHED_OFFLINE || (READ_ONCE(v->flags) & SCHED_VF_BALLOON)) {
			n++;
			for (unsigned w = 0; w < CPUMASK_WORDS; w++)
				cpus.w[w] |= v->affinity.w[w];
		}
	}
	spin_unlock(&sched_sys.vm_lock);
	for (unsigned w = 0; w < CPUMASK_WORDS; w++)
		cpus.w[w] &= sched_sys.online.w[w];
	ncpu = cpumask_weight(&cpus);
	n = MIN(n, ncpu);
	span = refill == STIME_MAX ? 0 : refill - now;
	mode = SCHED_BALLOON_WC;
	if (n && span > 0 && left / (stime_t)n < span) {
		mode = SCHED_BALLOON_NWC;
		next = refill - left / (stime_t)n;
	}
	vm->balloon_cpus = cpus;
	vm->balloon_listened = listened;
	if (listened && balloon_share == SCHED_BALLOON_SHARE_EXCL)
		shared = sched_balloon_shares(vm, refill, &other_wc);
	if (mode == SCHED_BALLOON_WC && shared && other_wc) {
		/* The WC VM on these pCPUs stays WC until the refill (a WC VM is
		 * not re-checked before it): NWC until then. */
		mode = SCHED_BALLOON_NWC;
		next = STIME_MAX;
	}
	if (mode == SCHED_BALLOON_WC)
		vm->balloon_wc_until = refill;
	/* The guard (above): set within the period, kept until the refill;
	 * else re-checked at the earliest time it can hold, every vCPU
	 * burning from now on: left - n t < P n (span - t), i.e. t >
	 * (left - P n span) / (n (1 - P)), at least 500 us on (the checks
	 * converge on the crossing, the VM's real rate being below n). */
	guard = false;
	if (mode == SCHED_BALLOON_NWC && balloon_guard_pct && listened && n) {
		stime_t want = balloon_guard_pct * (stime_t)n * span / 100;

		guard = (vm->balloon_guard && vm->balloon_guard_until == refill) || left < want;
		if (guard) {
			vm->balloon_guard_until = refill;
			next = STIME_MAX;
		} else {
			stime_t t = (left - want) * 100 / ((stime_t)n * (100 - balloon_guard_pct));

			next = MIN(next, now + MAX(t, SCHED_US(500)));
		}
	}
	/* The mid-period re-check only for a VM that can hear the mode change
	 * (a vCPU subscribed to the mode upcall): others are decided once a period and
	 * their pCPUs keep the timer pattern they had without the balloon. */
	if (!listened)
		next = STIME_MAX;
	changed = mode != vm->balloon_mode || guard != vm->balloon_guard;
	WRITE_ONCE(vm->balloon_mode, mode);
	WRITE_ONCE(vm->balloon_guard, guard);
	WRITE_ONCE(vm->credit_left, left);
	if (changed)
		vm->nballoon_switch++;
	pos = 0;
	do {
		unsigned i = 0;

		nv = 0;
		spin_lock(&sched_sys.vm_lock);
		for (v = vm->vcpus; v && nv < SCHED_BALLOON_BATCH; v = v->vm_next)
			if (i++ >= pos)
				vc[nv++] = v;
		spin_unlock(&sched_sys.vm_lock);
		pos += nv;
		for (i = 0; i < nv; i++) {
			struct sched_pcpu *p;
			struct sched_shared_page *sp;

			bool quiet = false, resched = false;

			v = vc[i];
			p = sched_vcpu_lock(v);
			sp = sched_vcpu_shared(v);
			if (sp) {
				sched_shared_begin(sp);
				sp->balloon_mode = mode;
				sp->balloon_guard = guard;
				sp->credit_left_ns = left;
				sched_shared_end(sp);
			}
			if (changed) {
				sched_trace_event(p->id, v, VPE_BALLOON_MODE, now, guard ? 2 : mode);
				/* Same vector as the SA upcall (PV ABI v1), only to a vCPU
				 * that subscribed (HV_SA_REG_BALLOON); it also ends a
				 * balloon sleep, being an interrupt for the vCPU. */
				if (sp && v->sa_vector && v->balloon_sub) {
					sched_upcall_reason(sp, HV_UPCALL_BALLOON_MODE);
					sched_vcpu_inject(v, v->sa_vector);
				}
				if (shared && mode == SCHED_BALLOON_WC) {   /* excl, above */
					quiet = v->state == SCHED_OFFLINE && (v->flags & SCHED_VF_BALLOON);
					resched = sched_sys.ops->balloon_unboost &&
						  sched_sys.ops->balloon_unboost(v);
				}
			}
			sched_vcpu_unlock(p);
			if (resched)
				sched_cpu_resched(p->id);
			if (quiet)
				sched_wake_quiet(v, now);
		}
	} while (nv == SCHED_BALLOON_BATCH);
	return next;
}

/* Every VM, after the policy's accounting (master pCPU, no lock), in
 * batches (vm_budget takes vm_lock). */
stime_t sched_balloon_update(stime_t now)
{
	struct sched_vm *vms[SCHED_BALLOON_BATCH], *vm;
	stime_t next = STIME_MAX;
	unsigned n, pos = 0;

	if (!sched_sys.ops->vm_budget)
		return STIME_MAX;
	do {
		unsigned i = 0;

		n = 0;
		spin_lock(&sched_sys.vm_lock);
		for (vm = sched_sys.vms; vm && n < SCHED_BALLOON_BATCH; vm = vm->next)
			if (i++ >= pos)
				vms[n++] = vm;
		spin_unlock(&sched_sys.vm_lock);
		pos += n;
		for (i = 0; i < n; i++)
			next = MIN(next, sched_balloon_vm(vms[i], now));
	} while (n == SCHED_BALLOON_BATCH);
	return next;
}

/* Balloon sleeps past their timeout end as if an interrupt had come. All of
 * them, in batches: the scan resumes after the last vCPU it examined. */
stime_t sched_sleep_expire(stime_t now)
{
	struct sched_vcpu *due[SCHED_BALLOON_BATCH];
	stime_t next = STIME_MAX;
	unsigned n, pos = 0;
	bool more;

	do {
		unsigned i = 0;

		n = 0;
		more = false;
		spin_lock(&sched_sys.vm_lock);
		for (struct sched_vm *vm = sched_sys.vms; vm && !more; vm = vm->next)
			for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next) {
				stime_t until = READ_ONCE(v->sleep_until);

				if (i++ < pos)
					continue;
				if (n == SCHED_BALLOON_BATCH) {
					more = true;   /* resume here after waking these */
					i--;
					break;
				}
				if (!(READ_ONCE(v->flags) & SCHED_VF_BALLOON) || until == STIME_MAX)
					continue;
				if (until <= now)
					due[n++] = v;
				else
					next = MIN(next, until);
			}
		spin_unlock(&sched_sys.vm_lock);
		pos = i;
		for (i = 0; i < n; i++)
			sched_wake(due[i], now);
	} while (more);
	return next;
}

/* Options (sched/option.h); delayed preemption's and differential slices'
 * are in sched/dp_ds.c. */
static const char *const sched_balloon_shares_names[] = { "paper", "excl", NULL };

SCHED_OPT_INT(sched_balloon_guard, balloon_guard_pct, 1, 0, 90, 0,
	      "NWC guard: balloon above compute once the budget < N% of the vCPUs' time to the refill (0 = off)");

SCHED_OPT_ENUM(sched_balloon_share, balloon_share, sched_balloon_shares_names,
	       SCHED_BALLOON_SHARE_PAPER,
	       "ballooning VMs sharing pCPUs: paper (seed 004 §4.3) | excl (one WC VM per pCPU)");
SCHED_OPT_INT(sched_sa_limit_us, sched_opts.sa_limit, SCHED_US(1), 0, SCHED_MS(100),
	      SCHED_US(500), "scheduler-activation hard limit, us (500)");
