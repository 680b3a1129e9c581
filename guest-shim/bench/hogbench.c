/* CPU-bound neighbour for the halt-polling check (issue 19, docs/vmx.md):
 * counts loop iterations in consecutive windows of 2M guest TSC cycles
 * (its TSC runs while it is descheduled, so loops per window = the share of
 * a pCPU it got). Run beside a VM that halts and wakes often (exitbench)
 * with halt_poll_ns=0 and with polling on: polling must not lower it. */
#include "guest.h"

const char test_name[] = "hogbench";

#define WINDOW  2000000ull
#define NWIN    8

void test_main(void)
{
	uint64_t total = 0;

	for (unsigned w = 0; w < NWIN; w++) {
		uint64_t end = rdtsc() + WINDOW, loops = 0;

		while (rdtsc() < end) {
			for (unsigned i = 0; i < 64; i++)
				__asm__ volatile("" ::: "memory");
			loops++;
		}
		total += loops;
		con_printf("BENCH hog_window%u %llu\n", w, (unsigned long long)loops);
	}
	con_printf("BENCH hog_loops %llu\n", (unsigned long long)total);
	test_check("done", true, "all windows measured");
}
