/* Per-vCPU accumulators (seed 001 §2.1): time per Xen-like state plus a
 * spinning sub-state of RUNNING, event and exit counts. The VM lock is held. */
#include "trace/internal.h"
#include "lib/string.h"

/* Length of [from, now]; a clock that went backwards counts as an anomaly. */
static uint64_t acct_span(struct vp_acct *a, stime_t from, stime_t now)
{
	if (now < from) {
		a->s.anomalies++;
		return 0;
	}
	return (uint64_t)(now - from);
}

void vp_acct_reset(struct vp_acct *a, stime_t now)
{
	struct vprof_vcpu_stats keep = a->s;

	memset(&a->s, 0, sizeof(a->s));
	a->s.state = keep.state;
	a->s.spinning = keep.spinning;
	a->s.last_pcpu = keep.last_pcpu;
	a->since = now;
	a->spin_since = now;
}

static void acct_spin_end(struct vp_acct *a, bool on, stime_t now)
{
	if (on)
		a->s.spin_ns += acct_span(a, a->spin_since, now);
	a->s.spinning = 0;
}

void vp_acct_state(struct vp_acct *a, enum vp_state to, bool on, stime_t now)
{
	if (on)
		a->s.state_ns[a->s.state] += acct_span(a, a->since, now);
	/* Spinning is part of RUNNING: leaving RUNNING ends it. */
	if (a->s.spinning && to != VP_RUNNING)
		acct_spin_end(a, on, now);
	a->s.state = (uint8_t)to;
	a->since = now;
}

static void acct_spin_begin(struct vp_acct *a, uint64_t det, bool on, stime_t now)
{
	if (a->s.spinning || a->s.state != VP_RUNNING) {
		if (on)
			a->s.anomalies++;
		return;
	}
	a->s.spinning = 1;
	a->spin_det = (uint8_t)(det < VPS_NDETECTORS ? det : VPS_UNKNOWN);
	a->spin_since = now;
	if (on)
		a->s.spin_begins[det < VPS_NDETECTORS ? det : VPS_UNKNOWN]++;
}

void vp_acct_event(struct vp_acct *a, enum vp_event ev, uint64_t arg, bool on, stime_t now)
{
	if (on)
		a->s.events[ev]++;
	if (ev == VPE_SPIN_BEGIN)
		acct_spin_begin(a, arg, on, now);
	else if (ev == VPE_SPIN_END && a->s.spinning)
		acct_spin_end(a, on, now);
	else if (ev == VPE_SPIN_END && on)
		a->s.anomalies++;
}

/* Fold the open intervals into the totals (profile stop). */
void vp_acct_close(struct vp_acct *a, stime_t now)
{
	a->s.state_ns[a->s.state] += acct_span(a, a->since, now);
	a->since = now;
	if (a->s.spinning) {
		a->s.spin_ns += acct_span(a, a->spin_since, now);
		a->spin_since = now;
	}
}
