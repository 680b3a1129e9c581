/* latprobe: an I/O-style latency probe. One thread sleeps until absolute
 * deadlines PERIOD_US apart and records how late it woke (timer interrupt ->
 * vCPU scheduled -> thread running). Prints the delay percentiles; a balloon or
 * co-scheduling policy that delays a blocked vCPU's wake-up shows up here.
 * WORK_US (default 0) is CPU work per wake-up, the request an I/O task
 * serves; throughput is requests per second of wall time (ops_per_s), which
 * falls when wake-ups overrun their period (missed) under a CPU cap.
 * THREADS (default 1) runs that many such tasks, task i pinned to CPU i (the
 * SMP case: one I/O task per vCPU); percentiles are over all their samples,
 * COUNT per task, ops_per_s is the sum. */
#include "wl.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>

#define USAGE "latprobe PERIOD_US COUNT [WORK_US [THREADS]]"
#define MAX_SAMPLES 1000000u
#define MAX_THREADS 64

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

struct task {
	pthread_t tid;
	int cpu;
	uint64_t period, n, work, *d, sum, missed, el;
};

static void *task_run(void *arg)
{
	struct task *t = arg;
	struct timespec ts;
	uint64_t next, t0;

	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			perror("latprobe: sched_setaffinity");
	}
	t0 = wl_now_ns();
	next = t0 + t->period;
	for (uint64_t i = 0; i < t->n; i++, next += t->period) {
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		t->d[i] = wl_now_ns() - next;
		t->sum += t->d[i];
		if (t->work)
			wl_busy_cpu_ns(t->work);
		if (wl_now_ns() > next + t->period) {  /* overran: restart the schedule from now */
			next = wl_now_ns();
			t->missed++;
		}
	}
	t->el = wl_now_ns() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t period, n, work = 0, nthr = 1, tot, sum = 0, missed = 0, el = 0, ops = 0, *d;
	static struct task tk[MAX_THREADS];

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	period = wl_arg_u64(argv[1], "period", USAGE) * 1000ull;
	n = wl_arg_u64(argv[2], "count", USAGE);
	if (argc >= 4)
		work = wl_arg_u64(argv[3], "work_us", USAGE) * 1000ull;
	if (argc == 5)
		nthr = wl_arg_u64(argv[4], "threads", USAGE);
	if (n < 1 || n > MAX_SAMPLES || period < 1000 || nthr < 1 || nthr > MAX_THREADS) {
		fprintf(stderr, "count 1..%u, period >= 1 us, threads 1..%u\n", MAX_SAMPLES,
			MAX_THREADS);
		return 2;
	}
	tot = n * nthr;
	d = calloc(tot, sizeof(*d));
	if (!d)
		return 1;
	for (uint64_t i = 0; i < nthr; i++) {
		tk[i] = (struct task){ .cpu = nthr > 1 ? (int)i : -1, .period = period, .n = n,
				       .work = work, .d = d + i * n };
		if (nthr == 1)
			task_run(&tk[0]);
		else if (pthread_create(&tk[i].tid, NULL, task_run, &tk[i]) != 0)
			return 1;
	}
	for (uint64_t i = 0; i < nthr; i++) {
		if (nthr > 1)
			pthread_join(tk[i].tid, NULL);
		sum += tk[i].sum;
		missed += tk[i].missed;
		el = tk[i].el > el ? tk[i].el : el;
		ops += n * 1000000000ull / (tk[i].el ? tk[i].el : 1);
	}
	qsort(d, tot, sizeof(*d), u64_cmp);
	printf("RESULT latprobe period_us=%llu count=%llu min_ns=%llu p50_ns=%llu p90_ns=%llu "
	       "p99_ns=%llu max_ns=%llu mean_ns=%llu\n"
	       /* second line: the hypervisor's console wraps long lines */
	       "RESULT latprobe-io work_us=%llu missed=%llu elapsed_ns=%llu ops_per_s=%llu\n",
	       (unsigned long long)(period / 1000),
	       (unsigned long long)tot, (unsigned long long)d[0],
	       (unsigned long long)pct(d, tot, 50), (unsigned long long)pct(d, tot, 90),
	       (unsigned long long)pct(d, tot, 99), (unsigned long long)d[tot - 1],
	       (unsigned long long)(sum / tot), (unsigned long long)(work / 1000),
	       (unsigned long long)missed, (unsigned long long)el, (unsigned long long)ops);
	free(d);
	return 0;
}
