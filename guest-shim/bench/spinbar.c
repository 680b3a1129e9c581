/* make exp-cosched guest (issue 12, seed 003 §VI in Bochs): every vCPU runs
 * ROUNDS rounds of a fixed ALU loop followed by a sense-reversing spin
 * barrier, like the LU kernel's synchronisation; the BSP prints the elapsed
 * RDTSC count ("Bochs cycles": with clock sync=none Bochs' TSC counts
 * instructions) as "EXP spinbar cycles=N". With the cmdline "hog" it is the
 * HIT interference instead: every vCPU computes for HOG_ROUNDS rounds
 * without synchronising. */
#include "guest.h"

const char test_name[] = "spinbar";

#define ROUNDS     100
#define WORK       50000          /* loop iterations per round (~5 instructions each) */
#define HOG_ROUNDS 150

static volatile uint32_t arrived, sense, done;
static volatile uint64_t sink;
static unsigned nthreads, nrounds;
static bool hog;

static bool cmdline_has(const char *word)
{
	size_t n = strlen(word);

	for (const char *p = boot.cmdline; *p; p++)
		if ((p == boot.cmdline || p[-1] == ' ') && !strncmp(p, word, n) &&
		    (p[n] == 0 || p[n] == ' '))
			return true;
	return false;
}

static void compute(unsigned n)
{
	uint64_t x = sink + 1;

	for (unsigned i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

/* Sense-reversing barrier; waiters spin with PAUSE (seed 003's LU spins). */
static void barrier(uint32_t *local)
{
	*local = !*local;
	if (__atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL) == nthreads) {
		arrived = 0;
		__atomic_store_n(&sense, *local, __ATOMIC_RELEASE);
	} else {
		while (__atomic_load_n(&sense, __ATOMIC_ACQUIRE) != *local)
			cpu_pause();
	}
}

static void worker(unsigned cpu)
{
	uint32_t local = 0;

	for (unsigned r = 0; r < nrounds; r++) {
		compute(WORK);
		if (!hog)
			barrier(&local);
	}
	__atomic_add_fetch(&done, 1, __ATOMIC_ACQ_REL);
}

void test_main(void)
{
	uint64_t t0;

	hog = cmdline_has("hog");
	nthreads = smp_nr_cpus();
	nrounds = hog ? HOG_ROUNDS : ROUNDS;
	test_check("start", smp_start_all(0) == 0, "%u vCPUs", nthreads);
	t0 = rdtsc();
	for (unsigned c = 1; c < nthreads; c++)
		smp_run_on(c, worker, 0);
	worker(0);
	test_check("done", wait_count(&done, nthreads, 3600000), "%u of %u", done, nthreads);
	con_printf("EXP %s cycles=%llu rounds=%u vcpus=%u\n", hog ? "hog" : "spinbar",
		   (unsigned long long)(rdtsc() - t0), nrounds, nthreads);
}
