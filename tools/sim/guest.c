/* The simulated guest: threads running programs on vCPUs under a small
 * round-robin guest scheduler; barriers and locks that spin, block or
 * spin-then-block; an idle vCPU halts (sched_block) and an event for a thread
 * on a halted vCPU wakes it (sched_wake), as a guest kernel would. This
 * file: the guest's runqueue and CFS-like scheduling, memory contention and
 * the modelled PMU, the vCPU's event loop; a thread's program is
 * guest_prog.c, the PV halves guest_pv.c, load balancing guest_balance.c. */
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "log.h"
#include "trace/vprof.h"
#include "vmx/exit_reasons.h"
#include "abi.h"
#include "guest_impl.h"


void rq_push(struct sim_vcpu *v, struct sim_thread *t)
{
	t->next = NULL;
	if (v->rq_tail)
		v->rq_tail->next = t;
	else
		v->rq_head = t;
	v->rq_tail = t;
	v->nrq++;
}

void rq_remove(struct sim_vcpu *v, struct sim_thread *t)
{
	struct sim_thread **pp, *prev = NULL;

	for (pp = &v->rq_head; *pp; prev = *pp, pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			if (v->rq_tail == t)
				v->rq_tail = prev;
			t->next = NULL;
			v->nrq--;
			return;
		}
}

/* ---- CFS-like guest scheduling (VMs with `guest=cfs`, seed 004 §2, §4) ----
 * rank: the I/O thread is SCHED_RR with `io_prio=rt` or the static balloon
 * (§4.4); with the static balloon, the balloon ranks above compute (§4.4
 * achieves that order by charging compute the absolute clock). Within a
 * rank, smallest vruntime first. */
#define CFS_WAKEUP_GRAN SIM_MS(1)     /* sysctl_sched_wakeup_granularity */
#define CFS_SLEEPER     SIM_MS(3)     /* place_entity: sched_latency / 2 */

static int trank(const struct sim *s, const struct sim_thread *t)
{
	const struct sim_vm *vm = &s->vm[t->vm];
	/* The hypervisor's NWC guard (sched_balloon_guard, docs/sched.md): the
	 * dynamic guest ranks as the static one until the refill. */
	bool st = vm->balloon == 1 ||
		  (vm->balloon == 2 && pv_balloon_guard(&s->vcpu[t->vcpu]));

	if (t->cls == TC_IO && (vm->io_rt || st))
		return 2;
	if (t->cls == TC_BALLOON && st)
		return 1;
	return 0;
}

static bool tbetter(const struct sim *s, const struct sim_thread *a, const struct sim_thread *b)
{
	int ra, rb;

	if (!b)
		return true;
	ra = trank(s, a);
	rb = trank(s, b);
	return ra > rb || (ra == rb && a->vruntime < b->vruntime);
}

static struct sim_thread *rq_best(struct sim *s, struct sim_vcpu *v)
{
	struct sim_thread *best = NULL;

	if (!s->vm[v->vm].cfs)
		return v->rq_head;
	for (struct sim_thread *t = v->rq_head; t; t = t->next)
		if (!best || tbetter(s, t, best))
			best = t;
	return best;
}

static struct sim_thread *rq_pick(struct sim *s, struct sim_vcpu *v)
{
	struct sim_thread *t = rq_best(s, v);

	if (t)
		rq_remove(v, t);
	return t;
}

/* Would the best queued thread preempt v's current one now (CFS wake-up
 * preemption, check_preempt_wakeup)? */
static bool cfs_preempts(struct sim *s, struct sim_vcpu *v)
{
	struct sim_thread *b = rq_best(s, v), *c = v->cur;
	int rb, rc;

	if (!s->vm[v->vm].cfs || !b || !c)
		return false;
	rb = trank(s, b);
	rc = trank(s, c);
	return rb > rc || (rb == rc && rb < 2 && b->vruntime + CFS_WAKEUP_GRAN < c->vruntime);
}

