/* Credit's accounting (see credit.c for the policy and the lock order):
 * the tick that burns and ends BOOST, the periodic refill shared by weight
 * (Xen's csched_acct), credits carried across a policy switch, and the
 * balloon's budget (seed 004 §4.3). */
#include "sched/credit_priv.h"

/* Every tick on a busy pCPU: charge, and end a BOOST (Xen csched_tick). */
void csched_tick(struct sched_pcpu *p, stime_t now)
{
	struct csched_vcpu *cv;

	csched_refresh(p);
	if (!p->curr || p->curr->state != SCHED_RUNNING)
		return;
	cv = CV(p->curr);
	csched_burn(p->curr, now);
	if (cv->pri == CPRI_BOOST)
		cv->pri = CPRI_UNDER;
	if (csched_hooks && csched_hooks->tick)
		csched_hooks->tick(p, now);
}

/* Share one period's credit among VMs with active vCPUs by weight (Xen's
 * csched_acct, without the credit_xtra redistribution). */
static void csched_acct_vm(struct sched_vm *vm, uint64_t total, uint64_t wtotal)
{
	struct sched_vcpu *v;
	uint64_t nact = 0, fair, peak;

	for (v = vm->vcpus; v; v = v->vm_next)
		nact += READ_ONCE(CV(v)->active);
	if (vm->params.cap)
		CD(vm)->cap_left = (stime_t)vm->params.cap * csched_prv.tslice / 100;
	if (vm->params.cap && READ_ONCE(CD(vm)->parked) && CD(vm)->cap_left > 0)
		WRITE_ONCE(CD(vm)->parked, 0);
	if (!nact || !wtotal)
		return;
	fair = total * vm->params.weight * nact / wtotal;
	peak = nact * (uint64_t)csched_prv.tslice;
	if (vm->params.cap)
		peak = MIN(peak, (uint64_t)vm->params.cap * (uint64_t)csched_prv.tslice / 100);
	fair = (MIN(fair, peak) + nact - 1) / nact;
	for (v = vm->vcpus; v; v = v->vm_next) {
		struct csched_vcpu *cv = CV(v);
		int64_t cr;

		if (!READ_ONCE(cv->active)) {
			WRITE_ONCE(cv->fair, 0);
			continue;
		}
		WRITE_ONCE(cv->fair, (int64_t)fair);
		cr = __atomic_add_fetch(&cv->credit, (int64_t)fair, __ATOMIC_RELAXED);
		if (cr < 0) {
			cv->pri = CPRI_OVER;
			if (cr < -csched_prv.tslice)
				__atomic_store_n(&cv->credit, -csched_prv.tslice, __ATOMIC_RELAXED);
		} else {
			cv->pri = CPRI_UNDER;
			if (cr > csched_prv.tslice) {
				/* Idle vCPU: stop earning, keep half (Xen). */
				WRITE_ONCE(cv->active, 0);
				__atomic_store_n(&cv->credit, cr / 2, __ATOMIC_RELAXED);
			}
		}
	}
}

void csched_acct(stime_t now)
{
	uint64_t wtotal = 0, total = (uint64_t)csched_prv.tslice * sched_sys.npcpus;
	struct sched_vm *vm;
	struct sched_vcpu *v;
	struct cpumask kick;

	spin_lock(&csched_prv.lock);
	spin_lock(&sched_sys.vm_lock);
	for (vm = sched_sys.vms; vm; vm = vm->next)
		for (v = vm->vcpus; v; v = v->vm_next)
			wtotal += READ_ONCE(CV(v)->active) ? vm->params.weight : 0;
	for (vm = sched_sys.vms; vm; vm = vm->next)
		csched_acct_vm(vm, total, wtotal);
	spin_unlock(&sched_sys.vm_lock);
	csched_prv.epoch++;
	kick = csched_prv.parked_cpus;
	spin_unlock(&csched_prv.lock);
	sched_cpus_resched(&kick, now);   /* they release parked vCPUs */
	if (csched_hooks && csched_hooks->acct)
		csched_hooks->acct(now);
}

/* Run-time policy switch (switch.c): credits survive a change within the
 * credit family (credit, gang, cs, cds, pcs, bcs, relaxed) or through any
 * policy that carries them; the priority follows from the sign, as after a
 * refill (BOOST comes back at the next wake). All runqueue locks held. */
void csched_carry_out(struct sched_vcpu *v, struct sched_carry *c)
{
	c->credit = __atomic_load_n(&CV(v)->credit, __ATOMIC_RELAXED);
	c->active = READ_ONCE(CV(v)->active);
	c->valid = true;
}

void csched_carry_in(struct sched_vcpu *v, const struct sched_carry *c)
{
	struct csched_vcpu *cv = CV(v);

	cv->credit = MIN(MAX(c->credit, -csched_prv.tslice), csched_prv.tslice);
	cv->active = c->active;
	cv->pri = cv->credit < 0 ? CPRI_OVER : CPRI_UNDER;
}

/*
 * Balloon (seed 004 §4.3): CPU the VM can still use before the refill
 * without going OVER or hitting its cap. A vCPU enters OVER when its credit
 * is negative after a refill (csched_acct_vm; burning never changes the
 * priority in between), so it may burn its credit plus the share the refill
 * adds (taken as the last refill's; 0 for a vCPU not earning) first: with
 * credit c and share f that is max(c + f, 0). A vCPU consuming exactly its
 * share keeps c near 0 and still has f, i.e. a VM alone on its pCPUs is never
 * short (the seed's "balloon effectively disabled"). Summed over the VM's
 * vCPUs (one vCPU's surplus may cover another's need: an approximation, the
 * shared page carries one figure per VM), then bounded by what the cap leaves
 * in this period.
 */
stime_t csched_vm_budget(struct sched_vm *vm, stime_t now, stime_t *refill_at)
{
	stime_t left = 0, run = 0;

	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next) {
		int64_t c = __atomic_load_n(&CV(v)->credit, __ATOMIC_RELAXED);

		/* A running vCPU has used CPU since its last burn (tick or
		 * switch: up to a tick, or a slice when the tick fell in a
		 * pause) that credit and cap_left do not show yet; §4.3 asks
		 * what may still be debited, so count it as spent. Without it
		 * a VM was found WC with that much less than it needed, ran
		 * flat out to the refill and landed OVER, its next wake not
		 * BOOSTed (docs/sched.md "Balloon mode"). */
		if (READ_ONCE(v->state) == SCHED_RUNNING) {
			stime_t d = MAX(now - READ_ONCE(CV(v)->start), (stime_t)0);

			c -= d;
			run += d;
		}
		left += MAX(c + READ_ONCE(CV(v)->fair), (int64_t)0);
	}
	spin_unlock(&sched_sys.vm_lock);
	if (vm->params.cap)
		left = MIN(left, READ_ONCE(CD(vm)->cap_left) - run);
	*refill_at = sched_sys.next_acct;
	return MAX(left, (stime_t)0);
}
