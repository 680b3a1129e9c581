/* TSC-deadline re-arming (issue 17; SDM Vol. 3 §11.5.4.1): the hypervisor
 * re-enters at once after a TSC-deadline WRMSR (hv/vm/vcpu_exit.c
 * vcpu_tscdl_lower), so the new deadline must reach the VMX-preemption
 * timer, a deadline already passed must fire at once, and 0 must disarm.
 * One vCPU spins without exiting (no HLT, no PAUSE, no I/O) while it waits,
 * so an interrupt the fast re-entry fails to schedule arrives only at the
 * next unrelated exit (the scheduler's 10 ms tick, or never): every
 * interrupt must come no earlier than its deadline and at most LATE_US
 * after it (or after the write, for a deadline in the past).
 *
 * Each round picks one pattern (xorshift32, seed printed):
 *   near       arm 20-500 us ahead
 *   far_near   arm 1 s ahead, then 20-500 us ahead: one interrupt, the near one
 *   past       arm 0-1000 us in the past (not 0): fires at once
 *   zero       arm 100-500 us ahead, then write 0: none, the MSR reads 0
 *   later      arm 50-200 us ahead, then 200-1000 us later: one, the later one
 *   chain      the handler re-arms 4 times, 30-300 us ahead each (as Linux's
 *              tick does, with IF = 0)
 *   cli        like near, written with IF = 0 and kept so for 0-600 us: the
 *              interrupt comes right after STI if the deadline passed
 * Command line: rounds=N (default 300), seed=S (default 1). */
#include "guest.h"

const char test_name[] = "tscdl";

#define VEC_TIMER  0x44
#define LATE_US    2000      /* the broken variants are >= 10 ms late */
#define CHAIN      4

enum { P_NEAR, P_FAR_NEAR, P_PAST, P_ZERO, P_LATER, P_CHAIN, P_CLI, P_N };
static const char *const pname[P_N] = {
	"near", "far_near", "past", "zero", "later", "chain", "cli",
};

static volatile uint32_t fired;
static volatile uint64_t fired_tsc;
static volatile uint32_t chain_left;
static volatile uint64_t chain_dl[CHAIN + 1];
static volatile uint64_t chain_at[CHAIN + 1];
static uint32_t rng_state;
static unsigned bad[P_N], done[P_N];
static uint64_t worst_late[P_N];

static uint32_t rng(void)     /* xorshift32 */
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static uint64_t us_tsc(uint64_t us)
{
	return us * tsc_khz / 1000;
}

static void on_timer(unsigned v)
{
	uint32_t n = fired;

	fired_tsc = rdtsc();
	fired = n + 1;
	if (chain_left) {
		/* Re-arm from the handler, IF = 0, as Linux's tick does. */
		chain_at[CHAIN - chain_left] = fired_tsc;
		chain_left--;
		if (chain_left) {
			uint64_t dl = rdtsc() + us_tsc(30 + rng() % 270);

			chain_dl[CHAIN - chain_left] = dl;
			wrmsr(MSR_TSC_DEADLINE, dl);
		}
	}
}

/* Spin (no exit) until `want` interrupts or the TSC passes `until`. */
static bool spin_for(uint32_t want, uint64_t until)
{
	while (fired < want)
		if (tsc_passed(until))
			return fired >= want;
	return true;
}

static void fail(unsigned p, unsigned round, const char *what, uint64_t a, uint64_t b)
{
	if (bad[p]++ < 4)
		con_printf("tscdl: round %u %s: %s (%lld us, %lld us)\n", round, pname[p], what,
			   (long long)((int64_t)a * 1000 / (int64_t)tsc_khz),
			   (long long)((int64_t)b * 1000 / (int64_t)tsc_khz));
}

/* One interrupt expected at `dl` (not before it, not LATE_US after `from`). */
static void expect_one(unsigned p, unsigned round, uint32_t before, uint64_t dl, uint64_t from)
{
	uint64_t lim = (dl > from ? dl : from) + us_tsc(LATE_US);

	if (!spin_for(before + 1, lim + us_tsc(50000))) {
		fail(p, round, "no interrupt 50 ms after the limit", rdtsc() - dl, 0);
		return;
	}
	if ((int64_t)(fired_tsc - dl) < 0)
		fail(p, round, "fired before its deadline", dl - fired_tsc, 0);
	else if ((int64_t)(fired_tsc - lim) > 0)
		fail(p, round, "late (after the deadline, after the write or STI)", fired_tsc - dl,
		     from ? fired_tsc - from : 0);
	else if (fired_tsc - (dl > from ? dl : from) > worst_late[p])
		worst_late[p] = fired_tsc - (dl > from ? dl : from);
}

/* No further interrupt for `us` more. */
static void expect_none(unsigned p, unsigned round, uint32_t count, uint64_t us)
{
	spin_for(count + 1, rdtsc() + us_tsc(us));
	if (fired != count)
		fail(p, round, "unexpected interrupt", fired - count, 0);
}

