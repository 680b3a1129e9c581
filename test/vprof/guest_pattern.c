/* vProfile system-test guest (issue 5): one profile with three marked
 * phases of PHASE_MS each: busy computing, halted (only the 20 Hz watchdog
 * wakes it), spinning on PAUSE (PAUSE-loop exits, seed 001 §2.1). The
 * stop hypercall makes the hypervisor dump the trace over serial, where
 * test/vprof/system_test.py checks each phase's breakdown. Built against
 * the guest library of guest-shim/lib (mk/vprof.mk, vprof-guest). */
#include "guest.h"
#include "abi.h"

const char test_name[] = "vprof_pattern";

#define PHASE_MS 300

static volatile uint32_t never;
static volatile uint64_t sink;

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

static void spin(unsigned ms)
{
	uint64_t end = tsc_after_ms(ms);

	while (!tsc_passed(end))
		for (int i = 0; i < 100; i++)
			cpu_pause();
}

void test_main(void)
{
	test_check("signature", hv_is_ours(), "CPUID 0x40000000 signature of hv/abi.h");
	call("start", HC_VPROF_START, 0);
	call("mark_busy", HC_VPROF_MARK, 1);
	busy(PHASE_MS);
	call("mark_halt", HC_VPROF_MARK, 2);
	hlt_until(&never, 1, PHASE_MS);
	call("mark_pause", HC_VPROF_MARK, 3);
	spin(PHASE_MS);
	call("stop", HC_VPROF_STOP, 0);
}
