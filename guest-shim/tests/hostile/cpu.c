/* The hostile guest's CPU-state ops (see hostile.h): MSRs, hypercalls,
 * control registers that must #GP, XSETBV/XGETBV, TLB flushes, CPUID. */
#include "hostile.h"

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

void op_msr(void)
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


/* --- hypercalls --- */
void op_vmcall(void)
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

void op_cr(void)
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
		f = write_cr0_safe(v);
		if (!f) {
			cr_no_gp++;
			write_cr0_safe(cr0);
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
		f = write_cr4_safe(v);
		if (!f) {
			cr_no_gp++;
			con_printf("hostile: CR4 0x%lx -> 0x%lx did not #GP\n", cr4, v);
			write_cr4_safe(cr4);
		}
	}
	note(C_CR, f);
}

/* --- XSETBV/XGETBV garbage (XSETBV always exits) --- */
void op_xcr(void)
{
	uint32_t c1 = cpuid(1, 0).c;
	unsigned long cr4 = read_cr4();
	uintptr_t fault = 0;
	uint32_t idx = one_in(2) ? 0 : (uint32_t)rnd_below(4) | (one_in(4) ? (uint32_t)rnd() : 0);
	uint32_t lo = (uint32_t)rnd() & (one_in(2) ? 0xff : 0xffffffff), hi = one_in(3) ? (uint32_t)rnd() : 0;

	if ((c1 & (1u << 26)) && one_in(4) == 0)
		write_cr4_safe(cr4 | (1ul << 18));
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
	write_cr4_safe(cr4);
}

void op_tlb(void)
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

void op_cpuid(void)
{
	static const uint32_t base[] = { 0, 0x40000000u, 0x40000100u, 0x80000000u, 0x4b564d00u };
	uint32_t leaf = one_in(4) ? (uint32_t)rnd() : base[rnd_below(ARRAY_SIZE(base))] + rnd_below(0x30);

	(void)cpuid(leaf, one_in(2) ? rnd_below(8) : (uint32_t)rnd());
	note(C_CPUID, 0);
}

