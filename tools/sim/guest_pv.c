/* The simulated guest's PV halves (PV ABI v1, docs/pv-abi.md): the IRS
 * receiver, context switcher and migrator (seed 000 Alg. 2) and the CPU
 * balloon (seed 004 §4-5), on the guest model of guest.c. */
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "vmx/exit_reasons.h"
#include "abi.h"
#include "guest_impl.h"

/* Alg. 2 migrator target for the task leaving v, as the Linux migrator
 * (patch 0102 irs_pick_target) picks it: only siblings that run (line 7: a
 * preempted vCPU is skipped, and so is one with an SA upcall pending, which
 * is about to be preempted), an idle one first (lines 8-10), else the least
 * loaded running one (lines 12-17; the load is the run queue length). NULL
 * when every sibling is preempted or about to be (Alg. 2 returns FAIL). */
static struct sim_vcpu *irs_target(struct sim *s, struct sim_vcpu *v)
{
	struct sim_vm *vm = &s->vm[v->vm];
	struct sim_vcpu *best = NULL;
	int bload = 0;

	for (int i = 1; i < vm->nvcpus; i++) {
		struct sim_vcpu *u = &s->vcpu[vm->first_vcpu + (v->id + i) % vm->nvcpus];
		int load = (u->cur ? 1 : 0) + u->nrq;

		if (pv_preempted(u) || pv_sa_pending(u))
			continue;
		if (guest_idle(u))
			return u;
		if (!best || load < bload) {
			best = u;
			bload = load;
		}
	}
	return best;
}

static bool vm_irs_block(const struct sim *s, const struct sim_vcpu *v)
{
	return s->vm[v->vm].irs_block;
}

/* The SA receiver ran for the configured latency: context switcher and
 * migrator (seed 000 Alg. 2), then the ack: block when nothing is left to
 * run on v, yield otherwise (issue 14 "Context switcher"). */
void guest_pv_sa_finish(struct sim *s, struct sim_vcpu *v)
{
	struct sim_thread *t = v->cur;
	struct sched_vcpu_stats st;
	int op;

	v->in_handler = false;
	v->sa_handled++;
	if (t && t->cls != TC_BALLOON && t->state != T_DONE) {
		struct sim_vcpu *to = irs_target(s, v);

		if (to) {
			v->cur = NULL;
			t->state = T_READY;
			t->migrated = true;
			thread_set_vcpu(s, t, to);
			rq_push(to, t);
			v->sa_migrate++;
			if (s->vm[v->vm].irs_pullback)
				v->sa_moved = t;   /* looked at when the ack returns */
			vcpu_kick(s, to);
		} else {
			v->sa_nomove++;
		}
	}
	/* §3.2: block when nothing is left to run, yield otherwise (the guest's
	 * default irs_block=1); `irs_block=off` (guest irs_block=0, patch 0105)
	 * always yields: a blocked vCPU looks idle and not preempted to the
	 * guest, which then wakes tasks on it while the hypervisor may not run
	 * it for a slice or more. */
	op = vm_irs_block(s, v) && !v->cur && !v->rq_head ? HV_SA_ACK_BLOCK : HV_SA_ACK_YIELD;
	guest_trace_exit(s, v, EXIT_REASON_VMCALL);
	if (pv_sa_ack(s, v, op, v->hnd_seq)) {
		v->sa_stale++;             /* late: already preempted meanwhile */
		guest_plan(s, v);
		return;
	}
	sched_vcpu_stats(&v->sv, s->now, &st);
	st.time[SCHED_RUNNING] -= v->sa_inj_run;
	v->sa_lat_sum += st.time[SCHED_RUNNING];
	v->sa_lat_max = MAX(v->sa_lat_max, st.time[SCHED_RUNNING]);
	if (op == HV_SA_ACK_BLOCK)
		v->sa_ack_block++;
	else
		v->sa_ack_yield++;
	/* The stopper stays current in the ack hypercall until the hypervisor
	 * runs v again (guest_event clears it): busy to the other vCPUs. */
	v->in_ack = s->vm[v->vm].irs_ack_busy;
	engine_resched(s, v->pcpu);
}

/* Guest patch 0106 (irs_pullback, on by default in the guest and here):
 * the ack hypercall returns only when the hypervisor runs v again, so v's
 * first guest event after its ack is that return. If nothing is left to run
 * on v and the thread the upcall moved still waits queued (tagged, not
 * current) on its target, take it back: seed 000 §3.3 leaves that move
 * back to the guest's balancer ("the Linux balancer will migrate the tagged
 * task back to its original vCPU"), which in 6.1 was too late when the
 * target was busy or itself preempted (docs/sched.md "IRS, guest half"). A
 * thread that runs, was woken or moved again (tag cleared, or on another
 * vCPU's current) stays. Called before the pending interrupt is taken: the
 * kernel's stopper pulls back with interrupts off. */
