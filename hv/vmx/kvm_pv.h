/* KVM paravirtual interface for stock Linux guests: kvmclock, steal time with
 * the `preempted` flag, PV send-IPI, PV unhalt (kick), PV sched-yield and the
 * PV TLB-flush hint. ABI: Linux Documentation/virt/kvm/x86/msr.rst, cpuid.rst,
 * hypercalls.rst and arch/x86/include/uapi/asm/kvm_para.h (guest side).
 * kvm_pv.c is pure (host-testable); hv/vm/kvm_pv_vcpu.c binds it to hv/vm's vCPU. */
#ifndef HV_VMX_KVM_PV_H
#define HV_VMX_KVM_PV_H
#include "compiler.h"

struct vintc;

/* MSRs (msr.rst). 0x11/0x12 are the deprecated aliases of 0x4b564d00/01. */
#define MSR_KVM_WALL_CLOCK        0x00000011u
#define MSR_KVM_SYSTEM_TIME       0x00000012u
#define MSR_KVM_WALL_CLOCK_NEW    0x4b564d00u
#define MSR_KVM_SYSTEM_TIME_NEW   0x4b564d01u
#define MSR_KVM_STEAL_TIME        0x4b564d03u
#define MSR_KVM_PV_EOI_EN         0x4b564d04u
#define KVM_MSR_ENABLED           BIT(0)
/* PV EOI MSR: bit 0 enable, bit 1 reserved, bits 63:2 the 4-byte aligned GPA
 * of a word whose bit 0 the host sets when the guest may skip the EOI write. */
#define KVM_PV_EOI_RESERVED       BIT(1)
#define KVM_PV_EOI_PENDING        BIT(0)
/* Steal-time MSR: bit 0 enable, bits 5:1 reserved, the record is 64-byte aligned. */
#define KVM_STEAL_RESERVED_MASK   0x3eull
#define KVM_STEAL_GPA_MASK        (~0x3full)

/* CPUID 0x40000001.EAX bits (cpuid.rst). */
#define KVM_FEATURE_CLOCKSOURCE     0
#define KVM_FEATURE_NOP_IO_DELAY    1
#define KVM_FEATURE_CLOCKSOURCE2    3
#define KVM_FEATURE_STEAL_TIME      5
#define KVM_FEATURE_PV_EOI          6
#define KVM_FEATURE_PV_UNHALT       7
#define KVM_FEATURE_PV_TLB_FLUSH    9
#define KVM_FEATURE_PV_SEND_IPI     11
#define KVM_FEATURE_PV_SCHED_YIELD  13
#define KVM_FEATURE_CLOCKSOURCE_STABLE_BIT 24

/* Hypercalls (hypercalls.rst), RAX = number, args RBX, RCX, RDX, RSI. */
#define KVM_HC_KICK_CPU     5
#define KVM_HC_SEND_IPI     10
#define KVM_HC_SCHED_YIELD  11
#define KVM_ENOSYS          1000   /* KVM's own "no such hypercall" value */

/*
 * Features whose host side lives outside this folder. Each is advertised only
 * once the integrator has wired it (set to 1 in the same commit):
 * - UNHALT: vcpu_has_wakeup() ORs kvm_pv_unhalt_pending(v), and the run loop
 *   calls kvm_pv_unhalt_clear(v) when a halted vCPU resumes.
 * - TLB_FLUSH: after kvm_pv_vcpu_sched_in(v) and with v's VMCS current, the
 *   schedule-in path does `if (kvm_pv_tlb_flush_take(v)) vmx_flush_vpid();`.
 * - YIELD_TO: hv/vm/vm.h provides vm_vcpu_yield_to(self, target).
 */
