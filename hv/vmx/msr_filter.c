/* MSR allowlist. Pass-through MSRs are either held in the VMCS guest-state
 * area (SYSENTER_*, FS/GS base; SDM vol. 3C §25.4.1) or must be swapped by the
 * VMX layer when it switches vCPUs (STAR/LSTAR/CSTAR/SFMASK, KERNEL_GS_BASE,
 * TSC_AUX). Features whose MSRs we do not offer are hidden in CPUID too
 * (vmx/cpuid_filter.c), so a well-behaved guest never touches them. */
#include "vmx/msr_filter.h"
#include "compiler.h"
#include "lib/string.h"

#define MSR_IA32_TSC              0x00000010u
#define MSR_IA32_PLATFORM_ID      0x00000017u
#define MSR_IA32_APIC_BASE_NR     0x0000001bu
#define MSR_IA32_FEATURE_CONTROL  0x0000003au
#define MSR_IA32_BIOS_SIGN_ID     0x0000008bu
#define MSR_IA32_SYSENTER_CS      0x00000174u
#define MSR_IA32_SYSENTER_EIP     0x00000176u
#define MSR_IA32_MCG_CAP          0x00000179u
#define MSR_IA32_MCG_STATUS       0x0000017au
#define MSR_IA32_MISC_ENABLE      0x000001a0u
#define MSR_IA32_DEBUGCTL         0x000001d9u
#define MSR_IA32_PAT              0x00000277u
#define MSR_IA32_TSC_DEADLINE_NR  0x000006e0u
#define MSR_X2APIC_BASE           0x00000800u
#define MSR_X2APIC_END            0x000008ffu
#define MSR_KVM_WALL_CLOCK        0x00000011u
#define MSR_KVM_SYSTEM_TIME       0x00000012u
#define MSR_KVM_FIRST             0x4b564d00u
#define MSR_KVM_LAST              0x4b564d07u
#define MSR_EFER                  0xc0000080u
#define MSR_STAR                  0xc0000081u
#define MSR_SYSCALL_MASK          0xc0000084u
#define MSR_FS_BASE               0xc0000100u
#define MSR_KERNEL_GS_BASE        0xc0000102u
#define MSR_TSC_AUX               0xc0000103u

/* IA32_FEATURE_CONTROL: locked with VMX off (SDM vol. 3C §23.7). */
#define FEATURE_CONTROL_LOCKED    BIT(0)

enum msr_gate { GATE_ALWAYS, GATE_KVM, GATE_RDTSCP };

struct msr_rule {
	uint32_t first, last;
	uint8_t rd, wr;         /* enum msr_action */
	uint8_t handler;        /* enum msr_handler for EMUL */
	uint8_t gate;           /* enum msr_gate */
	uint64_t value;
};

#define R(f, l, r, w, h, g, v) { f, l, MSR_ACT_##r, MSR_ACT_##w, MSR_H_##h, g, v }

static const struct msr_rule msr_rules[] = {
	R(MSR_KVM_WALL_CLOCK, MSR_KVM_SYSTEM_TIME, EMUL, EMUL, KVM, GATE_KVM, 0),
	R(MSR_IA32_TSC, MSR_IA32_TSC, PASS, EMUL, TSC, GATE_ALWAYS, 0),
	R(MSR_IA32_PLATFORM_ID, MSR_IA32_PLATFORM_ID, EMUL, GP, CONST, GATE_ALWAYS, 0),
	R(MSR_IA32_APIC_BASE_NR, MSR_IA32_APIC_BASE_NR, EMUL, EMUL, APIC_BASE, GATE_ALWAYS, 0),
	R(MSR_IA32_FEATURE_CONTROL, MSR_IA32_FEATURE_CONTROL, EMUL, GP, CONST, GATE_ALWAYS,
	  FEATURE_CONTROL_LOCKED),
	R(MSR_IA32_BIOS_SIGN_ID, MSR_IA32_BIOS_SIGN_ID, EMUL, EMUL, CONST, GATE_ALWAYS, 0),
	R(MSR_IA32_SYSENTER_CS, MSR_IA32_SYSENTER_EIP, PASS, PASS, NONE, GATE_ALWAYS, 0),
	R(MSR_IA32_MISC_ENABLE, MSR_IA32_MISC_ENABLE, EMUL, EMUL, MISC_ENABLE, GATE_ALWAYS, 0),
	R(MSR_IA32_DEBUGCTL, MSR_IA32_DEBUGCTL, EMUL, EMUL, CONST, GATE_ALWAYS, 0),
	R(MSR_IA32_PAT, MSR_IA32_PAT, EMUL, EMUL, PAT, GATE_ALWAYS, 0),
	R(MSR_IA32_TSC_DEADLINE_NR, MSR_IA32_TSC_DEADLINE_NR, EMUL, EMUL, TSC_DEADLINE,
	  GATE_ALWAYS, 0),
	R(MSR_X2APIC_BASE, MSR_X2APIC_END, EMUL, EMUL, X2APIC, GATE_ALWAYS, 0),
	R(MSR_KVM_FIRST, MSR_KVM_LAST, EMUL, EMUL, KVM, GATE_KVM, 0),
	R(MSR_EFER, MSR_EFER, EMUL, EMUL, EFER, GATE_ALWAYS, 0),
	R(MSR_STAR, MSR_SYSCALL_MASK, PASS, PASS, NONE, GATE_ALWAYS, 0),
	R(MSR_FS_BASE, MSR_KERNEL_GS_BASE, PASS, PASS, NONE, GATE_ALWAYS, 0),
	R(MSR_TSC_AUX, MSR_TSC_AUX, PASS, PASS, NONE, GATE_RDTSCP, 0),
	/* Rarely read MSRs last: msr_rule_find() scans in order and the x2APIC
	 * and TSC-deadline rules above sit on the exit-cost figures' paths. */
	/* Machine check: no banks and no MCG_CTL (KVM's MCG_CAP for a guest
	 * without MCE banks, SDM vol. 3 §17.3.1); CPUID hides MCE/MCA. */
	R(MSR_IA32_MCG_CAP, MSR_IA32_MCG_CAP, EMUL, GP, CONST, GATE_ALWAYS, 0),
	R(MSR_IA32_MCG_STATUS, MSR_IA32_MCG_STATUS, EMUL, EMUL, CONST, GATE_ALWAYS, 0),
};

