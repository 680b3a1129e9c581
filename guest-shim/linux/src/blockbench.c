/* blockbench: the blocking and wake-up paths a guest kernel exercises, one
 * per mode, each timed per iteration (issue 19's benchmark):
 *   pipe  ITERS      two threads pinned to CPU 0 and the last CPU pass one byte
 *                    back and forth through two pipes (each hop blocks the
 *                    reader and wakes it from the other CPU: a cross-CPU
 *                    wake-up IPI to a halted vCPU when both are idle);
 *   sleep ITERS US   one thread sleeps US microseconds ITERS times (a timer
 *                    wake-up of a halted vCPU); reports the mean overshoot.
 * Prints one "RESULT blockbench mode=... iters=N elapsed_ns=E per_iter_ns=P"
 * line (the barrier and mutex cases are bartest's futex and mutex modes). */
#include "wl.h"
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#define USAGE "blockbench pipe ITERS | blockbench sleep ITERS US"

static int ping[2], pong[2];
static uint64_t iters;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* One CPU: both threads share it and every hop is a local switch. */
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void xfer(int rd, int wr, char *c)
{
	if (read(rd, c, 1) != 1 || write(wr, c, 1) != 1) {
		perror("pipe");
		exit(1);
	}
}

static void *echo(void *arg)
{
	char c;

	pin((int)(intptr_t)arg);
	for (uint64_t i = 0; i < iters; i++)
		xfer(ping[0], pong[1], &c);
	return NULL;
}

static int run_pipe(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t t;
	uint64_t t0, t1;
	char c = 'x';

	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return 1;
	}
	pin(0);
	if (pthread_create(&t, NULL, echo, (void *)(intptr_t)(ncpu > 1 ? ncpu - 1 : 0))) {
		perror("pthread_create");
		return 1;
	}
	/* One warm-up round trip: the echo thread is pinned and waiting. */
	iters++;
	if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
		return 1;
	t0 = wl_now_ns();
	for (uint64_t i = 1; i < iters; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("pipe");
			return 1;
		}
	}
	t1 = wl_now_ns();
	pthread_join(t, NULL);
	iters--;
	printf("RESULT blockbench mode=pipe cpus=%ld iters=%llu elapsed_ns=%llu per_iter_ns=%llu "
	       "ok=1\n", ncpu, (unsigned long long)iters, (unsigned long long)(t1 - t0),
	       (unsigned long long)(iters ? (t1 - t0) / iters : 0));
	return 0;
}

static int run_sleep(uint64_t us)
{
	uint64_t t0 = 0, t1, over = 0;

	for (uint64_t i = 0; i < iters + 1; i++) {
		uint64_t s = wl_now_ns();

		wl_sleep_ns(us * 1000);
		if (i == 0) {   /* warm-up: the first sleep arms the timer path */
			t0 = wl_now_ns();
			continue;
		}
		over += wl_now_ns() - s - us * 1000;
	}
	t1 = wl_now_ns();
	printf("RESULT blockbench mode=sleep us=%llu iters=%llu elapsed_ns=%llu per_iter_ns=%llu "
	       "overshoot_ns=%llu ok=1\n", (unsigned long long)us, (unsigned long long)iters,
	       (unsigned long long)(t1 - t0), (unsigned long long)(iters ? (t1 - t0) / iters : 0),
	       (unsigned long long)(iters ? over / iters : 0));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "pipe")) {
		iters = wl_arg_u64(argv[2], "iters", USAGE);
		return run_pipe();
	}
	if (argc == 4 && !strcmp(argv[1], "sleep")) {
		iters = wl_arg_u64(argv[2], "iters", USAGE);
		return run_sleep(wl_arg_u64(argv[3], "us", USAGE));
	}
	fprintf(stderr, "usage: %s\n", USAGE);
	return 2;
}
