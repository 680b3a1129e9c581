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
 *                whose arg names vCPU 1 (bits 8+ = id + 1). */
#include "guest.h"
#include "abi.h"

const char test_name[] = "preempt";

#define PHASE_MS 600
#define WAKER_MS 900

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

void test_main(void)
{
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
