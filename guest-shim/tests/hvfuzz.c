/* Fuzz mode of the hostile guest (make fuzz, docs/security.md "Fuzzing"):
 * both vCPUs of this VM run seeded random privileged operations at the same
 * time, every category a guest can reach the hypervisor by: hypercalls with
 * random arguments, MSRs, ports, LAPIC/IOAPIC/hole MMIO, LAPIC timer and IPI
 * programming, CR/XCR/DR writes, NMI storms, HLT, and (64-bit build) a
 * page-table race under an MMIO instruction like the one of issue 10. It
 * ends with an INIT/SIPI storm at vCPU 1 and, with triple=1, a triple fault.
 * Each op that may fault is caught by an exception-table fixup; the run is
 * reproducible from seed= (vCPU i draws from seed, i). The check is that the
 * hypervisor handles all of it: this VM reaches its end, the victim VM
 * beside it passes, no VM is stopped for an exit the hypervisor failed.
 * Command line: seed=N (1) ops=N per vCPU (2000) triple=0|1 (0) race=N (400).
 * Never touches guest-physical memory at or above 4 GiB (that stops the VM
 * by design), never sends INIT to itself, never uses error-code vectors. */
#include "hvfuzz/hvfuzz.h"

const char test_name[] = "hvfuzz";

static const char *const cat_name[NR_CAT] = {
	"vmcall", "msr", "pio", "lapic", "hole", "ipi", "ioapic", "timer", "cr", "xsetbv",
	"dr", "nmi-storm", "cpuid", "tlb", "hlt" };
static const uint8_t weight[NR_CAT] = { 10, 10, 8, 8, 5, 5, 4, 3, 3, 2, 3, 1, 2, 2, 1 };

static struct fz fzs[2] __attribute__((aligned(4096)));
static volatile uint32_t nmis, ap_finished, race_arrived;
static bool under_hv;
unsigned long opt_race;

uint64_t rnd(struct fz *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return f->rng;
}

void note(struct fz *f, unsigned cat, int fault)
{
	f->ops[cat]++;
	if (fault)
		f->faults[cat]++;
}

/* An interrupt storm this guest made itself (a level-triggered IOAPIC pin it
 * unmasked at a device that keeps its line up, say COM2's THRE) would hold a
 * vCPU in its handler for good, as on hardware: past STORM interrupts of one
 * vector, mask every IOAPIC pin and stop the LAPIC timer. */
#define STORM 4096
static volatile uint32_t storms;

static void storm_guard(unsigned v)
{
	if ((irq_counts[v] + 1) % STORM == 0) {
		__atomic_fetch_add(&storms, 1, __ATOMIC_RELAXED);
		for (unsigned p = 0; p < ioapic_nr_pins(); p++)
			ioapic_mask(p);
		apic_timer_stop();
	}
}

/* NMIs, #DB from debug-register games, fixed interrupts at vectors 16-31. */
static bool hook(unsigned v)
{
	if (v == 2) {   /* an NMI storm (PIT routed as NMI) wedges the guest: hostile.c */
		if ((__atomic_fetch_add(&nmis, 1, __ATOMIC_RELAXED) + 1) % STORM == 0) {
			__atomic_fetch_add(&storms, 1, __ATOMIC_RELAXED);
			for (unsigned p = 0; p < ioapic_nr_pins(); p++)
				ioapic_mask(p);
		}
		return true;
	}
	if (v == 1)
		return true;
	if (v >= 16) {
		__atomic_fetch_add(&irq_counts[v], 1, __ATOMIC_RELAXED);
		storm_guard(v);
		apic_eoi();
		return true;
	}
	return false;
}

/* A pointer argument. Guest RAM other than this vCPU's scratch and the last
 * page is never named: the hypervisor writes through some (PV areas). */
uint64_t rnd_ptr(struct fz *f)
{
	uint64_t p;

	switch (below(f, 9)) {
	case 0: return (uintptr_t)f->scratch + below(f, 2 * 4096);
	case 1: return boot.ram_top - below(f, 64);
	case 2: return 0xd0000000u + below(f, 0x1000000);
	case 3: return 0xfee00000u + below(f, 4096);
	case 4: return 0xfec00000u + below(f, 4096);
	case 5: return (1ull << 32) + below(f, 4096);
	case 6: return rnd(f) | (1ull << 63);
	case 7: return 0xfffffff0u + below(f, 16);
	default:
		p = rnd(f);
		if (p < boot.ram_top)
			p = (uintptr_t)f->scratch + (p & 0x1fff);
		return p;
	}
}

uint64_t tame_ptr(struct fz *f, uint64_t p)
{
	if (p < boot.ram_top - 4096 && (p < (uintptr_t)f->scratch ||
					p >= (uintptr_t)f->scratch + sizeof(f->scratch)))
		p = (uintptr_t)f->scratch + (p & 0xfff);
	return p;
}


static void (*const op_fn[NR_CAT])(struct fz *) = {
	op_call, op_msr, op_pio, op_lapic, op_hole, op_ipi, op_ioapic, op_timer, op_cr, op_xcr,
	op_dr, op_nmi_storm, op_cpuid, op_tlb, op_hlt };