static void cfs_update_min(struct sim *s, struct sim_vcpu *v)
{
	stime_t m = STIME_MAX;

	if (!s->vm[v->vm].cfs)
		return;
	if (v->cur)
		m = v->cur->vruntime;
	for (struct sim_thread *t = v->rq_head; t; t = t->next)
		m = MIN(m, t->vruntime);
	if (m != STIME_MAX)
		v->min_vr = MAX(v->min_vr, m);
}

void guest_start(struct sim *s)
{
	for (int i = 0; i < s->nthr; i++) {
		struct sim_thread *t = &s->thr[i];

		if (t->cls == TC_BALLOON) {
			t->state = T_BLOCKED;     /* waits for NWC on balloon_queue */
			continue;
		}
		t->state = T_READY;
		rq_push(&s->vcpu[t->vcpu], t);
	}
	for (int i = 0; i < s->nvcpus; i++)
		pv_register(s, &s->vcpu[i]);
}

/* ---- memory contention (docs/sched.md "Memory contention") ---- */
static bool thr_mem(const struct sim_thread *t)
{
	const struct sim_op *op;

	if (!t || t->state != T_RUNNING || !t->in_op || t->pc >= t->prog->nops)
		return false;
	op = &t->prog->ops[t->pc];
	return op->kind == OP_COMPUTE && op->mode;
}

/* Slow-down factor x1000 for a memory-bound burst now. */
static stime_t mem_den(const struct sim *s)
{
	return 1000 + (stime_t)s->mem_alpha_milli * MAX(s->mem_n - s->mem_free, 0);
}

/* Bring the mem_n integrals up to now (at each change of mem_n, and once
 * for the report). */
void guest_mem_account(struct sim *s)
{
	double dt = (double)(s->now - s->mem_since);

	s->mem_int1 += dt * s->mem_n;
	s->mem_int2 += dt * s->mem_n * s->mem_n;
	s->mem_since = s->now;
}

/* After every event: when the number of memory-bound bursts running at
 * this instant changed, bring those bursts up to now at the old speed and
 * plan their ends at the new one. */
void guest_mem_update(struct sim *s)
{
	int n = 0;

	if (!s->mem_alpha_milli)
		return;
	for (int i = 0; i < s->nvcpus; i++)
		n += s->vcpu[i].pcpu >= 0 && thr_mem(s->vcpu[i].cur);
	if (n == s->mem_n)
		return;
	guest_mem_account(s);
	for (int i = 0; i < s->nvcpus; i++)
		if (s->vcpu[i].pcpu >= 0 && thr_mem(s->vcpu[i].cur))
			guest_sync(s, &s->vcpu[i]);
	s->mem_n = n;
	for (int i = 0; i < s->nvcpus; i++)
		if (s->vcpu[i].pcpu >= 0 && thr_mem(s->vcpu[i].cur))
			guest_plan(s, &s->vcpu[i]);
}

#pragma weak vprof_pmu_add

/* Modelled PMU for dt ns of v's run at 1 GHz (seed 001 §2.2, Fig. 4-5:
 * OFFCORE_STALL, the cycles spent in the offcore memory system). A
 * memory-bound burst stalls for the part of its time the contention model
 * adds plus a base half (1 - 500 / den: 50 % alone, more when memory-bound
 * bursts run at once); a CPU-bound burst 2 %; spinning, handlers and the
 * guest's idle nothing. The scheduler sees the figures (sched_vcpu_pmu, the
 * signal sched=auto chooses DS from: all runs with -t, else the few runs
 * auto samples per period) and, with -t, vProfile gets them as
 * PMU samples of at most 1 ms, as the hypervisor's PMU glue passes them. */
