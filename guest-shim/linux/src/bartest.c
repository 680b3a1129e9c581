/* bartest: N threads run I iterations of (work; synchronise), synchronising by
 * a spinning barrier, a blocking futex barrier or a mutex-protected counter.
 * The parallel workload of the co-scheduling and delayed-preemption studies
 * (seed 001 §3, seed 003): spin barriers suffer from preempted vCPUs (lock-holder
 * and barrier preemption), blocking barriers from wake-up latency. */
#include "wl.h"
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#define USAGE "bartest THREADS ITERS spin|futex|mutex [WORK_LOOPS]"
#define MAX_THREADS 256
/* linux/futex.h values (musl-gcc has no kernel headers). */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE_FLAG 128

enum mode { MODE_SPIN, MODE_FUTEX, MODE_MUTEX };
static const char *const mode_names[] = { "spin", "futex", "mutex" };

static struct {
	unsigned n;
	uint64_t iters, work;
	enum mode mode;
	/* spin barrier: sense reversal (Mellor-Crummey & Scott, central barrier) */
	_Atomic unsigned spin_count, spin_sense;
	/* futex barrier: arrivals plus a generation word the waiters sleep on */
	_Atomic int fut_count, fut_gen;
	pthread_mutex_t lock;
	uint64_t shared_counter;           /* protected by lock */
	_Atomic uint64_t slot[MAX_THREADS]; /* iteration each thread last reached */
	_Atomic uint64_t errors;
	pthread_barrier_t start;
} g;

static void spin_barrier_wait(unsigned *local_sense)
{
	*local_sense = !*local_sense;
	if (atomic_fetch_add(&g.spin_count, 1) == g.n - 1) {
		atomic_store(&g.spin_count, 0);
		atomic_store(&g.spin_sense, *local_sense);
		return;
	}
	while (atomic_load(&g.spin_sense) != *local_sense)
		wl_cpu_relax();
}

static long futex_op(_Atomic int *addr, int op, int val)
{
	return syscall(SYS_futex, (int *)addr, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void futex_barrier_wait(void)
{
	int gen = atomic_load(&g.fut_gen);

	if (atomic_fetch_add(&g.fut_count, 1) == (int)g.n - 1) {
		/* Later arrivals cannot touch fut_count before fut_gen moves. */
		atomic_store(&g.fut_count, 0);
		atomic_fetch_add(&g.fut_gen, 1);
		futex_op(&g.fut_gen, FUTEX_WAKE, INT_MAX);
		return;
	}
	while (atomic_load(&g.fut_gen) == gen)
		futex_op(&g.fut_gen, FUTEX_WAIT, gen);
}

/* After barrier i every thread has reached i, and none can be past i + 1. */
static void barrier_check(uint64_t i)
{
	for (unsigned t = 0; t < g.n; t++) {
		uint64_t s = atomic_load(&g.slot[t]);
		if (s != i && s != i + 1)
			atomic_fetch_add(&g.errors, 1);
	}
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, sense = 0;
	uint64_t x = id + 1;

	pthread_barrier_wait(&g.start);
	for (uint64_t i = 0; i < g.iters; i++) {
		x = wl_work(g.work, x);
		if (g.mode == MODE_MUTEX) {
			pthread_mutex_lock(&g.lock);
			g.shared_counter++;
			pthread_mutex_unlock(&g.lock);
			continue;
		}
		atomic_store(&g.slot[id], i);
		if (g.mode == MODE_SPIN)
			spin_barrier_wait(&sense);
		else
			futex_barrier_wait();
		barrier_check(i);
	}
	return (void *)(uintptr_t)(x & 1);
}

static enum mode mode_parse(const char *s)
{
	for (unsigned m = 0; m < 3; m++)
		if (!strcmp(s, mode_names[m]))
			return (enum mode)m;
	fprintf(stderr, "bad mode '%s'\nusage: %s\n", s, USAGE);
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t tid[MAX_THREADS];
	uint64_t t0, t1;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	g.n = (unsigned)wl_arg_u64(argv[1], "threads", USAGE);
	g.iters = wl_arg_u64(argv[2], "iters", USAGE);
	g.mode = mode_parse(argv[3]);
	g.work = argc > 4 ? wl_arg_u64(argv[4], "work", USAGE) : 1000;
	if (g.n < 1 || g.n > MAX_THREADS) {
		fprintf(stderr, "threads must be 1..%d\n", MAX_THREADS);
		return 2;
	}
	pthread_mutex_init(&g.lock, NULL);
	pthread_barrier_init(&g.start, NULL, g.n + 1);
	for (unsigned t = 0; t < g.n; t++)
		if (pthread_create(&tid[t], NULL, worker, (void *)(uintptr_t)t)) {
			perror("pthread_create");
			return 1;
		}
	t0 = wl_now_ns();
	pthread_barrier_wait(&g.start);
	for (unsigned t = 0; t < g.n; t++)
		pthread_join(tid[t], NULL);
	t1 = wl_now_ns();
	if (g.mode == MODE_MUTEX && g.shared_counter != g.n * g.iters)
		g.errors++;
	printf("RESULT bartest threads=%u iters=%llu mode=%s work=%llu elapsed_ns=%llu "
	       "per_iter_ns=%llu ok=%d\n", g.n, (unsigned long long)g.iters,
	       mode_names[g.mode], (unsigned long long)g.work,
	       (unsigned long long)(t1 - t0),
	       (unsigned long long)(g.iters ? (t1 - t0) / g.iters : 0), g.errors == 0);
	return g.errors ? 1 : 0;
}
