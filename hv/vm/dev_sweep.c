/* The loop-top poll of each pCPU (dev_sweep_poll, from vm/pcpu_loop.c and
 * vm/vcpu.c): its scheduler timer, the device sweep, the debug BSP sweep,
 * its heartbeat, console input and the watchdog. The device sweep: the
 * blocked or balloon-sleeping vCPUs of a pCPU get their device timers
 * advanced and are woken for an interrupt to take, also before the pCPU
 * idles. The scheduler upcall vectors' test is here because the sweep is
 * its hot reader (inlined there). */
#include "vm/dev_sweep.h"
#include "vm/sched_platform.h"
#include "cpu.h"
#include "sched/sched.h"
#include "hv.h"
#include "arch/x86/time.h"
#include "console_input.h"
#include "vm/watchdog.h"
#include "vm/bstamp.h"
#include "log.h"
#include "cmdline.h"

/* Blocked or balloon-sleeping vCPUs whose runqueue is this pCPU: advance their
 * device timers and wake those with an interrupt to take (a sleeper left out
 * here never saw its own LAPIC timer fire and slept forever). */
void dev_sweep_blocked(struct cpu *c, stime_t now)
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
			 * is an interrupt too: plat_inject (vm/sched_platform.c)
			 * kicked this pCPU. */
			if (dev_sweep_vectors_pending(v) && vcpu_has_wakeup(v)) {
				sched_wake_run(&v->sv, time_now());
				continue;
			}
			dl = vm_devs_next_deadline(vm, j);
			if (dl <= now) {
				vm_devs_advance(vm, j, now);
				/* A timer that raised an interrupt woke v already
				 * (vLAPIC kick -> sched_plat_notify -> sched_wake):
				 * no second wake-up test under the VM lock (issue 18:
				 * ~360 cycles of every timer wake-up). */
				if (!sched_vcpu_waits_event(&v->sv) || vcpu_has_wakeup(v)) {
					BSTAMP_TIMER(time_ns_to_tsc(dl));
					if (sched_vcpu_waits_event(&v->sv))
						sched_wake_run(&v->sv, time_now());
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
 * (at most 8 times) and make that pCPU look again (sched_plat_repoll). */
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
			sched_plat_repoll(v);
		}
	}
}

void dev_sweep_poll(struct cpu *c, stime_t now)
{
	unsigned cpu = c->sched.rq.id;

	if (now >= READ_ONCE(c->sched.deadline)) {
		WRITE_ONCE(c->sched.deadline, STIME_NEVER);
		sched_timer_fire(&c->sched.rq, time_now());
	}
	/* Always recomputed: a vCPU that blocked since the last poll may have
	 * an earlier deadline than the one cached (a cached value let a guest's
	 * 10 ms sleep last 940 ms). */
	dev_sweep_blocked(c, now);
	if (unlikely(opt_debug_bsp_sweep))
		blocked_sweep(cpu, now);
	WRITE_ONCE(c->sched.heartbeat, now);
	console_input_poll(cpu, now);   /* BSP only, rate-limited: the dump key */
	watchdog_poll(cpu, now);
}

bool dev_sweep_vectors_pending(struct vcpu *v)
{
	for (unsigned w = 0; w < 4; w++)
		if (READ_ONCE(v->sched_vectors[w]))
			return true;
	return false;
}

