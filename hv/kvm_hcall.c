/* KVM's hypercalls (Linux Documentation/virt/kvm/x86/hypercalls.rst), each
 * answering only when its CPUID feature bit is offered to the VM, as KVM
 * does: otherwise -KVM_ENOSYS. Targets are named by APIC ID. */
#include "hypercall.h"
#include "vmx/kvm_pv.h"
#include "vm/vm.h"
#include "vmx/exit.h"
#include "errno.h"

static bool offered(struct vcpu *v, unsigned feature)
{
	return v->vm->vmx.cpuid.kvm_features & BIT(feature);
}

static struct vcpu *vcpu_by_apic(struct vm *vm, uint64_t apic_id)
{
	int i = kvm_pv_apic_to_vcpu(&vm->devs.intc, apic_id);

	return i < 0 || (unsigned)i >= vm->nr_vcpus ? NULL : vm->vcpu[i];
}

/* KVM_HC_KICK_CPU(flags, apic_id): wake a vCPU halted in pv_wait() (PV
 * spinlocks). The flag outlives a kick that arrives before the HLT. */
static int64_t kvm_hc_kick_cpu(struct vcpu *v, uint64_t flags, uint64_t apic_id, uint64_t a2,
			       uint64_t a3)
{
	struct vcpu *t;

	if (!offered(v, KVM_FEATURE_PV_UNHALT))
		return -KVM_ENOSYS;
	t = vcpu_by_apic(v->vm, apic_id);
	if (!t)
		return 0;     /* KVM ignores unknown targets too */
	t->kvm.kicks++;
	__atomic_store_n(&t->kvm.pv_unhalted, true, __ATOMIC_SEQ_CST);
	vm_kick_vcpu(t);
	return 0;
}
HCALL_REGISTER(KVM_HC_KICK_CPU, kvm_hc_kick_cpu);

/* KVM_HC_SEND_IPI(bitmap low, bitmap high, min APIC ID, ICR): the count sent. */
static int64_t kvm_hc_send_ipi(struct vcpu *v, uint64_t lo, uint64_t hi, uint64_t min,
			       uint64_t icr)
{
	int64_t r;

	if (!offered(v, KVM_FEATURE_PV_SEND_IPI))
		return -KVM_ENOSYS;
	v->kvm.ipis++;
	/* The VM lock, as around an ICR write (exit_misc.c): injection runs under it. */
	spin_lock(&v->vm->lock);
	r = kvm_pv_send_ipi(&v->vm->devs.intc, lo, hi, min, icr, exit_guest_64bit() ? 64 : 32);
	spin_unlock(&v->vm->lock);
	return r;
}
HCALL_REGISTER(KVM_HC_SEND_IPI, kvm_hc_send_ipi);

/* KVM_HC_SCHED_YIELD(apic_id): the caller waits on a preempted vCPU (an IPI
 * it sent is not being served); give it our pCPU time. */
static int64_t kvm_hc_sched_yield(struct vcpu *v, uint64_t apic_id, uint64_t a1, uint64_t a2,
				  uint64_t a3)
{
	struct vcpu *t;

	if (!offered(v, KVM_FEATURE_PV_SCHED_YIELD))
		return -KVM_ENOSYS;
	t = vcpu_by_apic(v->vm, apic_id);
	if (!t || t == v)
		return 0;
	v->kvm.yields++;
#if KVM_PV_HOOK_YIELD_TO
	vm_vcpu_yield_to(v, t);
#endif
	return 0;
}
HCALL_REGISTER(KVM_HC_SCHED_YIELD, kvm_hc_sched_yield);
