/* Guest of `make exp-preempt` (issue 13; tools/sim/exp_preempt.py): the
 * preemption path seen from a Bochs guest through its own vProfile trace.
 *   mode=victim  one vCPU computes PHASE_MS inside a profile; a mode=waker VM
 *                on the same pCPU halts and wakes (20 Hz watchdog), so each
 *                wake-up preempts the victim: with sched_dp_us the trace holds
 *                DELAY_PREEMPT events (seed 001 §5.1).
 *   mode=waker   halts/wakes for WAKER_MS.
 *   mode=ple     two vCPUs on one pCPU: vCPU 1 computes for ever (so it is
 *                preempted at its slice ends), vCPU 0 spins on PAUSE inside a
 *                profile; its PAUSE-loop exits must yield to vCPU 1 (directed
 *                yield to a preempted sibling, hv/sched/ple.c): PLE events
 *                whose arg names vCPU 1 (bits 8+ = id + 1).
 *   mode=predict / mode=noise: slowdown prediction (seed 001 §4) from a
 *                dedicated sample and a normal sample (test_predict()). */
#include "guest.h"
#include "abi.h"

const char test_name[] = "preempt";

#define PHASE_MS 600
#define WAKER_MS 900
#define PRED_MS 900        /* each sample (slice-edge error ~ 30 ms / PRED_MS) */
#define PRED_EPOCHS 31     /* credit accounting periods of 30 ms: covers the sample */
#define NOISE_MS 2500

static volatile uint32_t never;
static volatile uint64_t sink;

static bool cmdline_has(const char *w)
{
	const char *c = boot.cmdline;

	while (*c) {
		unsigned i = 0;

		while (w[i] && c[i] == w[i])
			i++;
		if (!w[i] && (c[i] == ' ' || !c[i]))
			return true;
		while (*c && *c != ' ')
			c++;
		while (*c == ' ')
			c++;
	}
	return false;
}

static void call(const char *name, unsigned long nr, unsigned long arg)
{
	long ret = 0;
	int f = hv_call(nr, arg, 0, &ret);

	test_check(name, !f && ret >= 0, "hypercall %#lx(%lu) -> %ld (fault %d)", nr, arg, ret, f);
}

static void busy(unsigned ms)
{
	uint64_t end = tsc_after_ms(ms), x = 1;

	while (!tsc_passed(end))
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

static void ap_loop(unsigned cpu)
{
	uint64_t x = cpu;

	for (;;)
		x = x * 6364136223846793005ull + 1;
}

/* Iterations of a fixed loop body completed in `ms` of wall time (TSC): the
 * guest's own measure of progress for mode=predict. */
static uint64_t work(unsigned ms)
{
	uint64_t end = tsc_after_ms(ms), x = 1, n = 0;

	while (!tsc_passed(end)) {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		n++;
	}
	sink = x;
	return n;
}

/* mode=predict (VM with vprof=dedicated) beside a mode=noise VM: seed 001
 * §4's sampling schedule from the guest: a profile with a dedicated period,
 * then a profile under interference; the guest prints its own progress in
 * both so the runner can compare `vprof predict` with the real slowdown. */
static void test_predict(void)
{
	uint64_t n1, n2;

	busy(100);                          /* let the noise VM get going */
	call("start_ded", HC_VPROF_START, 0);
	call("dedicated", HC_VPROF_DEDICATED, PRED_EPOCHS);
	n1 = work(PRED_MS);
	call("stop_ded", HC_VPROF_STOP, 0);
	busy(60);                           /* past the dedicated period */
	call("start_norm", HC_VPROF_START, 0);
	n2 = work(PRED_MS);
	call("stop_norm", HC_VPROF_STOP, 0);
	con_printf("PREEMPT_PREDICT work_dedicated=%llu work_normal=%llu\n",
		   (unsigned long long)n1, (unsigned long long)n2);
	test_check("progress", n1 > 0 && n2 > 0, "%llu / %llu", (unsigned long long)n1,
		   (unsigned long long)n2);
}

void test_main(void)
{
	if (cmdline_has("mode=predict")) {
		test_predict();
		return;
	}
	if (cmdline_has("mode=noise")) {
		busy(NOISE_MS);
		test_check("noise", true, "computed %u ms", NOISE_MS);
		return;
	}
	if (cmdline_has("mode=waker")) {
		uint64_t end = tsc_after_ms(WAKER_MS);

		while (!tsc_passed(end))
			hlt_until(&never, 1, 10);
		test_check("waker", true, "halted and woke for %u ms", WAKER_MS);
		return;
	}
	if (cmdline_has("mode=ple")) {
		uint64_t end;

		test_check("ap_started", smp_nr_cpus() >= 2 && smp_start_ap(1, 0x08, NULL) == 0,
			   "%u vCPUs", smp_nr_cpus());
		smp_run_on(1, ap_loop, 0);      /* never returns on vCPU 1 */
		call("start", HC_VPROF_START, 0);
		end = tsc_after_ms(PHASE_MS);
		while (!tsc_passed(end))
			for (int i = 0; i < 100; i++)
				cpu_pause();
		call("stop", HC_VPROF_STOP, 0);
		return;
	}
	call("start", HC_VPROF_START, 0);
	busy(PHASE_MS);
	call("stop", HC_VPROF_STOP, 0);
}