void guest_pv_pull_back(struct sim *s, struct sim_vcpu *v)
{
	struct sim_thread *t = v->sa_moved, *q;
	struct sim_vcpu *to;

	v->sa_moved = NULL;
	if (!t || v->cur || v->rq_head || v->in_handler || !t->migrated || t->vcpu == v->idx ||
	    t->state != T_READY)
		return;
	to = &s->vcpu[t->vcpu];
	for (q = to->rq_head; q && q != t; q = q->next)
		;
	if (!q || to->cur == t)
		return;
	rq_remove(to, t);
	t->migrated = false;
	thread_set_vcpu(s, t, v);
	rq_push(v, t);
	v->sa_pullback++;
}

/* The upcall vector is taken by the running guest: read and clear the
 * reasons (one vector for SA and balloon mode changes). */
void guest_pv_take_irq(struct sim *s, struct sim_vcpu *v)
{
	struct sim_vm *vm = &s->vm[v->vm];
	uint32_t r;

	v->irq_pending = false;
	r = pv_take_reasons(v);
	if ((r & HV_UPCALL_SA) && vm->irs && !v->in_handler) {
		v->in_handler = true;
		v->hnd_left = vm->ack_lat;
		v->hnd_seq = pv_sa_seq(v);
	}
	if ((r & HV_UPCALL_BALLOON_MODE) && v->balloon) {
		vm->nmode_switch++;
		/* NWC wakes the balloon off balloon_queue (seed 004 Fig. 6 step 3);
		 * WC: it blocks when it next runs. */
		if (pv_balloon_mode(v) == HV_BALLOON_NWC && v->balloon->state == T_BLOCKED)
			make_ready(s, v->balloon);
	}
}

void guest_irq(struct sim *s, struct sim_vcpu *v)
{
	if (!v->irq_pending)
		return;
	if (sched_vcpu_waits_event(&v->sv)) {
		sched_wake(&v->sv, s->now);   /* taken once it runs */
		return;
	}
	if (v->pcpu < 0 || v->sv.state != SCHED_RUNNING)
		return;                        /* taken once it runs */
	guest_sync(s, v);
	guest_plan(s, v);
}

/* The balloon is the current thread of v (seed 004 §4.3, Fig. 6): in WC it
 * blocks on balloon_queue; in NWC it sleeps the vCPU (HC_SCHED_SLEEP) until
 * an interrupt. Returns true when v left its pCPU. */
bool guest_pv_balloon_step(struct sim *s, struct sim_vcpu *v)
{
	struct sim_thread *b = v->balloon;

	if (pv_balloon_mode(v) != HV_BALLOON_NWC) {
		b->state = T_BLOCKED;
		v->cur = NULL;
		return false;
	}
	b->state = T_RUNNING;
	guest_trace_exit(s, v, EXIT_REASON_VMCALL);
	if (pv_sleep(s, v, 0)) {
		v->nsleep_cancel++;         /* an interrupt is pending: take it */
		guest_plan(s, v);
		return true;
	}
	v->nsleep++;
	v->balloon_asleep = true;
	v->sleep_since = s->now;
	engine_resched(s, v->pcpu);
	return true;
}

static const struct sim_prog balloon_prog = { .name = "balloon" };

/* One balloon thread per vCPU of a VM with `balloon=` (seed 004 §5: "one
 * balloon process bound to each vCPU"). Before guest_start. */
void guest_add_balloons(struct sim *s)
{
	int n = 0;

	for (int i = 0; i < s->nvms; i++)
		if (s->vm[i].balloon)
			n += s->vm[i].nvcpus;
	if (!n)
		return;
	s->thr = realloc(s->thr, (size_t)(s->nthr + n) * sizeof(*s->thr));
	for (int i = 0; i < s->nvcpus; i++) {
		struct sim_vcpu *v = &s->vcpu[i];
		struct sim_thread *t;

		if (!s->vm[v->vm].balloon)
			continue;
		t = &s->thr[s->nthr];
		memset(t, 0, sizeof(*t));
		t->idx = s->nthr++;
		t->vm = v->vm;
		t->vcpu = v->idx;
		t->prog = &balloon_prog;
		t->cls = TC_BALLOON;
		t->waiting_on = -1;
		t->left = STIME_MAX / 4;
	}
	for (int i = 0; i < s->nthr; i++)
		if (s->thr[i].cls == TC_BALLOON)
			s->vcpu[s->thr[i].vcpu].balloon = &s->thr[i];
}
/* The host is not work-conserving right now because of a balloon: a pCPU
 * is idle while a ballooning vCPU sleeps with a thread other than its
 * balloon queued (seed 004 §4.3 "Robustness", point 4). */
bool guest_swc_idle(const struct sim *s)
{
	bool idle = false;

	for (int i = 0; i < s->npcpus && !idle; i++)
		idle = s->pcpu[i].running < 0;
	if (!idle)
		return false;
	for (int i = 0; i < s->nvcpus; i++) {
		const struct sim_vcpu *v = &s->vcpu[i];

		if (!v->balloon_asleep)
			continue;
		for (const struct sim_thread *t = v->rq_head; t; t = t->next)
			if (t->cls != TC_BALLOON)
				return true;
	}
	return false;
}
