/* The simulated guest's load balancing (VMs with `gbal=on`; seed 000 §2
 * "Potential of guest OS load balancing"): wake-up placement, newly idle and
 * periodic pulls, as Linux's CFS does them, on the guest model of guest.c. */
#include "sim.h"
#include "guest_impl.h"

bool guest_idle(const struct sim_vcpu *v)
{
	return !v->cur && !v->rq_head && !v->in_handler && !v->in_ack;
}

/* An idle vCPU the guest would place a thread on: a PV guest (steal time,
 * vcpu_is_preempted in available_idle_cpu) skips preempted ones. */
static bool idle_target(const struct sim *s, const struct sim_vcpu *v)
{
	return guest_idle(v) && !(s->vm[v->vm].pv && pv_preempted(v));
}

/* Wake-up placement (select_task_rq_fair / select_idle_sibling): the
 * previous vCPU if idle, else an idle sibling, else the previous one. IRS's
 * Fig. 4 tweak: a waker whose previous vCPU runs a task the migrator moved
 * there preempts it instead of migrating (guest_event requeues the tag). */
struct sim_vcpu *wake_target(struct sim *s, struct sim_thread *t)
{
	struct sim_vm *vm = &s->vm[t->vm];
	struct sim_vcpu *prev = &s->vcpu[t->vcpu];

	if (!vm->gbal || t->cls == TC_BALLOON || idle_target(s, prev))
		return prev;
	if (vm->irs && prev->cur && prev->cur->migrated && !pv_preempted(prev)) {
		prev->fig4 = true;
		return prev;
	}
	for (int i = 1; i < vm->nvcpus; i++) {
		struct sim_vcpu *u = &s->vcpu[vm->first_vcpu + (prev->id + i) % vm->nvcpus];

		if (idle_target(s, u))
			return u;
	}
	return prev;
}

/* Newly idle balancing (idle_balance): before halting, pull a queued thread
 * from the sibling with the most queued ones. A thread current on a vCPU,
 * even a preempted one, cannot be pulled: that is the case IRS handles. */
bool guest_pull(struct sim *s, struct sim_vcpu *v, int min_gap)
{
	struct sim_vm *vm = &s->vm[v->vm];
	struct sim_vcpu *busiest = NULL;
	int mine = (v->cur ? 1 : 0) + v->nrq, best = 0;

	for (int i = 0; i < vm->nvcpus; i++) {
		struct sim_vcpu *u = &s->vcpu[vm->first_vcpu + i];
		int nr = (u->cur ? 1 : 0) + u->nrq, gap = min_gap;
		bool movable = false;

		for (struct sim_thread *t = u->rq_head; t; t = t->next)
			movable |= t->cls != TC_BALLOON;
		/* A PV guest sees a preempted sibling's capacity shrink by its
		 * steal time: one queued thread there is already an imbalance. */
		if (vm->pv && pv_preempted(u))
			gap = MIN(gap, 1);
		if (u == v || !movable || nr - mine < gap || nr <= best)
			continue;
		best = nr;
		busiest = u;
	}
	if (!busiest)
		return false;
	{
		struct sim_thread *last = NULL;

		for (struct sim_thread *q = busiest->rq_head; q; q = q->next)
			if (q->cls != TC_BALLOON)
				last = q;
		rq_remove(busiest, last);
		thread_set_vcpu(s, last, v);
		rq_push(v, last);
	}
	return true;
}

/* Periodic guest load balancing (the scheduler tick's rebalance), for every
 * running vCPU of a balancing VM: pull when the busiest sibling runs two
 * more threads. */
void guest_balance_tick(struct sim *s)
{
	for (int i = 0; i < s->nvcpus; i++) {
		struct sim_vcpu *v = &s->vcpu[i];

		if (!s->vm[v->vm].gbal || v->in_handler)
			continue;
		/* Blocked in its ack hypercall: the stopper is current, the tick
		 * runs (Linux stops it only in idle), and its interrupt wakes the
		 * vCPU (docs/pv-abi.md "SA ack": block as on HLT). */
		if (v->in_ack) {
			if (sched_vcpu_waits_event(&v->sv))
				sched_wake(&v->sv, s->now);
			continue;
		}
		/* NOHZ idle balancing: a busy vCPU's tick kicks a halted sibling
		 * (IPI), which pulls a queued thread (nohz_balancer_kick). */
		if (v->sv.state == SCHED_BLOCKED && guest_idle(v)) {
			if (guest_pull(s, v, 2))
				sched_wake(&v->sv, s->now);
			continue;
		}
		if (v->pcpu < 0 || v->sv.state != SCHED_RUNNING)
			continue;
		guest_sync(s, v);
		if (guest_pull(s, v, 2))
			guest_plan(s, v);
	}
	simq_push(&s->q, s->now + s->gbal_period, EV_GBAL, 0, 0);
}

