/* Scheduler glue (see sched_glue.h). Lock order: VM lock -> vintc lock ->
 * runqueue locks (hv/sched). The platform callbacks run under runqueue locks,
 * so they never call back into hv/sched or take a VM lock: inject() only
 * queues the vector, delivered by the vCPU's own pCPU before entry. */
#include "vm/sched_glue.h"
#include "cpu.h"
#include "sched/sched.h"
#include "sched/cosched.h"
#include "hv.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/time.h"
#include "arch/x86/trap.h"
#include "vm/gmem.h"
#include "vmx/kvm_pv.h"
#include "console_input.h"
#include "vm/watchdog.h"
#include "vm/pmu_glue.h"
#include "vm/bstamp.h"
#include "log.h"
#include "vm_status.h"
#include "cmdline.h"

/* Keep a blocked vCPU's VMCS current while its pCPU idles (below). */
static bool opt_vmcs_park = true;
CMDLINE_BOOL(vmcs_park, opt_vmcs_park,
	     "an idle pCPU keeps the VMCS of the vCPU that blocked there current (on)");
/* Test only: a parked vCPU's affinity moves to the next pCPU, so that its
 * wake-up loads it there and the handshake of vcpu_load() runs (guest test
 * "timerwake4 vmcs_park_bounce"; without the handshake that run hangs). */
static bool opt_vmcs_park_bounce;
CMDLINE_BOOL(vmcs_park_bounce, opt_vmcs_park_bounce,
	     "debug: move each parked vCPU's affinity to the next pCPU (off)");

extern char sched_opt_policy[32];


static inline struct vcpu *to_vcpu(struct sched_vcpu *sv)
{
	return sv ? container_of(sv, struct vcpu, sv) : NULL;
}

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
	if (cpu_get(pcpu) != cpu_this())
		apic_send_ipi(percpu_area[pcpu].apic_id, VEC_KICK);
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

	if (READ_ONCE(v->lapic.nmi_pending) || sched_glue_vectors_pending(v))
		return true;
	spin_lock(&v->vm->lock);
	r = vintc_pending(&v->vm->devs.intc, v->id) >= 0;
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
	BSTAMP_HERE(BS_T_IRQ);
	apic_eoi();
	sched_kicked(&cpu_this()->sched.rq, time_now());
}

static void timer_handler(struct trap_frame *f)
{
	apic_eoi();
}

void sched_glue_init(void)
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

int sched_glue_vm_add(struct vm *vm)
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

void sched_glue_vcpu_start(struct vcpu *v)
{
	sched_vcpu_start(&v->sv, time_now());
}

