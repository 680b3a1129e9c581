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

/* XSAVE components the policy describes: x87 .. XTILEDATA (bit 18). */
#define CPUID_XSAVE_COMPS 19
/* Standard-format XSAVE area: legacy region + header (SDM vol. 1 §13.4). */
#define CPUID_XSAVE_LEGACY 576u

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
	bool no_xsavec;           /* hide XSAVEC/XSAVES: the CPU misplaces their layout (fpu_xsavec_ok()) */
	/* XSAVE user components offered (leaf 0xD, cpuid_policy_xsave()); 0:
	 * leaf 0xD passes through. Per component (< CPUID_XSAVE_COMPS): size and
	 * offset in the standard format; xsave_max = size for all of xcr0. */
	uint64_t xcr0;
	uint32_t xsave_size[CPUID_XSAVE_COMPS], xsave_off[CPUID_XSAVE_COMPS];
	uint32_t xsave_align64;   /* bit i: component i is 64-byte aligned when compacted */
	uint32_t xsave_max;
	/* Guest TSC rate in kHz (0: unknown). Leaf 0x15 then reports the LAPIC
	 * timer's input clock (VLAPIC_BUS_HZ) as the crystal and the TSC as a
	 * ratio of it, leaf 0x16 the TSC in MHz (what QEMU does, so Linux's
	 * CPUID-derived LAPIC period matches the vLAPIC). */
	uint32_t tsc_khz;
	uint32_t lapic_hz;
	bool rdrand;              /* show RDRAND/RDSEED (guest_rdrand=on; not repeatable) */
	uint32_t pv_features;     /* our BASE+1 EAX: HV_PV_F_* (cpuid_policy_init: all) */
	/* Highest cache level the host's leaf 4 lists (0: assume 3). That level,
	 * the last-level cache, is shown as shared by every vCPU of the VM. */
	uint8_t llc_level;
};

/* Guest state that some CPUID bits mirror (SDM vol. 2A CPUID: OSXSAVE, OSPKE, APIC). */
struct cpuid_vcpu {
	unsigned index;           /* vCPU index = initial APIC ID */
	bool cr4_osxsave;         /* guest CR4.OSXSAVE */
	bool cr4_pke;             /* guest CR4.PKE */
	bool apic_enabled;        /* guest IA32_APIC_BASE.EN */
	uint64_t xcr0;            /* guest XCR0 (leaf 0xD.0 EBX) */
};

void cpuid_policy_init(struct cpuid_policy *p, unsigned nr_vcpus, uint32_t host_max_basic);
/* Offer the XSAVE user components the host describes consistently (SDM
 * vol. 1 §13.2): host_xcr0 = leaf 0xD.0 EDX:EAX, sub[i] = leaf 0xD subleaf i
 * for i < CPUID_XSAVE_COMPS. A component without a size (Bochs announces PKRU
 * with size 0) is dropped with the components it must be enabled with
 * (xcr0.h); the sizes of leaf 0xD.0 are then recomputed from what is left. */
void cpuid_policy_xsave(struct cpuid_policy *p, uint64_t host_xcr0, const struct cpuid_regs *sub);
/* Standard-format XSAVE size for the offered components of xcr0. */
uint32_t cpuid_xsave_size(const struct cpuid_policy *p, uint64_t xcr0);
/* Compacted-format (XSAVES/XSAVEC) size for the offered components of xcr0
 * (SDM vol. 1 §13.4.3): leaf 0xD.1 EBX with IA32_XSS = 0. */
uint32_t cpuid_xsave_compacted_size(const struct cpuid_policy *p, uint64_t xcr0);
/* r holds the host's raw result for (leaf, subleaf) and is rewritten in place. */
void cpuid_filter_apply(const struct cpuid_policy *p, const struct cpuid_vcpu *v,
			uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);
#endif
