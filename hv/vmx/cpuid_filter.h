/* CPUID policy: what a guest sees for a leaf, given the host's raw answer.
 * Pure function; the VMX exit handler executes CPUID on the host (with the
 * guest's XCR0 still loaded, so leaf 0xD sizes are the guest's) and calls
 * cpuid_filter_apply. Leaves 0x40000000-0x4FFFFFFF are synthesised. */
#ifndef HV_VMX_CPUID_FILTER_H
#define HV_VMX_CPUID_FILTER_H
#include "types.h"

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

/* KVM paravirtual feature bits in CPUID 0x40000001.EAX (Linux uapi kvm_para.h). */
#define CPUID_KVM_FEATURE_CLOCKSOURCE     0
#define CPUID_KVM_FEATURE_NOP_IO_DELAY    1
#define CPUID_KVM_FEATURE_CLOCKSOURCE2    3
#define CPUID_KVM_FEATURE_STEAL_TIME      5
#define CPUID_KVM_FEATURE_PV_EOI          6
#define CPUID_KVM_FEATURE_PV_UNHALT       7
#define CPUID_KVM_FEATURE_PV_SEND_IPI     11
#define CPUID_KVM_FEATURE_PV_SCHED_YIELD  13
#define CPUID_KVM_FEATURE_CLOCKSOURCE_STABLE_BIT 24

/* KVM signature "KVMKVMKVM\0\0\0" in EBX, ECX, EDX of 0x40000000. */
#define CPUID_KVM_SIG_EBX 0x4b4d564bu
#define CPUID_KVM_SIG_ECX 0x564b4d56u
#define CPUID_KVM_SIG_EDX 0x0000004du

/* Per-VM policy, filled once when the VM is created. */
struct cpuid_policy {
	unsigned nr_vcpus;        /* 1..255; APIC ID of vCPU i is i */
	uint32_t host_max_basic;  /* host CPUID.0.EAX */
	bool kvm_sig;             /* show KVM at 0x40000000, ours at 0x40000100 */
	uint32_t kvm_features;    /* 0x40000001.EAX when kvm_sig (CPUID_KVM_FEATURE_* bits) */
	uint32_t kvm_hints;       /* 0x40000001.EDX when kvm_sig */
	bool rdtscp;              /* "enable RDTSCP" secondary control is set */
	bool invpcid;             /* "enable INVPCID" secondary control is set */
	bool xsaves;              /* "enable XSAVES/XRSTORS" secondary control is set */
	bool rdrand;              /* show RDRAND/RDSEED (guest_rdrand=on; not repeatable) */
};

/* Guest state that some CPUID bits mirror (SDM vol. 2A CPUID: OSXSAVE, OSPKE, APIC). */
struct cpuid_vcpu {
	unsigned index;           /* vCPU index = initial APIC ID */
	bool cr4_osxsave;         /* guest CR4.OSXSAVE */
	bool cr4_pke;             /* guest CR4.PKE */
	bool apic_enabled;        /* guest IA32_APIC_BASE.EN */
};

void cpuid_policy_init(struct cpuid_policy *p, unsigned nr_vcpus, uint32_t host_max_basic);
/* r holds the host's raw result for (leaf, subleaf) and is rewritten in place. */
void cpuid_filter_apply(const struct cpuid_policy *p, const struct cpuid_vcpu *v,
			uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);
#endif