static void round_one(unsigned r)
{
	unsigned p = rng() % P_N;
	uint32_t c0 = fired;
	uint64_t now, dl, t;

	switch (p) {
	case P_NEAR:
		dl = rdtsc() + us_tsc(20 + rng() % 480);
		wrmsr(MSR_TSC_DEADLINE, dl);
		expect_one(p, r, c0, dl, 0);
		break;
	case P_FAR_NEAR:
		wrmsr(MSR_TSC_DEADLINE, rdtsc() + us_tsc(1000000));
		dl = rdtsc() + us_tsc(20 + rng() % 480);
		wrmsr(MSR_TSC_DEADLINE, dl);
		expect_one(p, r, c0, dl, 0);
		expect_none(p, r, c0 + 1, 3000);
		break;
	case P_PAST:
		now = rdtsc();
		dl = now - us_tsc(rng() % 1000);
		wrmsr(MSR_TSC_DEADLINE, dl ? dl : 1);
		expect_one(p, r, c0, dl, now);
		break;
	case P_ZERO:
		dl = rdtsc() + us_tsc(100 + rng() % 400);
		wrmsr(MSR_TSC_DEADLINE, dl);
		wrmsr(MSR_TSC_DEADLINE, 0);
		now = rdtsc();
		if (rdmsr(MSR_TSC_DEADLINE) != 0)
			fail(p, r, "MSR not 0 after writing 0", 0, 0);
		if (tsc_passed(dl))   /* passed before the 0 reached it: may have fired */
			c0 = fired;
		expect_none(p, r, c0, (int64_t)(dl - now) > 0 ? (dl - now) * 1000 / tsc_khz + 2000 : 2000);
		break;
	case P_LATER:
		t = rdtsc() + us_tsc(100 + rng() % 200);
		wrmsr(MSR_TSC_DEADLINE, t);
		dl = t + us_tsc(200 + rng() % 800);
		wrmsr(MSR_TSC_DEADLINE, dl);
		if (tsc_passed(t))    /* the first may have fired before the second write */
			c0 = fired == c0 ? c0 : c0 + 1;
		expect_one(p, r, c0, dl, 0);
		expect_none(p, r, c0 + 1, 2000);
		break;
	case P_CHAIN:
		cli();
		chain_left = CHAIN;
		chain_dl[0] = dl = rdtsc() + us_tsc(30 + rng() % 270);
		wrmsr(MSR_TSC_DEADLINE, dl);
		sti();
		if (!spin_for(c0 + CHAIN, rdtsc() + us_tsc(CHAIN * (300 + LATE_US) + 50000))) {
			fail(p, r, "chain stopped", fired - c0, 0);
			chain_left = 0;
			wrmsr(MSR_TSC_DEADLINE, 0);
			break;
		}
		for (unsigned i = 0; i < CHAIN; i++) {
			int64_t late = (int64_t)(chain_at[i] - chain_dl[i]);

			if (late < 0)
				fail(p, r, "chain link fired early", (uint64_t)-late, i);
			else if ((uint64_t)late > us_tsc(LATE_US))
				fail(p, r, "chain link late", (uint64_t)late, i);
			else if ((uint64_t)late > worst_late[p])
				worst_late[p] = (uint64_t)late;
		}
		expect_none(p, r, c0 + CHAIN, 1000);
		break;
	case P_CLI:
		cli();
		dl = rdtsc() + us_tsc(20 + rng() % 480);
		wrmsr(MSR_TSC_DEADLINE, dl);
		t = rdtsc() + us_tsc(rng() % 600);
		while (!tsc_passed(t))
			;
		now = rdtsc();
		sti();
		expect_one(p, r, c0, dl, now);
		break;
	}
	done[p]++;
}

void test_main(void)
{
	unsigned rounds = (unsigned)boot_arg_num("rounds", 300);
	unsigned long seed = boot_arg_num("seed", 1);
	uint64_t t0;

	rng_state = (uint32_t)(seed * 2654435761u) | 1;
	con_printf("tscdl: %u rounds, seed %lu, late limit %u us\n", rounds, seed, LATE_US);
	if (!test_check("tscdl_cpuid", (cpuid(1, 0).c >> 24) & 1, "CPUID.1:ECX.TSC_DEADLINE"))
		return;
	irq_set_handler(VEC_TIMER, on_timer);
	apic_write(APIC_LVT_TIMER, APIC_TIMER_TSCDL | VEC_TIMER);
	sti();
	t0 = rdtsc();
	for (unsigned r = 0; r < rounds; r++)
		round_one(r);
	wrmsr(MSR_TSC_DEADLINE, 0);
	for (unsigned p = 0; p < P_N; p++) {
		char name[24];

		fmt_snprintf(name, sizeof(name), "rearm_%s", pname[p]);
		test_check(name, done[p] > 0 && bad[p] == 0, "%u rounds, %u bad, worst %llu us late",
			   done[p], bad[p], (unsigned long long)(worst_late[p] * 1000 / tsc_khz));
	}
	con_printf("tscdl: %u rounds in %llu ms\n", rounds,
		   (unsigned long long)((rdtsc() - t0) / tsc_khz));
}
