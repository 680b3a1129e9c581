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
#include "guest.h"
#include "abi.h"

const char test_name[] = "hvfuzz";

enum { C_CALL, C_MSR, C_PIO, C_LAPIC, C_HOLE, C_IPI, C_IOAPIC, C_TIMER, C_CR, C_XCR,
       C_DR, C_NMI, C_CPUID, C_TLB, C_HLT, NR_CAT };
static const char *const cat_name[NR_CAT] = {
	"vmcall", "msr", "pio", "lapic", "hole", "ipi", "ioapic", "timer", "cr", "xsetbv",
	"dr", "nmi-storm", "cpuid", "tlb", "hlt" };
static const uint8_t weight[NR_CAT] = { 10, 10, 8, 8, 5, 5, 4, 3, 3, 2, 3, 1, 2, 2, 1 };

struct fz {
	uint64_t rng;
	unsigned cpu;
	uint32_t ops[NR_CAT], faults[NR_CAT];
	uint32_t cr_no_gp;
	uint8_t scratch[2 * 4096] __attribute__((aligned(4096)));
};
static struct fz fzs[2] __attribute__((aligned(4096)));
static volatile uint32_t nmis, ap_finished, race_arrived, race_go, race_stop;
static bool under_hv;
static unsigned long opt_race;

static uint64_t rnd(struct fz *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return f->rng;
}
static uint32_t below(struct fz *f, uint32_t n) { return (uint32_t)(rnd(f) % n); }
static bool one_in(struct fz *f, uint32_t n) { return below(f, n) == 0; }

static void note(struct fz *f, unsigned cat, int fault)
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
static uint64_t rnd_ptr(struct fz *f)
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

static uint64_t tame_ptr(struct fz *f, uint64_t p)
{
	if (p < boot.ram_top - 4096 && (p < (uintptr_t)f->scratch ||
					p >= (uintptr_t)f->scratch + sizeof(f->scratch)))
		p = (uintptr_t)f->scratch + (p & 0xfff);
	return p;
}

/* ---------------------------------------------------------------- hypercalls */
static void op_call(struct fz *f)
{
	unsigned long nr, a[4];
	long ret;

	switch (below(f, 5)) {
	case 0: nr = HC_BASE + below(f, 0x40); break;
	case 1: nr = below(f, 16); break;               /* KVM_HC_* */
	case 2: nr = (unsigned long)rnd(f); break;
	case 3: nr = HC_BASE + 0x10 + below(f, 8); break;
	default: nr = 0xffffffffu - below(f, 4); break;
	}
	for (int i = 0; i < 4; i++)
		a[i] = (unsigned long)tame_ptr(f, one_in(f, 2) ? rnd_ptr(f) : rnd(f));
	if (nr == HC_TEST_RESULT || nr == HC_SCHED_BLOCK || nr == HC_SCHED_SLEEP)
		nr = HC_SCHED_YIELD;    /* our verdict is not fuzzed; waits need a waker */
	if (nr == HC_SCHED_SA_REGISTER)
		a[0] = 0x40 + (a[0] & 0x7f);   /* an upcall at an error-code vector is ours */
	if (nr == HC_CONSOLE_PUTS && a[0] < boot.ram_top)
		a[1] &= 0x3f;           /* keep the serial log small */
	note(f, C_CALL, vmcall_safe(nr, a[0], a[1], a[2], a[3], &ret));
}

/* ---------------------------------------------------------------- MSRs */
static const uint32_t msr_pool[] = {
	0x10, 0x11, 0x12, 0x1b, 0x3a, 0x3b, 0x48, 0x49, 0x8b, 0x9b, 0xc1, 0xc2, 0xe7, 0xe8,
	0xfe, 0x10a, 0x122, 0x174, 0x175, 0x176, 0x179, 0x17a, 0x186, 0x187, 0x1a0, 0x1d9,
	0x200, 0x201, 0x277, 0x2ff, 0x309, 0x38d, 0x38f, 0x390, 0x480, 0x48d, 0x491, 0x4c1,
	0x600, 0x6e0, 0x802, 0x808, 0x80b, 0x830, 0x838, 0x8ff, 0xd90, 0xda0,
	0x4b564d00, 0x4b564d01, 0x4b564d02, 0x4b564d03, 0x4b564d04, 0x4b564d05,
	0x40000000, 0x40000001, 0x40000020, 0x40000073, 0xc0000080, 0xc0000081,
	0xc0000084, 0xc0000103, 0xc0010000, 0xc0011029, 0xffffffff,
};

