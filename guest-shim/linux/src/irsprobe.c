/*
 * irsprobe: drive the IRS guest patches (seed 000; guest-shim/linux/patches/01xx)
 * and report what /proc/irs counted meanwhile.
 *
 *   irsprobe pinned MS [CPU]   one spinning thread pinned to CPU (default: the
 *                              last online CPU) for MS ms: every SA upcall it
 *                              takes must be acked with yield at once
 *   irsprobe spin MS [T]       T (default: online CPUs) unpinned spinning
 *                              threads for MS ms: upcalls move them (migrations)
 *
 * Inside a vProfile window (HC_VPROF_START/STOP, allowed at CPL 3) when under
 * this hypervisor, so its SA_UPCALL/SA_ACK/SA_TIMEOUT counts of the same
 * interval are dumped on the serial console. Prints every /proc/irs line as
 * "IRS <line>" and one
 *   RESULT irsprobe mode=M ms=N threads=T upcalls=.. ack_yield=.. ack_block=..
 *          ack_stale=.. now_pinned=.. migrations=.. ok=0|1
 *   RESULT irslat mode=M failed_target=.. wake_preempt=.. lat_n=.. lat_mean_ns=..
 *          lat_max_ns=.. profile=0|1
 *   RESULT irshist mode=M le5=.. le10=.. .. gt1000=.. win_max_ns=.. win_max_exact=0|1
 * with the counters' deltas over the window (ok=0: no /proc/irs); lat_max_ns
 * is the maximum since boot (a maximum has no delta), so an ack at boot, before
 * the window, can set it. win_max_ns bounds the window's own acks: exact when
 * the since-boot maximum rose inside the window, else the upper bound of the
 * highest latency-histogram bucket the window added to.
 */
#include "wl.h"
#include "hvcall.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#define USAGE "irsprobe pinned MS [CPU] | irsprobe spin MS [THREADS]"
#define MAX_THREADS 64

static const char *const keys[] = {
	"upcalls", "ack_yield", "ack_block", "ack_stale", "now_pinned", "migrations",
	"failed_target", "wake_preempt", "lat_n", "lat_sum_ns", "lat_max_ns",
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* The buckets of /proc/irs's lat_hist_us line, in microseconds (0: above the last). */
static const unsigned hist_us[] = { 5, 10, 20, 50, 100, 200, 500, 1000, 0 };
#define NHIST (sizeof(hist_us) / sizeof(hist_us[0]))

static volatile uint64_t end_ns;

/* "lat_hist_us le5:17 le10:0 .. gt1000:0" into h[] by position. */
static void parse_hist(const char *line, uint64_t h[NHIST])
{
	const char *p = strchr(line, ' ');
	unsigned i = 0;

	while (p && i < NHIST) {
		const char *c = strchr(p, ':');
		unsigned long long x;

		if (!c || sscanf(c + 1, "%llu", &x) != 1)
			break;
		h[i++] = x;
		p = strchr(c, ' ');
	}
}

/* Counters of /proc/irs by name; -1 when the file is missing. */
static int read_irs(uint64_t v[NKEYS], uint64_t h[NHIST], int echo)
{
	char line[256];
	FILE *f = fopen("/proc/irs", "r");

	memset(v, 0, NKEYS * sizeof(v[0]));
	memset(h, 0, NHIST * sizeof(h[0]));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long long x;

		if (echo)
			printf("IRS %s", line);
		if (!strncmp(line, "lat_hist_us ", 12))
			parse_hist(line, h);
		if (sscanf(line, "%63s %llu", name, &x) != 2)
			continue;
		for (unsigned i = 0; i < NKEYS; i++)
			if (!strcmp(name, keys[i]))
				v[i] = x;
	}
	fclose(f);
	return 0;
}

static void *spin(void *arg)
{
	uint64_t x = (uintptr_t)arg;

	while (wl_now_ns() < end_ns)
		x = wl_work(20000, x);
	return (void *)(uintptr_t)(x & 1);
}

