/* LAPIC timer in its three modes (SDM Vol. 3 10.5.4), each waking a HLT:
 * one-shot (fires once, not early), periodic (keeps firing at its period),
 * TSC-deadline (fires at the deadline; a past deadline fires at once).
 * hlt_until()'s watchdog ticks every 50 ms, so the upper bounds (< 45 ms
 * late) also catch a timer that is only noticed at the next VM exit. */
#include "guest.h"

const char test_name[] = "timer";

#define VEC_TIMER 0x41
#define DIV_16    0x3

static volatile uint64_t fired_tsc;
static uint64_t ticks_per_ms;          /* LAPIC timer at divide-by-16 */

static void on_timer(unsigned v)
{
	fired_tsc = rdtsc();
}

/* Count the timer down for 10 ms of TSC time to learn its rate. */
static void timer_calibrate(void)
{
	apic_write(APIC_TDCR, DIV_16);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | VEC_TIMER);
	apic_write(APIC_TMICT, 0xffffffffu);
	delay_us(10000);
	ticks_per_ms = (0xffffffffu - apic_read(APIC_TMCCT)) / 10;
	apic_write(APIC_TMICT, 0);
	test_check("count_down", ticks_per_ms > 0, "%llu ticks/ms at divide 16",
		   (unsigned long long)ticks_per_ms);
	if (!ticks_per_ms)
		ticks_per_ms = 1000;
}

static void check_oneshot(void)
{
	uint32_t before = irq_counts[VEC_TIMER];
	uint64_t t0 = rdtsc(), ms;
	bool woke;

	apic_write(APIC_LVT_TIMER, VEC_TIMER);
	apic_write(APIC_TMICT, (uint32_t)(ticks_per_ms * 10));
	woke = hlt_until(&irq_counts[VEC_TIMER], before + 1, 1000);
	ms = (fired_tsc - t0) / tsc_khz;
	test_check("oneshot", woke && ms >= 8 && ms < 45, "woke %d after %llu ms (armed 10 ms)",
		   woke, (unsigned long long)ms);
	delay_us(30000);
	test_check("oneshot_once", irq_counts[VEC_TIMER] == before + 1 && apic_read(APIC_TMCCT) == 0,
		   "%u interrupts, current count %u", irq_counts[VEC_TIMER] - before,
		   apic_read(APIC_TMCCT));
}

static void check_periodic(void)
{
	uint32_t before = irq_counts[VEC_TIMER];
	uint64_t t0 = rdtsc(), ms;
	bool woke;

	apic_write(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC_TIMER);
	apic_write(APIC_TMICT, (uint32_t)(ticks_per_ms * 5));
	woke = hlt_until(&irq_counts[VEC_TIMER], before + 5, 2000);
	ms = (fired_tsc - t0) / tsc_khz;
	apic_timer_stop();
	test_check("periodic", woke && ms >= 20 && ms < 150, "5 periods of 5 ms in %llu ms",
		   (unsigned long long)ms);
}

static void check_tsc_deadline(void)
{
	uint32_t before = irq_counts[VEC_TIMER];
	uint64_t deadline;
	bool woke;

	if (!(cpuid(1, 0).c & (1u << 24))) {
		test_check("tsc_deadline", false, "CPUID.1:ECX.TSC_DEADLINE clear");
		return;
	}
	apic_write(APIC_LVT_TIMER, APIC_TIMER_TSCDL | VEC_TIMER);
	deadline = tsc_after_ms(10);
	wrmsr(MSR_TSC_DEADLINE, deadline);
	woke = hlt_until(&irq_counts[VEC_TIMER], before + 1, 1000);
	test_check("tsc_deadline", woke && fired_tsc >= deadline &&
		   fired_tsc - deadline < 35 * tsc_khz,
		   "woke %d, fired %lld TSC ticks after the deadline", woke,
		   (long long)(fired_tsc - deadline));
	wrmsr(MSR_TSC_DEADLINE, 1);            /* in the past: fires at once */
	woke = hlt_until(&irq_counts[VEC_TIMER], before + 2, 100);
	test_check("tsc_deadline_past", woke, "count %u", irq_counts[VEC_TIMER] - before);
	apic_timer_stop();
}

void test_main(void)
{
	irq_set_handler(VEC_TIMER, on_timer);
	timer_calibrate();
	check_oneshot();
	check_periodic();
	check_tsc_deadline();
}