static void guest_pmu(struct sim *s, struct sim_vcpu *v, struct sim_thread *t, stime_t dt)
{
	uint64_t cyc = (uint64_t)dt, stall = 0;

	if (t && t->state == T_RUNNING && t->in_op && t->pc < t->prog->nops &&
	    t->prog->ops[t->pc].kind == OP_COMPUTE)
		stall = thr_mem(t) ? cyc - cyc * 500 / (uint64_t)mem_den(s) : cyc / 50;
	/* As the hypervisor: every run while profiled (-t), else only the
	 * runs sched=auto asked for (sched_vcpu_pmu_wanted at the switch). */
	if (s->trace || v->pmu_run)
		sched_vcpu_pmu(&v->sv, cyc, stall);
	if (!s->trace || !vprof_pmu_add)
		return;
	v->pmu_cyc += cyc;
	v->pmu_stall += stall;
	if (s->now - v->pmu_since >= SIM_MS(1)) {
		struct vprof_pmu_sample ps = { .present = BIT(VPMU_CYCLES) | BIT(VPMU_OFFCORE_STALL) };

		ps.delta[VPMU_CYCLES] = v->pmu_cyc;
		ps.delta[VPMU_OFFCORE_STALL] = v->pmu_stall;
		vprof_pmu_add((unsigned)v->pcpu, (uint16_t)v->vm, (uint16_t)v->id, &ps, s->now);
		v->pmu_cyc = v->pmu_stall = 0;
		v->pmu_since = s->now;
	}
}

/* Bring the running vCPU's current thread up to now. */
void guest_sync(struct sim *s, struct sim_vcpu *v)
{
	struct sim_thread *t = v->cur;
	stime_t dt = s->now - v->run_since;

	v->run_since = s->now;
	/* A lock holder stands for a guest in kernel mode (a kernel spinlock
	 * held): what directed yield prefers to help (hv/sched/ple.c). */
	sched_vcpu_guest_mode(&v->sv, (t && t->locks_held) || v->in_handler);
	if (dt <= 0)
		return;
	guest_pmu(s, v, v->in_handler ? NULL : t, dt);
	if (v->in_handler) {
		v->hnd_left -= dt;         /* the SA receiver runs, the thread waits */
		return;
	}
	if (!t)
		return;
	if (t->state == T_RUNNING || t->state == T_WAIT_SPIN) {
		t->vruntime += dt;         /* rq_clock_task: running time only */
		s->vm[v->vm].thr_cpu[t->cls] += dt;
	}
	if (t->state == T_RUNNING && v->cold_left > 0) {
		stime_t pay = MIN(dt, v->cold_left);   /* `cache_refill`: no progress */

		v->cold_left -= pay;
		dt -= pay;
	}
	if (t->state == T_RUNNING) {
		stime_t done = MIN(thr_mem(t) ? dt * 1000 / mem_den(s) : dt, MAX(t->left, 0));

		t->left -= done;
		if (t->cls != TC_BALLOON)
			s->vm[t->vm].work += done;
	}
	else if (t->state == T_WAIT_SPIN) {
		t->spin_time += dt;
		v->spin_time += dt;
		if (t->spin_left != STIME_MAX)
			t->spin_left -= dt;
		if (t->ple_left != STIME_MAX)
			t->ple_left -= dt;
	}
}

/* t (not queued, not current anywhere) now belongs to `to`. */
void thread_set_vcpu(struct sim *s, struct sim_thread *t, struct sim_vcpu *to)
{
	struct sim_vcpu *from = &s->vcpu[t->vcpu];

	if (from == to)
		return;
	t->vruntime = t->vruntime - from->min_vr + to->min_vr;   /* CFS renormalises */
	t->vcpu = to->idx;
	s->vm[t->vm].gmigrate++;
}

/* v got a thread to run: wake it if it waits for an event (HLT, balloon
 * sleep), else re-plan it if it runs. */
void vcpu_kick(struct sim *s, struct sim_vcpu *v)
{
	if (sched_vcpu_waits_event(&v->sv))
		sched_wake(&v->sv, s->now);
	else if (v->pcpu >= 0) {
		guest_sync(s, v);
		guest_plan(s, v);
	}
}