static void *spin_pinned(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(uintptr_t)arg, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		return (void *)2;
	return spin(arg);
}

int main(int argc, char **argv)
{
	uint64_t a[NKEYS], b[NKEYS], d[NKEYS], ha[NHIST], hb[NHIST], ms, n = 1, arg = 0;
	uint64_t win_max = 0;
	int exact = 0;
	pthread_t tid[MAX_THREADS];
	int pinned, cpus, prof, ok = 1;
	void *rv;

	if (argc < 3 || argc > 4 || (strcmp(argv[1], "pinned") && strcmp(argv[1], "spin"))) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	pinned = !strcmp(argv[1], "pinned");
	ms = wl_arg_u64(argv[2], "ms", USAGE);
	cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (pinned)
		arg = argc > 3 ? wl_arg_u64(argv[3], "cpu", USAGE) : (uint64_t)cpus - 1;
	else
		n = argc > 3 ? wl_arg_u64(argv[3], "threads", USAGE) : (uint64_t)cpus;
	if (n < 1 || n > MAX_THREADS || arg >= (uint64_t)cpus) {
		fprintf(stderr, "irsprobe: bad cpu or thread count\n");
		return 2;
	}
	if (read_irs(a, ha, 0))
		ok = 0;
	prof = hv_present() && vprof_call(HC_VPROF_START) >= 0;
	end_ns = wl_now_ns() + ms * 1000000ull;
	for (uint64_t i = 0; i < n; i++)
		pthread_create(&tid[i], NULL, pinned ? spin_pinned : spin,
			       (void *)(uintptr_t)(pinned ? arg : i));
	for (uint64_t i = 0; i < n; i++) {
		pthread_join(tid[i], &rv);
		if (rv == (void *)2)
			ok = 0;
	}
	if (prof)
		vprof_call(HC_VPROF_STOP);
	fflush(stdout);
	if (read_irs(b, hb, 1))
		ok = 0;
	for (unsigned i = 0; i < NKEYS; i++)
		d[i] = b[i] - a[i];
	d[10] = b[10];	/* lat_max_ns: a maximum, not a sum */
	/* Two lines: the console splits lines longer than about 160 characters. */
	printf("RESULT irsprobe mode=%s ms=%llu threads=%llu upcalls=%llu ack_yield=%llu "
	       "ack_block=%llu ack_stale=%llu now_pinned=%llu migrations=%llu ok=%d\n",
	       argv[1], (unsigned long long)ms, (unsigned long long)n,
	       (unsigned long long)d[0], (unsigned long long)d[1], (unsigned long long)d[2],
	       (unsigned long long)d[3], (unsigned long long)d[4], (unsigned long long)d[5], ok);
	printf("RESULT irslat mode=%s failed_target=%llu wake_preempt=%llu lat_n=%llu "
	       "lat_mean_ns=%llu lat_max_ns=%llu profile=%d\n", argv[1],
	       (unsigned long long)d[6], (unsigned long long)d[7], (unsigned long long)d[8],
	       (unsigned long long)(d[8] ? d[9] / d[8] : 0), (unsigned long long)d[10], prof);
	if (b[10] > a[10]) {
		win_max = b[10];
		exact = 1;
	} else {
		for (unsigned i = 0; i < NHIST; i++)
			if (hb[i] > ha[i])
				win_max = hist_us[i] ? hist_us[i] * 1000ull : a[10];
		if (win_max > a[10])
			win_max = a[10];
	}
	printf("RESULT irshist mode=%s", argv[1]);
	for (unsigned i = 0; i < NHIST; i++)
		printf(" %s%u=%llu", hist_us[i] ? "le" : "gt", hist_us[i] ? hist_us[i] : hist_us[i - 1],
		       (unsigned long long)(hb[i] - ha[i]));
	printf(" win_max_ns=%llu win_max_exact=%d\n", (unsigned long long)win_max, exact);
	return ok ? 0 : 1;
}
