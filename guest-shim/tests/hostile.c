/* Hostile guest: thousands of seeded random privileged operations (MSRs,
 * port I/O, MMIO to the LAPIC/IOAPIC and holes, hypercalls, CR/XCR writes,
 * IPIs, IOAPIC and LAPIC timer garbage, HLT with IF=0) each caught by an
 * exception-table fixup. The check is that this guest reaches its end and,
 * run beside another VM, that the hypervisor and that VM survive it.
 * Command line: seed=N (default 1), ops=N (default 3000). Never touches
 * guest-physical memory at or above 4 GiB (that stops the VM by design). */
#include "hostile/hostile.h"

const char test_name[] = "hostile";

static const char *const cat_name[NR_CAT] = {
	"msr", "pio", "rep-io", "apic-mmio", "hole", "vmcall", "cr", "xsetbv", "tlb",
	"cpuid", "icr", "ioapic", "timer", "hlt", "apicbase" };
uint32_t ops[NR_CAT], faults[NR_CAT];
uint32_t hole_not_ones, cr_no_gp, nmis;
static uint32_t low_irqs;
static uint64_t rng;
bool under_hv, rmw, trace;
uint8_t scratch[3 * 4096] __attribute__((aligned(4096)));

uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

void note(unsigned cat, int fault)
{
	ops[cat]++;
	if (fault)
		faults[cat]++;
}

/* NMIs (ICR, IOAPIC) and fixed interrupts at vectors 16-31 arrive through the
 * exception stubs; only vectors without an error code are ever sent. A random
 * RTE can route the PIT (a period down to ~100 us) as NMI: under Bochs one
 * NMI round trip (handler, IRET, NMI-window exit) takes longer, so the next
 * NMI is always latched at IRET and no instruction outside the handler ever
 * runs (SDM §26.7.6; docs/interrupts.md). Every 1024th NMI masks the sources,
 * except the pin op_hlt() armed to end its HLT with IF=0 (masking that one
 * between its setup and the HLT left the vCPU halted for good). */
volatile unsigned hlt_gsi = ~0u;

static bool hook(unsigned v)
{
	if (v == 2) {
		if (++nmis % 1024 == 0) {
			/* IOREGSEL is shared with the interrupted code's
			 * select/window pair: put it back. */
			volatile uint32_t *sel = (volatile uint32_t *)acpi_ioapic_base();
			uint32_t saved = *sel;

			for (unsigned p = 0; p < ioapic_nr_pins(); p++)
				if (p != hlt_gsi)
					ioapic_mask(p);
			*sel = saved;
		}
		return true;
	}
	if (v >= 16) {
		low_irqs++;
		apic_eoi();
		return true;
	}
	return false;
}

/* A pointer argument: valid scratch, RAM edge, holes, device pages, > 4 GiB. */
uint64_t rnd_ptr(void)
{
	switch (rnd_below(10)) {
	case 0: return (uintptr_t)scratch + rnd_below(4096);
	case 1: return boot.ram_top - rnd_below(64);
	case 2: return 0xd0000000u + rnd_below(0x1000000);
	case 3: return LAPIC_MMIO + rnd_below(4096);
	case 4: return 0xfec00000u + rnd_below(4096);
	case 5: return 0xfffffff0u + rnd_below(16);
	case 6: return (1ull << 32) + rnd_below(4096);
	case 7: return rnd() | (1ull << 63);
	case 8: return 0;
	default: return rnd();
	}
}

/* --- APIC: put it back the way the library set it up --- */
uint64_t apic_base0;

void apic_restore(void)
{
	uint64_t b = 0;

	if (!rdmsr_safe(MSR_APIC_BASE, &b) && b != apic_base0) {
		wrmsr_safe(MSR_APIC_BASE, b & ~(uint64_t)(APIC_BASE_EN | APIC_BASE_X2));
		wrmsr_safe(MSR_APIC_BASE, apic_base0);
	}
	apic_init();
	apic_write(APIC_ESR, 0);
	apic_write(APIC_ESR, 0);
	/* A fixed IPI at vector 0xff is taken for a spurious one and never
	 * EOIed by the library: drop whatever is still in service. */
	for (int i = 0; i < 256; i++) {
		bool any = false;

		for (unsigned r = 0x100; r < 0x180; r += 0x10)
			any |= apic_read(r) != 0;
		if (!any)
			break;
		apic_eoi();
	}
}


static void (*const op_fn[NR_CAT])(void) = {
	op_msr, op_pio, op_str, op_apic_mmio, op_hole, op_vmcall, op_cr, op_xcr, op_tlb,
	op_cpuid, op_icr, op_ioapic, op_timer, op_hlt, op_apicbase };
/* Relative frequency of each category. */
static const uint8_t weight[NR_CAT] = { 10, 8, 4, 8, 6, 8, 3, 2, 2, 3, 5, 4, 3, 0, 2 };

void test_main(void)
{
	unsigned long seed = boot_arg_num("seed", 1), n = boot_arg_num("ops", 3000);
	unsigned total = 0, hlts = 0;

	under_hv = hv_is_ours();
	rmw = boot_arg_num("rmw", 0);
	trace = boot_arg_num("trace", 0);
	rng = seed * 0x9e3779b97f4a7c15ull + 0x1234567;
	rdmsr_safe(MSR_APIC_BASE, &apic_base0);
	exc_hook = hook;
	con_printf("hostile: seed %lu, %lu ops, %s\n", seed, n,
		   under_hv ? "under this hypervisor" : "no hypervisor of ours");
	for (unsigned c = 0; c < NR_CAT; c++)
		total += weight[c];
	for (unsigned long i = 0; i < n; i++) {
		unsigned r = rnd_below(total), c = 0;

		while (r >= weight[c])
			r -= weight[c++];
		if (trace)
			con_printf("hostile: op %lu %s\n", i, cat_name[c]);
		op_fn[c]();
		if (i % 1000 == 999) {
			con_printf("hostile: %lu ops done\n", i + 1);
			if (hlts++ < 3)
				op_hlt();
		}
	}
	apic_restore();
	for (unsigned p = 0; p < ioapic_nr_pins(); p++)
		ioapic_mask(p);
	for (unsigned c = 0; c < NR_CAT; c++)
		con_printf("hostile: %-10s ops %5u faulted %5u\n", cat_name[c], ops[c], faults[c]);
	con_printf("hostile: %u NMIs, %u low-vector interrupts\n", nmis, low_irqs);
	test_check("hole_ones", hole_not_ones == 0, "%u reads of holes not all ones", hole_not_ones);
	test_check("cr_reserved_gp", cr_no_gp == 0, "%u illegal CR writes did not #GP", cr_no_gp);
	test_check("hlt_nmi_wake", ops[C_HLT] && !faults[C_HLT], "%u of %u HLTs with IF=0 "
		   "not woken by an NMI", faults[C_HLT], ops[C_HLT]);
	test_check("survived", true, "seed %lu: %lu ops", seed, n);
}
