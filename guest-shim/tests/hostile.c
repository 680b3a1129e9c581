/* Hostile guest: thousands of seeded random privileged operations (MSRs,
 * port I/O, MMIO to the LAPIC/IOAPIC and holes, hypercalls, CR/XCR writes,
 * IPIs, IOAPIC and LAPIC timer garbage, HLT with IF=0) each caught by an
 * exception-table fixup. The check is that this guest reaches its end and,
 * run beside another VM, that the hypervisor and that VM survive it.
 * Command line: seed=N (default 1), ops=N (default 3000). Never touches
 * guest-physical memory at or above 4 GiB (that stops the VM by design). */
#include "guest.h"
#include "abi.h"

const char test_name[] = "hostile";

enum { C_MSR, C_PIO, C_STR, C_MMIO, C_HOLE, C_CALL, C_CR, C_XCR, C_TLB, C_CPUID,
       C_ICR, C_IOAPIC, C_TIMER, C_HLT, C_APICBASE, NR_CAT };
static const char *const cat_name[NR_CAT] = {
	"msr", "pio", "rep-io", "apic-mmio", "hole", "vmcall", "cr", "xsetbv", "tlb",
	"cpuid", "icr", "ioapic", "timer", "hlt", "apicbase" };
static uint32_t ops[NR_CAT], faults[NR_CAT];
static uint32_t hole_not_ones, cr_no_gp, nmis, low_irqs;
static uint64_t rng;
static bool under_hv, rmw, trace;
static uint8_t scratch[3 * 4096] __attribute__((aligned(4096)));

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static uint32_t rnd_below(uint32_t n) { return (uint32_t)(rnd() % n); }
static bool one_in(uint32_t n) { return rnd_below(n) == 0; }

static void note(unsigned cat, int fault)
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
static volatile unsigned hlt_gsi = ~0u;

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
static uint64_t rnd_ptr(void)
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
static uint64_t apic_base0;

static void apic_restore(void)
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

/* --- MSRs --- */
static const uint32_t msr_pool[] = {
	0x10, 0x1b, 0x3a, 0x3b, 0x48, 0x49, 0x8b, 0x9b, 0xc1, 0xc2, 0xc7, 0xe7, 0xe8, 0xfe,
	0x10a, 0x10b, 0x122, 0x174, 0x175, 0x176, 0x179, 0x17a, 0x186, 0x187, 0x1a0, 0x1a2,
	0x1d9, 0x1db, 0x1dd, 0x200, 0x201, 0x277, 0x2ff, 0x309, 0x30a, 0x38d, 0x38e, 0x38f,
	0x390, 0x480, 0x481, 0x482, 0x485, 0x48b, 0x48d, 0x491, 0x4c1, 0x600, 0x6e0, 0x802,
	0x808, 0x80b, 0x80f, 0x830, 0x83f, 0x838, 0x8ff, 0xc80, 0xd90, 0xda0, 0x11, 0x12,
	0x4b564d00, 0x4b564d01, 0x4b564d02, 0x4b564d03, 0x4b564d04, 0x4b564d05,
	0x4b564d06, 0x40000000, 0x40000001, 0x40000020, 0x40000073, 0xc0000080,
	0xc0000081, 0xc0000082, 0xc0000084, 0xc0000100, 0xc0000101, 0xc0000102,
	0xc0000103, 0xc0010000, 0xc0010114, 0xc0011029, 0xffffffff,
};
/* Writing these with a value in RAM makes the hypervisor write there. */
static bool msr_is_pv_pointer(uint32_t m)
{
	return m == 0x11 || m == 0x12 || (m >= 0x4b564d00 && m <= 0x4b564d06);
}

static uint32_t rnd_msr(void)
{
	switch (rnd_below(6)) {
	case 0: return (uint32_t)rnd();
	case 1: return rnd_below(0x2000);
	case 2: return 0xc0000000u + rnd_below(0x2000);
	case 3: return 0x40000000u + rnd_below(0x200);
	case 4: return 0x4b564d00u + rnd_below(0x20);
	default: return msr_pool[rnd_below(ARRAY_SIZE(msr_pool))];
	}
}

