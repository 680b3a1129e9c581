/* stealcheck: measure this VM's steal time as Linux accounts it, inside a
 * vProfile window, so the host can compare it with the hypervisor's own
 * RUNNABLE time per vCPU (issue 6; tools/linux/stealtest.py).
 *   stealcheck MS [THREADS]
 * Starts a profile (the HC_VPROF_START hypercall, as `vprofctl start` does,
 * but without a fork so that the windows line up), reads every CPU's steal
 * column of /proc/stat, keeps THREADS threads (one pinned per CPU, default
 * all) busy for MS ms of CLOCK_MONOTONIC, reads /proc/stat again and stops the
 * profile (HC_VPROF_STOP, which dumps it on the serial console). The profile
 * window encloses the /proc/stat window by the two reads' duration. Prints
 *   STEAL cpu=I ms=M       per CPU, M = steal delta in ms (USER_HZ resolution)
 *   RESULT stealcheck cpus=N ms=MS total_steal_ms=S ok=1 */
#include "wl.h"
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include "hvcall.h"

#define USAGE "stealcheck MS [THREADS]"
#define MAX_CPUS 64

static uint64_t end_ns;

/* Steal per CPU in ms from /proc/stat ("cpuN user nice system idle iowait irq
 * softirq steal ..."); returns the number of CPUs read. */
static int read_steal(uint64_t ms[MAX_CPUS])
{
	unsigned long long f[8];
	long hz = sysconf(_SC_CLK_TCK);
	char line[512];
	int n = 0, cpu;
	FILE *fp = fopen("/proc/stat", "r");

	if (!fp || hz <= 0)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		/* "cpuN ...", not the aggregate "cpu  ..." (%d would skip its blanks) */
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &f[0], &f[1],
			   &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) != 9)
			continue;
		if (cpu < 0 || cpu >= MAX_CPUS)
			continue;
		ms[cpu] = f[7] * 1000ull / (unsigned long long)hz;
		if (cpu + 1 > n)
			n = cpu + 1;
	}
	fclose(fp);
	return n;
}

static void *spin(void *arg)
{
	cpu_set_t set;
	uint64_t x = (uintptr_t)arg;

	CPU_ZERO(&set);
	CPU_SET((int)(uintptr_t)arg, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (wl_now_ns() < end_ns)
		x = wl_work(20000, x);
	return (void *)(uintptr_t)(x & 1);
}

int main(int argc, char **argv)
{
	static uint64_t s0[MAX_CPUS], s1[MAX_CPUS];
	pthread_t tid[MAX_CPUS];
	uint64_t ms, n, total = 0;
	int cpus, n0, ok = 1;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	ms = wl_arg_u64(argv[1], "ms", USAGE);
	cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	n = argc > 2 ? wl_arg_u64(argv[2], "threads", USAGE) : (uint64_t)cpus;
	if (cpus < 1 || cpus > MAX_CPUS || n < 1 || n > (uint64_t)cpus) {
		fprintf(stderr, "threads must be 1..%d\n", cpus);
		return 2;
	}
	if (!hv_present() || vprof_call(HC_VPROF_START) < 0)
		fprintf(stderr, "stealcheck: no profile (not under this hypervisor?)\n"), ok = 0;
	if ((n0 = read_steal(s0)) != cpus) {
		fprintf(stderr, "stealcheck: /proc/stat has %d CPUs, %d online\n", n0, cpus);
		return 3;
	}
	end_ns = wl_now_ns() + ms * 1000000ull;
	for (uint64_t i = 0; i < n; i++)
		pthread_create(&tid[i], NULL, spin, (void *)(uintptr_t)i);
	for (uint64_t i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	if ((n0 = read_steal(s1)) != cpus) {
		fprintf(stderr, "stealcheck: /proc/stat has %d CPUs, %d online\n", n0, cpus);
		return 3;
	}
	if (ok && vprof_call(HC_VPROF_STOP) < 0)
		ok = 0;
	fflush(stdout);
	for (int i = 0; i < cpus; i++) {
		printf("STEAL cpu=%d ms=%llu\n", i, (unsigned long long)(s1[i] - s0[i]));
		total += s1[i] - s0[i];
	}
	printf("RESULT stealcheck cpus=%d ms=%llu total_steal_ms=%llu ok=%d\n", cpus,
	       (unsigned long long)ms, (unsigned long long)total, ok);
	return ok ? 0 : 1;
}
