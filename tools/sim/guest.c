/* The simulated guest: threads running programs on vCPUs under a small
 * round-robin guest scheduler; barriers and locks that spin, block or
 * spin-then-block; an idle vCPU halts (sched_block) and an event for a thread
 * on a halted vCPU wakes it (sched_wake), as a guest kernel would. */
#include <stdlib.h>
#include "sim.h"
#include "log.h"
#include "trace/vprof.h"
#include "vmx/exit_reasons.h"

enum step { NEED_TIME, LEFT_CPU, YIELDED };

static void rq_push(struct sim_vcpu *v, struct sim_thread *t)
{
	t->next = NULL;
	if (v->rq_tail)
		v->rq_tail->next = t;
	else
		v->rq_head = t;
	v->rq_tail = t;
}

static struct sim_thread *rq_pop(struct sim_vcpu *v)
{
	struct sim_thread *t = v->rq_head;

	if (t) {
		v->rq_head = t->next;
		if (!v->rq_head)
			v->rq_tail = NULL;
		t->next = NULL;
	}
	return t;
}

void guest_start(struct sim *s)
{
	for (int i = 0; i < s->nthr; i++) {
		s->thr[i].state = T_READY;
		rq_push(&s->vcpu[s->thr[i].vcpu], &s->thr[i]);
	}
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
	for (int i = 0; i < s->nvcpus; i++)
		if (s->vcpu[i].pcpu >= 0 && thr_mem(s->vcpu[i].cur))
			guest_sync(s, &s->vcpu[i]);
	s->mem_n = n;
	for (int i = 0; i < s->nvcpus; i++)
		if (s->vcpu[i].pcpu >= 0 && thr_mem(s->vcpu[i].cur))
			guest_plan(s, &s->vcpu[i]);
}

/* Bring the running vCPU's current thread up to now. */
void guest_sync(struct sim *s, struct sim_vcpu *v)
{
	struct sim_thread *t = v->cur;
	stime_t dt = s->now - v->run_since;

	v->run_since = s->now;
	/* A lock holder stands for a guest in kernel mode (a kernel spinlock
	 * held): what directed yield prefers to help (hv/sched/ple.c). */
	sched_vcpu_guest_mode(&v->sv, t && t->locks_held);
	if (!t || dt <= 0)
		return;
	if (t->state == T_RUNNING)
		t->left = MAX(t->left - (thr_mem(t) ? dt * 1000 / mem_den(s) : dt), (stime_t)0);
	else if (t->state == T_WAIT_SPIN) {
		t->spin_time += dt;
		v->spin_time += dt;
		if (t->spin_left != STIME_MAX)
			t->spin_left -= dt;
		if (t->ple_left != STIME_MAX)
			t->ple_left -= dt;
	}
}

/* A thread on v became runnable in the guest: wake the vCPU if it halted. */
static void make_ready(struct sim *s, struct sim_thread *t)
{
	struct sim_vcpu *v = &s->vcpu[t->vcpu];

	t->state = T_READY;
	rq_push(v, t);
	if (v->sv.state == SCHED_BLOCKED)
		sched_wake(&v->sv, s->now);
	else if (v->pcpu >= 0) {
		guest_sync(s, v);
		guest_plan(s, v);
	}
}

/* A barrier or lock wait of t is over. */
static void release(struct sim *s, struct sim_thread *t)
{
	struct sim_vcpu *v = &s->vcpu[t->vcpu];

	t->waiting_on = -1;
	if (t->state == T_BLOCKED) {
		make_ready(s, t);
	} else if (v->cur == t && v->pcpu >= 0) {
		guest_sync(s, v);
		v->gen++;
		simq_push(&s->q, s->now, EV_GUEST, v->idx, v->gen);
	}
}

static void thread_done(struct sim *s, struct sim_thread *t)
{
	struct sim_vm *vm = &s->vm[t->vm];

	t->state = T_DONE;
	if (++vm->ndone == vm->nthreads) {
		vm->done_at = s->now;
		s->all_done = true;
		for (int i = 0; i < s->nvms; i++)
			if (s->vm[i].measure && s->vm[i].nthreads && s->vm[i].ndone < s->vm[i].nthreads)
				s->all_done = false;
	}
}

