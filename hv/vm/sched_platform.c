/* The scheduler's platform (hv/sched/platform.h, `struct sched_platform`):
 * time, per-pCPU one-shot timers, kicks, vector injection, shared pages, the
 * kick and timer IRQs; and hv/vm's calls into the scheduler (VMs and vCPUs
 * added, started, notified, stopped; scheduler upcall vectors). The per-pCPU
 * loop is vm/pcpu_loop.c, the sweep of blocked vCPUs' devices vm/dev_sweep.c.
 * Lock order: VM lock -> vintc lock -> runqueue locks (hv/sched). The
 * platform callbacks run under runqueue locks, so they never call back into
 * hv/sched or take a VM lock: inject() only queues the vector, delivered by
 * the vCPU's own pCPU before entry. */
#include "vm/sched_platform.h"
#include "cpu.h"
#include "sched/sched.h"
#include "hv.h"
#include "arch/x86/apic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/time.h"
#include "arch/x86/trap.h"
#include "vm/gmem.h"
#include "vm/bstamp.h"
#include "log.h"

extern char sched_opt_policy[32];

static stime_t plat_now(void *ctx)
{
	return time_now();
}

static void plat_timer_arm(void *ctx, unsigned pcpu, stime_t deadline)
{
	struct cpu *c = cpu_get(pcpu);

	WRITE_ONCE(c->sched.deadline, deadline);
	if (c != cpu_this())
		apic_send_ipi(percpu_area[pcpu].apic_id, VEC_KICK);
}

static void plat_kick(void *ctx, unsigned pcpu)
{
	struct cpu *c = cpu_get(pcpu);

	if (c != cpu_this())
		apic_send_ipi(percpu_area[pcpu].apic_id, VEC_KICK);
	else   /* vcpu_run() re-raises it if its entry is on the way */
		__atomic_fetch_add(&c->sched.kicks, 1, __ATOMIC_RELAXED);
}

static void plat_inject(void *ctx, struct sched_vcpu *sv, uint8_t vector)
{
	struct vcpu *v = to_vcpu(sv);

	__atomic_fetch_or(&v->sched_vectors[vector / 64], 1ull << (vector % 64), __ATOMIC_SEQ_CST);
	WRITE_ONCE(v->kicked, true);
	plat_kick(ctx, sv->pcpu);
}

static struct sched_shared_page *plat_shared_page(void *ctx, struct sched_vcpu *sv)
{
	struct vcpu *v = to_vcpu(sv);

	if (!v->shared_gpa)
		return NULL;
	return gpa_to_hva(v->vm, v->shared_gpa, sizeof(struct sched_shared_page));
}

/* PV ABI v1 "interrupt pending" (balloon cancel-if-pending, SA block ack):
 * an NMI, a vector the vLAPIC would deliver, or an upcall vector not yet
 * moved into it. Takes the VM lock; never called with runqueue locks held. */
static bool plat_irq_pending(void *ctx, struct sched_vcpu *sv)
{
	struct vcpu *v = to_vcpu(sv);
	bool r;

	if (READ_ONCE(v->vmx.lapic.nmi_pending) || dev_sweep_vectors_pending(v))
		return true;
	spin_lock(&v->vm->lock);
	r = vintc_pending(&v->vm->devs.intc, v->vmx.id) >= 0;
	spin_unlock(&v->vm->lock);
	return r;
}

static const struct sched_platform plat = {
	.now = plat_now, .timer_arm = plat_timer_arm, .kick = plat_kick,
	.inject = plat_inject, .shared_page = plat_shared_page,
	.irq_pending = plat_irq_pending,
};

static void kick_handler(struct trap_frame *f)
{
	struct cpu *c = cpu_this();

	BSTAMP_HERE(BS_T_IRQ);
	apic_eoi();
	c->sched.kicks++;   /* interrupts off: vcpu_run() compares it before the entry */
	sched_kicked(&c->sched.rq, time_now());
}

static void timer_handler(struct trap_frame *f)
{
	apic_eoi();
}

void sched_plat_init(void)
{
	stime_t now = time_now();

	for (unsigned c = 0; c < MAX_CPUS; c++)
		cpus[c].sched.deadline = cpus[c].sched.blocked_deadline = STIME_NEVER;
	sched_platform_set(&plat);
	if (sched_init(sched_opt_policy[0] ? sched_opt_policy : NULL))
		panic("no scheduler policy could be started");
	for (unsigned c = 0; c < nr_cpus_online; c++)
		sched_pcpu_add(&cpus[c].sched.rq, c, now);
	irq_register(VEC_KICK, kick_handler);
	irq_register(VEC_TIMER, timer_handler);
}

