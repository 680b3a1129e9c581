/* The KVM PV ABI (vmx/kvm_pv.h) bound to hv/vm's vCPU and guest RAM
 * (vm/kvm_pv_vcpu.c): the MSRs, kvmclock and steal time at schedule-in,
 * the preempted flag, PV TLB flush and unhalt, PV EOI. */
#ifndef HV_VM_KVM_PV_VCPU_H
#define HV_VM_KVM_PV_VCPU_H
#include "vmx/kvm_pv.h"

struct vcpu;
struct vmx_vcpu;

/* The MSR_H_KVM case of msr_emulate(): 0 or -EINVAL (#GP). */
int kvm_pv_msr(struct vmx_vcpu *v, uint32_t msr, bool write, uint64_t *val);
/* Schedule-in of v on this pCPU, before it enters the guest: refresh kvmclock,
 * clear `preempted` and latch a requested TLB flush. */
void kvm_pv_vcpu_sched_in(struct vcpu *v);
/* The scheduler's total steal (RUNNABLE ns) of v; published to the guest. */
void kvm_pv_steal_update(struct vcpu *v, uint64_t steal_ns);
/* true when the scheduler deschedules a running v involuntarily; false clears. */
void kvm_pv_set_preempted(struct vcpu *v, bool preempted);
/* True once after the guest asked for a flush of v's TLB while v was preempted. */
bool kvm_pv_tlb_flush_take(struct vcpu *v);
/* PV unhalt: a kick is pending (a halted v must wake); cleared on resume. */
bool kvm_pv_unhalt_pending(struct vcpu *v);
void kvm_pv_unhalt_clear(struct vcpu *v);
/* PV EOI around guest execution, without virtual-interrupt delivery (with it
 * the CPU virtualises EOI and the bit is never set, as in KVM): before_entry
 * after the injection decision, after_exit before the exit is dispatched. */
void kvm_pv_eoi_before_entry(struct vcpu *v, bool vid);
void kvm_pv_eoi_after_exit_slow(struct vcpu *v);
static inline void kvm_pv_eoi_after_exit(struct vcpu *v, struct kvm_pv_vcpu *k)
{
	if (unlikely(k->pv_eoi_armed))
		kvm_pv_eoi_after_exit_slow(v);
}
/* One summary line of v's PV statistics, if the guest used any PV feature. */
void kvm_pv_vcpu_print(struct vcpu *v);
#endif
