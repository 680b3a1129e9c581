/* The hvfuzz guest's device and interrupt ops (see hvfuzz.h): ports,
 * LAPIC/IOAPIC/hole MMIO, IPIs, NMI storms, IOAPIC RTEs, LAPIC timer, HLT. */
#include "hvfuzz.h"

/* ---------------------------------------------------------------- ports */
static bool port_forbidden(uint16_t p)
{
	/* COM1 (our console), debug exit, keyboard reset, fast A20/reset, PCI
	 * reset, ACPI PM (power off), PIC, APM */
	return (p >= 0x3f8 && p <= 0x3ff) || (p >= 0xf4 && p <= 0xf7) || p == 0x64 ||
	       p == 0x92 || p == 0xcf9 || (p >= 0x600 && p <= 0x63f) || p == 0x20 ||
	       p == 0x21 || p == 0xa0 || p == 0xa1 || p == 0xb2 || p == 0x4d0 || p == 0x4d1;
}

void op_pio(struct fz *f)
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

void op_lapic(struct fz *f)
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

void op_hole(struct fz *f)
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
void op_ipi(struct fz *f)
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

void op_nmi_storm(struct fz *f)
{
	unsigned n = 8 + below(f, 56);

	for (unsigned i = 0; i < n; i++)
		apic_send_ipi(below(f, 2), (4u << 8) | ICR_ASSERT |
			      (one_in(f, 3) ? ICR_SELF : one_in(f, 2) ? ICR_OTHERS : 0));
	note(f, C_NMI, 0);
}

void op_ioapic(struct fz *f)
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

void op_timer(struct fz *f)
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
void op_hlt(struct fz *f)
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