static bool msr_rule_enabled(const struct msr_policy *p, const struct msr_rule *r)
{
	switch (r->gate) {
	case GATE_KVM:    return p->kvm_pv;
	case GATE_RDTSCP: return p->rdtscp;
	default:          return true;
	}
}

static const struct msr_rule *msr_rule_find(const struct msr_policy *p, uint32_t msr)
{
	for (size_t i = 0; i < ARRAY_SIZE(msr_rules); i++) {
		const struct msr_rule *r = &msr_rules[i];

		if (msr >= r->first && msr <= r->last && msr_rule_enabled(p, r))
			return r;
	}
	return NULL;
}

enum msr_action msr_filter_lookup(const struct msr_policy *p, uint32_t msr, bool write,
				  struct msr_decision *d)
{
	const struct msr_rule *r = msr_rule_find(p, msr);

	memset(d, 0, sizeof(*d));
	if (!r)
		return MSR_ACT_GP;
	d->action = (enum msr_action)(write ? r->wr : r->rd);
	if (d->action == MSR_ACT_EMUL) {
		d->handler = (enum msr_handler)r->handler;
		d->value = r->value;
	}
	return d->action;
}

/* Bitmap layout: read-low, read-high, write-low, write-high, 1 KiB each,
 * covering MSRs 0-0x1FFF and 0xC0000000-0xC0001FFF; a set bit means exit. */
static void msr_bitmap_clear(uint8_t *bitmap, uint32_t msr, bool write)
{
	unsigned off = write ? 2048 : 0;
	uint32_t idx = msr & 0x1fff;

	if (msr >= 0xc0000000u)
		off += 1024;
	bitmap[off + idx / 8] &= (uint8_t)~(1u << (idx % 8));
}

static bool msr_bitmap_covers(uint32_t msr)
{
	return msr <= 0x1fff || (msr >= 0xc0000000u && msr <= 0xc0001fffu);
}

void msr_filter_fill_bitmap(const struct msr_policy *p, uint8_t bitmap[4096])
{
	memset(bitmap, 0xff, 4096);
	for (size_t i = 0; i < ARRAY_SIZE(msr_rules); i++) {
		const struct msr_rule *r = &msr_rules[i];

		if (!msr_rule_enabled(p, r))
			continue;
		for (uint32_t m = r->first; m <= r->last && msr_bitmap_covers(m); m++) {
			if (r->rd == MSR_ACT_PASS)
				msr_bitmap_clear(bitmap, m, false);
			if (r->wr == MSR_ACT_PASS)
				msr_bitmap_clear(bitmap, m, true);
		}
	}
}

const char *msr_handler_name(enum msr_handler h)
{
	static const char *const names[MSR_H_COUNT] = {
		"none", "const", "tsc", "apic_base", "x2apic", "tsc_deadline",
		"efer", "pat", "kvm", "misc_enable",
	};
	_Static_assert(MSR_H_COUNT == 10, "msr_handler_name table out of date");

	return (unsigned)h < MSR_H_COUNT ? names[h] : "?";
}
