/* KVM PV state of a vCPU: binds kvm_pv.c to struct vcpu, guest RAM, the TSC
 * and the scheduler's hooks. It is VM-layer code (it needs struct vcpu and
 * guest RAM), so it lives in hv/vm, not beside the ABI code in hv/vmx. Guest TSC = host TSC (TSC offset 0, invariant
 * TSC), so kvmclock's system time is host ns since the hypervisor booted,
 * scaled from tsc_hz; the wall clock at system time 0 is the RTC's. */
#include "vm/kvm_pv_vcpu.h"
#include "vm/vm.h"
#include "dev/rtc.h"
#include "vm/gmem.h"
#include "arch/x86/cpu.h"
#include "arch/x86/time.h"
#include "hypercall.h"
#include "log.h"

static struct kvm_pvclock_scale pvclock_scale;
static volatile bool pvclock_scale_ready;

static struct kvm_pvclock_scale scale_get(void)
{
	/* tsc_hz is fixed after boot: a race here computes the same value twice. */
	if (!READ_ONCE(pvclock_scale_ready)) {
		if (kvm_pvclock_scale_init(tsc_hz, &pvclock_scale))
			kvm_pvclock_scale_init(1000000000ull, &pvclock_scale);
		WRITE_ONCE(pvclock_scale_ready, true);
	}
	return pvclock_scale;
}

static void *map_gpa(void *ctx, uint64_t gpa, uint64_t len)
{
	return gpa_to_hva(ctx, gpa, len);
}

/* A guest can toggle its PV MSRs as often as it likes: the lines they cause
 * share the VM's hypercall console budget (hypercall.c). */
static bool log_ok(void *ctx)
{
	struct vm *vm = ctx;
	bool ok;

	spin_lock(&vm->lock);
	ok = hcall_output_allowed(vm, &vm->rl_console, "console messages");
	spin_unlock(&vm->lock);
	return ok;
}

static void env_get(struct vcpu *v, struct kvm_pv_env *e)
{
	*e = (struct kvm_pv_env){
		.map = map_gpa, .ctx = v->vm, .features = v->vm->vmx.cpuid.kvm_features,
		.tsc = rdtsc(), .tsc_epoch = time_ns_to_tsc(0), .scale = scale_get(),
		.wall_ns_at_epoch = v->vm->devs.rtc->base_ns, .log_ok = log_ok,
	};
}

int kvm_pv_msr(struct vmx_vcpu *vx, uint32_t msr, bool write, uint64_t *val)
{
	struct vcpu *v = vcpu_of(vx);
	struct kvm_pv_vcpu *k = &v->kvm;
	bool clock = k->clock, steal = k->steal, eoi = k->pv_eoi;
	struct kvm_pv_env e;
	int r;

	if (!write)
		return kvm_pv_msr_read(k, v->vm->vmx.cpuid.kvm_features, msr, val);
	env_get(v, &e);
	r = kvm_pv_msr_write(k, &e, msr, *val);
	/* One line when a record is switched on: the evidence a guest uses it. */
	if (!clock && k->clock && log_ok(v->vm))
		pr_info("%s: vcpu%u: kvmclock at gpa %#lx\n", v->vm->p.name, v->vmx.id, *val);
	if (!steal && k->steal && log_ok(v->vm))
		pr_info("%s: vcpu%u: KVM steal time at gpa %#lx\n", v->vm->p.name, v->vmx.id, *val);
	if (!eoi && k->pv_eoi && log_ok(v->vm))
		pr_info("%s: vcpu%u: KVM PV EOI at gpa %#lx\n", v->vm->p.name, v->vmx.id, *val);
	return r;
}

void kvm_pv_vcpu_sched_in(struct vcpu *v)
{
	struct kvm_pv_vcpu *k = &v->kvm;

	if (k->clock) {
		kvm_pvclock_publish(k->clock, rdtsc(), time_ns_to_tsc(0), scale_get());
		k->clock_updates++;
	}
	kvm_pv_preempted_set(k, false);
	kvm_steal_publish(k);
}

void kvm_pv_steal_update(struct vcpu *v, uint64_t steal_ns)
{
	v->kvm.steal_ns = steal_ns;
	kvm_steal_publish(&v->kvm);
}

void kvm_pv_set_preempted(struct vcpu *v, bool preempted)
{
	kvm_pv_preempted_set(&v->kvm, preempted);
}

bool kvm_pv_tlb_flush_take(struct vcpu *v)
{
	return __atomic_exchange_n(&v->kvm.flush_tlb, false, __ATOMIC_SEQ_CST);
}

bool kvm_pv_unhalt_pending(struct vcpu *v)
{
	return READ_ONCE(v->kvm.pv_unhalted);
}

void kvm_pv_unhalt_clear(struct vcpu *v)
{
	WRITE_ONCE(v->kvm.pv_unhalted, false);
}

/* KVM's apic_sync_pv_eoi_to_guest() rule: arm only when the EOI may skip the
 * exit: nothing pending behind it in the vLAPIC or the 8259 (vCPU 0), edge
 * vector. A pending interrupt arriving later kicks the vCPU out, and the exit
 * takes the bit back before anything reads ISR/PPR. */
void kvm_pv_eoi_before_entry(struct vcpu *v, bool vid)
{
	struct kvm_pv_vcpu *k = &v->kvm;
	int vec;

	if (!k->pv_eoi || vid || k->pv_eoi_armed)
		return;
	spin_lock(&v->vm->lock);
	vec = vlapic_pv_eoi_vector(&v->vmx.lapic);
	if (vec >= 0 && v->vmx.id == 0 && vpic_output(&v->vm->devs.intc.pic))
		vec = -1;
	spin_unlock(&v->vm->lock);
	if (vec >= 0)
		kvm_pv_eoi_arm(k);
}

/* After any exit while armed: a cleared bit is the guest's EOI (SDM §11.8.5
 * semantics: the highest ISR vector), performed here as a register write would. */
void kvm_pv_eoi_after_exit_slow(struct vcpu *v)
{
	if (!kvm_pv_eoi_disarm(&v->kvm))
		return;
	spin_lock(&v->vm->lock);
	vlapic_eoi(&v->vmx.lapic);
	spin_unlock(&v->vm->lock);
}

void kvm_pv_vcpu_print(struct vcpu *v)
{
	const struct kvm_pv_vcpu *k = &v->kvm;

	if (!k->clock_updates && !k->steal_msr && !k->pv_eoi_msr && !k->ipis && !k->kicks &&
	    !k->yields)
		return;
	pr_info("summary:   %s vcpu%u kvm-pv clock-updates %lu ipis %lu kicks %lu yields %lu "
		"tlb-flushes %lu pv-eois %lu\n", v->vm->p.name, v->vmx.id, k->clock_updates, k->ipis,
		k->kicks, k->yields, k->flushes, k->pv_eois);
}
