/* Virtual local APIC: the timer (SDM §11.5.4): one-shot, periodic and
 * TSC-deadline modes, count-down reads, coalesced firing. */
#include "dev/vlapic_impl.h"

/* ------------------------------------------------------------ timer (SDM §11.5.4) */

static unsigned timer_divide(const struct vlapic *l)
{
	uint32_t d = vlapic_reg(l, APIC_TDCR);
	unsigned v = ((d >> 1) & 4) | (d & 3);

	return v == 7 ? 1 : 2u << v;
}

void vlapic_timer_load(struct vlapic *l, stime_t now)
{
	uint32_t count = vlapic_reg(l, APIC_TMICT);

	l->timer_div = timer_divide(l);
	l->timer_start = now;
	l->timer_period = (stime_t)count * l->timer_div;
	l->timer_deadline = count ? now + l->timer_period : STIME_NEVER;
}

uint32_t vlapic_timer_current(const struct vlapic *l, stime_t now)
{
	stime_t el;

	if (l->timer_mode == APIC_TIMER_TSCDL || l->timer_deadline == STIME_NEVER ||
	    l->timer_period <= 0)
		return 0;
	el = now - l->timer_start;
	if (el < 0)
		el = 0;
	if (l->timer_mode == APIC_TIMER_PERIODIC)
		el %= l->timer_period;
	else if (el >= l->timer_period)
		return 0;
	return (uint32_t)((l->timer_period - el + l->timer_div - 1) / l->timer_div);
}

stime_t vlapic_timer_next(const struct vlapic *l)
{
	return l->timer_deadline;
}

/* Fire at most once per call: periods missed while the vCPU was not running
 * are coalesced, as a real APIC's IRR would coalesce them. A periodic timer
 * re-arms no sooner than VLAPIC_MIN_PERIOD (as KVM's min_timer_period_us):
 * a 1-tick period would otherwise fire at every VM entry and livelock the
 * vCPU in its handler while its pCPU does nothing but exits. */
void vlapic_timer_advance(struct vlapic *l, stime_t now)
{
	if (now < l->timer_deadline)
		return;
	if (l->timer_mode == APIC_TIMER_PERIODIC && l->timer_period > 0) {
		stime_t p = MAX(l->timer_period, (stime_t)VLAPIC_MIN_PERIOD);

		l->timer_start += (now - l->timer_start) / p * p;
		l->timer_deadline = l->timer_start + p;
	} else {
		l->timer_deadline = STIME_NEVER;
		l->tscdl = 0;   /* SDM §11.5.4.1: the MSR reads 0 once it fired */
	}
	l->timer_fired++;
	lvt_fire(l, APIC_LVT_TIMER);
}

void vlapic_tscdl_write(struct vlapic *l, uint64_t tsc)
{
	if (!vlapic_hw_enabled_inl(l) || l->timer_mode != APIC_TIMER_TSCDL) {
		l->tscdl_ignored += tsc != 0;
		return;   /* ignored outside TSC-deadline mode (SDM §11.5.4.1) */
	}
	l->tscdl = tsc;
	l->timer_deadline = tsc ? l->ops->tsc_to_ns(l->ops->ctx, tsc) : STIME_NEVER;
	if (tsc)
		vlapic_timer_advance(l, lapic_now(l));
}
