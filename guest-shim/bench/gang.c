/* A parallel program and an interferer for the simulator-vs-Bochs comparison
 * (docs/experiments.md): the same shapes as hvsim's `barrier b spin` worker and
 * `persistent` thread (seed 001 §2.4). From the VM's cmdline:
 *   mode=par iters=N work=W  every vCPU runs N rounds of W loop iterations of
 *                            arithmetic, then waits at a sense-reversing
 *                            barrier spinning without PAUSE (no PLE exits);
 *   mode=hog ms=M            every vCPU computes until M ms of TSC passed.
 * Prints "GANG <mode> cpus=C ms=T" (T: first start to last finish, guest TSC)
 * and per vCPU "GANG cpu=I wait_us=..." (time in barrier waits). Under this
 * hypervisor both modes profile exactly their work with vProfile
 * (HC_VPROF_START / HC_VPROF_STOP, which dumps the trace on the console); the
 * start snapshot says on which pCPU each vCPU was (the simulator starts its
 * vCPUs there, tools/exp_lib/simbochs.py). */
#include "guest.h"
#include "abi.h"

const char test_name[] = "gang";

static unsigned mode_par, iters = 100, work = 10000, hog_ms = 500, ncpu;
static volatile uint32_t go, done, count, sense;
static volatile uint64_t t_start, t_end[GUEST_MAX_CPUS], wait_tsc[GUEST_MAX_CPUS];
static volatile uint64_t sink;

static unsigned arg(const char *key, unsigned def)
{
	size_t n = strlen(key);

	for (const char *p = boot.cmdline; *p; p++) {
		if ((p == boot.cmdline || p[-1] == ' ') && !strncmp(p, key, n) && p[n] == '=') {
			unsigned v = 0;

			for (p += n + 1; *p >= '0' && *p <= '9'; p++)
				v = v * 10 + (unsigned)(*p - '0');
			return v;
		}
	}
	return def;
}

static void compute(unsigned w)
{
	uint64_t x = sink;

	for (unsigned i = 0; i < w; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

static void barrier(unsigned cpu, uint32_t *local)
{
	uint64_t t0 = rdtsc();

	*local = !*local;
	if (__atomic_add_fetch(&count, 1, __ATOMIC_ACQ_REL) == ncpu) {
		count = 0;
		__atomic_store_n(&sense, *local, __ATOMIC_RELEASE);
	} else {
		while (__atomic_load_n(&sense, __ATOMIC_ACQUIRE) != *local)
			;                       /* plain spin: no PAUSE, no PLE exit */
	}
	wait_tsc[cpu] += rdtsc() - t0;
}

static void worker(unsigned cpu)
{
	uint32_t local = 0;

	while (!go)
		;
	if (mode_par) {
		for (unsigned i = 0; i < iters; i++) {
			compute(work);
			barrier(cpu, &local);
		}
	} else {
		uint64_t end = t_start + hog_ms * tsc_khz;

		while (!tsc_passed(end))
			compute(1000);
	}
	t_end[cpu] = rdtsc();
	__atomic_fetch_add(&done, 1, __ATOMIC_SEQ_CST);
}

void test_main(void)
{
	uint64_t last = 0;
	long ret;

	mode_par = !strncmp(boot.cmdline, "mode=par", 8) || arg("par", 0);
	iters = arg("iters", iters);
	work = arg("work", work);
	hog_ms = arg("ms", hog_ms);
	smp_start_all(NULL);
	ncpu = smp_online + 1;
	for (unsigned c = 1; c < ncpu; c++)
		smp_run_on(c, worker, 0);
	if (hv_is_ours())
		hv_call(HC_VPROF_START, 0, 0, &ret);
	t_start = rdtsc();
	go = 1;
	worker(0);
	wait_count(&done, ncpu, 600000);
	if (hv_is_ours())
		hv_call(HC_VPROF_STOP, 0, 0, &ret);
	for (unsigned c = 0; c < ncpu; c++)
		last = t_end[c] > last ? t_end[c] : last;
	con_printf("GANG %s cpus=%u iters=%u work=%u ms=%llu us=%llu\n", mode_par ? "par" : "hog",
		   ncpu, iters, work, (unsigned long long)((last - t_start) / tsc_khz),
		   (unsigned long long)((last - t_start) * 1000 / tsc_khz));
	for (unsigned c = 0; c < ncpu && mode_par; c++)
		con_printf("GANG cpu=%u wait_us=%llu\n", c,
			   (unsigned long long)(wait_tsc[c] * 1000 / tsc_khz));
	test_check("finished", done == ncpu, "%u of %u vCPUs", done, ncpu);
}
