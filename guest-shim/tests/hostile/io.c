/* The hostile guest's access ops (see hostile.h): port I/O, string I/O,
 * MMIO to the LAPIC/IOAPIC pages and to holes. */
#include "hostile.h"

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

void op_pio(void)
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
void op_str(void)
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

int mmio_access(uintptr_t a, unsigned kind, uint32_t v)
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

void op_apic_mmio(void)
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

void op_hole(void)
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