static uint64_t rnd_msr_val(uint64_t old)
{
	switch (rnd_below(6)) {
	case 0: return old ^ (1ull << rnd_below(64));
	case 1: return rnd();
	case 2: return rnd_ptr() | 1;            /* enable bit + pointer: PV MSRs */
	case 3: return 0;
	case 4: return ~0ull;
	default: return old | (rnd() & 0xffffffff00000ff0ull);
	}
}

static void op_msr(void)
{
	uint32_t m = rnd_msr();
	uint64_t old = 0, v;
	int f = rdmsr_safe(m, &old), rf = f;

	if (m == 0x1b || m == 0x6e0 || (m >= 0x800 && m <= 0x8ff && !f) || m == 0x10 ||
	    m == 0x3b) {
		note(C_MSR, f);   /* APIC, TSC: only read here (op_apicbase, op_timer) */
		return;
	}
	v = rnd_msr_val(old);
	if ((msr_is_pv_pointer(m) || (m >= 0x40000000 && m < 0x40000200)) &&
	    (v & ~0xfffull) < boot.ram_top)
		v = (uintptr_t)scratch + 4096 + (v & 0x7);   /* never our code or stack */
	f = wrmsr_safe(m, v);
	note(C_MSR, f);
	if (!f)    /* undo: a PV area, a PAT or EFER change must not outlive the op */
		wrmsr_safe(m, rf ? 0 : old);
}

/* --- port I/O: bare QEMU has DMA-capable devices (floppy, IDE), so there
 * only a small pool of ports is used --- */
static bool port_forbidden(uint16_t p)
{
	return (p >= 0x3f8 && p <= 0x3ff) || (p >= 0xf4 && p <= 0xf7) || p == 0x64 ||
	       p == 0x92 || (p >= 0xcf8 && p <= 0xcff) || (p >= 0x600 && p <= 0x63f) ||
	       (p >= 0x510 && p <= 0x51b) || p == 0x20 || p == 0x21 || p == 0xa0 ||
	       p == 0xa1 || p == 0xb2 || p == 0x4d0 || p == 0x4d1 || p >= 0x8000;
}

static uint16_t rnd_port(void)
{
	static const uint16_t pool[] = { 0x40, 0x41, 0x42, 0x43, 0x61, 0x70, 0x71, 0x80,
					 0x2e8, 0x3e8, 0x160, 0x1e0, 0x608, 0x510 };
	uint16_t p;

	do
		p = one_in(2) || !under_hv ? pool[rnd_below(ARRAY_SIZE(pool))] : (uint16_t)rnd();
	while (port_forbidden(p) && !(p == 0x608 || p == 0x510));
	return p;
}

static void op_pio(void)
{
	uint16_t p = rnd_port();
	uint32_t v = (uint32_t)rnd();
	bool wr = one_in(2) && p != 0x510 && p != 0x608;

	switch (rnd_below(3) + (wr ? 3 : 0)) {
	case 0: v = inb(p); break;
	case 1: v = inw(p); break;
	case 2: v = inl(p); break;
	case 3: outb(p, (uint8_t)v); break;
	case 4: outw(p, (uint16_t)v); break;
	default: outl(p, v); break;
	}
	(void)v;
	note(C_PIO, 0);
}

