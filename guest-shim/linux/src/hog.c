/* hog: persistent interference (seed 001 §2.4, a while(1) loop), T threads for
 * MS milliseconds of wall time (0 = forever). Reports the work done and the CPU
 * share each thread got, which falls when the vCPU loses time to steal. */
#include "wl.h"
#include <pthread.h>

#define USAGE "hog MS [THREADS]"
#define MAX_THREADS 64

struct hog { pthread_t tid; uint64_t loops, cpu_ns; };
static uint64_t end_ns;

static void *hog_run(void *arg)
{
	struct hog *h = arg;
	uint64_t x = 1;

	do {
		x = wl_work(10000, x);
		h->loops++;
	} while (!end_ns || wl_now_ns() < end_ns);
	h->cpu_ns = wl_thread_cpu_ns();
	return (void *)(uintptr_t)(x & 1);
}

int main(int argc, char **argv)
{
	static struct hog h[MAX_THREADS];
	uint64_t ms, n, t0, t1, loops = 0, cpu = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	ms = wl_arg_u64(argv[1], "ms", USAGE);
	n = argc > 2 ? wl_arg_u64(argv[2], "threads", USAGE) : 1;
	if (n < 1 || n > MAX_THREADS) {
		fprintf(stderr, "threads must be 1..%d\n", MAX_THREADS);
		return 2;
	}
	t0 = wl_now_ns();
	end_ns = ms ? t0 + ms * 1000000ull : 0;
	for (uint64_t i = 0; i < n; i++)
		pthread_create(&h[i].tid, NULL, hog_run, &h[i]);
	for (uint64_t i = 0; i < n; i++) {
		pthread_join(h[i].tid, NULL);
		loops += h[i].loops;
		cpu += h[i].cpu_ns;
	}
	t1 = wl_now_ns();
	printf("RESULT hog threads=%llu ms=%llu elapsed_ns=%llu cpu_ns=%llu loops=%llu "
	       "cpu_share_pct=%llu\n", (unsigned long long)n, (unsigned long long)ms,
	       (unsigned long long)(t1 - t0), (unsigned long long)cpu,
	       (unsigned long long)loops,
	       (unsigned long long)(cpu * 100 / ((t1 - t0) * n)));
	return 0;
}
