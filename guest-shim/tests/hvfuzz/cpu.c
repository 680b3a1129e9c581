/* The hvfuzz guest's CPU-state ops (see hvfuzz.h): hypercalls, MSRs,
 * CR/XCR/DR writes, CPUID, TLB flushes. */
#include "hvfuzz.h"

/* ---------------------------------------------------------------- hypercalls */
void op_call(struct fz *f)
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

void op_msr(struct fz *f)
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


/* ---------------------------------------------------------------- CR, XCR, DR */

void op_cr(struct fz *f)
{
	unsigned long cr0 = read_cr0(), cr4 = read_cr4(), v;
	int fault;

	if (one_in(f, 2)) {
		v = below(f, 2) ? (cr0 | (1ul << 29)) & ~(1ul << 30) : (cr0 | (1ul << 31)) & ~1ul;
#ifdef __x86_64__
		if (one_in(f, 3))
			v = cr0 | (1ul << (32 + below(f, 32)));
#endif
		fault = write_cr0_safe(v);
		if (!fault) {
			f->cr_no_gp++;
			write_cr0_safe(cr0);
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
		fault = write_cr4_safe(v);
		if (!fault) {
			f->cr_no_gp++;
			con_printf("hvfuzz: cpu%u CR4 0x%lx -> 0x%lx did not #GP\n", f->cpu, cr4, v);
			write_cr4_safe(cr4);
		}
	}
	note(f, C_CR, fault);
}

void op_xcr(struct fz *f)
{
	uintptr_t fault = 0;
	uint32_t idx = one_in(f, 2) ? 0 : (uint32_t)rnd(f) & (one_in(f, 2) ? 3 : ~0u);
	uint32_t lo = (uint32_t)rnd(f) & (one_in(f, 2) ? 0xff : ~0u);
	uint32_t hi = one_in(f, 3) ? (uint32_t)rnd(f) : 0;
	unsigned long cr4 = read_cr4();

	if ((cpuid(1, 0).c & (1u << 26)) && !(cr4 & (1ul << 18)))
		write_cr4_safe(cr4 | (1ul << 18));
	__asm__ volatile("1: xsetbv\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+D"(fault) : "c"(idx), "a"(lo), "d"(hi) : "memory");
	note(f, C_XCR, (int)fault);
	if (read_cr4() & (1ul << 18)) {
		uintptr_t f2 = 0;
		__asm__ volatile("1: xsetbv\n2:\n\t" EX_ENTRY(1b, 2b)
				 : "+D"(f2) : "c"(0), "a"(1), "d"(0) : "memory");
	}
	write_cr4_safe(cr4);
}

/* Debug registers: random addresses, DR6 and DR7 with reserved bits (#GP in
 * 64-bit mode), but no breakpoint ever enabled (L/G bits clear). */
void op_dr(struct fz *f)
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

void op_cpuid(struct fz *f)
{
	static const uint32_t base[] = { 0, 0x40000000u, 0x40000100u, 0x80000000u, 0x4b564d00u };
	uint32_t leaf = one_in(f, 4) ? (uint32_t)rnd(f) : base[below(f, ARRAY_SIZE(base))] +
			below(f, 0x30);

	(void)cpuid(leaf, one_in(f, 2) ? below(f, 8) : (uint32_t)rnd(f));
	note(f, C_CPUID, 0);
}

void op_tlb(struct fz *f)
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

