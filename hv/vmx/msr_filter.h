/* MSR policy: an allowlist saying, for each MSR and direction, whether the
 * access passes through to hardware (no exit; the VMX layer context-switches
 * or the VMCS holds the MSR), is emulated by a named handler, or raises #GP.
 * Anything not in the table raises #GP. Pure tables; host-testable. */
#ifndef HV_VMX_MSR_FILTER_H
#define HV_VMX_MSR_FILTER_H
#include "types.h"

enum msr_action { MSR_ACT_GP = 0, MSR_ACT_PASS, MSR_ACT_EMUL };

/* Who emulates an EMUL access. MSR_H_CONST is answered by the filter itself:
 * reads return decision.value, writes are ignored. */
enum msr_handler {
	MSR_H_NONE = 0,
	MSR_H_CONST,        /* read: value; write: ignored */
	MSR_H_TSC,          /* IA32_TSC write: adjust the TSC offset */
	MSR_H_APIC_BASE,    /* IA32_APIC_BASE (vLAPIC) */
	MSR_H_X2APIC,       /* 0x800-0x8FF (vLAPIC x2APIC registers) */
	MSR_H_TSC_DEADLINE, /* IA32_TSC_DEADLINE (vLAPIC timer) */
	MSR_H_EFER,         /* IA32_EFER: VMCS guest field + IA-32e entry control */
	MSR_H_PAT,          /* IA32_PAT: VMCS guest field */
	MSR_H_KVM,          /* KVM paravirtual MSRs (only with kvm_pv) */
	MSR_H_MISC_ENABLE,  /* IA32_MISC_ENABLE: per-vCPU value, msr_misc_enable_write() */
	MSR_H_COUNT
};

struct msr_policy {
	bool kvm_pv;        /* accept KVM PV MSRs (kvmclock, steal time, PV EOI, ...) */
	bool rdtscp;        /* IA32_TSC_AUX passes through (guest has RDTSCP) */
};

struct msr_decision {
	enum msr_action action;
	enum msr_handler handler;
	uint64_t value;     /* MSR_H_CONST read value */
};

/* Decide an access. Returns the action (also stored in *d). */
enum msr_action msr_filter_lookup(const struct msr_policy *p, uint32_t msr, bool write,
				  struct msr_decision *d);
/* Fill a 4 KiB VMX MSR bitmap (SDM vol. 3C §25.6.9): every MSR exits except
 * those whose access is MSR_ACT_PASS. */
void msr_filter_fill_bitmap(const struct msr_policy *p, uint8_t bitmap[4096]);
const char *msr_handler_name(enum msr_handler h);

/* IA32_MISC_ENABLE (SDM vol. 4 Table 2-2) as KVM presents it to a guest:
 * fast strings on, BTS and PEBS unavailable; no CPUID limit, XD not disabled,
 * no EIST/MONITOR (hidden in CPUID). */
#define MSR_MISC_ENABLE_FAST_STRING  (1ull << 0)
#define MSR_MISC_ENABLE_RESET        ((1ull << 0) | (1ull << 11) | (1ull << 12))
/* A guest write: only fast strings can change; a write that changes any other
 * bit is refused (#GP), as on a CPU without those features. Returns whether
 * the write is accepted; the new value goes to *cur. */
static inline bool msr_misc_enable_write(uint64_t *cur, uint64_t val)
{
	if ((val ^ *cur) & ~(uint64_t)MSR_MISC_ENABLE_FAST_STRING)
		return false;
	*cur = val;
	return true;
}
#endif
