/* A remote wake-up's kick must not be lost (5ddd985, hv/vm/vcpu.c
 * vcpu_run(); docs/sched.md "1-inter futex slow modes").
 *
 * Two VMs: this image as the test VM, 2 vCPUs with pcpus=1,0, and again as
 * a hog VM (cmdline hog=1, 1 vCPU, pcpus=0, a low weight) whose BSP spins
 * without exits on pCPU 0. In the test VM the BSP (pCPU 1) wakes CPU 1, the
 * sleeper (pCPU 0), with an IPI. Each round the sleeper halts, pCPU 0
 * switches to the hog, and the BSP sends its IPI a swept delay after the
 * sleeper said it would halt, so that over the rounds the hypervisor's kick
 * (the wake-up's tickle) lands at every point of the hog's entry path,
 * between vcpu_run()'s need_resched test and the VM entry too. The woken
 * sleeper (UNDER, BOOSTed; the hog is OVER by its weight) must preempt the
 * hog within credit's rate limit (1 ms). Before 5ddd985 a kick taken in that
 * window ran its no-op handler and left nothing pending: the hog ran on to
 * its armed deadline, up to credit's 10 ms tick. The check: no wake-up (IPI
 * sent to its handler run in the sleeper) takes late=MS or more.
 *
 * The rounds run for ms=MS after the test VM's APs are up, the hog for
 * MS + 300 ms from its start (both VMs boot together): it spins through
 * every round.
 *
 * Command line: ms=MS (default 700), span=US (the delay sweep, default
 * 40), late=MS (default 4), hog=1 (be the hog). */
#include "guest.h"

const char test_name[] = "kickwake";

#define VEC_WAKE  0x44
#define VEC_BACK  0x45
#define SLEEPER   1
#define MIN_ROUNDS 100

static volatile uint32_t armed_round, woken_round, stop;
static volatile uint64_t woke_tsc;

static void on_wake(unsigned v)
{
	woke_tsc = rdtsc();
	woken_round = armed_round;
	apic_send_ipi(0, VEC_BACK);   /* the waker halts meanwhile */
}

static void on_back(unsigned v)
{
}

static void sleeper(unsigned cpu)
{
	for (uint32_t r = 1; !stop; r++) {
		cli();
		armed_round = r;
		while (woken_round != r && !stop) {
			sti_hlt();
			cli();
		}
		sti();
	}
}

/* The hog VM: plain loads and RDTSC (no PAUSE, so no PLE exit or yield). */
static void hog(uint64_t end)
{
	uint64_t spins = 0;

	con_printf("kickwake: hog spins for %llu ms\n",
		   (unsigned long long)((end - rdtsc()) / tsc_khz));
	while (!tsc_passed(end))
		spins++;
	test_check("hog_spun", spins > 0, "%llu spins", (unsigned long long)spins);
}

void test_main(void)
{
	uint64_t end = boot_arg_num("ms", 700) * tsc_khz;
	unsigned span_us = (unsigned)boot_arg_num("span", 40);
	unsigned late_ms = (unsigned)boot_arg_num("late", 4);
	uint64_t span, step, worst = 0, sum = 0, t0;
	unsigned late = 0, lost = 0, done = 0;

	if (boot_arg_num("hog", 0)) {
		hog(rdtsc() + end + 300 * tsc_khz);
		return;
	}
	con_printf("kickwake: rounds for %llu ms, delay sweep 0-%u us, late at %u ms\n",
		   (unsigned long long)(end / tsc_khz), span_us, late_ms);
	if (!test_check("two_cpus", smp_nr_cpus() >= 2, "%u vCPUs", smp_nr_cpus()))
		return;
	irq_set_handler(VEC_WAKE, on_wake);
	irq_set_handler(VEC_BACK, on_back);
	int rc = smp_start_all(NULL);

	if (!test_check("aps_online", rc == 0 && smp_online >= 1, "%u APs", smp_online))
		return;
	smp_run_on(SLEEPER, sleeper, 0);
	span = span_us * tsc_khz / 1000;
	/* Delays 0..span in steps of about span/97: a few passes over it. */
	step = span / 97 + 1;
	t0 = rdtsc();
	end += t0;
	for (uint32_t r = 1; !tsc_passed(end); r++) {
		uint64_t sent, until, lat, d = (r * step) % (span + 1);

		until = rdtsc() + 1000 * tsc_khz;
		while (armed_round != r && !tsc_passed(until))
			;
		if (armed_round != r) {
			lost++;
			test_check("sleeper_armed", false, "round %u: the sleeper never halted", r);
			break;
		}
		until = rdtsc() + d;
		while (!tsc_passed(until))
			;
		sent = rdtsc();
		apic_send_ipi(SLEEPER, VEC_WAKE);
		/* on_wake sends VEC_BACK; a lost wake-up hangs here until
		 * hvrun's timeout, which fails the case too. */
		hlt_until_raw(&woken_round, r, 1000);
		if (woken_round != r) {
			lost++;
			test_check("woken", false, "round %u: no wake-up in 1 s", r);
			break;
		}
		lat = woke_tsc - sent;
		sum += lat;
		if (lat > worst)
			worst = lat;
		if (lat >= late_ms * tsc_khz) {
			late++;
			con_printf("kickwake: round %u (delay %llu us) woke after %llu us\n", r,
				   (unsigned long long)(d * 1000 / tsc_khz),
				   (unsigned long long)(lat * 1000 / tsc_khz));
		}
		done++;
	}
	stop = 1;
	apic_send_ipi(SLEEPER, VEC_WAKE);
	con_printf("kickwake: %u wake-ups in %llu ms: mean %llu us, max %llu us, %u at %u ms or more\n",
		   done, (unsigned long long)((rdtsc() - t0) / tsc_khz),
		   (unsigned long long)(done ? sum * 1000 / tsc_khz / done : 0),
		   (unsigned long long)(worst * 1000 / tsc_khz), late, late_ms);
	test_check("rounds", lost || done >= MIN_ROUNDS, "%u wake-ups (%u wanted)", done, MIN_ROUNDS);
	test_check("no_late_wakeup", !lost && late == 0, "%u of %u wake-ups took %u ms or more "
		   "(max %llu us)", late, done, late_ms, (unsigned long long)(worst * 1000 / tsc_khz));
}
