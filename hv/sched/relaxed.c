/* sched=relaxed: relaxed co-scheduling, the ESX 3.x-style baseline of seed
 * 000 §5.1 ("Relaxed-Co"), on the credit core. For the vCPUs of a CON VM:
 *  - progress: a vCPU progresses while it runs or idles (BLOCKED, OFFLINE),
 *    not while it waits RUNNABLE; so progress = elapsed - runnable time and
 *    the skew of a vCPU is how much further it got than its slowest sibling;
 *  - every accounting period (seed 000: "every 30ms"), a VM whose leader is
 *    more than sched_relaxed_skew_us (3000) ahead of its most lagging
 *    sibling has the leader co-stopped (sched_relaxed_costop=1, default:
 *    not picked, not stolen, preempted now) until its skew falls under half
 *    the threshold, and the leader is switched with the laggard (seed 000's
 *    optimisation): a queued laggard moves to the leader's pCPU at BOOST and
 *    takes its place there.
 * HIT VMs are plain credit. A co-stopped vCPU may leave its pCPU idle: that
 * is the policy (like gang), re-checked at each accounting period.
 */
#include "sched/cosched.h"
#include "sched/option.h"
#include "log.h"

struct relaxed_vcpu {
	stime_t edge_from;    /* cosched_vcpu layout (scatter is not used here) */
	unsigned home;
	uint8_t costop;
};
_Static_assert(sizeof(struct relaxed_vcpu) <= CSCHED_VCPU_EXT_BYTES, "relaxed_vcpu");

static inline struct relaxed_vcpu *RV(struct sched_vcpu *v) { return csched_vcpu_ext(v); }

/* Progress of v at now: elapsed time not spent waiting RUNNABLE. */
static stime_t rx_progress(const struct sched_vcpu *v, stime_t now)
{
	struct sched_vcpu_stats st;
	stime_t total = 0;

	sched_vcpu_stats(v, now, &st);
	for (int s = 0; s < SCHED_NSTATES; s++)
		total += st.time[s];
	return total - st.time[SCHED_RUNNABLE];
}

/* Leader and laggard of vm; returns the leader's skew. vm_lock held. */
static stime_t rx_skew(struct sched_vm *vm, stime_t now, struct sched_vcpu **lead,
		       struct sched_vcpu **lag)
{
	stime_t hi = 0, lo = STIME_MAX;

	*lead = *lag = NULL;
	for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next) {
		stime_t pr = rx_progress(v, now);

		if (pr >= hi) {
			hi = pr;
			*lead = v;
		}
		if (pr < lo) {
			lo = pr;
			*lag = v;
		}
	}
	return *lead && *lag && *lead != *lag ? hi - lo : 0;
}

static bool rx_not_stopped(struct sched_vcpu *v, void *arg)
{
	return !READ_ONCE(RV(v)->costop);
}

static bool rx_must_switch(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now)
{
	return READ_ONCE(RV(prev)->costop);
}

/* Release vm's co-stopped vCPUs that are no longer ahead (skew under half
 * the threshold); kicks their pCPUs. Returns true if any was released. */
static bool rx_release(struct sched_vm *vm, stime_t now)
{
	struct sched_vcpu *lead, *lag;
	bool any = false;
	stime_t skew;

	spin_lock(&sched_sys.vm_lock);
	skew = rx_skew(vm, now, &lead, &lag);
	for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next)
		if (READ_ONCE(RV(v)->costop) && (v != lead || skew * 2 < sched_opts.relaxed_skew)) {
			WRITE_ONCE(RV(v)->costop, 0);
			sched_cpu_resched(READ_ONCE(v->pcpu));
			any = true;
		}
	spin_unlock(&sched_sys.vm_lock);
	return any;
}

static struct sched_vcpu *rx_pick(struct sched_pcpu *p, struct sched_vcpu *prev,
				  struct sched_vcpu *cand, stime_t now)
{
	if (!cand || !READ_ONCE(RV(cand)->costop))
		return cand;
	if (rx_release(cand->vm, now) && !READ_ONCE(RV(cand)->costop))
		return cand;
	return csched_runq_find(p, rx_not_stopped, NULL);   /* may idle: co-stop */
}

