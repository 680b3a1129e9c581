/* Extended state across vCPU switches (issue 15): two VMs run this image on
 * one pCPU, so the hypervisor switches between them many times a second and
 * saves and restores each vCPU's x87/SSE/AVX/AVX-512 state (hv/vmx/fpu.c).
 * The guest loads a pattern that depends on seed= into every register of the
 * components it enables (XRSTOR of a built image), then repeatedly spins on
 * general registers only (being preempted meanwhile), saves its state with
 * its own XSAVE and compares it with the pattern (SDM vol. 1 ch. 13: the
 * standard format, offsets from CPUID leaf 0xD). Also checks CR2 and the
 * SYSCALL/KERNEL_GS_BASE MSRs the switch carries, written once at start. */
#include "guest.h"
#include "x86.h"

const char test_name[] = "fpuswitch";

#define XCR0_X87    (1ull << 0)
#define XCR0_SSE    (1ull << 1)
#define XCR0_AVX    (1ull << 2)
#define XCR0_OPMASK (1ull << 5)
#define XCR0_ZMMHI  (1ull << 6)
#define XCR0_HI16   (1ull << 7)
#define CR4_OSFXSR_BIT  (1ul << 9)
#define CR4_OSXSAVE_BIT (1ul << 18)
#define MSR_LSTAR_      0xc0000082u
#define MSR_KGSBASE_    0xc0000102u

static uint8_t want[8192] __attribute__((aligned(64)));
static uint8_t got[8192] __attribute__((aligned(64)));

