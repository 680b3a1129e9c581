/* Preemption plumbing shared by every policy: delayed preemption (seed 001
 * §5.1), scheduler-activation upcall with hard limit (seed 000 Alg. 1),
 * differential slices (seed 001 §5.2). The built-in hooks implement the fixed
 * variants from sched_opts; adaptive ones install their own sched_hooks. */
#include "sched/policy.h"
#include "log.h"
#include "errno.h"

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

/* Fixed delayed preemption: sched_dp_us. */
static stime_t sched_dp_fixed(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now)
{
	return sched_opts.dp_delay;
}

/* Differential slices: uniform in [ds_min, ds_max] per pCPU and decision. */
static stime_t sched_ds_random(struct sched_pcpu *p, stime_t slice, stime_t now)
{
	stime_t span = sched_opts.ds_max - sched_opts.ds_min;

	if (sched_opts.ds_min <= 0 || span < 0)
		return slice;
	return sched_opts.ds_min + (stime_t)(sched_cpu_random(p) % (uint64_t)(span + 1));
}

static const struct sched_hooks sched_hooks_builtin = {
	.name = "builtin (fixed DP, random DS)",
	.preempt_delay = sched_dp_fixed,
	.slice_pick = sched_ds_random,
};

/* The built-in hooks, for sched_init() when the options ask for them. */
const struct sched_hooks *sched_hooks_default(void);
const struct sched_hooks *sched_hooks_default(void)
{
	return sched_opts.dp_delay > 0 || sched_opts.ds_min > 0 ? &sched_hooks_builtin : NULL;
}

/* SA sender (seed 000 Alg. 1 lines 4-7): notify a runnable vCPU once, let it
 * run until it acknowledges (block/yield) or sa_limit passes. locked(p). */
static stime_t sched_sa_send(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now)
{
	struct sched_shared_page *sp;

	if (v->flags & SCHED_VF_SA_PEND)
		return v->sa_deadline;
	if (!v->vm->params.sa || !v->sa_vector || sched_opts.sa_limit <= 0)
		return 0;
	v->flags |= SCHED_VF_SA_PEND;
	v->sa_deadline = now + sched_opts.sa_limit;
	v->st.nsa_upcall++;
	sp = sched_vcpu_shared(v);
	if (sp)
		sp->sa_pending = 1;
	sched_vcpu_inject(v, v->sa_vector);
	sched_trace_event(p->id, v, VPE_SA_UPCALL, now, 0);
	return v->sa_deadline;
}

/* Until when prev keeps p although the scheduler wants to preempt it;
 * <= now means "preempt now". locked(p). */
stime_t sched_preempt_hold(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now)
{
	const struct sched_hooks *h = sched_sys.hooks;
	stime_t d, t;

	if (p->force_preempt)
		return 0;
	if (p->hold_until != STIME_MAX && now < p->hold_until)
		return p->hold_until;   /* already holding */
	if (!(h && h->preempt_delay) && !(prev->vm->params.sa && prev->sa_vector))
		return 0;
	if (sched_sys.ops->preempt_check && !sched_sys.ops->preempt_check(p, prev, now))
		return 0;
	if (h && h->preempt_delay && (d = h->preempt_delay(p, prev, now)) > 0) {
		prev->st.ndelayed++;
		sched_trace_event(p->id, prev, VPE_DELAY_PREEMPT, now, (uint64_t)d);
		return now + d;
	}
	t = sched_sa_send(p, prev, now);
	return t > now ? t : 0;
}

stime_t sched_slice_adjust(struct sched_pcpu *p, stime_t slice, stime_t now)
{
	const struct sched_hooks *h = sched_sys.hooks;

	if (h && h->slice_pick && slice != STIME_MAX)
		return h->slice_pick(p, slice, now);
	return slice;
}

/* HC_SCHED_SA_REGISTER: vector 32..255 (0 disables). */
int sched_sa_register(struct sched_vcpu *v, uint8_t vector)
{
	if (vector && vector < 32)
		return trace_error(-EINVAL);
	v->sa_vector = vector;
	return 0;
}

/* HC_SCHED_SA_ACK (seed 000 Alg. 1 line 15): clears the pending flag; the
 * block or yield that follows performs the deschedule. On v's pCPU. */
void sched_sa_ack(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_vcpu_lock(v);
	struct sched_shared_page *sp;

	if (v->flags & SCHED_VF_SA_PEND) {
		v->flags &= (uint8_t)~SCHED_VF_SA_PEND;
		sp = sched_vcpu_shared(v);
		if (sp)
			sp->sa_pending = 0;
		sched_trace_event(p->id, v, VPE_SA_ACK, now, 0);
		if (p->curr == v) {
			p->hold_until = STIME_MAX;
			p->force_preempt = true;
			p->need_resched = true;
		}
	}
	sched_vcpu_unlock(p);
}