static bool msr_read_only(uint32_t m)
{
	/* APIC base, x2APIC, TSC, TSC_ADJUST, deadline: their own ops; EFER,
	 * FS/GS bases and SYSENTER: this guest's own state */
	return m == 0x1b || (m >= 0x800 && m <= 0x8ff) || m == 0x10 || m == 0x3b ||
	       m == 0x6e0 || m == 0xc0000080 || (m >= 0xc0000100 && m <= 0xc0000102) ||
	       (m >= 0x174 && m <= 0x176);
}

static void op_msr(struct fz *f)
{
	uint32_t m;
	uint64_t old = 0, v;
	int rf, wf;

	switch (below(f, 6)) {
	case 0: m = (uint32_t)rnd(f); break;
	case 1: m = below(f, 0x2000); break;
	case 2: m = 0xc0000000u + below(f, 0x2000); break;
	case 3: m = 0x40000000u + below(f, 0x200); break;
	case 4: m = 0x4b564d00u + below(f, 0x20); break;
	default: m = msr_pool[below(f, ARRAY_SIZE(msr_pool))]; break;
	}
	rf = rdmsr_safe(m, &old);
	if (msr_read_only(m)) {
		note(f, C_MSR, rf);
		return;
	}
	switch (below(f, 5)) {
	case 0: v = old ^ (1ull << below(f, 64)); break;
	case 1: v = rnd(f); break;
	case 2: v = rnd_ptr(f) | 1; break;          /* enable bit + pointer: PV MSRs */
	case 3: v = 0; break;
	default: v = ~0ull; break;
	}
	/* PV areas (steal time, kvmclock, PV EOI, Hyper-V pages) get written by
	 * the hypervisor: only ever into scratch. */
	if ((v & ~0xfffull) < boot.ram_top)
		v = (uintptr_t)f->scratch + 4096 + (v & 0x7);
	wf = wrmsr_safe(m, v);
	note(f, C_MSR, wf);
	if (!wf)
		wrmsr_safe(m, rf ? 0 : old);
}

/* ---------------------------------------------------------------- ports */
static bool port_forbidden(uint16_t p)
{
	/* COM1 (our console), debug exit, keyboard reset, fast A20/reset, PCI
	 * reset, ACPI PM (power off), PIC, APM */
	return (p >= 0x3f8 && p <= 0x3ff) || (p >= 0xf4 && p <= 0xf7) || p == 0x64 ||
	       p == 0x92 || p == 0xcf9 || (p >= 0x600 && p <= 0x63f) || p == 0x20 ||
	       p == 0x21 || p == 0xa0 || p == 0xa1 || p == 0xb2 || p == 0x4d0 || p == 0x4d1;
}

static void op_pio(struct fz *f)
{
	static const uint16_t pool[] = { 0x40, 0x41, 0x42, 0x43, 0x61, 0x70, 0x71, 0x80,
					 0x2e8, 0x3e8, 0x2f8, 0x510, 0x511, 0xcf8, 0xcfc, 0x1f0 };
	uint16_t p;
	uint32_t v = (uint32_t)rnd(f);
	uintptr_t fault = 0;

	do
		p = one_in(f, 2) ? pool[below(f, ARRAY_SIZE(pool))] : (uint16_t)rnd(f);
	while (port_forbidden(p));
	switch (below(f, 7)) {
	case 0: outb(p, (uint8_t)v); break;
	case 1: outw(p, (uint16_t)v); break;
	case 2: outl(p, v); break;
	case 3: (void)inb(p); break;
	case 4: (void)inw(p); break;
	case 5: (void)inl(p); break;
	default: {   /* string I/O on a buffer that may cross into a hole */
		uint64_t p64 = tame_ptr(f, rnd_ptr(f));
		uintptr_t b, n = 1 + below(f, 16);

		if (p64 >= 0x100000000ull || p64 < boot.ram_top)
			p64 = (uintptr_t)f->scratch + 4096 - below(f, 8);
		b = (uintptr_t)p64;
		if (one_in(f, 2))
			__asm__ volatile("1: rep insb\n2:\n\t" EX_ENTRY(1b, 2b)
					 : "+D"(b), "+c"(n) : "d"(p) : "memory");
		else
			__asm__ volatile("1: rep outsb\n2:\n\t" EX_ENTRY(1b, 2b)
					 : "+S"(b), "+c"(n), "+D"(fault) : "d"(p) : "memory");
		break;
	}
	}
	note(f, C_PIO, (int)fault);
}

