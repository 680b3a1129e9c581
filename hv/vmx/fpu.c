/* Extended-state switch with XSAVE/XRSTOR (SDM vol. 1 ch. 13), falling back to
 * FXSAVE/FXRSTOR on CPUs without XSAVE. */
#include "vmx/fpu.h"
#include "vmx/xcr0.h"
#include "memory.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "cpu.h"
#include "arch/x86/msr.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

static bool have_xsave, have_rdtscp;
static bool xsavec_ok;   /* CPUID offers XSAVEC and it writes the SDM's layout */
static uint64_t xcr0_supported;

static void xsetbv(uint32_t idx, uint64_t v)
{
	__asm__ volatile("xsetbv" : : "c"(idx), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static uint8_t st_std[1024] __attribute__((aligned(64)));
static uint8_t st_cmp[1024] __attribute__((aligned(64)));
static uint8_t st_ymm[256];

/* Does XSAVEC write the compacted format where the SDM (vol. 1 §13.4.3,
 * §13.10) and XRSTOR put it? Load a pattern into the YMM upper halves with a
 * standard-format XRSTOR (SDM §13.8; right in Bochs too), XSAVEC it and look
 * for the pattern at byte 576 (xsavec_layout_ok()). Bochs 2.7 fails: its
 * guests must not be offered XSAVEC (cpuid_filter.c), or a Linux guest
 * (5.19+ uses XSAVEC for its context switches when XSAVES is hidden) loses
 * vector registers at every task switch that saves them. Boot CPU only,
 * before any guest: the registers it dirties are put back in their init
 * state. */
static bool xsavec_selftest(void)
{
	struct cpuid_regs r;
	uint64_t m = XCR0_X87 | XCR0_SSE | XCR0_AVX;
	bool ok;

	cpuid_count(0xd, 1, &r);
	if (!(r.eax & BIT(1)) || (xcr0_supported & m) != m)
		return false;   /* no XSAVEC, or no AVX to see a layout by */
	for (unsigned i = 0; i < 256; i++)
		st_ymm[i] = (uint8_t)(0x5a ^ (i * 7) ^ (i >> 3)) | 1;
	memset(st_std, 0, sizeof(st_std));
	memset(st_cmp, 0, sizeof(st_cmp));
	*(uint16_t *)st_std = 0x37f;                 /* FCW */
	*(uint32_t *)(st_std + 24) = 0x1f80;         /* MXCSR */
	memcpy(st_std + 576, st_ymm, sizeof(st_ymm)); /* standard format: AVX at 576 */
	*(uint64_t *)(st_std + 512) = XCR0_AVX;      /* XSTATE_BV: x87, SSE init */
	xsetbv(0, m);
	__asm__ volatile("xrstor64 (%0)" : : "r"(st_std), "a"((uint32_t)m), "d"(0) : "memory");
	__asm__ volatile("xsavec64 (%0)" : : "r"(st_cmp), "a"((uint32_t)m), "d"(0) : "memory");
	*(uint64_t *)(st_std + 512) = 0;             /* all three back to init */
	__asm__ volatile("xrstor64 (%0)" : : "r"(st_std), "a"((uint32_t)m), "d"(0) : "memory");
	ok = xsavec_layout_ok(st_cmp, st_ymm);
	if (!ok) {
		int at = -1;   /* where the AVX data went (Bochs 2.7: 416) */

		for (unsigned o = 0; at < 0 && o + 16 <= sizeof(st_cmp); o += 16)
			if (!memcmp(st_cmp + o, st_ymm, 16))
				at = (int)o;
		pr_warn("fpu: XSAVEC misplaces the compacted format (AVX at byte %d, not 576: "
			"Bochs 2.7); XSAVEC/XSAVES not offered to guests\n", at);
	}
	return ok;
}

void fpu_host_init(void)
{
	struct cpuid_regs r;

	have_xsave = cpu_has(1, CPUID_ECX, 26);
	have_rdtscp = cpu_has(0x80000001, CPUID_EDX, 27);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT | (have_xsave ? CR4_OSXSAVE : 0));
	if (!have_xsave)
		return;
	cpuid_count(0xd, 0, &r);
	xcr0_supported = ((uint64_t)r.edx << 32) | r.eax;
	if (this_cpu_id() == 0)
		xsavec_ok = xsavec_selftest();
	xsetbv(0, XCR0_X87 | XCR0_SSE);
}

bool fpu_xsavec_ok(void)
{
	return xsavec_ok;
}

int fpu_vcpu_init(struct fpu_state *f)
{
	uint8_t *a = page_alloc_zeroed(3);   /* covers AVX-512-sized areas too */

	if (!a)
		return -ENOMEM;
	/* Legacy region: FCW 0x37f and MXCSR 0x1f80 (their reset values);
	 * XSTATE_BV = 0 in the header puts every component in its init state. */
	*(uint16_t *)a = 0x37f;
	*(uint32_t *)(a + 24) = 0x1f80;
	f->area = a;
	f->xcr0 = XCR0_X87;
	return 0;
}

static void save(struct fpu_state *f)
{
	if (have_xsave)
		__asm__ volatile("xsave64 (%0)" : : "r"(f->area), "a"(~0u), "d"(~0u) : "memory");
	else
		__asm__ volatile("fxsave64 (%0)" : : "r"(f->area) : "memory");
}

static void restore(struct fpu_state *f)
{
	if (have_xsave) {
		xsetbv(0, f->xcr0);
		__asm__ volatile("xrstor64 (%0)" : : "r"(f->area), "a"(~0u), "d"(~0u) : "memory");
	} else {
		__asm__ volatile("fxrstor64 (%0)" : : "r"(f->area) : "memory");
	}
}

static void save_all(struct fpu_state *f)
{
	save(f);
	if (have_rdtscp)
		f->tsc_aux = rdmsr(MSR_IA32_TSC_AUX);
	f->star = rdmsr(MSR_IA32_STAR);
	f->lstar = rdmsr(MSR_IA32_LSTAR);
	f->cstar = rdmsr(MSR_IA32_CSTAR);
	f->sfmask = rdmsr(MSR_IA32_FMASK);
	f->kernel_gs_base = rdmsr(MSR_IA32_KERNEL_GS_BASE);
	f->cr2 = read_cr2();   /* the host takes no page faults: CR2 is the guest's */
}

static void restore_all(struct fpu_state *f)
{
	restore(f);
	if (have_rdtscp)
		wrmsr(MSR_IA32_TSC_AUX, f->tsc_aux);
	wrmsr(MSR_IA32_STAR, f->star);
	wrmsr(MSR_IA32_LSTAR, f->lstar);
	wrmsr(MSR_IA32_CSTAR, f->cstar);
	wrmsr(MSR_IA32_FMASK, f->sfmask);
	wrmsr(MSR_IA32_KERNEL_GS_BASE, f->kernel_gs_base);
	write_cr2(f->cr2);
}

/* The pCPU holds at most one vCPU's state: the vCPU it runs, or the one it
 * ran last until that one is released (vcpu_put) and saved. So a vCPU that
 * moved to another pCPU always finds its newest state in memory. */
void fpu_switch_slow(struct fpu_state *f)
{
	struct cpu *c = cpu_this();
	struct fpu_state *prev = c->vmx.fpu_owner;

	if (prev)
		save_all(prev);
	restore_all(f);
	c->vmx.fpu_owner = f;
}

void fpu_release(struct fpu_state *f)
{
	struct cpu *c = cpu_this();

	if (c->vmx.fpu_owner != f)
		return;
	save_all(f);
	c->vmx.fpu_owner = NULL;
}

int fpu_guest_xsetbv(struct fpu_state *f, uint64_t offered, uint32_t index, uint64_t value)
{
	/* XSETBV rules (SDM vol. 2 XSETBV): XCR0 only, and a value the CPU
	 * accepts; an invalid one is the guest's #GP, never the host's. */
	if (!offered)
		offered = xcr0_supported;

	/* Only the components CPUID offers (cpuid_policy_xsave()). */
	if (!have_xsave || index != 0 || !xcr0_valid(value, offered & xcr0_supported))
		return -EINVAL;
	f->xcr0 = value;
	xsetbv(0, value);   /* f's vCPU owns this pCPU's state while it runs */
	return 0;
}