/* REP INS/OUTS with odd counts, both directions and bad buffers. */
static void op_str(void)
{
	uint16_t p = rnd_port();
	uintptr_t buf, fault = 0, n = one_in(8) ? rnd_below(0x10000) : rnd_below(64);
	unsigned sz = 1u << rnd_below(3), kind = rnd_below(6);
	bool in = one_in(2), std = one_in(4);

	if ((p == 0x510 || p == 0x608) && (kind == 1 || kind == 2))
		return;
	switch (kind) {
	case 0: buf = (uintptr_t)0xd0000000u + rnd_below(0x100000); break;
	case 1: buf = (uintptr_t)boot.ram_top - rnd_below(256); break;
	case 2: buf = (uintptr_t)0xfffff000u + rnd_below(0x1000); break;   /* wraps (32-bit) */
#ifdef __x86_64__
	case 3: buf = (uintptr_t)0x00007f0000000000ull + rnd_below(0x1000); break; /* no PTE */
	case 4: buf = (uintptr_t)0x0000800000000000ull; break;                /* non-canonical */
#endif
	default:
		buf = (uintptr_t)scratch + rnd_below(16);
		if (n * sz > 4096 - 16)
			n = (4096 - 16) / sz;
		if (std)
			buf += 4096;
		break;
	}
	if (kind == 1 || kind == 2)
		in = false;   /* a RAM-edge or wrapping buffer: never write our image */
	if (p == 0x510 || p == 0x608)
		in = true;
	if (std)
		__asm__ volatile("std");
#define STR_IO(insn, reg) \
	__asm__ volatile("1: rep " insn "\n2:\n\t" EX_ENTRY(1b, 2b) \
			 : "+" reg(buf), "+c"(n), "+D"(fault) : "d"(p) : "memory")
	if (in) {
		if (sz == 1) __asm__ volatile("1: rep insb\n2:\n\t" EX_ENTRY(1b, 2b)
					      : "+D"(buf), "+c"(n), "+m"(fault) : "d"(p) : "memory");
		else if (sz == 2) __asm__ volatile("1: rep insw\n2:\n\t" EX_ENTRY(1b, 2b)
						   : "+D"(buf), "+c"(n), "+m"(fault) : "d"(p) : "memory");
		else __asm__ volatile("1: rep insl\n2:\n\t" EX_ENTRY(1b, 2b)
				      : "+D"(buf), "+c"(n), "+m"(fault) : "d"(p) : "memory");
		/* the fixup puts vector + 1 in RDI, where no buffer lies */
		fault = buf < 33 ? buf : 0;
	} else if (sz == 1) {
		STR_IO("outsb", "S");
	} else if (sz == 2) {
		STR_IO("outsw", "S");
	} else {
		STR_IO("outsl", "S");
	}
	__asm__ volatile("cld");
	note(C_STR, (int)fault);
}

/* --- MMIO: LAPIC/IOAPIC pages and holes with odd widths and offsets.
 * Kinds 0-4 and 12 are MOV forms (hv/vmx/decode.c); the others (XCHG, LOCK
 * OR, ADD, CMPXCHG, TEST, MOVS, NOT) only with rmw=1 (the hypervisor
 * emulates them too; run_hv.py --all runs that case). --- */
static unsigned rnd_mmio_kind(void)
{
#ifdef __x86_64__
	static const uint8_t mov[] = { 0, 1, 2, 3, 4, 12 };
#else
	static const uint8_t mov[] = { 0, 1, 2, 3, 4 };
#endif

	return rmw ? rnd_below(14) : mov[rnd_below(ARRAY_SIZE(mov))];
}

static int mmio_access(uintptr_t a, unsigned kind, uint32_t v)
{
	uintptr_t fault = 0;
	uint32_t r = v;

	switch (kind) {
	case 0: __asm__ volatile("1: movl (%2), %0\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+r"(r), "+D"(fault) : "r"(a) : "memory"); break;
	case 1: __asm__ volatile("1: movb (%2), %b0\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+q"(r), "+D"(fault) : "r"(a) : "memory"); break;
	case 2: __asm__ volatile("1: movzwl (%2), %0\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+r"(r), "+D"(fault) : "r"(a) : "memory"); break;
	case 3: __asm__ volatile("1: movl %0, (%2)\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+r"(r), "+D"(fault) : "r"(a) : "memory"); break;
	case 4: __asm__ volatile("1: movb %b0, (%2)\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+q"(r), "+D"(fault) : "r"(a) : "memory"); break;
	case 5: __asm__ volatile("1: xchgl %0, (%2)\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+r"(r), "+D"(fault) : "r"(a) : "memory"); break;
	case 6: __asm__ volatile("1: lock orl %0, (%2)\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+r"(r), "+D"(fault) : "r"(a) : "memory"); break;
	case 7: __asm__ volatile("1: addl %0, (%2)\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+r"(r), "+D"(fault) : "r"(a) : "memory"); break;
	case 8: __asm__ volatile("1: lock cmpxchgl %1, (%3)\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+a"(r), "+r"(v), "+D"(fault) : "r"(a) : "memory"); break;
	case 9: __asm__ volatile("1: testl %0, (%2)\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+r"(r), "+D"(fault) : "r"(a) : "memory", "cc"); break;
	case 10: {
		uintptr_t s = a, d = (uintptr_t)scratch + 8192, n = 1 + rnd_below(8);
		__asm__ volatile("1: rep movsl\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+S"(s), "+D"(d), "+c"(n) :: "memory");
		break;
	}
	case 11: {
		uintptr_t s = (uintptr_t)scratch, d = a, n = 1 + rnd_below(4);
		__asm__ volatile("1: rep movsb\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+S"(s), "+D"(d), "+c"(n) :: "memory");
		break;
	}
#ifdef __x86_64__
	case 12: {
		uint64_t q = v;
		__asm__ volatile("1: movq (%2), %0\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+r"(q), "+D"(fault) : "r"(a) : "memory");
		break;
	}
#endif
	default: __asm__ volatile("1: notl (%1)\n2:\n\t" EX_ENTRY(1b, 2b)
				  : "+D"(fault) : "r"(a) : "memory"); break;
	}
	return (int)fault;
}