/* ---------------------------------------------------------------- MMIO */
static int mmio_store32(uintptr_t a, uint32_t v)
{
	uintptr_t fault = 0;
	__asm__ volatile("1: movl %1, (%2)\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+D"(fault) : "r"(v), "r"(a) : "memory");
	return (int)fault;
}
static int mmio_store8(uintptr_t a, uint8_t v)
{
	uintptr_t fault = 0;
	__asm__ volatile("1: movb %b1, (%2)\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+D"(fault) : "q"(v), "r"(a) : "memory");
	return (int)fault;
}

/* An LVT, SVR or ICR value this guest survives: no INIT/ExtINT, no vector
 * below 32. */
static uint32_t tame_lvt(uint32_t v)
{
	if (((v >> 8) & 7) == 5 || ((v >> 8) & 7) == 7)
		v &= ~0x700u;
	if ((v & 0xff) < 32)
		v |= 0x40;
	return v;
}

static void op_lapic(struct fz *f)
{
	unsigned off = below(f, 0x1000);
	uint32_t v = (uint32_t)rnd(f), r;
	int fault;

	if (!one_in(f, 4))
		off &= ~0xfu;
	if ((off & ~0xfu) == APIC_ICR_LO || (off & ~0xfu) == APIC_ICR_HI ||
	    (off & ~0xfu) == APIC_SVR || (off & ~0xfu) == 0x20)
		off = APIC_VERSION;     /* op_ipi owns the ICR; the ID stays */
	switch (below(f, 3)) {
	case 0: fault = read32_safe(0xfee00000u + off, &r); break;
	case 1: fault = mmio_store32(0xfee00000u + off, tame_lvt(v)); break;
	default: fault = mmio_store8(0xfee00000u + off, (uint8_t)v); break;
	}
	note(f, C_LAPIC, fault);
	if (one_in(f, 4)) {
		apic_init();
		apic_write(APIC_ESR, 0);
	}
}

static void op_hole(struct fz *f)
{
	static const uint32_t base[] = { 0xc0000000u, 0xd0000000u, 0xe0000000u, 0xfe000000u,
					 0xfed00000u, 0xfee01000u, 0xfff00000u };
	uintptr_t a = base[below(f, ARRAY_SIZE(base))] + (below(f, 0x100000) & ~3u);
	uint32_t v;
	int fault;

	if (a < boot.ram_top)
		a = (uintptr_t)boot.ram_top + (a & 0xfffff);
	if (a >= 0xfec00000u && a < 0xfec01000u)
		a += 0x1000;
	fault = one_in(f, 2) ? read32_safe(a, &v) : mmio_store32(a, (uint32_t)rnd(f));
	note(f, C_HOLE, fault);
}

/* ---------------------------------------------------------------- interrupts */
static void op_ipi(struct fz *f)
{
	uint32_t mode = below(f, 8), sh = below(f, 4), vec = 0x40 + below(f, 0xbf);
	uint32_t dest = one_in(f, 2) ? below(f, 3) : (uint32_t)rnd(f) & 0xff, lo;

	if (mode == 5 || mode == 7 || mode == 6 || mode == 3)
		mode = one_in(f, 2) ? 4 : 0;     /* INIT/SIPI belong to the final storm */
	lo = vec | (mode << 8) | (one_in(f, 4) ? 0x800u : 0) | ICR_ASSERT |
	     (one_in(f, 8) ? 0x8000u : 0) | (sh << 18);
	apic_send_ipi(dest, lo);
	note(f, C_IPI, 0);
}

