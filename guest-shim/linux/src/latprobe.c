/* latprobe: an I/O-style latency probe. One thread sleeps until absolute
 * deadlines PERIOD_US apart and records how late it woke (timer interrupt ->
 * vCPU scheduled -> thread running). Prints the delay percentiles; a balloon or
 * co-scheduling policy that delays a blocked vCPU's wake-up shows up here.
 * WORK_US (default 0) is CPU work per wake-up, the request an I/O task
 * serves; throughput is requests per second of wall time (ops_per_s), which
 * falls when wake-ups overrun their period (missed) under a CPU cap. */
#include "wl.h"
#include <errno.h>

#define USAGE "latprobe PERIOD_US COUNT [WORK_US]"
#define MAX_SAMPLES 1000000u

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *v, uint64_t n, unsigned p)
{
	uint64_t i = (n * p + 99) / 100;
	return v[i ? i - 1 : 0];
}

int main(int argc, char **argv)
{
	uint64_t period, n, sum = 0, *d, next, work = 0, missed = 0, t0, el;
	struct timespec ts;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	period = wl_arg_u64(argv[1], "period", USAGE) * 1000ull;
	n = wl_arg_u64(argv[2], "count", USAGE);
	if (argc == 4)
		work = wl_arg_u64(argv[3], "work_us", USAGE) * 1000ull;
	if (n < 1 || n > MAX_SAMPLES || period < 1000) {
		fprintf(stderr, "count 1..%u, period >= 1 us\n", MAX_SAMPLES);
		return 2;
	}
	d = calloc(n, sizeof(*d));
	if (!d)
		return 1;
	t0 = wl_now_ns();
	next = t0 + period;
	for (uint64_t i = 0; i < n; i++, next += period) {
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		d[i] = wl_now_ns() - next;
		sum += d[i];
		if (work)
			wl_busy_cpu_ns(work);
		if (wl_now_ns() > next + period) {  /* overran: restart the schedule from now */
			next = wl_now_ns();
			missed++;
		}
	}
	el = wl_now_ns() - t0;
	qsort(d, n, sizeof(*d), u64_cmp);
	printf("RESULT latprobe period_us=%llu count=%llu min_ns=%llu p50_ns=%llu p90_ns=%llu "
	       "p99_ns=%llu max_ns=%llu mean_ns=%llu\n"
	       /* second line: the hypervisor's console wraps long lines */
	       "RESULT latprobe-io work_us=%llu missed=%llu elapsed_ns=%llu ops_per_s=%llu\n",
	       (unsigned long long)(period / 1000),
	       (unsigned long long)n, (unsigned long long)d[0],
	       (unsigned long long)pct(d, n, 50), (unsigned long long)pct(d, n, 90),
	       (unsigned long long)pct(d, n, 99), (unsigned long long)d[n - 1],
	       (unsigned long long)(sum / n), (unsigned long long)(work / 1000),
	       (unsigned long long)missed, (unsigned long long)el,
	       (unsigned long long)(n * 1000000000ull / (el ? el : 1)));
	free(d);
	return 0;
}