/* Writes to the ICR and to LVTs never ask for INIT to ourselves: that would
 * park this guest in wait-for-SIPI (legal, but it ends the test). */
static uint32_t tame_lvt(unsigned off, uint32_t v)
{
	if (off == APIC_ICR_LO || off == APIC_ICR_HI || off == 0x3f0)
		return 0;
	if (((v >> 8) & 7) == 5 || ((v >> 8) & 7) == 7)
		v &= ~0x700u;
	/* LVTs and the spurious vector: no vector that the exception stubs
	 * would take for one with an error code */
	if ((off == APIC_SVR || off == 0x2f0 || (off >= 0x320 && off <= 0x370)) &&
	    (v & 0xff) < 32)
		v |= 0x20;
	return v;
}

static void op_apic_mmio(void)
{
	unsigned off = rnd_below(0x1000), kind = rnd_mmio_kind();
	uint32_t v = (uint32_t)rnd();

	if (!one_in(4))
		off &= ~0xfu;
	if (kind >= 3 && kind != 9 && kind != 10 && kind != 12) {
		v = tame_lvt(off & ~0xfu, v);
		if ((off & ~0xfu) == APIC_ICR_LO || (off & ~0xfu) == APIC_ICR_HI ||
		    (off & ~0xfu) == 0x3f0)
			kind = 0;   /* ICR: only op_icr writes it */
	}
	note(C_MMIO, mmio_access(LAPIC_MMIO + off, kind, v));
	if (one_in(4))
		apic_restore();
}

static void op_hole(void)
{
	static const uint32_t base[] = { 0x0a0000, 0xc0000000u, 0xd0000000u, 0xe0000000u,
					 0xfe000000u, 0xfed00000u, 0xfee01000u, 0xfff00000u };
	uintptr_t a = base[rnd_below(ARRAY_SIZE(base))] + (rnd_below(0x100000) & ~3u);
	unsigned kind = rnd_mmio_kind();
	uint32_t v = 0;
	int f;

	if (a < 0x100000)
		a = 0xc0000000u + (a & 0xffff);   /* VGA/BIOS ranges may be RAM: skip */
	if (a >= 0xfec00000u && a < 0xfec01000u)
		a += 0x1000;
	if (a < boot.ram_top)
		a = (uintptr_t)boot.ram_top + (a & 0xfffff);
	if (!under_hv)
		kind = 0;
	if (kind == 0) {
		f = read32_safe(a, &v);
		if (!f && v != 0xffffffffu)
			hole_not_ones++;
	} else {
		f = mmio_access(a, kind, (uint32_t)rnd());
	}
	note(C_HOLE, f);
}

/* --- hypercalls --- */
static void op_vmcall(void)
{
	unsigned long nr, a[4];
	long ret;

	switch (rnd_below(5)) {
	case 0: nr = HC_BASE + rnd_below(0x40); break;
	case 1: nr = rnd_below(16); break;                /* KVM_HC_* */
	case 2: nr = (unsigned long)rnd(); break;
	case 3: nr = HC_BASE + 0x10 + rnd_below(8); break;
	default: nr = 0xffffffffu - rnd_below(4); break;
	}
	for (int i = 0; i < 4; i++)
		a[i] = one_in(2) ? (unsigned long)rnd_ptr() : (unsigned long)rnd();
	if (nr == HC_TEST_RESULT)
		nr = HC_VERSION;        /* our own verdict is not fuzzed */
	if (nr == HC_SCHED_BLOCK && !boot_arg_num("block", 0))
		nr = HC_SCHED_SLEEP;    /* open: BLOCK is not woken by the timer below */
	if (trace)
		con_printf("hostile: vmcall 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx\n", nr, a[0], a[1], a[2], a[3]);
	if (nr == HC_SCHED_SLEEP || nr == HC_SCHED_BLOCK) {
		apic_restore();         /* they wait for an interrupt: arm one */
		apic_write(APIC_TDCR, 0xb);
		apic_write(APIC_LVT_TIMER, 0x41);
		apic_write(APIC_TMICT, 50000000);  /* ~50 ms: surely after the VMCALL */
	}
	if (nr == HC_CONSOLE_PUTS && (a[0] >= 0x100000 && a[0] < boot.ram_top))
		a[1] &= 0x3f;           /* readable text: keep the serial log small */
	note(C_CALL, vmcall_safe(nr, a[0], a[1], a[2], a[3], &ret));
	if (nr == HC_SCHED_SLEEP || nr == HC_SCHED_BLOCK)
		apic_timer_stop();
}

