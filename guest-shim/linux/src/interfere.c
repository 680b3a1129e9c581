/* interfere: the periodic and intermittent interference loops of seed 001 §2.4.
 * periodic:     BUSY ms of computation, then IDLE ms asleep (default 10/10).
 * intermittent: bursts of a random 1..40 ms of computation, each followed by
 *               the sleep that keeps the demand at DUTY percent (default 50).
 * Busy time is the thread's CPU time, so a burst is a fixed amount of work
 * whatever the steal; burst_wall_ns shows how far steal stretched it. */
#include "wl.h"
#include <pthread.h>

#define USAGE "interfere periodic MS [THREADS [BUSY_MS [IDLE_MS]]]\n" \
	      "       interfere intermittent MS [THREADS [DUTY_PCT [SEED]]]"
#define MAX_THREADS 64
#define MS 1000000ull

struct loop {
	pthread_t tid;
	uint64_t seed, bursts, busy_cpu_ns, burst_wall_ns, idle_ns;
};

static int intermittent;
static uint64_t end_ns, busy_ms = 10, idle_ms = 10, duty = 50;

/* Next burst and idle lengths in ns (seed 001: 1-40 ms at a fixed ratio). */
static void loop_next(struct loop *l, uint64_t *busy, uint64_t *idle)
{
	if (!intermittent) {
		*busy = busy_ms * MS;
		*idle = idle_ms * MS;
		return;
	}
	*busy = (1 + wl_rand(&l->seed) % 40) * MS;
	*idle = *busy * (100 - duty) / duty;
}

static void *loop_run(void *arg)
{
	struct loop *l = arg;
	uint64_t busy, idle, c0, w0;

	while (wl_now_ns() < end_ns) {
		loop_next(l, &busy, &idle);
		c0 = wl_thread_cpu_ns();
		w0 = wl_now_ns();
		wl_busy_cpu_ns(busy);
		l->busy_cpu_ns += wl_thread_cpu_ns() - c0;
		l->burst_wall_ns += wl_now_ns() - w0;
		w0 = wl_now_ns();
		if (idle)
			wl_sleep_ns(idle);
		l->idle_ns += wl_now_ns() - w0;
		l->bursts++;
	}
	return NULL;
}

static void args_parse(int argc, char **argv, uint64_t *ms, uint64_t *n, uint64_t *seed)
{
	if (argc < 3 || argc > 6 || (strcmp(argv[1], "periodic") &&
				     strcmp(argv[1], "intermittent"))) {
		fprintf(stderr, "usage: %s\n", USAGE);
		exit(2);
	}
	intermittent = !strcmp(argv[1], "intermittent");
	*ms = wl_arg_u64(argv[2], "ms", USAGE);
	*n = argc > 3 ? wl_arg_u64(argv[3], "threads", USAGE) : 1;
	if (intermittent) {
		duty = argc > 4 ? wl_arg_u64(argv[4], "duty", USAGE) : 50;
		*seed = argc > 5 ? wl_arg_u64(argv[5], "seed", USAGE) : 1;
	} else {
		busy_ms = argc > 4 ? wl_arg_u64(argv[4], "busy", USAGE) : 10;
		idle_ms = argc > 5 ? wl_arg_u64(argv[5], "idle", USAGE) : 10;
	}
	if (*n < 1 || *n > MAX_THREADS || duty < 1 || duty > 100 || busy_ms < 1) {
		fprintf(stderr, "out of range\nusage: %s\n", USAGE);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	static struct loop l[MAX_THREADS];
	uint64_t ms, n, seed = 1, t0, t1, bursts = 0, busy = 0, wall = 0, idle = 0;

	args_parse(argc, argv, &ms, &n, &seed);
	t0 = wl_now_ns();
	end_ns = t0 + ms * MS;
	for (uint64_t i = 0; i < n; i++) {
		l[i].seed = seed * 0x9e3779b97f4a7c15ull + i + 1;
		pthread_create(&l[i].tid, NULL, loop_run, &l[i]);
	}
	for (uint64_t i = 0; i < n; i++) {
		pthread_join(l[i].tid, NULL);
		bursts += l[i].bursts;
		busy += l[i].busy_cpu_ns;
		wall += l[i].burst_wall_ns;
		idle += l[i].idle_ns;
	}
	t1 = wl_now_ns();
	printf("RESULT interfere kind=%s threads=%llu ms=%llu elapsed_ns=%llu bursts=%llu "
	       "busy_cpu_ns=%llu burst_wall_ns=%llu idle_ns=%llu duty_pct=%llu\n",
	       intermittent ? "intermittent" : "periodic", (unsigned long long)n,
	       (unsigned long long)ms, (unsigned long long)(t1 - t0),
	       (unsigned long long)bursts, (unsigned long long)busy,
	       (unsigned long long)wall, (unsigned long long)idle,
	       (unsigned long long)(busy * 100 / ((t1 - t0) * n)));
	return 0;
}
