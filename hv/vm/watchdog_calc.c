/* Hang watchdog, the pure part (see watchdog_calc.h). */
#include "vm/watchdog_calc.h"
#include "vmx/exit_reasons.h"

static const char *const wait_names[WD_WAIT_NR] = {
	[WD_WAIT_OK] = "ok",
	[WD_WAIT_TIMER_OVERDUE] = "timer-overdue",
	[WD_WAIT_LOST_WAKE] = "lost-wake",
	[WD_WAIT_PPR_HELD] = "irr-held-by-isr",
	[WD_WAIT_IF_OFF] = "halted-if0",
};

const char *wd_wait_name(enum wd_wait w)
{
	return (unsigned)w < WD_WAIT_NR ? wait_names[w] : "?";
}

enum wd_wait wd_classify(const struct wd_vcpu_snap *s, stime_t now, stime_t lim)
{
	if (!s->blocked && !s->running)
		return WD_WAIT_OK;
	/* vlapic_timer_advance() clears (one-shot, TSC deadline) or moves
	 * (periodic) a deadline it reaches: one left far behind was never
	 * looked at, by the vCPU's own loop nor by its pCPU's blocked sweep. */
	if (s->timer != INT64_MAX && now - lim > s->timer)
		return WD_WAIT_TIMER_OVERDUE;
	if (!s->blocked || !s->halted)
		return WD_WAIT_OK;
	if (!s->halt_if)
		return WD_WAIT_IF_OFF;   /* SDM: HLT ends for an enabled interrupt only */
	if (s->apic_on && s->irr_top >= 0) {
		/* SDM §11.8.4: IRR's highest vector is delivered if its priority
		 * class beats PPR's; vcpu_has_wakeup() asks the same. */
		if ((s->irr_top & 0xf0) > (wd_ppr(s->tpr, s->isr_top) & 0xf0))
			return WD_WAIT_LOST_WAKE;
		return WD_WAIT_PPR_HELD;
	}
	return WD_WAIT_OK;
}

const uint8_t wd_np_reasons[WD_NP_REASONS] = {
	EXIT_REASON_EXTERNAL_INTERRUPT, EXIT_REASON_INTERRUPT_WINDOW, EXIT_REASON_NMI_WINDOW,
	EXIT_REASON_TPR_BELOW_THRESHOLD, EXIT_REASON_EPT_MISCONFIG, EXIT_REASON_PREEMPTION_TIMER,
};

const char *wd_np_reason_name(unsigned i)
{
	static const char *const names[WD_NP_REASONS] = {
		"external-interrupt", "interrupt-window", "nmi-window", "tpr-below-threshold",
		"ept-misconfig", "preemption-timer",
	};
	return i < WD_NP_REASONS ? names[i] : "?";
}

bool wd_reason_no_progress(unsigned reason)
{
	for (unsigned i = 0; i < WD_NP_REASONS; i++)
		if (wd_np_reasons[i] == reason)
			return true;
	return false;
}

bool wd_livelock(uint64_t d_all, uint64_t d_np, stime_t dt, unsigned per_s)
{
	if (!per_s || dt <= 0 || d_np < 64 || d_np > d_all)
		return false;
	/* d_np / (dt / 1e9) >= per_s, without overflow for any dt up to hours. */
	if ((unsigned __int128)d_np * 1000000000u < (unsigned __int128)per_s * (uint64_t)dt)
		return false;
	return (unsigned __int128)d_np * 10 >= (unsigned __int128)d_all * 9;
}