/* --- control registers: writes that must #GP --- */
static int write_cr0(unsigned long v)
{
	uintptr_t fault = 0;
	__asm__ volatile("1: mov %1, %%cr0\n2:\n\t" EX_ENTRY(1b, 2b) : "+D"(fault) : "r"(v) : "memory");
	return (int)fault;
}
static int write_cr4(unsigned long v)
{
	uintptr_t fault = 0;
	__asm__ volatile("1: mov %1, %%cr4\n2:\n\t" EX_ENTRY(1b, 2b) : "+D"(fault) : "r"(v) : "memory");
	return (int)fault;
}

static void op_cr(void)
{
	unsigned long cr0 = read_cr0(), cr4 = read_cr4(), v;
	bool four = one_in(2);
	uint32_t c1 = cpuid(1, 0).c;
	int f;

	if (!under_hv)
		return;   /* QEMU TCG hangs on some reserved CR4 bits: only our HV */
	if (!four) {
		switch (rnd_below(3)) {
		case 0: v = (cr0 | (1ul << 29)) & ~(1ul << 30); break;   /* NW without CD */
		case 1:   /* PG without PE: fatal if accepted, so only under our HV */
			v = under_hv ? (cr0 | (1ul << 31)) & ~1ul : cr0 | (1ul << 29);
			break;
#ifdef __x86_64__
		case 2: v = cr0 | (1ul << (32 + rnd_below(32))); break;  /* reserved high */
#endif
		default: v = (cr0 | (1ul << 29)) & ~(1ul << 30); break;
		}
		f = write_cr0(v);
		if (!f) {
			cr_no_gp++;
			write_cr0(cr0);
		}
	} else {
		static const unsigned bad[] = { 15, 26, 27, 28, 29, 30, 31, 13, 14 };
		unsigned b = bad[rnd_below(ARRAY_SIZE(bad))];

		if ((b == 13 && (c1 & (1u << 5))) || (b == 14 && (c1 & (1u << 6))))
			b = 31;
		v = cr4 | (1ul << b);
#ifdef __x86_64__
		if (one_in(3))
			v = cr4 | (1ul << (32 + rnd_below(32)));
		if (one_in(4))
			v = cr4 & ~(1ul << 5);                       /* PAE off in long mode */
#endif
		f = write_cr4(v);
		if (!f) {
			cr_no_gp++;
			con_printf("hostile: CR4 0x%lx -> 0x%lx did not #GP\n", cr4, v);
			write_cr4(cr4);
		}
	}
	note(C_CR, f);
}