/* A thread became runnable in the guest: place it, wake its vCPU. */
void make_ready(struct sim *s, struct sim_thread *t)
{
	struct sim_vm *vm = &s->vm[t->vm];
	struct sim_vcpu *v = wake_target(s, t);

	thread_set_vcpu(s, t, v);
	if (vm->cfs) {
		struct sim_thread *b = v->balloon;
		/* §4.5: a waking I/O task keeps its vruntime while the balloon is
		 * queued and the mode is NWC; otherwise place_entity clamps it. */
		bool keep = vm->balloon == 2 && t->cls == TC_IO && b &&
			    (b->state == T_READY || b->state == T_RUNNING) &&
			    pv_balloon_mode(v) == HV_BALLOON_NWC;

		cfs_update_min(s, v);
		if (!keep)
			t->vruntime = MAX(t->vruntime, v->min_vr - CFS_SLEEPER);
	}
	t->state = T_READY;
	rq_push(v, t);
	vcpu_kick(s, v);
}

/* vProfile's spinning sub-state of RUNNING (seed 001 §2.1) for the trace:
 * the hypervisor learns of spinning from its detectors (PAUSE-loop exits,
 * the PMU heuristic) as SPIN_BEGIN/SPIN_END events; the simulator knows it
 * exactly, so it reports every interval in which v runs a spinning thread as
 * a perfect PMU detector would (arg VPS_PMU). Leaving RUNNING ends the
 * interval in the recorder (trace/acct.c); engine_resched clears the flag. */
void guest_trace_spin(struct sim *s, struct sim_vcpu *v)
{
	bool spin = v->pcpu >= 0 && v->sv.state == SCHED_RUNNING && v->cur &&
		    v->cur->state == T_WAIT_SPIN && !v->in_handler;   /* SA receiver: no */

	if (!s->trace || spin == v->trace_spin)
		return;
	v->trace_spin = spin;
	vprof_event((unsigned)v->pcpu, (uint16_t)v->vm, (uint16_t)v->id,
		    spin ? VPE_SPIN_BEGIN : VPE_SPIN_END, s->now, spin ? VPS_PMU : 0);
}

/* The VM exit the guest's action would cause on real hardware, counted by
 * vProfile as the exit dispatcher counts it (HLT, PAUSE-loop, VMCALL). */
void guest_trace_exit(struct sim *s, struct sim_vcpu *v, enum exit_reason r)
{
	if (s->trace && v->pcpu >= 0)
		vprof_exit((unsigned)v->pcpu, (uint16_t)v->vm, (uint16_t)v->id, r, s->now);
}

/* Schedule v's next guest event (it is running). */
void guest_plan(struct sim *s, struct sim_vcpu *v)
{
	struct sim_thread *t = v->cur;
	stime_t at = STIME_MAX;

	guest_trace_spin(s, v);
	v->gen++;
	if (v->irq_pending || (v->in_handler && v->hnd_left <= 0)) {
		at = s->now;               /* take the interrupt / finish the handler */
	} else if (v->in_handler) {
		at = s->now + v->hnd_left;
	} else if (!t || t == v->balloon) {
		at = s->now;               /* pick a thread or halt; balloon: sleep */
	} else if (t->state == T_RUNNING) {
		at = s->now + v->cold_left +
		     (thr_mem(t) ? (t->left * mem_den(s) + 999) / 1000 : t->left);
	} else if (t->state == T_WAIT_SPIN && t->waiting_on < 0) {
		at = s->now;               /* released while off the pCPU */
	} else if (t->state == T_WAIT_SPIN &&
		   (t->spin_left != STIME_MAX || t->ple_left != STIME_MAX)) {
		at = s->now + MAX(MIN(t->spin_left, t->ple_left), (stime_t)0);
	}
	if (t && v->rq_head && !v->in_handler) {
		if (cfs_preempts(s, v) || (v->fig4 && t->migrated))
			at = s->now;
		else
			at = MIN(at, MAX(v->gslice_end, s->now));
	}
	if (at != STIME_MAX)
		simq_push(&s->q, at, EV_GUEST, v->idx, v->gen);
}

/* v runs again after being off its pCPU: charge the gap to the current
 * thread's vruntime when the guest's task clock includes steal (rq_clock,
 * the vanilla arm: seed 004 Fig. 2), and always to the balloon, whose
 * runtime includes its sleep (§4.5). */
