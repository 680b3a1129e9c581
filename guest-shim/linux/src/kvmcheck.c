/* Guest-side check of the hypervisor's KVM paravirtual interface
 * (docs/kvm-pv.md). Usage: kvmcheck [MIN_STEAL_TICKS [spin] [ipi]]
 * - dmesg: KVM detected, kvmclock on the new MSRs; with `spin` PV spinlocks
 *   (KVM_FEATURE_PV_UNHALT), with `ipi` PV IPIs (KVM_FEATURE_PV_SEND_IPI);
 * - kvm-clock is an available clocksource; switched to it, CLOCK_MONOTONIC
 *   never goes backwards between CPUs (one pinned reader per CPU);
 * - /proc/stat steal per CPU, at least MIN_STEAL_TICKS in total.
 * Prints one TEST line per check and a RESULT line; exits 1 if any failed. */
#include "wl.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/klog.h>
#include <unistd.h>

#define CS_DIR "/sys/devices/system/clocksource/clocksource0/"
#define READS 20000

static int failed;
static atomic_uint_fast64_t last_ns;
static atomic_int backwards;

static void check(const char *name, int ok)
{
	printf("TEST %s %s\n", name, ok ? "PASS" : "FAIL");
	failed |= !ok;
}

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (int)n;
}

static int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int r;

	if (!f)
		return -1;
	r = fputs(s, f) < 0;
	return fclose(f) || r ? -1 : 0;
}

static void *reader(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(intptr_t)arg, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (int i = 0; i < READS; i++) {
		/* Load what another CPU already read, then read: ours may not be older. */
		uint64_t seen = atomic_load(&last_ns), now = wl_now_ns(), cur = seen;

		if (now < seen)
			atomic_fetch_add(&backwards, 1);
		while (now > cur && !atomic_compare_exchange_weak(&last_ns, &cur, now))
			;
	}
	return NULL;
}

static void check_clock(int cpus)
{
	char avail[512], orig[64];
	pthread_t t[64];
	int n = cpus < 64 ? cpus : 64;

	if (read_file(CS_DIR "available_clocksource", avail, sizeof(avail)) < 0 ||
	    read_file(CS_DIR "current_clocksource", orig, sizeof(orig)) < 0) {
		check("kvm-clock-source", 0);
		return;
	}
	check("kvm-clock-source", strstr(avail, "kvm-clock") != NULL);
	orig[strcspn(orig, "\n")] = '\0';
	if (write_file(CS_DIR "current_clocksource", "kvm-clock"))
		perror("kvmcheck: select kvm-clock");
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, reader, (void *)(intptr_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	write_file(CS_DIR "current_clocksource", orig);
	printf("kvmcheck: clocksource was %s; %d readers x %d kvm-clock reads, %d backwards\n",
	       orig, n, READS, atomic_load(&backwards));
	check("kvm-clock-monotonic", atomic_load(&backwards) == 0);
}

static unsigned long long steal_ticks(void)
{
	char buf[8192], *line;
	unsigned long long total = 0;

	if (read_file("/proc/stat", buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long f[8];
		int cpu;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9' ||
		    sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &f[0], &f[1],
			   &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) != 9)
			continue;
		printf("kvmcheck: cpu%d steal_ticks=%llu\n", cpu, f[7]);
		total += f[7];
	}
	return total;
}

int main(int argc, char **argv)
{
	static char log[1 << 17];
	unsigned long long min_steal = argc > 1 ? strtoull(argv[1], NULL, 0) : 0, steal;
	int spin = 0, ipi = 0;
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	int n = klogctl(3, log, sizeof(log) - 1);   /* SYSLOG_ACTION_READ_ALL */

	for (int i = 2; i < argc; i++) {
		spin |= !strcmp(argv[i], "spin");
		ipi |= !strcmp(argv[i], "ipi");
	}
	log[n > 0 ? n : 0] = '\0';
	check("kvm-detected", strstr(log, "Hypervisor detected: KVM") != NULL);
	check("kvm-clock-msrs", strstr(log, "kvm-clock: Using msrs 4b564d01 and 4b564d00") != NULL);
	if (ipi && cpus > 1)
		check("kvm-pv-ipi", strstr(log, "setup PV IPIs") != NULL);
	if (spin)
		check("kvm-pv-spinlocks", strstr(log, "PV spinlocks enabled") != NULL);
	check_clock(cpus);
	steal = steal_ticks();
	check("kvm-steal", steal >= min_steal);
	printf("RESULT kvmcheck cpus=%d steal_ticks=%llu min_steal=%llu ok=%d\n", cpus, steal,
	       min_steal, !failed);
	return failed;
}
