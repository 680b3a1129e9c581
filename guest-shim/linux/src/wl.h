/* Shared helpers for the guest workload programs: clocks, argument parsing,
 * busy work. Each program prints exactly one "RESULT <name> key=value..." line. */
#ifndef WL_H
#define WL_H
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint64_t wl_clock_ns(clockid_t c)
{
	struct timespec ts;
	/* A kernel without POSIX_TIMERS fails CPU-time clocks with EINVAL. */
	if (clock_gettime(c, &ts) != 0) {
		perror("clock_gettime");
		exit(3);
	}
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static inline uint64_t wl_now_ns(void) { return wl_clock_ns(CLOCK_MONOTONIC); }
static inline uint64_t wl_thread_cpu_ns(void) { return wl_clock_ns(CLOCK_THREAD_CPUTIME_ID); }

static inline void wl_cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }

/* A dependent arithmetic chain the compiler cannot remove: `loops` steps. */
static inline uint64_t wl_work(uint64_t loops, uint64_t x)
{
	for (uint64_t i = 0; i < loops; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Busy for `ns` of this thread's CPU time (steal is not counted: the guest
 * kernel's task clock excludes it with PARAVIRT_TIME_ACCOUNTING). */
static inline uint64_t wl_busy_cpu_ns(uint64_t ns)
{
	uint64_t end = wl_thread_cpu_ns() + ns, x = ns;
	while (wl_thread_cpu_ns() < end)
		x = wl_work(1000, x);
	return x;
}

static inline void wl_sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Parse a non-negative decimal argument or exit with a usage error. */
static inline uint64_t wl_arg_u64(const char *s, const char *what, const char *usage)
{
	char *end;
	unsigned long long v;
	if (!s || !*s)
		goto bad;
	v = strtoull(s, &end, 10);
	if (*end || s[0] == '-')
		goto bad;
	return v;
bad:
	fprintf(stderr, "bad %s '%s'\nusage: %s\n", what, s ? s : "", usage);
	exit(2);
}

/* xorshift64*: small deterministic generator for reproducible runs. */
static inline uint64_t wl_rand(uint64_t *s)
{
	*s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}
#endif