#ifndef KVM_PV_HOOK_UNHALT
#define KVM_PV_HOOK_UNHALT    1   /* wired: vcpu.c vcpu_has_wakeup + run loop */
#endif
#ifndef KVM_PV_HOOK_TLB_FLUSH
#define KVM_PV_HOOK_TLB_FLUSH 1   /* wired: vcpu.c after vcpu_load */
#endif
#ifndef KVM_PV_HOOK_YIELD_TO
#define KVM_PV_HOOK_YIELD_TO  1   /* wired: vm_vcpu_yield_to() in vm/sched_platform.c */
#endif
/* PV send-IPI can be switched off here for experiments (docs/kvm-pv.md). */
#ifndef KVM_PV_OFFER_SEND_IPI
#define KVM_PV_OFFER_SEND_IPI 1
#endif

/* struct pvclock_vcpu_time_info (arch/x86/include/asm/pvclock-abi.h). */
struct pvclock_vcpu_time_info {
	uint32_t version;          /* odd while the host updates */
	uint32_t pad0;
	uint64_t tsc_timestamp;
	uint64_t system_time;      /* ns at tsc_timestamp */
	uint32_t tsc_to_system_mul;
	int8_t tsc_shift;
	uint8_t flags;
	uint8_t pad[2];
} __packed;
_Static_assert(sizeof(struct pvclock_vcpu_time_info) == 32, "pvclock ABI");
_Static_assert(offsetof(struct pvclock_vcpu_time_info, tsc_to_system_mul) == 24, "pvclock ABI");
#define PVCLOCK_TSC_STABLE_BIT BIT(0)

struct pvclock_wall_clock {
	uint32_t version;
	uint32_t sec;              /* wall clock at system_time 0 */
	uint32_t nsec;
} __packed;
_Static_assert(sizeof(struct pvclock_wall_clock) == 12, "pvclock ABI");

struct kvm_steal_time {
	uint64_t steal;            /* ns the vCPU was runnable but not running */
	uint32_t version;
	uint32_t flags;
	uint8_t preempted;         /* KVM_VCPU_PREEMPTED | KVM_VCPU_FLUSH_TLB */
	uint8_t u8_pad[3];
	uint32_t pad[11];
};
_Static_assert(sizeof(struct kvm_steal_time) == 64, "steal time ABI");
_Static_assert(offsetof(struct kvm_steal_time, preempted) == 16, "steal time ABI");
#define KVM_VCPU_PREEMPTED BIT(0)
#define KVM_VCPU_FLUSH_TLB BIT(1)

/* Scale from TSC ticks to ns as the guest applies it (pvclock_scale_delta). */
struct kvm_pvclock_scale {
	uint32_t mul;
	int8_t shift;
};

/* Per-vCPU state (struct vcpu member `kvm`). Zero = everything off. */
struct kvm_pv_vcpu {
	uint64_t system_time_msr;             /* last value written, for RDMSR */
	uint64_t wall_clock_msr;
	uint64_t steal_msr;
	struct pvclock_vcpu_time_info *clock; /* host view of the guest record; NULL off */
	struct kvm_steal_time *steal;         /* host view; NULL off */
	uint64_t steal_ns;                    /* scheduler's total steal for this vCPU */
	uint64_t steal_published;             /* part of steal_ns already in steal->steal */
	volatile bool pv_unhalted;            /* KVM_HC_KICK_CPU arrived, not yet consumed */
	volatile bool flush_tlb;              /* guest asked for a flush while preempted */
	uint64_t pv_eoi_msr;
	volatile uint8_t *pv_eoi;             /* byte 0 of the guest's PV EOI word; NULL off */
	bool pv_eoi_armed;                    /* we set the bit before the last entry */
	uint64_t kicks, ipis, flushes, clock_updates, yields, pv_eois;   /* statistics */
};

