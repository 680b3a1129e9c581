/* PAUSE-loop exiting with directed yield. A PLE exit (SDM vol. 3 §25.1.3,
 * §26.6.13 "PAUSE-Loop Exiting") says a vCPU spun for about PLE_Window
 * cycles. Seed 000 §2 and seed 002 §4: PLE helps when the spinner waits for
 * a preempted sibling (lock-holder preemption) and harms when nobody is
 * preempted (the yield only loses the pCPU). So on an exit:
 *   - look for a runnable sibling of the same VM that was preempted,
 *     preferring one preempted in guest kernel mode (likely a kernel lock
 *     holder, as KVM's yield_to heuristics) and not yielded to in the last
 *     ple_recent_us (spread help, avoid ping-pong), the longest waiting
 *     first; yield to it (the core pulls it onto this pCPU and the policy
 *     runs it next: credit honours the target);
 *   - none found: a plain yield, and the vCPU's window grows (x2 up to
 *     ple_window_max): exits that find nobody to help are pure overhead;
 *   - the directed yield ran the sibling: the window shrinks (/2 down to
 *     ple_window_min), so lock-holder preemption is caught sooner.
 * The platform writes v->ple_window to VMCS_PLE_WINDOW before entry. */
#include "sched/policy.h"
#include "sched/option.h"
#include "log.h"

bool sched_ple_enabled(void)
{
	return !sched_opts.ple_off;
}

static uint32_t ple_clamp(uint64_t w)
{
	if (w < (uint64_t)sched_opts.ple_window_min)
		w = (uint64_t)sched_opts.ple_window_min;
	if (w > (uint64_t)sched_opts.ple_window_max)
		w = (uint64_t)sched_opts.ple_window_max;
	return (uint32_t)w;
}

/* The sibling to yield to, or NULL. Takes vm_lock only: states are read
 * without their runqueue locks (a hint; sched_yield_pull re-checks). */
static struct sched_vcpu *sched_ple_target(struct sched_vcpu *v, stime_t now)
{
	struct sched_vcpu *u, *best = NULL;
	int best_score = -1;

	spin_lock(&sched_sys.vm_lock);
	for (u = v->vm->vcpus; u; u = u->vm_next) {
		int score;

		uint8_t f = READ_ONCE(u->flags);

		if (u == v || READ_ONCE(u->state) != SCHED_RUNNABLE || (f & SCHED_VF_WOKEN))
			continue;
		/* Preempted (involuntarily) first, then kernel mode at the
		 * preemption, then not yielded to lately. A sibling that
		 * yielded itself (a spinner) is a last resort: with FIFO lock
		 * hand-off it may hold the lock by now (lock-waiter preemption),
		 * which KVM's yield_to also counts as preempted. */
		score = (f & SCHED_VF_PREEMPTED ? 4 : 0) +
			((f & SCHED_VF_PREEMPTED) && u->preempted_kernel ? 2 : 0) +
			(!u->ple_target_at || now - u->ple_target_at >= sched_opts.ple_recent ? 1 : 0);
		if (score > best_score || (score == best_score && u->state_since < best->state_since)) {
			best = u;
			best_score = score;
		}
	}
	spin_unlock(&sched_sys.vm_lock);
	return best;
}

void sched_ple_exit(struct sched_vcpu *v, stime_t now)
{
	struct sched_vcpu *t = NULL;

	if (!v->ple_window)
		v->ple_window = ple_clamp((uint64_t)sched_opts.ple_window);
	t = sched_ple_target(v, now);
	if (!t || !(t->flags & SCHED_VF_PREEMPTED))
		v->ple_window = ple_clamp((uint64_t)v->ple_window * 2);
	else if (sched_opts.ple_undirected)   /* same window policy, plain yield */
		v->ple_window = ple_clamp(v->ple_window / 2);
	if (sched_opts.ple_undirected)
		t = NULL;
	if (t)
		t->ple_target_at = now;
	sched_vcpu_yield(v, t, SCHED_YIELD_PLE, now);
}

/* Before the policy's pick on p, prev having yielded to p->yield_target:
 * bring the target onto p (trylock of its runqueue, as work stealing) so
 * the policy can run it. locked(p). */
void sched_yield_pull(struct sched_pcpu *p, stime_t now)
{
	struct sched_vcpu *t = p->yield_target;
	unsigned c = READ_ONCE(t->pcpu);
	struct sched_pcpu *q = sched_pcpu_get(c);

	if (c == p->id)
		return;
	if (!q || !cpumask_test(&t->affinity, p->id) || !spin_trylock(&q->lock)) {
		p->yield_target = NULL;
		return;
	}
	if (t->pcpu != c || t->state != SCHED_RUNNABLE || q->curr == t) {
		spin_unlock(&q->lock);
		p->yield_target = NULL;
		return;
	}
	sched_sys.ops->sleep(t, now);
	sched_vcpu_migrate(t, p->id, now);
	spin_unlock(&q->lock);
	WRITE_ONCE(p->in_wake, true);   /* the policy's tickle of p is part of this decision */
	sched_sys.ops->wake(t, now);
	WRITE_ONCE(p->in_wake, false);
}

/* After the pick: a directed yield that ran its target shrinks the
 * yielder's window. locked(p). */
void sched_ple_after_pick(struct sched_pcpu *p, struct sched_vcpu *prev, struct sched_vcpu *next)
{
	if (p->yield_target && next == p->yield_target && prev) {
		prev->st.nple_directed++;
		prev->ple_window = ple_clamp(prev->ple_window / 2);
	}
	p->yield_target = NULL;
}

void sched_ple_vm_set(struct sched_vm *vm, bool off)
{
	WRITE_ONCE(vm->pol.ple_off, (uint8_t)off);
	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next)
		WRITE_ONCE(v->ple_window, off ? SCHED_PLE_WINDOW_OFF :
				       ple_clamp((uint64_t)sched_opts.ple_window));
	spin_unlock(&sched_sys.vm_lock);
}

/* Options (sched/option.h). */
SCHED_OPT_ON_OFF(ple, sched_opts.ple_off, "PAUSE-loop exiting: on|off (on)");
SCHED_OPT_ON_OFF(ple_directed, sched_opts.ple_undirected,
		 "PLE exit yields to a preempted sibling: on|off (on)");
SCHED_OPT_INT(ple_window, sched_opts.ple_window, 1, 1, 0x7fffffff, 4096,
	      "initial per-vCPU PLE_Window, cycles (4096)");
SCHED_OPT_INT(ple_window_min, sched_opts.ple_window_min, 1, 1, 0x7fffffff, 1024,
	      "smallest PLE_Window, cycles (1024)");
SCHED_OPT_INT(ple_window_max, sched_opts.ple_window_max, 1, 1, 0x7fffffff, 16384,
	      "largest PLE_Window, cycles (16384)");
SCHED_OPT_INT(ple_recent_us, sched_opts.ple_recent, SCHED_US(1), 0, SCHED_MS(1000),
	      SCHED_US(1000), "a directed-yield target this recent is avoided, us (1000)");
