/* vProfile's read-only statistics views (seed 001 §2.1): per-vCPU totals
 * with the open intervals of an active profile, per-pCPU ring counters.
 * Apart from profile.c (profile windows), which the dump (dump.c) is called
 * from, so that dump.c and profile.c do not depend on each other both ways. */
#include "trace/internal.h"
#include "errno.h"

/* Totals up to now: open intervals of an active profile are included. */
void vp_stats_locked(const struct vp_vm *v, const struct vp_acct *a, stime_t now,
		     struct vprof_vcpu_stats *out)
{
	*out = a->s;
	if (v->on && now >= a->since)
		out->state_ns[a->s.state] += (uint64_t)(now - a->since);
	if (v->on && a->s.spinning && now >= a->spin_since)
		out->spin_ns += (uint64_t)(now - a->spin_since);
}

int vprof_vcpu_stats_get(uint16_t vm, uint16_t vcpu, stime_t now, struct vprof_vcpu_stats *out)
{
	struct vp_acct *a = vp_acct_get(vm, vcpu);
	struct vp_vm *v = vp_vm_get(vm);

	if (!a || !out)
		return -EINVAL;
	spin_lock(&v->lock);
	vp_stats_locked(v, a, now, out);
	spin_unlock(&v->lock);
	return 0;
}

int vprof_pcpu_stats_get(unsigned pcpu, struct vprof_pcpu_stats *out)
{
	struct vp_ring *r;

	if (pcpu >= vp_g.npcpus || !out)
		return -EINVAL;
	r = &vp_g.ring[pcpu];
	spin_lock(&r->lock);
	out->recorded = r->recorded;
	out->lost = r->lost;
	out->idle_ns = r->idle_ns;
	out->used = r->head;
	out->cap = r->cap;
	spin_unlock(&r->lock);
	return 0;
}