/* Both vCPUs meet here (at most 5 s) so the race has two sides. */
static bool race_meet(void)
{
	__atomic_fetch_add(&race_arrived, 1, __ATOMIC_SEQ_CST);
	return wait_count(&race_arrived, 2, 5000);
}

static void fuzz_loop(unsigned cpu)
{
	struct fz *f = &fzs[cpu & 1];
	unsigned long n = boot_arg_num("ops", 2000);
	unsigned total = 0;

	for (unsigned c = 0; c < NR_CAT; c++)
		total += weight[c];
	for (unsigned long i = 0; i < n; i++) {
		unsigned r = below(f, total), c = 0;

		while (r >= weight[c])
			r -= weight[c++];
		op_fn[c](f);
		if (i == n / 2 && opt_race && race_meet()) {
#ifdef __x86_64__
			race_run(f);
#endif
		}
		if (i % 500 == 499)
			con_printf("hvfuzz: cpu%u %lu ops\n", f->cpu, i + 1);
	}
	apic_timer_stop();
	if (cpu)
		__atomic_store_n(&ap_finished, 1, __ATOMIC_SEQ_CST);
}

/* The last op: INIT and SIPI at vCPU 1 (now idle) over and over, SIPIs to
 * park it at a `cli; hlt` page, INITs to APIC IDs that do not exist. */
static void init_sipi_storm(struct fz *f)
{
	volatile uint8_t *park = (volatile uint8_t *)0x9000;

	park[0] = 0xfa;          /* cli */
	park[1] = 0xf4;          /* hlt */
	park[2] = 0xeb;          /* jmp $-3 */
	park[3] = 0xfd;
	for (unsigned i = 0; i < 50; i++) {
		apic_send_ipi(1, ICR_INIT | ICR_ASSERT);
		if (one_in(f, 2))
			apic_send_ipi(1, ICR_INIT | 0x8000u);          /* level de-assert */
		for (unsigned k = below(f, 4); k; k--)
			apic_send_ipi(1, ICR_SIPI | ICR_ASSERT | 0x09);
		if (one_in(f, 4))
			apic_send_ipi(2 + below(f, 200), ICR_INIT | ICR_ASSERT);
	}
	apic_send_ipi(1, ICR_SIPI | ICR_ASSERT | 0x09);
}

static __noreturn void triple_fault(void)
{
	struct { uint16_t limit; uintptr_t base; } __attribute__((packed)) idtr = { 0, 0 };

	con_printf("hvfuzz: triple fault now\n");
	__asm__ volatile("lidt %0; int3" :: "m"(idtr) : "memory");
	for (;;)
		hlt();
}

void test_main(void)
{
	unsigned long seed = boot_arg_num("seed", 1);
	bool ap_ok;

	under_hv = hv_is_ours();
	opt_race = boot_arg_num("race", 400);
	for (unsigned c = 0; c < 2; c++) {
		fzs[c].cpu = c;
		fzs[c].rng = (seed * 2 + c) * 0x9e3779b97f4a7c15ull + 0x1234567;
	}
	exc_hook = hook;
	for (unsigned v = 0x20; v < VEC_WATCHDOG; v++)
		irq_set_handler(v, storm_guard);
	con_printf("hvfuzz: seed %lu, %lu ops per vCPU, %s\n", seed, boot_arg_num("ops", 2000),
		   under_hv ? "under this hypervisor" : "no hypervisor of ours");
	if (!under_hv) {
		test_check("skipped", true, "only under this hypervisor");
		test_finish();
	}
#ifdef __x86_64__
	if (opt_race && !race_setup())
		opt_race = 0;
#else
	opt_race = 0;      /* the 32-bit build runs without paging */
#endif
	ap_ok = smp_nr_cpus() >= 2 && smp_start_ap(1, 0x08, NULL) == 0;
	if (ap_ok)
		smp_run_on(1, fuzz_loop, 0);
	else
		opt_race = 0;
	fuzz_loop(0);
	if (ap_ok && !wait_count(&ap_finished, 1, 600000))
		con_printf("hvfuzz: vCPU 1 did not finish\n");
	for (unsigned p = 0; p < ioapic_nr_pins(); p++)
		ioapic_mask(p);
	if (ap_ok)
		init_sipi_storm(&fzs[0]);
	for (unsigned c = 0; c < NR_CAT; c++)
		con_printf("hvfuzz: %-9s ops %5u %5u faulted %5u %5u\n", cat_name[c],
			   fzs[0].ops[c], fzs[1].ops[c], fzs[0].faults[c], fzs[1].faults[c]);
#ifdef __x86_64__
	con_printf("hvfuzz: race %u calls, %u #PF\n", race_calls, race_pf);
#endif
	con_printf("hvfuzz: %u NMIs, %u interrupt storms quenched\n", nmis, storms);
	test_check("two_vcpus", ap_ok, "%u vCPUs", smp_nr_cpus());
	test_check("cr_reserved_gp", fzs[0].cr_no_gp + fzs[1].cr_no_gp == 0,
		   "%u illegal CR writes did not #GP", fzs[0].cr_no_gp + fzs[1].cr_no_gp);
	test_check("ap_finished", ap_finished == 1, "vCPU 1 ran its ops");
	con_printf("hvfuzz: done seed %lu\n", seed);
	if (boot_arg_num("triple", 0))
		triple_fault();
	test_finish();
}