int sched_plat_vm_add(struct vm *vm)
{
	struct sched_vm_params prm = {
		.weight = vm->p.weight, .cap = vm->p.cap, .type = vm->p.con ? SCHED_TYPE_CON : SCHED_TYPE_HIT,
		.sa = vm->p.sa,
	};
	stime_t now = time_now();
	int err = sched_vm_add(&vm->sv, (uint16_t)vm->id, &prm);

	for (unsigned i = 0; !err && i < vm->nr_vcpus; i++) {
		struct vcpu *v = vm->vcpu[i];

		err = sched_vcpu_add(&v->sv, &vm->sv, (uint16_t)i, now);
		if (!err && vm->p.pcpus[i] >= 0) {
			struct cpumask m;

			cpumask_zero(&m);
			cpumask_set(&m, (unsigned)vm->p.pcpus[i] % nr_cpus_online);
			err = sched_vcpu_affinity_set(&v->sv, &m, now);
		}
	}
	return err;
}

void sched_plat_vcpu_start(struct vcpu *v)
{
	sched_vcpu_start(&v->sv, time_now());
}

void sched_plat_notify(struct vcpu *v)
{
	unsigned pcpu;
	int woke = SCHED_WOKE_NOT;

	WRITE_ONCE(v->kicked, true);   /* no fast re-entry: look at the vLAPIC */
	/* A halted vCPU, or one the balloon put to sleep, wakes on an event;
	 * on a pCPU idle for it, it may become that pCPU's vCPU at once
	 * (sched_wake_run, docs/vmx.md "Wake and run here"). */
	if ((READ_ONCE(v->halted) && v->sv.state == SCHED_BLOCKED) ||
	    (v->sv.flags & SCHED_VF_BALLOON))
		woke = sched_wake_run(&v->sv, time_now());
	pcpu = READ_ONCE(v->sv.pcpu);
	BSTAMP_SENDER(pcpu);
	if (woke == SCHED_WOKE_RUN) {   /* the scheduler kicked its pCPU */
		if (pcpu != this_cpu_id())
			BSTAMP_TARGET(pcpu, BS_S_KICK);
		return;
	}
	if (pcpu != this_cpu_id() && READ_ONCE(cpus[pcpu].sched.rq.curr) == &v->sv) {
		/* A halt-polling v sees `kicked` itself (vm/halt_poll.c: Dekker). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (READ_ONCE(v->halt_polling))
			return;
		apic_send_ipi(percpu_area[pcpu].apic_id, VEC_KICK);
		BSTAMP_TARGET(pcpu, BS_S_KICK);
	}
}

void sched_plat_repoll(struct vcpu *v)
{
	unsigned pcpu = READ_ONCE(v->sv.pcpu);

	WRITE_ONCE(v->kicked, true);   /* a halt-polling v re-reads its deadline */
	if (pcpu != this_cpu_id())
		apic_send_ipi(percpu_area[pcpu].apic_id, VEC_KICK);
}

void vm_vcpu_yield_to(struct vcpu *self, struct vcpu *target)
{
	sched_vcpu_yield(&self->sv, target ? &target->sv : NULL, SCHED_YIELD_HYPERCALL,
			 time_now());
}

void sched_plat_vm_stopped(struct vm *vm)
{
	stime_t now = time_now();

	for (unsigned i = 0; i < vm->nr_vcpus; i++)
		sched_vcpu_pause(&vm->vcpu[i]->sv, now);
}

void sched_plat_deliver_pending(struct vcpu *v)
{
	for (unsigned w = 0; w < 4; w++) {
		uint64_t bits = __atomic_exchange_n(&v->sched_vectors[w], 0, __ATOMIC_SEQ_CST);

		while (bits) {
			unsigned b = (unsigned)__builtin_ctzll(bits);
			struct apic_msg m = { .vector = (uint8_t)(w * 64 + b), .mode = 0 };

			bits &= bits - 1;
			spin_lock(&v->vm->lock);
			vlapic_accept_msg(&v->vmx.lapic, &m);
			spin_unlock(&v->vm->lock);
		}
	}
}

