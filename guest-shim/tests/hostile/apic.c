/* The hostile guest's interrupt ops (see hostile.h): IPIs, IOAPIC RTEs,
 * LAPIC timer garbage, HLT with IF=0, IA32_APIC_BASE. */
#include "hostile.h"

/* --- IPIs: every delivery mode and shorthand, never INIT to ourselves --- */
void op_icr(void)
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
void op_ioapic(void)
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
void op_timer(void)
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
void op_hlt(void)
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
void op_apicbase(void)
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

