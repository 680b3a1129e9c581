/* Guest register state the VMCS does not hold (x87/SSE/AVX, XCR0,
 * IA32_TSC_AUX, the SYSCALL MSRs, KERNEL_GS_BASE, CR2), switched between vCPUs that
 * share a pCPU. The hypervisor itself never touches it (-mgeneral-regs-only),
 * so state moves only when another vCPU runs (lazy, per pCPU). */
#ifndef HV_VMX_FPU_H
#define HV_VMX_FPU_H
#include "types.h"
#include "cpu.h"

struct fpu_state {
	void *area;        /* XSAVE area (64-byte aligned), or FXSAVE's 512 bytes */
	uint64_t xcr0;
	uint64_t tsc_aux;  /* IA32_TSC_AUX: RDTSCP/RDPID read it without an exit */
	/* MSRs the guest reads and writes without exits (msr_filter.c PASS)
	 * that the VMCS does not hold, and CR2 (no VMCS field either). */
	uint64_t star, lstar, cstar, sfmask, kernel_gs_base, cr2;
};

void fpu_host_init(void);                 /* every CPU: CR4.OSFXSR/OSXSAVE, XCR0 */
/* The CPU's XSAVEC may be offered to guests: it exists and its boot self-test
 * found the SDM's compacted layout (false in Bochs 2.7, docs/sched.md). */
bool fpu_xsavec_ok(void);
int fpu_vcpu_init(struct fpu_state *f);   /* area in its initial state */
void fpu_switch_slow(struct fpu_state *f);
/* Before entering f's vCPU on this pCPU. Inline: it sits on every slow-path
 * entry, and this pCPU nearly always holds f already. */
static inline void fpu_switch_to(struct fpu_state *f)
{
	if (cpu_this()->vmx.fpu_owner != f)
		fpu_switch_slow(f);
}
void fpu_release(struct fpu_state *f);     /* its vCPU leaves this pCPU: save it here */
/* XSETBV on behalf of the guest whose CPUID offers the XCR0 components
 * `offered` (0: all the host has): 0, or -EINVAL when the value is illegal. */
int fpu_guest_xsetbv(struct fpu_state *f, uint64_t offered, uint32_t index, uint64_t value);
#endif
