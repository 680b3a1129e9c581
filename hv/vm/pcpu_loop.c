/* The per-pCPU loop (vm_cpu_loop): poll (vm/dev_sweep.c), run what
 * sched_schedule() picks, idle (HLT) when nothing is runnable, park a blocked
 * vCPU's VMCS; and what the run loop (vm/vcpu.c) and the watchdog ask of this
 * pCPU. The scheduler's platform is vm/sched_platform.c. */
#include "vm/sched_platform.h"
#include "vm/dev_sweep.h"
#include "cpu.h"
#include "sched/sched.h"
#include "sched/cosched.h"
#include "hv.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/time.h"
#include "vm/kvm_pv_vcpu.h"
#include "console_input.h"
#include "vm/watchdog.h"
#include "vm/vcpu_pmu.h"
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

stime_t pcpu_deadline(struct cpu *c)
{
	return MIN(READ_ONCE(c->sched.deadline), c->sched.blocked_deadline);
}

bool pcpu_need_resched(struct cpu *c)
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
bool pcpu_entry_check(struct vcpu *v, struct cpu *c)
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
	       "(pcpu%u runs %s): stopping the VM\n", v->vm->p.name, v->vmx.id, cpu,
	       sched_state_name(st), owner, cpu, p->curr == &v->sv ? "it" : "another vCPU");
	vm_stop(v->vm, VM_STOP_SCHED_BROKEN, "sched-invariant");
	return false;
}

const volatile bool *pcpu_resched_flag(struct cpu *c)
{
	return &c->sched.rq.need_resched;
}

void pcpu_view(unsigned cpu, struct pcpu_view *out)
{
	out->heartbeat = READ_ONCE(cpus[cpu].sched.heartbeat);
	out->sched_deadline = READ_ONCE(cpus[cpu].sched.deadline);
	out->blocked_deadline = READ_ONCE(cpus[cpu].sched.blocked_deadline);
	out->idle = READ_ONCE(cpus[cpu].sched.idling);
}

void pcpu_print(void)
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
	/* A vCPU woken to run here (sched_wake_run) is a reason not to halt,
	 * as a reschedule request is: it was published before its kick. */
	if (sched_need_resched(&c->sched.rq) || sched_wake_run_pending(&c->sched.rq) ||
	    unpark_wanted(c)) {
		irq_enable();
		return;
	}
	dev_sweep_blocked(c, time_now());   /* include vCPUs that just blocked here */
	if (sched_need_resched(&c->sched.rq) || sched_wake_run_pending(&c->sched.rq)) {
		irq_enable();
		return;
	}
	dl = MIN(pcpu_deadline(c), console_input_deadline(cpu));
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
		dev_sweep_poll(c, now);
		if (resched || !curr || sched_need_resched(p)) {
			/* Idle, and a wake-up made a vCPU current here: run it
			 * without a pass through the scheduler (sched_wake_run). */
			next = !curr && !sched_need_resched(p) ? to_vcpu(sched_wake_run_take(p)) : NULL;
			if (!next)
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
					vcpu_pmu_vcpu_put(curr);
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
		vcpu_pmu_run_begin(curr);
		end = vcpu_run(curr);
		vcpu_pmu_run_end(curr);
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
			 * (KVM_HC_KICK_CPU, plat_inject, sched_plat_notify);
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
