/* vProfile system-test guest (issue 5): one profile with three marked
 * phases of PHASE_MS each: busy computing, halted (only the 20 Hz watchdog
 * wakes it), spinning on PAUSE (PAUSE-loop exits, seed 001 §2.1). The
 * stop hypercall makes the hypervisor dump the trace over serial, where
 * test/vprof/system_test.py checks each phase's breakdown. Built against
 * the guest library of guest-shim/lib (mk/vprof.mk, vprof-guest).
 * `mode=dedicated` / `mode=noise` on the command line select the dedicated-mode
 * scenario instead (two VMs on one pCPU, see test_dedicated()); `mode=key`
 * or `mode=nokey` the serial dump-key scenarios (test_key()). */
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

/* mode=key: a profile left running until the runner types `v` on the serial
 * input (system_test.py, hvrun --send-key), which makes pCPU 0 dump it.
 * The guest cannot see the dump, but it sees that it did not run for a
 * while: its only pCPU spent the dump's serial lines (~9 ms each at 115200
 * baud) in the hypervisor. Then it stops the profile (a second dump).
 * mode=nokey: the same with console_keys=off, where no such pause may come. */
#define KEY_WAIT_MS   30000  /* give up: the system test then finds no key dump */
#define NOKEY_WAIT_MS 2000   /* the key was sent at once: no dump must follow */
#define KEY_GAP_MS    20     /* no exit of this test holds the pCPU that long */

static bool key_dump_gap(unsigned wait_ms, uint64_t *gap_ms)
{
	uint64_t end = tsc_after_ms(wait_ms), gap = KEY_GAP_MS * tsc_khz, last = rdtsc();

	while (!tsc_passed(end)) {
		uint64_t now = rdtsc();

		if (now - last >= gap) {
			*gap_ms = (now - last) / tsc_khz;
			return true;
		}
		last = now;
	}
	return false;
}

static void test_key(bool want_dump)
{
	unsigned wait_ms = want_dump ? KEY_WAIT_MS : NOKEY_WAIT_MS;
	uint64_t gap_ms = 0;
	bool seen;

	call("start", HC_VPROF_START, 0);
	call("mark_wait", HC_VPROF_MARK, 1);
	con_printf("vprof_pattern: profiling until the dump key\n");
	seen = key_dump_gap(wait_ms, &gap_ms);
	if (want_dump)
		test_check("key_dump_seen", seen, "a %lu ms pause within %u ms",
			   (unsigned long)gap_ms, wait_ms);
	else
		test_check("key_ignored", !seen, "%s pause within %u ms",
			   seen ? "a" : "no", wait_ms);
	call("mark_after", HC_VPROF_MARK, 2);
	busy(50);
	call("stop", HC_VPROF_STOP, 0);
}

void test_main(void)
{
	if (cmdline_has("mode=key") || cmdline_has("mode=nokey")) {
		test_key(cmdline_has("mode=key"));
		return;
	}
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
