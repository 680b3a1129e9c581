/* sched=bcs: Boost Co-Scheduling, seed 003 §V, Algorithm 2. A priority COS
 * above BOOST: when credit picks a CON vCPU that is not at COS, its queued
 * siblings are raised to COS (each is then picked at its pCPU's next
 * decision; a raise tickles a pCPU running something of lower priority,
 * exactly as a BOOST wake does, and no co-scheduling signal is sent). A COS
 * vCPU falls back to UNDER once picked. CON vCPUs are scattered like pcs. */
#include "sched/cosched.h"
#include "log.h"
#include "lib/string.h"

static struct sched_vcpu *bcs_pick(struct sched_pcpu *p, struct sched_vcpu *prev,
				   struct sched_vcpu *next, stime_t now)
{
	struct cosched_vcpu *bn;

	if (!next)
		return NULL;
	bn = csched_vcpu_ext(next);
	if (csched_vcpu_pri(next) == CPRI_COS) {
		/* Alg. 2 lines 2-3: Next.Pri = Default_Pri (UNDER). */
		csched_vcpu_set_pri(next, CPRI_UNDER);
		if (bn->edge_from)
			cosched_edge(bn->edge_from, now);
		bn->edge_from = 0;
		return next;
	}
	if (!cosched_vm_is_con(next->vm))
		return next;
	/* Alg. 2 lines 4-7: boost the VM's (runnable) vCPUs to COS. */
	cosched_stats.ops++;
	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vcpu *s = next->vm->vcpus; s; s = s->vm_next) {
		struct cosched_vcpu *bs = csched_vcpu_ext(s);

		/* A sibling queued on this pCPU cannot run at the same time
		 * (only with more vCPUs than pCPUs): raising it would only put
		 * it above BOOSTed wakers here. */
		if (s == next || READ_ONCE(s->state) != SCHED_RUNNABLE || READ_ONCE(s->pcpu) == p->id)
			continue;
		bs->edge_from = now;
		csched_vcpu_raise(s, CPRI_COS);
	}
	spin_unlock(&sched_sys.vm_lock);
	return next;
}

static void bcs_vm_adjust(struct sched_vm *vm)
{
	cosched_scatter_vm(vm);
}

static const struct csched_ext bcs_ext = {
	.pick = bcs_pick,
	.may_steal = cosched_may_steal,
	.pick_cpu = cosched_pick_cpu,
	.place = cosched_scatter_place,
	.vm_adjust = bcs_vm_adjust,
};

static int bcs_init(void)
{
	cosched_stats_reset();
	return csched_init_ext(&bcs_ext);
}

SCHED_POLICY_REGISTER(bcs) = {
	.name = "bcs",
	.desc = "credit + boost co-scheduling: COS priority above BOOST (seed 003 Alg. 2)",
	.caps = SCHED_CAP_WEIGHTS | SCHED_CAP_CAPS | SCHED_CAP_WORKCONS | SCHED_CAP_BOOST |
		SCHED_CAP_BALANCE,
	CSCHED_POLICY_OPS(bcs_init),
};