static void op_nmi_storm(struct fz *f)
{
	unsigned n = 8 + below(f, 56);

	for (unsigned i = 0; i < n; i++)
		apic_send_ipi(below(f, 2), (4u << 8) | ICR_ASSERT |
			      (one_in(f, 3) ? ICR_SELF : one_in(f, 2) ? ICR_OTHERS : 0));
	note(f, C_NMI, 0);
}

static void op_ioapic(struct fz *f)
{
	unsigned pins = ioapic_nr_pins(), pin = below(f, pins ? pins : 24);
	uint32_t v = (uint32_t)rnd(f), r;

	switch (below(f, 4)) {
	case 0:
		v = tame_lvt(v);
		if (((v >> 8) & 7) == 3 || ((v >> 8) & 7) == 2)
			v &= ~0x700u;            /* no SMI */
		ioapic_write(0x10 + 2 * pin, v | (one_in(f, 2) ? 0x10000u : 0));
		ioapic_write(0x11 + 2 * pin, (uint32_t)rnd(f));
		break;
	case 1: ioapic_write(below(f, 0x100), v); break;
	case 2: (void)read32_safe(0xfec00000u + (below(f, 0x1000) & ~3u), &r); break;
	default: mmio_store32(0xfec00040u, v & 0xff); break;   /* EOI register */
	}
	note(f, C_IOAPIC, 0);
	if (one_in(f, 2))
		ioapic_mask(pin);
}

static void op_timer(struct fz *f)
{
	uint32_t lvt = tame_lvt((uint32_t)rnd(f) & 0x700ff), ict;

	lvt &= ~0x700u;
	ict = one_in(f, 2) ? 1 + below(f, 64) : (uint32_t)rnd(f);
	if (lvt & APIC_TIMER_PERIODIC)
		ict |= 0x100000;   /* periodic: no interrupt storm the guest cannot stop */
	apic_write(APIC_TDCR, (uint32_t)rnd(f));
	apic_write(APIC_LVT_TIMER, lvt);
	apic_write(APIC_TMICT, ict);
	if (one_in(f, 3))
		wrmsr_safe(MSR_TSC_DEADLINE, one_in(f, 2) ? rdtsc() + below(f, 100000) : rnd(f));
	for (int i = 0; i < 20; i++)
		cpu_pause();
	if (!one_in(f, 4))
		apic_timer_stop();
	note(f, C_TIMER, 0);
}

/* HLT woken by a one-shot LAPIC timer armed with interrupts off (sti; hlt
 * takes it whenever it fires): a lost timer hangs here, which the runner
 * reports as a timeout. */
static void op_hlt(struct fz *f)
{
	uint32_t before = irq_counts[0x41];

	cli();
	apic_init();       /* SVR on, TPR 0: op_lapic may have changed either */
	apic_write(APIC_TDCR, 0xb);
	apic_write(APIC_LVT_TIMER, 0x41);
	apic_write(APIC_TMICT, 1000 + below(f, 100000));
	while (irq_counts[0x41] == before)
		sti_hlt(), cli();
	sti();
	note(f, C_HLT, 0);
}

/* ---------------------------------------------------------------- CR, XCR, DR */
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

static void op_cr(struct fz *f)
{
	unsigned long cr0 = read_cr0(), cr4 = read_cr4(), v;
	int fault;

	if (one_in(f, 2)) {
		v = below(f, 2) ? (cr0 | (1ul << 29)) & ~(1ul << 30) : (cr0 | (1ul << 31)) & ~1ul;
#ifdef __x86_64__
		if (one_in(f, 3))
			v = cr0 | (1ul << (32 + below(f, 32)));
#endif
		fault = write_cr0(v);
		if (!fault) {
			f->cr_no_gp++;
			write_cr0(cr0);
		}
	} else {
		static const unsigned bad[] = { 15, 19, 24, 25, 26, 27, 28, 29, 30, 31 };

		v = cr4 | (1ul << bad[below(f, ARRAY_SIZE(bad))]);
#ifdef __x86_64__
		if (one_in(f, 3))
			v = cr4 | (1ul << (32 + below(f, 32)));
		if (one_in(f, 4))
			v = cr4 & ~(1ul << 5);       /* PAE off in long mode */
#endif
		fault = write_cr4(v);
		if (!fault) {
			f->cr_no_gp++;
			con_printf("hvfuzz: cpu%u CR4 0x%lx -> 0x%lx did not #GP\n", f->cpu, cr4, v);
			write_cr4(cr4);
		}
	}
	note(f, C_CR, fault);
}

