/* Halt polling (issue 19): a vCPU that halts with nothing to take keeps its
 * pCPU for a short, adaptive window and polls for a wake-up before it blocks,
 * so that a wake-up soon after the HLT costs no block, idle, kick IPI,
 * schedule and VMCS switch. The window is KVM's per-vCPU halt_poll_ns
 * (virt/kvm/kvm_main.c: kvm_vcpu_halt, update_halt_poll_stats,
 * grow_halt_poll_ns, shrink_halt_poll_ns), with its defaults: at most
 * 200 us, doubled from 10 us after a short halt, reset to 0 after a halt
 * longer than the maximum. Seed 002 §4 names the idle-vCPU halt/wake as the
 * largest overhead of blocking multi-threaded guests; polling is KVM's answer.
 *
 * Semantics kept: a vCPU polls only while no runqueue holds a RUNNABLE vCPU
 * and no reschedule is pending on its pCPU, and stops at once when either
 * changes (sched_halt_poll_continue), so polling never hides runnable work:
 * not on its pCPU, and not on another pCPU whose queued vCPU this one would
 * steal if it went idle (docs/vmx.md: a CPU-bound neighbour VM keeps its
 * share). The polling vCPU
 * stays RUNNING for the scheduler (its credit pays for the poll, as a KVM
 * vCPU thread's CPU time does); vProfile sees the pCPU idle during the poll
 * (IDLE_BEGIN/END, arg 1) and the per-vCPU stats count polls and poll time. */
#include "sched/policy.h"
#include "cmdline.h"

struct sched_haltpoll_opts sched_haltpoll = {
	.max_ns = 200000, .grow = 2, .grow_start_ns = 10000, .shrink = 0,
};

CMDLINE_U64(halt_poll_ns, sched_haltpoll.max_ns, 0, 100000000,
	    "largest halt-poll window of a vCPU that halts, ns (200000; 0 = no halt polling)");
CMDLINE_U64(halt_poll_grow, sched_haltpoll.grow, 0, 64,
	    "halt-poll window growth factor after a short halt (2; 0 = never grow)");
CMDLINE_U64(halt_poll_grow_start_ns, sched_haltpoll.grow_start_ns, 0, 100000000,
	    "first halt-poll window, ns (10000)");
CMDLINE_U64(halt_poll_shrink, sched_haltpoll.shrink, 0, 64,
	    "halt-poll window divisor after a long halt (0 = reset to no polling)");

stime_t sched_halt_poll_next(const struct sched_haltpoll_opts *o, stime_t cur, stime_t halt_ns)
{
	stime_t max = (stime_t)o->max_ns, start = (stime_t)o->grow_start_ns, val = cur;

	if (!max)
		return 0;
	if (halt_ns <= cur)
		return MIN(cur, max);                  /* the poll caught it: keep */
	if (cur && halt_ns > max) {                    /* long halt: shrink */
		val = o->shrink ? cur / (stime_t)o->shrink : 0;
		return val < start ? 0 : val;
	}
	if (cur < max && halt_ns < max && o->grow) {   /* short halt, window too small: grow */
		val = cur * (stime_t)o->grow;
		if (val < start)
			val = start;
	}
	return MIN(val, max);
}

void sched_halt_poll_update(struct sched_vcpu *v, stime_t halt_ns)
{
	WRITE_ONCE(v->halt_poll_ns, sched_halt_poll_next(&sched_haltpoll, v->halt_poll_ns, halt_ns));
}

bool sched_halt_poll_continue(const struct sched_vcpu *v)
{
	const struct sched_pcpu *p = sched_sys.pcpu[READ_ONCE(v->pcpu)];

	/* Any RUNNABLE vCPU, here or on another runqueue (this pCPU, idle,
	 * would steal it): polling must not keep it waiting. */
	return p && READ_ONCE(p->curr) == v && !READ_ONCE(p->need_resched) &&
	       !READ_ONCE(p->nr_runnable) && !__atomic_load_n(&sched_nr_runnable, __ATOMIC_RELAXED);
}

stime_t sched_halt_poll_begin(struct sched_vcpu *v, stime_t now)
{
	stime_t w = MIN(READ_ONCE(v->halt_poll_ns), (stime_t)sched_haltpoll.max_ns);

	if (!w || READ_ONCE(v->state) != SCHED_RUNNING || !sched_halt_poll_continue(v))
		return 0;
	sched_trace_event(v->pcpu, NULL, VPE_IDLE_BEGIN, now, 1);
	return w;
}

void sched_halt_poll_end(struct sched_vcpu *v, stime_t start, stime_t now, bool woke)
{
	sched_trace_event(v->pcpu, NULL, VPE_IDLE_END, now, 1);
	v->st.npoll++;
	v->st.npoll_ok += woke;
	if (now > start)
		v->st.poll_time += now - start;
}