/* Every tick on a busy pCPU: the running vCPU's VM may have caught up. */
static void rx_tick(struct sched_pcpu *p, stime_t now)
{
	struct sched_vcpu *v = p->curr;

	if (v && cosched_vm_is_con(v->vm))
		rx_release(v->vm, now);
}

static bool rx_may_steal(struct sched_pcpu *p, struct sched_vcpu *v)
{
	return !READ_ONCE(RV(v)->costop);
}

#define RX_MAX_ACT 64

/* Seed 000 §5.1: once per accounting period. No lock held on entry. */
static void rx_acct(stime_t now)
{
	struct { struct sched_vcpu *lead, *lag; } act[RX_MAX_ACT];
	struct cpumask release;
	unsigned n = 0;
	stime_t thr = sched_opts.relaxed_skew;

	cpumask_zero(&release);
	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vm *vm = sched_sys.vms; vm; vm = vm->next) {
		struct sched_vcpu *lead, *lag;
		stime_t skew;

		if (!cosched_vm_is_con(vm))
			continue;
		skew = rx_skew(vm, now, &lead, &lag);
		for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next)
			if (READ_ONCE(RV(v)->costop) &&
			    (v != lead || skew * 2 < thr)) {   /* caught up: release */
				WRITE_ONCE(RV(v)->costop, 0);
				cpumask_set(&release, READ_ONCE(v->pcpu));
			}
		if (skew > thr && n < RX_MAX_ACT) {
			act[n].lead = lead;
			act[n].lag = lag;
			n++;
		}
	}
	spin_unlock(&sched_sys.vm_lock);
	sched_cpus_resched(&release, now);
	for (unsigned i = 0; i < n; i++) {
		struct sched_vcpu *L = act[i].lead, *G = act[i].lag;
		struct sched_pcpu *p = sched_pcpu_get(READ_ONCE(L->pcpu));
		struct sched_pcpu *q = sched_pcpu_get(READ_ONCE(G->pcpu));

		sched_lock_pair(p, q);
		if (L->pcpu != p->id || G->pcpu != q->id) {
			sched_unlock_pair(p, q);
			continue;   /* moved meanwhile: next period */
		}
		cosched_stats.ops++;
		if (sched_opts.relaxed_costop) {
			WRITE_ONCE(RV(L)->costop, 1);
			cosched_stats.codesched++;
		}
		/* Switch the laggard into the leader's place. */
		if (p != q && G->state == SCHED_RUNNABLE && q->curr != G &&
		    cpumask_test(&G->affinity, p->id)) {
			sched_sys.ops->sleep(G, now);          /* dequeue from q */
			sched_vcpu_migrate(G, p->id, now);
			csched_vcpu_set_pri(G, CPRI_BOOST);
			sched_sys.ops->wake(G, now);           /* enqueue on p, tickle */
		}
		/* Same pCPU: co-stopping the leader already hands it over; a
		 * raise would only put the laggard beside BOOSTed wakers. */
		if (L->state == SCHED_RUNNING && READ_ONCE(RV(L)->costop))
			sched_cpu_resched(p->id);
		sched_unlock_pair(p, q);
	}
}

static const struct csched_ext rx_ext = {
	.must_switch = rx_must_switch,
	.pick = rx_pick,
	.may_steal = rx_may_steal,
	.acct = rx_acct,
	.tick = rx_tick,
};

static int rx_init(void)
{
	cosched_stats_reset();
	return csched_init_ext(&rx_ext);
}

SCHED_POLICY_REGISTER(relaxed) = {
	.name = "relaxed",
	.desc = "credit + relaxed co-scheduling: skew accounting, co-stop and leader/laggard switch (seed 000 §5.1)",
	.caps = SCHED_CAP_WEIGHTS | SCHED_CAP_CAPS | SCHED_CAP_BOOST | SCHED_CAP_BALANCE,
	CSCHED_POLICY_OPS(rx_init),
};

/* Options (sched/option.h). */
SCHED_OPT_INT(sched_relaxed_skew_us, sched_opts.relaxed_skew, SCHED_US(1), SCHED_US(100),
	      SCHED_MS(1000), SCHED_US(3000),
	      "relaxed co-scheduling: skew that co-stops the leader, us (3000)");
SCHED_OPT_INT(sched_relaxed_costop, sched_opts.relaxed_costop, 1, 0, 1, 1,
	      "relaxed co-scheduling: 1 = co-stop the leader, 0 = swap only (1)");
