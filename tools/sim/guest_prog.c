/* A simulated guest thread's program (tools/sim/workload.c parses it): the
 * interpreter of its ops (compute bursts, sleeps, barriers, locks, yields,
 * I/O waits, loops), the barrier and lock hand-off and the wait modes (spin,
 * block, spin-then-block, the spinning before a PAUSE-loop exit), on the
 * guest model of guest.c. */
#include <stdlib.h>
#include "sim.h"
#include "log.h"
#include "guest_impl.h"

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
stime_t ple_spin(struct sim *s, struct sim_vcpu *v)
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

static void io_record(struct sim *s, struct sim_thread *t, stime_t lat)
{
	if (s->now < s->warmup)
		return;
	if (t->nio_lat == t->cap_io_lat) {
		t->cap_io_lat = t->cap_io_lat * 2 + 1024;
		t->io_lat = realloc(t->io_lat, t->cap_io_lat * sizeof(*t->io_lat));
		if (!t->io_lat)
			abort();
	}
	t->io_lat[t->nio_lat++] = lat;
	t->io_done++;
}

/* Run t's program at the current instant until it needs CPU time or leaves. */
enum step thread_step(struct sim *s, struct sim_thread *t)
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
		case OP_IO_WAIT:
			if (!t->io_fired) {
				/* latprobe: requests arrive on a timer every op->a;
				 * one that arrived while busy is served at once.
				 * closed (op->b): a ping-pong client (sockperf, seed
				 * 004 §6.2.2) sends the next request op->a after the
				 * reply, so a stall delays one request, not all the
				 * requests a timer would have issued meanwhile. */
				stime_t tick = t->io_next && !op->b ? t->io_next + op->a : s->now + op->a;

				/* restart (guest-shim/linux/src/latprobe.c): a
				 * request served after the next deadline passed
				 * restarts the schedule from now (one late
				 * request per overrun, not a queue of them). */
				if (op->mode && t->io_next && s->now > tick)
					tick = s->now + op->a;
				t->io_next = tick;
				if (tick + s->io_lat > s->now) {
					t->state = T_SLEEP;
					simq_push(&s->q, tick + s->io_lat, EV_THREAD_WAKE, t->idx,
						  ++t->wake_gen);
					return LEFT_CPU;
				}
				t->io_fired = tick;
			}
			io_record(s, t, s->now - t->io_fired);
			t->io_fired = 0;
			t->pc++;
			break;
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