/* --- XSETBV/XGETBV garbage (XSETBV always exits) --- */
static void op_xcr(void)
{
	uint32_t c1 = cpuid(1, 0).c;
	unsigned long cr4 = read_cr4();
	uintptr_t fault = 0;
	uint32_t idx = one_in(2) ? 0 : (uint32_t)rnd_below(4) | (one_in(4) ? (uint32_t)rnd() : 0);
	uint32_t lo = (uint32_t)rnd() & (one_in(2) ? 0xff : 0xffffffff), hi = one_in(3) ? (uint32_t)rnd() : 0;

	if ((c1 & (1u << 26)) && one_in(4) == 0)
		write_cr4(cr4 | (1ul << 18));
	__asm__ volatile("1: xsetbv\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+D"(fault) : "c"(idx), "a"(lo), "d"(hi) : "memory");
	note(C_XCR, (int)fault);
	if (read_cr4() & (1ul << 18)) {
		uint32_t a, d;
		uintptr_t f2 = 0;

		__asm__ volatile("1: xgetbv\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "=a"(a), "=d"(d), "+D"(f2) : "c"(rnd_below(3)) : "memory");
		__asm__ volatile("1: xsetbv\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+D"(f2) : "c"(0), "a"(1), "d"(0) : "memory");
	}
	write_cr4(cr4);
}

static void op_tlb(void)
{
	uintptr_t fault = 0, a = (uintptr_t)rnd_ptr();

	if (one_in(2)) {
		__asm__ volatile("1: invlpg (%1)\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+D"(fault) : "r"(a) : "memory");
	} else {
		struct { uint64_t pcid, addr; } __attribute__((aligned(16))) d = { rnd() & 0xffff, rnd() };
		unsigned long type = one_in(2) ? rnd_below(4) : (unsigned long)rnd();
		__asm__ volatile("1: invpcid %1, %2\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+D"(fault) : "m"(d), "r"(type) : "memory");
	}
	note(C_TLB, (int)fault);
}

static void op_cpuid(void)
{
	static const uint32_t base[] = { 0, 0x40000000u, 0x40000100u, 0x80000000u, 0x4b564d00u };
	uint32_t leaf = one_in(4) ? (uint32_t)rnd() : base[rnd_below(ARRAY_SIZE(base))] + rnd_below(0x30);

	(void)cpuid(leaf, one_in(2) ? rnd_below(8) : (uint32_t)rnd());
	note(C_CPUID, 0);
}

/* --- IPIs: every delivery mode and shorthand, never INIT to ourselves --- */
static void op_icr(void)
{
	uint32_t mode = rnd_below(8), sh = rnd_below(4), vec = rnd_below(256);
	uint32_t dest = one_in(2) ? rnd_below(4) : (uint32_t)rnd() & 0xff;
	uint32_t lo;
	bool self;

	if (mode == 0 && vec >= 8 && vec < 32) {
		static const uint8_t ok[] = { 16, 18, 19, 20, 22, 23, 24, 25, 26, 27, 28, 31 };
		vec = ok[rnd_below(ARRAY_SIZE(ok))];   /* no error-code vectors */
	}
	if (mode == 1)
		vec = 0x40 + rnd_below(0xbf);
	self = sh == 1 || sh == 2 || (sh == 0 && (dest == 0 || dest == 0xff));
	lo = vec | (mode << 8) | (one_in(4) ? 0x800u : 0) | (one_in(8) ? 0 : ICR_ASSERT) |
	     (one_in(8) ? 0x8000u : 0) | (sh << 18);
	if ((mode == 5 || mode == 7) && (self || (lo & 0x800)))
		lo = (lo & ~0x700u) | (2u << 8);      /* INIT/ExtINT to us -> SMI */
	if (mode == 5 && smp_nr_cpus() > 1 && sh == 3)
		lo = (lo & ~0x700u) | (2u << 8);
	if (mode == 6 && (sh == 3 || dest < 8) && !under_hv)
		lo = (lo & ~0x700u) | (2u << 8);      /* bare: do not start other CPUs */
	if (apic_x2_mode) {
		wrmsr_safe(0x830, ((uint64_t)dest << 32) | lo);
	} else {
		mmio_write32(LAPIC_MMIO + APIC_ICR_HI, dest << 24);
		mmio_write32(LAPIC_MMIO + APIC_ICR_LO, lo);
	}
	note(C_ICR, 0);
	if (one_in(16)) {   /* a self-IPI storm */
		for (int i = 0; i < 64; i++)
			apic_send_ipi(0, ICR_SELF | (0x40 + rnd_below(0x80)));
		ops[C_ICR] += 64;
	}
}

/* --- IOAPIC: random RTEs (never INIT/ExtINT) and register garbage --- */
static void op_ioapic(void)
{
	unsigned pins = ioapic_nr_pins(), reg, pin = rnd_below(pins ? pins : 24);
	uint32_t v = (uint32_t)rnd();
	uintptr_t base = acpi_ioapic_base();

	switch (rnd_below(4)) {
	case 0:
		reg = 0x10 + 2 * pin;
		if (((v >> 8) & 7) == 5 || ((v >> 8) & 7) == 7 || ((v >> 8) & 7) == 3)
			v &= ~0x700u;
		if ((v & 0xff) < 32)
			v |= 0x40;
		ioapic_write(reg, v);
		ioapic_write(reg + 1, (uint32_t)rnd());
		break;
	case 1:
		ioapic_write(rnd_below(0x100), v);      /* ID, version, arbitration, beyond */
		break;
	case 2:
		note(C_IOAPIC, mmio_access(base + (rnd_below(0x100) & ~3u), rnd_below(3) ? 0 : 3,
					   v & 0xff));
		ops[C_IOAPIC]--;
		break;
	default:
		mmio_write32(base + 0x40, v & 0xff);    /* EOI register */
		break;
	}
	note(C_IOAPIC, 0);
	if (one_in(2))
		ioapic_mask(pin);
}

/* LAPIC timer garbage. A periodic timer of a few ticks is clamped by the
 * hypervisor (VLAPIC_MIN_PERIOD, unit-tested), but under Bochs even that rate
 * with emulated EOIs (apicv=off) leaves this guest no time to stop it, so
 * periodic counts here are at least 2^20 ticks. */
static void op_timer(void)
{
	uint32_t lvt = (uint32_t)rnd() & 0x700ff, tdcr = (uint32_t)rnd();
	uint32_t ict = one_in(2) ? 1 + rnd_below(64) : (uint32_t)rnd();

	if ((lvt & 0xff) < 32)
		lvt |= 0x40;
	if (lvt & APIC_TIMER_PERIODIC)
		ict |= 0x100000;   /* periodic: >= 1 ms, see below */
	if (trace)
		con_printf("hostile: timer tdcr 0x%x lvt 0x%x ict 0x%x\n", tdcr, lvt, ict);
	apic_write(APIC_TDCR, tdcr);
	apic_write(APIC_LVT_TIMER, lvt);
	apic_write(APIC_TMICT, ict);
	if (one_in(3))
		wrmsr_safe(MSR_TSC_DEADLINE, one_in(2) ? rdtsc() + rnd_below(100000) : rnd());
	if (trace)
		con_printf("hostile: timer armed, tmcct 0x%x irqs %u\n", apic_read(APIC_TMCCT),
			   irq_counts[lvt & 0xff]);
	note(C_TIMER, 0);
	for (int i = 0; i < 50; i++)
		cpu_pause();
	if (trace)
		con_printf("hostile: timer paused, irqs %u\n", irq_counts[lvt & 0xff]);
	if (!one_in(4))
		apic_timer_stop();
}

/* HLT with IF=0: the IOAPIC routes the PIT to NMI mode, the only thing that
 * can end it (SDM Vol. 2 HLT). Bounded as long as NMIs work. */
static void op_hlt(void)
{
	unsigned gsi = acpi_isa_to_gsi(0);
	uint32_t before = nmis;

	apic_restore();

	/* The PIT at 10 ms first (an earlier op may have left it storming),
	 * then the pin, spared from the storm quench from here to the HLT. */
	outb(0x43, 0x34);
	outb(0x40, 0x9c);       /* 11932: 10 ms */
	outb(0x40, 0x2e);
	hlt_gsi = gsi;
	ioapic_write(0x10 + 2 * gsi + 1, apic_id() << 24);
	ioapic_write(0x10 + 2 * gsi, 4u << 8);
	cli();
	hlt();
	sti();
	hlt_gsi = ~0u;
	ioapic_mask(gsi);
	outb(0x43, 0x30);
	outb(0x40, 0);
	outb(0x40, 0);
	note(C_HLT, nmis == before);
}

/* IA32_APIC_BASE: moves, disable, x2APIC on, illegal transitions. */
static void op_apicbase(void)
{
	uint64_t v;

	switch (rnd_below(5)) {
	case 0: v = apic_base0 & ~(uint64_t)APIC_BASE_EN; break;
	case 1: v = apic_base0 | APIC_BASE_X2; break;
	case 2: v = (apic_base0 & ~(uint64_t)APIC_BASE_EN) | APIC_BASE_X2; break;  /* illegal */
	case 3: v = (apic_base0 & 0xfff) | ((rnd() & 0xffff) << 12); break;        /* move */
	default: v = apic_base0 | (1ull << (12 + rnd_below(52))); break;
	}
	note(C_APICBASE, wrmsr_safe(MSR_APIC_BASE, v));
	(void)read32_safe(LAPIC_MMIO + APIC_VERSION, &(uint32_t){ 0 });
	apic_restore();
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
