/* Lost-timer hunt (issue 17). Every AP, many times over, arms its LAPIC
 * timer in TSC-deadline mode a pseudo-random 50 us - 3 ms ahead and halts
 * until that timer's interrupt arrives; now and then it first sends an IPI
 * to another AP. Run with more vCPUs than pCPUs, the hypervisor blocks and
 * wakes the vCPUs through every path it has: its own loop, the blocked-vCPU
 * sweep of its pCPU, an idle pCPU's timer, a kick from a sender. The Linux
 * steal test once lost a vCPU's timer interrupt this way (docs/linux-guest.md
 * "A known rare hang"): the vCPU then stays halted. Here the BSP watches
 * every AP's progress and, instead of hanging, fails naming the AP, its
 * round and how long ago its deadline passed.
 *
 * With nmi=MS the BSP also sends an NMI to one AP every MS ms (as Linux's
 * RCU stall report does to dump a CPU's stack), so timer delivery is
 * exercised across NMI injection too (vnmi=on and vnmi=off differ there).
 *
 * Command line: rounds=N (per AP, default 300), seed=S (default 1; printed),
 * nmi=MS (default 0: none). */
#include "guest.h"

const char test_name[] = "timerwake";

#define VEC_TIMER 0x42
#define VEC_POKE  0x43
#define ICR_NMI   0x00000400u
#define STUCK_MS  1000      /* past the deadline without the interrupt: lost */

static volatile uint32_t fired[GUEST_MAX_CPUS];   /* timer interrupts per CPU */
static volatile uint32_t rounds_done[GUEST_MAX_CPUS];
static volatile uint64_t deadline[GUEST_MAX_CPUS];
static volatile uint32_t finished, stop, nmis[GUEST_MAX_CPUS];
static unsigned nr_cpus, rounds;
static unsigned long seed;

static void on_timer(unsigned v)
{
	fired[cpu_id()]++;
}

static void on_poke(unsigned v)
{
}

static bool on_nmi(unsigned v)
{
	if (v != 2)
		return false;
	nmis[cpu_id()]++;
	return true;
}

static uint32_t rng(uint32_t *s)     /* xorshift32 */
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void worker(unsigned cpu)
{
	uint32_t s = (uint32_t)(seed * 2654435761u) ^ (cpu * 40503u + 1);

	apic_write(APIC_LVT_TIMER, APIC_TIMER_TSCDL | VEC_TIMER);
	for (unsigned r = 0; r < rounds && !stop; r++) {
		uint32_t want = fired[cpu] + 1;
		uint64_t us = 50 + rng(&s) % 2950;

		cli();
		deadline[cpu] = rdtsc() + us * tsc_khz / 1000;
		wrmsr(MSR_TSC_DEADLINE, deadline[cpu]);
		if (nr_cpus > 2 && rng(&s) % 4 == 0) {
			unsigned to = 1 + rng(&s) % (nr_cpus - 1);

			if (to != cpu)
				apic_send_ipi(to, VEC_POKE);
		}
		while (fired[cpu] < want && !stop) {
			sti_hlt();
			cli();
		}
		sti();
		rounds_done[cpu] = r + 1;
	}
	__atomic_fetch_add(&finished, 1, __ATOMIC_SEQ_CST);
}

void test_main(void)
{
	unsigned aps, stuck = 0;
	uint32_t seen[GUEST_MAX_CPUS] = { 0 };
	uint64_t since[GUEST_MAX_CPUS] = { 0 }, t0;
	unsigned nmi_ms, nmi_to = 1, sent = 0, got = 0;

	nr_cpus = smp_nr_cpus();
	rounds = (unsigned)boot_arg_num("rounds", 300);
	seed = boot_arg_num("seed", 1);
	nmi_ms = (unsigned)boot_arg_num("nmi", 0);
	con_printf("timerwake: %u CPUs, %u rounds per AP, seed %lu, NMI every %u ms\n", nr_cpus,
		   rounds, seed, nmi_ms);
	if (!test_check("tscdl", (cpuid(1, 0).c >> 24) & 1, "CPUID.1:ECX.TSC_DEADLINE") ||
	    !test_check("two_cpus", nr_cpus >= 2, "%u vCPUs", nr_cpus))
		return;
	irq_set_handler(VEC_TIMER, on_timer);
	irq_set_handler(VEC_POKE, on_poke);
	exc_hook = on_nmi;
	int rc = smp_start_all(NULL);

	test_check("aps_online", rc == 0, "%u of %u APs", smp_online, nr_cpus - 1);
	aps = smp_online;
	for (unsigned c = 1; c < nr_cpus; c++)
		smp_run_on(c, worker, 0);
	t0 = rdtsc();
	/* Watch: an AP whose round has not moved for STUCK_MS past its
	 * deadline lost that timer interrupt (it halts for nothing else). */
	while (finished < aps && !stuck) {
		uint32_t f = finished;

		hlt_until(&finished, f + 1, nmi_ms ? nmi_ms : 100);
		if (nmi_ms && finished < aps) {
			apic_send_ipi(nmi_to, ICR_NMI);
			sent++;
			nmi_to = nmi_to + 1 < nr_cpus ? nmi_to + 1 : 1;
		}
		for (unsigned c = 1; c < nr_cpus; c++) {
			uint64_t now = rdtsc(), dl = deadline[c];

			if (rounds_done[c] != seen[c] || rounds_done[c] >= rounds) {
				seen[c] = rounds_done[c];
				since[c] = now;
				continue;
			}
			if (now > dl && now - dl > STUCK_MS * tsc_khz &&
			    now - since[c] > STUCK_MS * tsc_khz) {
				stuck++;
				test_check("timer_lost", false, "cpu%u halted in round %u, its deadline "
					   "passed %llu ms ago (%u timer interrupts)", c, rounds_done[c] + 1,
					   (unsigned long long)((now - dl) / tsc_khz), fired[c]);
			}
		}
	}
	stop = 1;
	for (unsigned c = 1; c < nr_cpus; c++)
		got += nmis[c];
	if (nmi_ms)
		test_check("nmis", got > 0 && got <= sent, "%u NMIs sent, %u taken", sent, got);
	test_check("all_rounds", !stuck && finished == aps, "%u of %u APs did %u rounds in %llu ms",
		   finished, aps, rounds, (unsigned long long)((rdtsc() - t0) / tsc_khz));
}
