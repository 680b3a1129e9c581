/* A long tight PAUSE loop, as a spinning lock waiter makes: with PAUSE-loop
 * exiting on, the hypervisor sees PLE exits (gap ~128 cycles, window ~4096
 * cycles, SDM Vol. 3 25.1.3) and counts them. The guest checks the loop
 * completes and reports how long it took; then it tells the hypervisor.
 * A 1-vCPU VM gets no PLE (nothing to yield to): run_hv.py checks that its
 * exit counts hold no PAUSE exit; ple=on in the module string turns it on. */
#include "guest.h"
#include "abi.h"

const char test_name[] = "pause";

#define PAUSE_MS  200

static uint64_t pause_loop(uint64_t end, uint64_t *iters)
{
	uint64_t n = 0;

	do {
		for (int i = 0; i < 1000; i++)
			cpu_pause();
		n += 1000;
	} while (!tsc_passed(end));
	*iters = n;
	return n;
}

void test_main(void)
{
	uint64_t t0 = rdtsc(), iters, ms;

	pause_loop(t0 + PAUSE_MS * tsc_khz, &iters);
	ms = (rdtsc() - t0) / tsc_khz;
	test_check("loop", ms >= PAUSE_MS && ms < PAUSE_MS * 20,
		   "%llu PAUSEs in %llu ms (%llu TSC cycles each)", (unsigned long long)iters,
		   (unsigned long long)ms, (unsigned long long)((rdtsc() - t0) / iters));
}