/* What the MSR handler needs from the VM, given by the caller (pure code). */
struct kvm_pv_env {
	void *(*map)(void *ctx, uint64_t gpa, uint64_t len);   /* guest RAM or NULL */
	void *ctx;
	uint32_t features;          /* the VM's 0x40000001.EAX */
	uint64_t tsc;               /* guest TSC now */
	uint64_t tsc_epoch;         /* guest TSC at system_time 0 */
	struct kvm_pvclock_scale scale;
	int64_t wall_ns_at_epoch;   /* Unix ns at system_time 0 */
	/* May a log line about this write go out (the VM's console budget,
	 * docs/security.md)? NULL: always. */
	bool (*log_ok)(void *ctx);
};

/* ---- pure part (kvm_pv.c) ---- */
/* Features this build backs (0x40000001.EAX). */
uint32_t kvm_pv_features(void);
/* mul/shift with mul in [2^31, 2^32) such that ns = scale(ticks); -EINVAL if tsc_hz is 0. */
int kvm_pvclock_scale_init(uint64_t tsc_hz, struct kvm_pvclock_scale *s);
/* The guest's formula: (delta shifted by shift) * mul >> 32. */
uint64_t kvm_pvclock_scale_delta(uint64_t delta, struct kvm_pvclock_scale s);
/* Publish a record for guest TSC `tsc` under the odd/even version protocol.
 * tsc_timestamp is rounded down to a multiple of 2^(32 - shift) ticks past the
 * epoch, where the scale is exactly additive: every vCPU's record then yields
 * the same ns for the same TSC, as PVCLOCK_TSC_STABLE_BIT promises. */
void kvm_pvclock_publish(struct pvclock_vcpu_time_info *p, uint64_t tsc, uint64_t tsc_epoch,
			 struct kvm_pvclock_scale s);
/* What a guest reads at TSC `tsc` from a record (pvclock_clocksource_read). */
uint64_t kvm_pvclock_read(const struct pvclock_vcpu_time_info *p, uint64_t tsc);
void kvm_pvclock_wall_publish(struct pvclock_wall_clock *w, int64_t wall_ns);
/* Add the steal accumulated since the last publish (version protocol). */
void kvm_steal_publish(struct kvm_pv_vcpu *k);
/* KVM MSR access: 0, or -EINVAL for #GP (unknown, not advertised, reserved bits). */
int kvm_pv_msr_read(const struct kvm_pv_vcpu *k, uint32_t features, uint32_t msr, uint64_t *val);
int kvm_pv_msr_write(struct kvm_pv_vcpu *k, const struct kvm_pv_env *env, uint32_t msr,
		     uint64_t val);
/* PV EOI: set the guest's bit before an entry (arm), and after the exit
 * take it back; disarm returns true when the guest cleared it, i.e. signalled
 * the EOI without writing the APIC (the caller then performs that EOI). */
void kvm_pv_eoi_arm(struct kvm_pv_vcpu *k);
bool kvm_pv_eoi_disarm(struct kvm_pv_vcpu *k);
/* Mark preempted (set) or running again (clear; latches KVM_VCPU_FLUSH_TLB). */
void kvm_pv_preempted_set(struct kvm_pv_vcpu *k, bool preempted);
/* KVM_HC_SEND_IPI: deliver icr's message to APIC IDs min + bit of lo and
 * min + cluster + bit of hi (cluster: the caller's word size, 64 or 32);
 * returns how many vCPUs accepted it (IDs without a vCPU and refused
 * messages are skipped, ICR 0 sends nothing), or -EINVAL for a logical
 * destination or a shorthand. Takes ic->lock. */
int64_t kvm_pv_send_ipi(struct vintc *ic, uint64_t lo, uint64_t hi, uint64_t min, uint64_t icr,
			unsigned cluster);
/* vCPU index whose vLAPIC has this APIC ID (and is enabled), or -1. */
int kvm_pv_apic_to_vcpu(struct vintc *ic, uint64_t apic_id);

/* The binding to hv/vm's vCPU (kvm_pv_msr, steal time, PV EOI, ...) is
 * hv/vm/kvm_pv_vcpu.h. */
#endif