static void op_xcr(struct fz *f)
{
	uintptr_t fault = 0;
	uint32_t idx = one_in(f, 2) ? 0 : (uint32_t)rnd(f) & (one_in(f, 2) ? 3 : ~0u);
	uint32_t lo = (uint32_t)rnd(f) & (one_in(f, 2) ? 0xff : ~0u);
	uint32_t hi = one_in(f, 3) ? (uint32_t)rnd(f) : 0;
	unsigned long cr4 = read_cr4();

	if ((cpuid(1, 0).c & (1u << 26)) && !(cr4 & (1ul << 18)))
		write_cr4(cr4 | (1ul << 18));
	__asm__ volatile("1: xsetbv\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+D"(fault) : "c"(idx), "a"(lo), "d"(hi) : "memory");
	note(f, C_XCR, (int)fault);
	if (read_cr4() & (1ul << 18)) {
		uintptr_t f2 = 0;
		__asm__ volatile("1: xsetbv\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+D"(f2) : "c"(0), "a"(1), "d"(0) : "memory");
	}
	write_cr4(cr4);
}

/* Debug registers: random addresses, DR6 and DR7 with reserved bits (#GP in
 * 64-bit mode), but no breakpoint ever enabled (L/G bits clear). */
static void op_dr(struct fz *f)
{
	unsigned long v = (unsigned long)rnd(f), old;
	uintptr_t fault = 0;

	switch (below(f, 4)) {
	case 0:
		__asm__ volatile("mov %%dr0, %0" : "=r"(old));
		__asm__ volatile("1: mov %1, %%dr0\n2:\n\t" EX_ENTRY(1b, 2b) : "+D"(fault) : "r"(v));
		__asm__ volatile("mov %0, %%dr0" :: "r"(old));
		break;
	case 1:
		__asm__ volatile("1: mov %1, %%dr3\n2:\n\t" EX_ENTRY(1b, 2b) : "+D"(fault) : "r"(v));
		break;
	case 2:
		__asm__ volatile("1: mov %1, %%dr6\n2:\n\t" EX_ENTRY(1b, 2b) : "+D"(fault) : "r"(v));
		break;
	default:
		v &= ~0xfful;
		__asm__ volatile("1: mov %1, %%dr7\n2:\n\t" EX_ENTRY(1b, 2b) : "+D"(fault) : "r"(v));
		__asm__ volatile("mov %0, %%dr7" :: "r"(0x400ul));
		break;
	}
	__asm__ volatile("1: mov %%dr7, %1\n2:\n\t" EX_ENTRY(1b, 2b) : "+D"(fault), "=r"(old));
	note(f, C_DR, (int)fault);
}

static void op_cpuid(struct fz *f)
{
	static const uint32_t base[] = { 0, 0x40000000u, 0x40000100u, 0x80000000u, 0x4b564d00u };
	uint32_t leaf = one_in(f, 4) ? (uint32_t)rnd(f) : base[below(f, ARRAY_SIZE(base))] +
			below(f, 0x30);

	(void)cpuid(leaf, one_in(f, 2) ? below(f, 8) : (uint32_t)rnd(f));
	note(f, C_CPUID, 0);
}

static void op_tlb(struct fz *f)
{
	uintptr_t fault = 0, a = (uintptr_t)rnd_ptr(f);

	if (one_in(f, 2)) {
		__asm__ volatile("1: invlpg (%1)\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+D"(fault) : "r"(a) : "memory");
	} else {
		struct { uint64_t pcid, addr; } __attribute__((aligned(16))) d = { rnd(f) & 0xffff, rnd(f) };
		unsigned long type = one_in(f, 2) ? below(f, 4) : (unsigned long)rnd(f);
		__asm__ volatile("1: invpcid %1, %2\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+D"(fault) : "m"(d), "r"(type) : "memory");
	}
	note(f, C_TLB, (int)fault);
}