static void barrier_arrive(struct sim *s, struct sim_thread *t, struct sim_barrier *b, int bi)
{
	if (++b->arrived < b->parties) {
		t->waiting_on = bi;
		t->wait_is_lock = false;
		return;
	}
	b->arrived = 0;
	b->generation++;
	for (int i = 0; i < s->nthr; i++)
		if (s->thr[i].waiting_on == bi && !s->thr[i].wait_is_lock)
			release(s, &s->thr[i]);
}

static void lock_unlock(struct sim *s, struct sim_thread *t, int li)
{
	struct sim_lock *l = &s->lock[li];
	struct sim_thread *w;

	ASSERT(l->holder == t->idx);
	t->locks_held--;
	l->holder = -1;
	if (!l->nwait)
		return;
	w = &s->thr[l->waiters[0]];
	for (int i = 1; i < l->nwait; i++)
		l->waiters[i - 1] = l->waiters[i];
	l->nwait--;
	l->holder = w->idx;       /* FIFO hand-off (ticket-lock order) */
	l->acquires++;
	w->locks_held++;
	release(s, w);
}

/* Spinning before a PAUSE-loop exit: the scenario's `ple` time at the
 * default window, scaled by the vCPU's adaptive window (hv/sched/ple.c);
 * none with `ple=off`. */
static stime_t ple_spin(struct sim *s, struct sim_vcpu *v)
{
	if (!s->ple || !sched_ple_enabled())
		return STIME_MAX;
	if (!v->sv.ple_window || sched_opts.ple_window <= 0)
		return s->ple;
	return s->ple * (stime_t)v->sv.ple_window / sched_opts.ple_window;
}

/* Start waiting; returns the step result for the wait mode. */
static enum step wait_begin(struct sim_thread *t, const struct sim_op *op, stime_t s_ple)
{
	t->spin_left = op->mode == WAIT_SPIN_BLOCK ? op->spin : STIME_MAX;
	t->ple_left = s_ple;
	t->state = op->mode == WAIT_BLOCK ? T_BLOCKED : T_WAIT_SPIN;
	return op->mode == WAIT_BLOCK ? LEFT_CPU : NEED_TIME;
}

/* A waiting thread got the CPU again: still waiting, given up, or done. */
static int wait_continue(struct sim_thread *t)
{
	if (t->waiting_on < 0)
		return 1;                  /* released: op complete */
	if (t->spin_left <= 0) {
		t->state = T_BLOCKED;      /* spin-then-block gives up */
		return -1;
	}
	t->state = T_WAIT_SPIN;
	return 0;
}

/* Barrier arrival / lock acquire; -1 = done, continue with the next op. */
static int op_sync(struct sim *s, struct sim_thread *t, const struct sim_op *op, bool *in_op)
{
	int r;

	if (*in_op) {
		r = wait_continue(t);
		if (r <= 0)
			return r < 0 ? LEFT_CPU : NEED_TIME;
		*in_op = false;
		t->pc++;
		return -1;   /* continue */
	}
	if (op->kind == OP_BARRIER) {
		barrier_arrive(s, t, &s->bar[op->a], (int)op->a);
	} else {
		struct sim_lock *l = &s->lock[op->a];

		if (l->holder < 0) {
			l->holder = t->idx;
			l->acquires++;
			t->locks_held++;
		} else {
			l->contended++;
			if (l->nwait < (int)ARRAY_SIZE(l->waiters))
				l->waiters[l->nwait++] = t->idx;
			t->waiting_on = (int)op->a;
			t->wait_is_lock = true;
		}
	}
	if (t->waiting_on < 0) {
		t->pc++;
		return -1;
	}
	*in_op = true;
	return wait_begin(t, op, ple_spin(s, &s->vcpu[t->vcpu]));
}

/* Run t's program at the current instant until it needs CPU time or leaves. */
static enum step thread_step(struct sim *s, struct sim_thread *t)
{
	bool *in_op = &t->in_op;