void sched_glue_notify(struct vcpu *v)
{
	unsigned pcpu;

	WRITE_ONCE(v->kicked, true);   /* no fast re-entry: look at the vLAPIC */
	/* A halted vCPU, or one the balloon put to sleep, wakes on an event. */
	if ((READ_ONCE(v->state) == VCPU_HALTED && v->sv.state == SCHED_BLOCKED) ||
	    (v->sv.flags & SCHED_VF_BALLOON))
		sched_wake(&v->sv, time_now());
	pcpu = READ_ONCE(v->sv.pcpu);
	BSTAMP_SENDER(pcpu);
	if (pcpu != this_cpu_id() && READ_ONCE(cpus[pcpu].sched.rq.curr) == &v->sv) {
		/* A halt-polling v sees `kicked` itself (vm/halt_poll.c: Dekker). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (READ_ONCE(v->halt_polling))
			return;
		apic_send_ipi(percpu_area[pcpu].apic_id, VEC_KICK);
		BSTAMP_TARGET(pcpu, BS_S_KICK);
	}
}

void sched_glue_repoll(struct vcpu *v)
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

void sched_glue_vm_stopped(struct vm *vm)
{
	stime_t now = time_now();

	for (unsigned i = 0; i < vm->nr_vcpus; i++)
		sched_vcpu_pause(&vm->vcpu[i]->sv, now);
}

stime_t sched_glue_deadline(struct cpu *c)
{
	return MIN(READ_ONCE(c->sched.deadline), c->sched.blocked_deadline);
}

bool sched_glue_need_resched(struct cpu *c)
{
	return sched_need_resched(&c->sched.rq);
}

/*
 * A cheap invariant check before each entry from vcpu_run() (issue 15: a
 * guest segfault under a scheduler option was first suspected to be a vCPU
 * run on two pCPUs). The vCPU entered here must be this pCPU's running one:
 * RUNNABLE means a runqueue holds it, so another pCPU may pick it and enter
 * it too (vcpu_load only serialises the VMCS, not the scheduler's view);
 * BLOCKED means a wake may queue it; another pcpu means it was moved while
 * it ran. Two loads on the path; the lock only to confirm: a remote pause or
 * start in progress changes the state and sets need_resched under it (the
 * loop then switches away), so the unlocked reading may be transitional.
 * A confirmed violation stops only v's VM.
 */
bool sched_glue_entry_check(struct vcpu *v, struct cpu *c)
{
	unsigned cpu = (unsigned)(c - cpus);
	struct sched_pcpu *p = &c->sched.rq;
	uint8_t st;
	unsigned owner;
	bool bad;

	spin_lock(&p->lock);
	st = v->sv.state;
	owner = v->sv.pcpu;
	bad = !p->need_resched && (p->curr != &v->sv || owner != cpu ||
				   st == SCHED_RUNNABLE || st == SCHED_BLOCKED);
	spin_unlock(&p->lock);
	if (likely(!bad))
		return true;
	pr_err("%s: vcpu%u: about to enter on pcpu%u but the scheduler has it %s on pcpu%u "
	       "(pcpu%u runs %s): stopping the VM\n", v->vm->p.name, v->id, cpu,
	       sched_state_name(st), owner, cpu, p->curr == &v->sv ? "it" : "another vCPU");
	vm_stop(v->vm, VM_STOP_SCHED_BROKEN, "sched-invariant");
	return false;
}

const volatile bool *sched_glue_resched_flag(struct cpu *c)
{
	return &c->sched.rq.need_resched;
}

/* Blocked or balloon-sleeping vCPUs whose runqueue is this pCPU: advance their
 * device timers and wake those with an interrupt to take (a sleeper left out
 * here never saw its own LAPIC timer fire and slept forever). */
static void poll_blocked(struct cpu *c, stime_t now)
{
	unsigned cpu = c->sched.rq.id;
	stime_t next = STIME_NEVER;

	for (unsigned i = 0; i < nr_vms; i++) {
		struct vm *vm = vms[i];

		if (vm->state != VM_RUNNING)
			continue;
		for (unsigned j = 0; j < vm->nr_vcpus; j++) {
			struct vcpu *v = vm->vcpu[j];
			stime_t dl;

			if (READ_ONCE(v->sv.pcpu) != cpu || !sched_vcpu_waits_event(&v->sv))
				continue;
			/* An upcall injected by the scheduler (balloon mode change)
			 * is an interrupt too: plat_inject kicked this pCPU. */
			if (sched_glue_vectors_pending(v) && vcpu_has_wakeup(v)) {
				sched_wake(&v->sv, time_now());
				continue;
			}
			dl = vm_devs_next_deadline(vm, j);
			if (dl <= now) {
				vm_devs_advance(vm, j, now);
				/* A timer that raised an interrupt woke v already
				 * (vLAPIC kick -> sched_glue_notify -> sched_wake):
				 * no second wake-up test under the VM lock (issue 18:
				 * ~360 cycles of every timer wake-up). */
				if (!sched_vcpu_waits_event(&v->sv) || vcpu_has_wakeup(v)) {
					BSTAMP_TIMER(time_ns_to_tsc(dl));
					if (sched_vcpu_waits_event(&v->sv))
						sched_wake(&v->sv, time_now());
					continue;
				}
				dl = vm_devs_next_deadline(vm, j);
			}
			next = MIN(next, dl);
		}
	}
	c->sched.blocked_deadline = next;
}

/* Issue 17 replay, debug only (off by default): 789f93f's blocked-vCPU
 * sweep, dropped in 3fed4fe after `make test-linux-hv` hung in 3 of 6 runs
 * with it. Every 10 ms the BSP looks at every blocked vCPU; one whose device
 * deadline passed more than 20 ms ago was not polled by its pCPU: say so
 * (at most 8 times) and make that pCPU look again (sched_glue_repoll). */
static bool opt_debug_bsp_sweep;
CMDLINE_BOOL(debug_bsp_sweep, opt_debug_bsp_sweep,
	     "debug (issue 17 replay): 789f93f's BSP sweep re-polling blocked vCPUs past their timer");

#define SWEEP_NS (10 * 1000000ll)
#define LATE_NS  (20 * 1000000ll)
static void blocked_sweep(unsigned cpu, stime_t now)
{
	static stime_t next_sweep;
	static unsigned reported, late;

	if (cpu != 0 || now < next_sweep)
		return;
	next_sweep = now + SWEEP_NS;
	for (unsigned i = 0; i < nr_vms; i++) {
		struct vm *vm = vms[i];

		if (vm->state != VM_RUNNING)
			continue;
		for (unsigned j = 0; j < vm->nr_vcpus; j++) {
			struct vcpu *v = vm->vcpu[j];
			unsigned pcpu;
			stime_t dl;

			if (READ_ONCE(v->sv.state) != SCHED_BLOCKED)
				continue;
			dl = vm_devs_next_deadline(vm, j);
			if (dl >= STIME_NEVER || now - dl < LATE_NS)
				continue;
			late++;
			pcpu = READ_ONCE(v->sv.pcpu);
			if (reported < 8) {
				reported++;
				pr_warn("%s: vcpu%u blocked %ld ms past its timer on pcpu%u "
					"(blocked deadline there %ld ms ago; late #%u); waking that pCPU\n",
					vm->p.name, j, (long)((now - dl) / 1000000), pcpu,
					(long)((now - READ_ONCE(cpus[pcpu].sched.blocked_deadline)) / 1000000),
					late);
			}
			sched_glue_repoll(v);
		}
	}
}

void sched_glue_poll(struct cpu *c, stime_t now)
{
	unsigned cpu = c->sched.rq.id;

	if (now >= READ_ONCE(c->sched.deadline)) {
		WRITE_ONCE(c->sched.deadline, STIME_NEVER);
		sched_timer_fire(&c->sched.rq, time_now());
	}
	/* Always recomputed: a vCPU that blocked since the last poll may have
	 * an earlier deadline than the one cached (a cached value let a guest's
	 * 10 ms sleep last 940 ms). */
	poll_blocked(c, now);
	if (unlikely(opt_debug_bsp_sweep))
		blocked_sweep(cpu, now);
	WRITE_ONCE(c->sched.heartbeat, now);
	console_input_poll(cpu, now);   /* BSP only, rate-limited: the dump key */
	watchdog_poll(cpu, now);
}

void sched_glue_pcpu_view(unsigned cpu, struct sched_glue_pcpu_view *out)
{
	out->heartbeat = READ_ONCE(cpus[cpu].sched.heartbeat);
	out->sched_deadline = READ_ONCE(cpus[cpu].sched.deadline);
	out->blocked_deadline = READ_ONCE(cpus[cpu].sched.blocked_deadline);
	out->idle = READ_ONCE(cpus[cpu].sched.idling);
}

bool sched_glue_vectors_pending(struct vcpu *v)
{
	for (unsigned w = 0; w < 4; w++)
		if (READ_ONCE(v->sched_vectors[w]))
			return true;
	return false;
}

void sched_glue_deliver_pending(struct vcpu *v)
{
	for (unsigned w = 0; w < 4; w++) {
		uint64_t bits = __atomic_exchange_n(&v->sched_vectors[w], 0, __ATOMIC_SEQ_CST);

		while (bits) {
			unsigned b = (unsigned)__builtin_ctzll(bits);
			struct apic_msg m = { .vector = (uint8_t)(w * 64 + b), .mode = 0 };

			bits &= bits - 1;
			spin_lock(&v->vm->lock);
			vlapic_accept_msg(&v->lapic, &m);
			spin_unlock(&v->vm->lock);
		}
	}
}

void sched_glue_print(void)
{
	for (unsigned c = 0; c < nr_cpus_online; c++) {
		const struct sched_pcpu *p = &cpus[c].sched.rq;

		pr_info("summary: pcpu%u schedule %lu switches %lu idle %ld ms\n", c,
			p->nschedule, p->nswitch, p->idle_time / 1000000);
		if (cpus[c].sched.nparked)
			pr_info("summary: pcpu%u vmcs parked %lu resumed %lu unparked for another pcpu %lu\n",
				c, cpus[c].sched.nparked, cpus[c].sched.nresumed,
				cpus[c].sched.nunparked);
	}
	if (cosched_stats.ops)   /* a co-scheduling policy ran (docs/sched.md) */
		pr_info("summary: cosched ops %llu signals %llu codesched %llu refused %llu\n",
			(unsigned long long)cosched_stats.ops,
			(unsigned long long)cosched_stats.signals,
			(unsigned long long)cosched_stats.codesched,
			(unsigned long long)cosched_stats.refused);
	BSTAMP_PRINT();
}

/*
 * Parking (issue 19, docs/vmx.md "Where a wake-up goes"). When the vCPU that
 * blocked here leaves the pCPU idle, its VMCS stays current and active here
 * (no VMCLEAR, FPU and PMU state left loaded) until this pCPU runs another
 * vCPU or another pCPU wants it; if the scheduler picks it again here, as
 * it does for a wake-up of the only vCPU of an idle pCPU, vcpu_load()
 * needs no VMPTRLD and vcpu_put() ran not at all. The scheduler is called
 * exactly as before: only the VMCS and FPU switch is saved (the PMU counts
 * are flushed to vProfile at the park, as a put would). A VMCS may be active
 * on one processor only and only that one may VMCLEAR it (SDM Vol. 3
 * §25.1, §25.11.3): another pCPU that picked a parked vCPU asks this one
 * (vcpu_load(): unpark_req and a kick IPI), which puts it at its loop top
 * or instead of halting.
 */
static void unpark(struct cpu *c)
{
	struct vcpu *v = c->sched.parked;

	if (!v)
		return;
	WRITE_ONCE(c->sched.parked, NULL);
	vcpu_put(v);
}

static bool unpark_wanted(struct cpu *c)
{
	struct vcpu *v = READ_ONCE(c->sched.parked);

	return v && READ_ONCE(v->unpark_req);
}

static void idle_wait(struct cpu *c, unsigned cpu)
{
	stime_t dl;

	irq_disable();
	if (sched_need_resched(&c->sched.rq) || unpark_wanted(c)) {
		irq_enable();
		return;
	}
	poll_blocked(c, time_now());   /* include vCPUs that just blocked here */
	if (sched_need_resched(&c->sched.rq)) {
		irq_enable();
		return;
	}
	dl = MIN(sched_glue_deadline(c), console_input_deadline(cpu));
	dl = MIN(dl, watchdog_deadline(cpu));
	apic_timer_oneshot(dl == STIME_NEVER || dl == STIME_MAX ? 0 : time_ns_to_tsc(dl));
	BSTAMP_HERE(BS_IDLE);
	WRITE_ONCE(c->sched.idling, true);
	cpu_safe_halt();   /* a kick that arrived meanwhile is pending: no lost wake-up */
	WRITE_ONCE(c->sched.idling, false);
	irq_enable();
}

static void finish_or_park(unsigned cpu)
{
	if (cpu == 0)
		vm_finish();
	irq_disable();
	for (;;)
		cpu_halt();
}

void vm_cpu_loop(void)
{
	unsigned cpu = this_cpu_id();
	struct cpu *c = cpu_this();
	struct sched_pcpu *p = &c->sched.rq;
	struct vcpu *curr = NULL;
	bool resched = true;

	vm_wait_ready();
	irq_enable();
	for (;;) {
		stime_t now = time_now(), until;
		struct vcpu *next;
		enum vcpu_run_end end;

		if (vm_all_dead())
			finish_or_park(cpu);
		if (unlikely(unpark_wanted(c))) {
			c->sched.nunparked++;
			unpark(c);
		}
		sched_glue_poll(c, now);
		if (resched || !curr || sched_need_resched(p)) {
			next = to_vcpu(sched_schedule(p, time_now(), &until));
			BSTAMP_HERE(BS_T_SCHED);
			if (curr && curr != next) {
				/* Involuntarily off the pCPU: KVM's steal-time `preempted`. */
				if (curr->sv.state == SCHED_RUNNABLE)
					kvm_pv_set_preempted(curr, true);
				if (!next && opt_vmcs_park && curr->sv.state == SCHED_BLOCKED) {
					/* Idle for it: park (above). Its PMU
					 * counts go to vProfile now, as at a put
					 * (the later put flushes nothing). Published
					 * before idle_wait reads unpark_req. */
					pmu_glue_vcpu_put(curr);
					WRITE_ONCE(c->sched.parked, curr);
					__atomic_thread_fence(__ATOMIC_SEQ_CST);
					c->sched.nparked++;
					if (unlikely(opt_vmcs_park_bounce) && nr_cpus_online > 1) {
						struct cpumask m;

						cpumask_zero(&m);
						cpumask_set(&m, (cpu + 1) % nr_cpus_online);
						sched_vcpu_affinity_set(&curr->sv, &m, time_now());
					}
				} else {
					vcpu_put(curr);
				}
			}
			if (next && c->sched.parked) {
				if (next == c->sched.parked) {
					WRITE_ONCE(c->sched.parked, NULL);   /* vcpu_load: no VMPTRLD */
					c->sched.nresumed++;
				} else {
					unpark(c);   /* before another VMCS becomes current */
				}
			}
			if (next && next != curr) {
				kvm_pv_steal_update(next, (uint64_t)next->sv.st.time[SCHED_RUNNABLE]);
				kvm_pv_vcpu_sched_in(next);
			}
			curr = next;
		}
		if (!curr) {
			idle_wait(c, cpu);
			continue;
		}
		pmu_glue_run_begin(curr);
		end = vcpu_run(curr);
		pmu_glue_run_end(curr);
		now = time_now();
		/* Anything but a preemption is a voluntary end: always choose again. */
		resched = end != VCPU_RUN_PREEMPTED;
		switch (end) {
		case VCPU_RUN_BLOCKED:
			sched_block(&curr->sv, now);
			BSTAMP_HERE(BS_BLOCK);
			/* A wake-up that came while it still counted as running.
			 * Store-load fence (x86 TSO, SDM vol. 3 §9.2.3.4): the
			 * BLOCKED store (a plain release at the unlock) must be
			 * visible before the unlocked loads of pv_unhalted / NMI /
			 * scheduler vectors, as the notifier stores those with a
			 * locked / SEQ_CST store before it reads sv.state
			 * (KVM_HC_KICK_CPU, plat_inject, sched_glue_notify);
			 * else both miss each other on real hardware (Bochs has
			 * no store buffer). */
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			if (vcpu_has_wakeup(curr))
				sched_wake(&curr->sv, time_now());
			break;
		case VCPU_RUN_YIELD:
			sched_ple_exit(&curr->sv, now);   /* directed yield (hv/sched/ple.c) */
			break;
		case VCPU_RUN_OFFLINE:
			sched_vcpu_pause(&curr->sv, now);
			break;
		case VCPU_RUN_PREEMPTED:
			break;
		}
	}
}
