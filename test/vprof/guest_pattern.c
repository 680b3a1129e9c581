/* vProfile system-test guest (issue 5): one profile with three marked
 * phases of PHASE_MS each: busy computing, halted (only the 20 Hz watchdog
 * wakes it), spinning on PAUSE (PAUSE-loop exits, seed 001 §2.1). The
 * stop hypercall makes the hypervisor dump the trace over serial, where
 * test/vprof/system_test.py checks each phase's breakdown. Built against
 * the guest library of guest-shim/lib (mk/vprof.mk, vprof-guest).
 * `mode=dedicated` / `mode=noise` on the command line select the dedicated-mode
 * scenario instead (two VMs on one pCPU, see test_dedicated()). */
#include "guest.h"
#include "abi.h"

const char test_name[] = "vprof_pattern";

#define PHASE_MS 300
#define DED_EPOCHS 20      /* credit accounting periods of 30 ms: covers phase 2 */
#define NOISE_MS 1500      /* the noise VM outlives the dedicated VM's profile */

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

/* True when the command line holds the word w (words split at spaces). */
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

/* mode=dedicated (VM with vprof=dedicated), sharing one pCPU with a
 * mode=noise VM: phase 1 busy while the noise VM competes (steal), phase 2
 * busy inside a dedicated period (seed 001 §2.3: the noise VM is frozen). */
static void test_dedicated(void)
{
	call("start", HC_VPROF_START, 0);
	busy(100);                 /* let the noise VM get going */
	call("mark_shared", HC_VPROF_MARK, 1);
	busy(PHASE_MS);
	call("dedicated", HC_VPROF_DEDICATED, DED_EPOCHS);
	call("mark_dedicated", HC_VPROF_MARK, 2);
	busy(PHASE_MS);
	call("mark_after", HC_VPROF_MARK, 3);
	call("stop", HC_VPROF_STOP, 0);
}

/* mode=noise: may not freeze others (no vprof=dedicated), then competes
 * inside its own profile, whose dump shows the time it spent frozen. */
static void test_noise(void)
{
	long ret = 0;
	int f = hv_call(HC_VPROF_DEDICATED, 1, 0, &ret);

	test_check("dedicated_refused", !f && ret == -1 /* -EPERM */,
		   "HC_VPROF_DEDICATED without permission -> %ld (fault %d)", ret, f);
	call("start", HC_VPROF_START, 0);
	busy(NOISE_MS);
	call("stop", HC_VPROF_STOP, 0);
}

void test_main(void)
{
	if (cmdline_has("mode=dedicated")) {
		test_dedicated();
		return;
	}
	if (cmdline_has("mode=noise")) {
		test_noise();
		return;
	}
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