void guest_resumed(struct sim *s, struct sim_vcpu *v)
{
	struct sim_vm *vm = &s->vm[v->vm];
	stime_t gap = s->now - v->off_since;

	if (v->balloon_asleep) {
		v->balloon_asleep = false;
		v->bal_sleep_ns += s->now - v->sleep_since;
	}
	/* Under the NWC guard the balloon holds the budget's reserve, outside
	 * CFS's sharing (it ranks above compute then): its sleep is not charged,
	 * or compute would be owed that time and burn it after the refill. */
	if (vm->cfs && v->cur && gap > 0 && (!vm->steal_clock ||
	    (v->cur == v->balloon && !pv_balloon_guard(v))))
		v->cur->vruntime += gap;
}

void guest_event(struct sim *s, struct sim_vcpu *v)
{
	struct sim_vm *vm = &s->vm[v->vm];

	guest_sync(s, v);
	if (!v->in_handler) {               /* an ack hypercall returns: v runs again */
		v->in_ack = false;
		if (v->sa_moved)
			guest_pv_pull_back(s, v);
	}
	if (v->irq_pending)
		guest_pv_take_irq(s, v);
	if (v->in_handler) {
		if (v->hnd_left > 0)
			guest_plan(s, v);
		else
			guest_pv_sa_finish(s, v);
		return;
	}
	for (;;) {
		enum step r;

		if (v->cur && v->rq_head &&
		    (s->now >= v->gslice_end || cfs_preempts(s, v) || (v->fig4 && v->cur->migrated)) &&
		    (v->cur->state == T_RUNNING || v->cur->state == T_WAIT_SPIN)) {
			v->cur->state = T_READY;       /* guest time slice over / preempted */
			v->cur->migrated = false;
			v->fig4 = false;
			rq_push(v, v->cur);
			v->cur = NULL;
		}
		if (!v->cur && !v->rq_head && vm->gbal)
			guest_pull(s, v, 1);           /* newly idle balancing (guest_balance.c) */
		if (!v->cur) {
			v->cur = rq_pick(s, v);
			v->gslice_end = s->now + s->gslice;
			cfs_update_min(s, v);
		}
		if (!v->cur) {
			guest_trace_exit(s, v, EXIT_REASON_HLT);
			sched_block(&v->sv, s->now);   /* idle guest: HLT */
			engine_resched(s, v->pcpu);
			return;
		}
		if (v->cur == v->balloon) {
			if (guest_pv_balloon_step(s, v))
				return;
			continue;
		}
		if (v->cur->state == T_WAIT_SPIN && v->cur->waiting_on >= 0 &&
		    v->cur->ple_left <= 0 && v->cur->spin_left > 0) {
			/* PAUSE-loop exit: the hypervisor sees a spinning vCPU. */
			guest_trace_exit(s, v, EXIT_REASON_PAUSE);
			sched_ple_exit(&v->sv, s->now);   /* directed yield or plain */
			v->cur->ple_left = ple_spin(s, v);
			engine_resched(s, v->pcpu);
			return;
		}
		r = thread_step(s, v->cur);
		if (r == NEED_TIME) {
			guest_plan(s, v);
			return;
		}
		if (r == YIELDED) {
			guest_trace_exit(s, v, EXIT_REASON_VMCALL);
			sched_vcpu_yield(&v->sv, NULL, SCHED_YIELD_HYPERCALL, s->now);
			engine_resched(s, v->pcpu);   /* plans v if it stays */
			return;
		}
		v->cur->migrated = false;
		v->cur = NULL;                  /* blocked, slept or finished */
	}
}

void guest_thread_wake(struct sim *s, struct sim_thread *t)
{
	if (t->state != T_SLEEP)
		return;
	if (t->io_next)
		t->io_fired = t->io_next;    /* latprobe: its timer tick fired */
	make_ready(s, t);
}

void guest_descheduled(struct sim *s, struct sim_vcpu *v, bool preempted)
{
	v->off_since = s->now;
	if (!preempted || !v->cur)
		return;
	if (v->cur->locks_held)
		v->lhp++;
	if (v->cur->waiting_on >= 0 && v->cur->wait_is_lock)
		v->lwp++;
}