static void (*const op_fn[NR_CAT])(struct fz *) = {
	op_call, op_msr, op_pio, op_lapic, op_hole, op_ipi, op_ioapic, op_timer, op_cr, op_xcr,
	op_dr, op_nmi_storm, op_cpuid, op_tlb, op_hlt };

/* ---------------------------------------------------------------- page-table race */
#ifdef __x86_64__
/* Issue 10's race: vCPU 0 runs `mov eax,[rbx]; ret` (rbx in a hole: an MMIO
 * exit every time) at offset 0xC00 of an aliased page and an instruction
 * split across two aliased pages, while vCPU 1 flips the present bit of those
 * pages' PTEs. The hypervisor's instruction fetch must see either mapping
 * and never write past its buffer; the guest sees at most a #PF. */
#define RACE_VA_S "0x140000000"                /* 5 GiB, PDPT[5]: unused by the library */
#define RACE_VA   0x140000000ull
static uint8_t race_page[2][4096] __attribute__((aligned(4096)));
static uint64_t race_pd[512] __attribute__((aligned(4096)));
static uint64_t race_pt[512] __attribute__((aligned(4096)));
static uint32_t race_pf, race_calls;

static bool race_setup(void)
{
	uint64_t cr3, *pml4, *pdpt;

	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	pml4 = (uint64_t *)(uintptr_t)(cr3 & ~0xfffull);

	pdpt = (uint64_t *)(uintptr_t)(pml4[0] & 0x000ffffffffff000ull);
	if (pdpt[5] & 1)
		return false;
	memset(race_page, 0x41, sizeof(race_page));
	race_page[0][0xc00] = 0x8b;                   /* mov eax, [rbx] */
	race_page[0][0xc01] = 0x03;
	race_page[0][0xc02] = 0xc3;                   /* ret */
	race_page[0][0xfff] = 0x8b;                   /* the same, split at the page end */
	race_page[1][0x000] = 0x03;
	race_page[1][0x001] = 0xc3;
	race_pt[0] = (uintptr_t)race_page[0] | 3;
	race_pt[1] = (uintptr_t)race_page[1] | 3;
	race_pd[0] = (uintptr_t)race_pt | 3;
	pdpt[5] = (uintptr_t)race_pd | 3;
	return true;
}

static void race_call(uint64_t target, uint64_t hole)
{
	uintptr_t fault = 0;
	uint64_t ax = 0;

	__asm__ volatile("call *%[t]\n\t"
			 "jmp 2f\n"
			 "1: add $8, %%rsp\n"
			 "2:\n\t"
			 ".pushsection ex_table, \"a\"\n\t"
			 ".quad " RACE_VA_S " + 0xc00, 1b\n\t.quad " RACE_VA_S " + 0xc02, 1b\n\t"
			 ".quad " RACE_VA_S " + 0xfff, 1b\n\t.quad " RACE_VA_S " + 0x1001, 1b\n\t"
			 ".popsection"
			 : "+D"(fault), "+b"(hole), "+a"(ax)
			 : [t] "r"(target)
			 : "memory", "cc");
	race_calls++;
	if (fault)
		race_pf++;
}

static void race_run(struct fz *f)
{
	if (f->cpu == 0) {
		while (!race_go)
			cpu_pause();
		for (unsigned long i = 0; i < opt_race; i++)
			race_call(RACE_VA + (one_in(f, 2) ? 0xc00 : 0xfff),
				  0xd0000000u + (below(f, 0x1000) & ~3u));
		race_stop = 1;
	} else {
		race_go = 1;
		while (!race_stop) {
			unsigned i = below(f, 2);

			__atomic_xor_fetch(&race_pt[i], 1ull, __ATOMIC_SEQ_CST);
			__asm__ volatile("invlpg (%0)" :: "r"(RACE_VA + 4096 * i) : "memory");
		}
		race_pt[0] |= 1;
		race_pt[1] |= 1;
	}
}
#endif

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
