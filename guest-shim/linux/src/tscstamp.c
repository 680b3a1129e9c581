/* tscstamp: print the TSC as "tsc-init N". /init runs it first thing, so that
 * `make bench-linux-boot` counts the cycles from the kernel's entry (stamped
 * by bareload, or by the hypervisor at vCPU 0's first VM entry) to /init.
 * With Bochs's `clock: sync=none` the TSC counts emulated instructions, so
 * the figure repeats exactly. An optional argument replaces the label. */
#include "wl.h"
#include <stdio.h>

static inline uint64_t tsc_read(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

int main(int argc, char **argv)
{
	uint64_t t = tsc_read();

	printf("%s %llu\n", argc > 1 ? argv[1] : "tsc-init", (unsigned long long)t);
	return 0;
}