	for (;;) {
		const struct sim_op *op;
		int r;

		if (t->pc >= t->prog->nops) {
			thread_done(s, t);
			return LEFT_CPU;
		}
		op = &t->prog->ops[t->pc];
		switch (op->kind) {
		case OP_COMPUTE:
			if (!*in_op) {
				t->left = op->b > op->a ?
					op->a + (stime_t)(sim_random(s) % (uint64_t)(op->b - op->a)) : op->a;
				t->last_burst = t->left;
				*in_op = true;
			}
			t->state = T_RUNNING;
			if (t->left > 0)
				return NEED_TIME;
			*in_op = false;
			t->pc++;
			break;
		case OP_SLEEP: {
			stime_t d = op->b ? t->last_burst * (100 - op->b) / op->b : op->a;

			t->pc++;
			t->state = T_SLEEP;
			simq_push(&s->q, s->now + d, EV_THREAD_WAKE, t->idx, ++t->wake_gen);
			return LEFT_CPU;
		}
		case OP_BARRIER:
		case OP_LOCK:
			r = op_sync(s, t, op, in_op);
			if (r >= 0)
				return (enum step)r;
			break;
		case OP_UNLOCK:
			lock_unlock(s, t, (int)op->a);
			t->pc++;
			break;
		case OP_YIELD:
			t->pc++;
			return YIELDED;
		case OP_LOOP:
			t->loop_left[++t->depth] = (int)op->a;
			t->pc++;
			break;
		case OP_END:
			if (t->loop_left[t->depth] < 0 || --t->loop_left[t->depth] > 0) {
				t->pc = op->match + 1;
			} else {
				t->depth--;
				t->pc++;
			}
			break;
		}
	}
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
		    v->cur->state == T_WAIT_SPIN;

	if (!s->trace || spin == v->trace_spin)
		return;
	v->trace_spin = spin;
	vprof_event((unsigned)v->pcpu, (uint16_t)v->vm, (uint16_t)v->id,
		    spin ? VPE_SPIN_BEGIN : VPE_SPIN_END, s->now, spin ? VPS_PMU : 0);
}

/* The VM exit the guest's action would cause on real hardware, counted by
 * vProfile as the exit dispatcher counts it (HLT, PAUSE-loop, VMCALL). */
static void guest_trace_exit(struct sim *s, struct sim_vcpu *v, enum exit_reason r)
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
	if (!t) {
		at = s->now;               /* pick a thread or halt */
	} else if (t->state == T_RUNNING) {
		at = s->now + (thr_mem(t) ? (t->left * mem_den(s) + 999) / 1000 : t->left);
	} else if (t->state == T_WAIT_SPIN && t->waiting_on < 0) {
		at = s->now;               /* released while off the pCPU */
	} else if (t->state == T_WAIT_SPIN &&
		   (t->spin_left != STIME_MAX || t->ple_left != STIME_MAX)) {
		at = s->now + MAX(MIN(t->spin_left, t->ple_left), (stime_t)0);
	}
	if (t && v->rq_head)
		at = MIN(at, MAX(v->gslice_end, s->now));
	if (at != STIME_MAX)
		simq_push(&s->q, at, EV_GUEST, v->idx, v->gen);
}

void guest_event(struct sim *s, struct sim_vcpu *v)
{
	guest_sync(s, v);
	for (;;) {
		enum step r;

		if (v->cur && v->rq_head && s->now >= v->gslice_end &&
		    (v->cur->state == T_RUNNING || v->cur->state == T_WAIT_SPIN)) {
			v->cur->state = T_READY;       /* guest time slice over */
			rq_push(v, v->cur);
			v->cur = NULL;
		}
		if (!v->cur) {
			v->cur = rq_pop(v);
			v->gslice_end = s->now + s->gslice;
		}
		if (!v->cur) {
			guest_trace_exit(s, v, EXIT_REASON_HLT);
			sched_block(&v->sv, s->now);   /* idle guest: HLT */
			engine_resched(s, v->pcpu);
			return;
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
		v->cur = NULL;                  /* blocked, slept or finished */
	}
}

void guest_thread_wake(struct sim *s, struct sim_thread *t)
{
	if (t->state == T_SLEEP)
		make_ready(s, t);
}

void guest_descheduled(struct sim *s, struct sim_vcpu *v, bool preempted)
{
	if (!preempted || !v->cur)
		return;
	if (v->cur->locks_held)
		v->lhp++;
	if (v->cur->waiting_on >= 0 && v->cur->wait_is_lock)
		v->lwp++;
}