static void xsetbv0(uint64_t v)
{
	__asm__ volatile("xsetbv" : : "c"(0), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static void xsave(void *p, uint64_t m)
{
	__asm__ volatile("xsave64 (%0)" : : "r"(p), "a"((uint32_t)m), "d"((uint32_t)(m >> 32))
			 : "memory");
}

static void xrstor(const void *p, uint64_t m)
{
	__asm__ volatile("xrstor64 (%0)" : : "r"(p), "a"((uint32_t)m), "d"((uint32_t)(m >> 32))
			 : "memory");
}

static void xsavec(void *p, uint64_t m)
{
	__asm__ volatile("xsavec64 (%0)" : : "r"(p), "a"((uint32_t)m), "d"((uint32_t)(m >> 32))
			 : "memory");
}

static uint8_t pat(unsigned long seed, unsigned off)
{
	uint32_t x = (uint32_t)(off * 2654435761u) ^ (uint32_t)(seed * 40503u);

	return (uint8_t)(x >> 13 | 1);   /* never 0: a lost register reads 0 */
}

/* A region [off, off+len) of the standard-format image, pattern-filled. */
struct region { const char *name; unsigned off, len, comp; };

void test_main(void)
{
	unsigned long seed = boot_arg_num("seed", 1), ms = boot_arg_num("ms", 1500);
	struct cpuid_regs d0 = cpuid(0xd, 0), l1 = cpuid(1, 0);
	uint64_t mask, bad_mask = 0;
	struct region rg[8];
	unsigned nrg = 0, rounds = 0, bad = 0, first_bad = 0, first_off = 0;
	uint64_t end, cr2_want = 0xffff800000001000ull + seed * 0x1000, cr2_got;
	uint64_t lstar_want = 0xffffffff81000000ull + seed * 0x40, kgs_want = 0x1000 + seed;

	if (!(l1.c & (1u << 26))) {
		test_check("xsave", false, "no XSAVE in CPUID.1:ECX");
		return;
	}
	mask = (((uint64_t)d0.d << 32) | d0.a) & (XCR0_X87 | XCR0_SSE | XCR0_AVX | XCR0_OPMASK |
						  XCR0_ZMMHI | XCR0_HI16);
	if ((mask & (XCR0_OPMASK | XCR0_ZMMHI | XCR0_HI16)) != (XCR0_OPMASK | XCR0_ZMMHI | XCR0_HI16))
		mask &= ~(XCR0_OPMASK | XCR0_ZMMHI | XCR0_HI16);
	__asm__ volatile("mov %0, %%cr4" : : "r"(read_cr4() | CR4_OSFXSR_BIT | CR4_OSXSAVE_BIT));
	xsetbv0(mask);

	/* XSAVEC, when CPUID offers it (leaf 0xD sub-leaf 1 EAX[1]), must write
	 * the compacted format XRSTOR reads (SDM vol. 1 §13.4.3): with RFBM =
	 * x87|SSE|AVX the AVX component at byte 576. Bochs 2.7's puts it at 416,
	 * and a Linux guest that saves its tasks with XSAVEC loses vector
	 * registers (the two-VM segfault, docs/sched.md): the hypervisor hides
	 * XSAVEC on such a CPU (vmx/fpu.c xsavec_selftest()). */
	if (cpuid(0xd, 1).a & 2 && mask & XCR0_AVX) {
		uint64_t m = XCR0_X87 | XCR0_SSE | XCR0_AVX;
		bool ok;

		for (unsigned i = 0; i < 1024; i++)
			want[i] = got[i] = 0;
		for (unsigned i = 576; i < 832; i++)
			want[i] = pat(seed, i);
		*(uint16_t *)&want[0] = 0x37f;
		*(uint32_t *)&want[24] = 0x1f80;
		*(uint64_t *)&want[512] = XCR0_AVX;
		xrstor(want, m);
		xsavec(got, m);
		ok = *(uint64_t *)&got[512] & XCR0_AVX;
		for (unsigned i = 576; ok && i < 832; i++)
			ok = got[i] == want[i];
		test_check("xsavec_layout", ok, "XSAVEC offered: AVX component %s byte 576",
			   ok ? "at" : "not at");
	} else {
		test_check("xsavec_layout", true, "XSAVEC not offered");
	}

	/* x87 registers ST0-7 (10 bytes each), the XMM registers, then each
	 * extended component at its CPUID offset. */
	rg[nrg++] = (struct region){ "x87", 32, 128, 0 };
	rg[nrg++] = (struct region){ "sse", 160, 256, 1 };
	for (unsigned c = 2; c < 8; c++) {
		struct cpuid_regs s;

		if (!(mask >> c & 1))
			continue;
		s = cpuid(0xd, c);
		rg[nrg++] = (struct region){ c == 2 ? "avx" : c == 5 ? "opmask" :
					     c == 6 ? "zmm_hi256" : "hi16_zmm", s.b, s.a, c };
	}
	__asm__ volatile("mov %0, %%cr2" : : "r"(cr2_want));
	wrmsr(MSR_LSTAR_, lstar_want);
	wrmsr(MSR_KGSBASE_, kgs_want);

	end = tsc_after_ms(ms);
	while (!tsc_passed(end)) {
		/* A new pattern each round, and a varying set of the AVX and
		 * AVX-512 components put in their init state (XSTATE_BV bit 0 at
		 * XRSTOR: registers zero), as vzeroupper and the guest kernel's
		 * own XRSTORs do. */
		uint64_t init = (rounds * 0x9e3779b97f4a7c15ull >> 59) & 0x1e & ~1ull;
		uint64_t t;

		init = (init & 2 ? XCR0_AVX : 0) | (init & 4 ? XCR0_OPMASK : 0) |
		       (init & 8 ? XCR0_ZMMHI : 0) | (init & 16 ? XCR0_HI16 : 0);
		init &= mask;
		for (unsigned i = 0; i < sizeof(want); i++)
			want[i] = 0;
		for (unsigned r = 0; r < nrg; r++)
			for (unsigned o = rg[r].off; o < rg[r].off + rg[r].len; o++)
				want[o] = pat(seed * 7919 + rounds, o);
		*(uint16_t *)&want[0] = 0x37f;             /* FCW */
		*(uint16_t *)&want[2] = 0;                 /* FSW */
		want[4] = 0xff;                            /* every ST register valid */
		*(uint32_t *)&want[24] = 0x1f80;           /* MXCSR */
		*(uint64_t *)&want[512] = mask & ~init;    /* XSTATE_BV */
		xrstor(want, mask);

		t = tsc_after_ms(2);
		while (!tsc_passed(t))   /* general registers only: preempted here */
			cpu_pause();
		for (unsigned i = 0; i < sizeof(got); i++)
			got[i] = 0;
		xsave(got, mask);
		rounds++;
		for (unsigned r = 0; r < nrg; r++) {
			unsigned c = rg[r].comp;
			bool is_init = init >> c & 1;
			for (unsigned o = rg[r].off; o < rg[r].off + rg[r].len; o++) {
				uint8_t w = is_init ? 0 : want[o];

				if (rg[r].off == 32 && (o - 32) % 16 >= 10)
					continue;   /* reserved bytes of an ST slot */
				if (is_init && !(*(uint64_t *)&got[512] >> c & 1))
					break;      /* reported in its init state: fine */
				if (got[o] != w) {
					if (!bad++) {
						first_bad = r;
						first_off = o;
					}
					bad_mask |= 1ull << r;
					break;
				}
			}
		}
		__asm__ volatile("mov %%cr2, %0" : "=r"(cr2_got));
		if (cr2_got != cr2_want || rdmsr(MSR_LSTAR_) != lstar_want ||
		    rdmsr(MSR_KGSBASE_) != kgs_want) {
			if (!bad++)
				first_bad = 99;
		}
	}
	test_check("state_kept", rounds > 10 && !bad,
		   "seed %lu, XCR0 0x%llx, %u rounds of 2 ms, %u bad (first: %s at byte %u, "
		   "region mask 0x%llx)", seed, (unsigned long long)mask, rounds, bad,
		   first_bad == 99 ? "cr2/msr" : bad ? rg[first_bad].name : "-", first_off,
		   (unsigned long long)bad_mask);
}
