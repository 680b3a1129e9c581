/* Delayed preemption (seed 001 §5.1: fixed, and adaptive by eq. 1-2) and
 * differential slices (seed 001 §5.2): the built-in sched_hooks, chosen by
 * the options below; sched_preempt_hold() and sched_slice_adjust()
 * (sched/preempt.c) call them. Policies with their own mechanism install
 * other hooks (sched_hooks_set). */
#include "sched/policy.h"
#include "sched/option.h"

/* Fixed delayed preemption (seed 001 §5.1): every wake-up preemption waits
 * sched_dp_us. */
static stime_t sched_dp_fixed(struct sched_pcpu *p, struct sched_vcpu *prev,
			      struct sched_vcpu *waker, stime_t now)
{
	return sched_opts.dp_delay;
}

/*
 * Adaptive DP (seed 001 §5.1, eq. 1-2), as read from the paper (docs/sched.md
 * "Adaptive DP against the paper"):
 *  - Whose delay: the waking vCPU's. "A positive lag increases the delay a
 *    vCPU waits to preempt the current running vCPU, giving other
 *    applications more time to execute." The vCPU that waits is the one
 *    that would preempt; were the delay the running vCPU's, a positive lag
 *    would protect an over-served vCPU longer and give it *more* time.
 *  - Sign: lag > 0 (computed more than t_fair) lengthens the delay, lag < 0
 *    shortens it; "MICROSECS(10) is to ensure no-zero changes in case delay
 *    becomes zero", so the delay may reach 0 (our lower bound, default 0).
 *    The paper gives no upper bound; ours is sched_dp_max_us (20 ms).
 *  - t_comp, t_idle: "We decompose runtime into compute and idle time and
 *    the latter includes sync and steal time": RUNNING, and BLOCKED (sync of
 *    a blocking program, §2.1) + RUNNABLE (steal, §2.1), so t_comp + t_idle
 *    is the vCPU's wall time in the window.
 *  - t_fair: "the ideal fair allocation of CPU time", its "expected fair
 *    share in a shared environment": the VM weight share of pCPU time (§3.1
 *    "We assigned equal weights to both VMs, assuming a fair allocation of
 *    the CPU"; §3.2: with fair allocation "the ratio of steal and compute
 *    time should be 1" for an always-runnable thread, i.e. half the wall
 *    time for two equal VMs), computed as Xen's credit_fair: the machine's
 *    time split by VM weight over the active (here non-OFFLINE) vCPUs, at
 *    most one pCPU (sched_dp_fair). That is also what makes the paper's
 *    argument hold: "If all vCPUs ... attain their fair share, the idle time
 *    would be dominated by the steal time" (pCPUs fully used).
 *  - Window: the paper does not say; we update once per accounting period
 *    (credit: 30 ms, where Xen's csched_acct hands out credit_fair) from
 *    that period's figures. A cumulative window (figures since the start)
 *    and one since the vCPU's last wake were measured and change no result
 *    (docs/sched.md).
 * So eq. 1-2 only ever lengthen the delay of a waker that got more than its
 * weight share: they correct a skew toward the vCPU that wakes most (§3.2's
 * "resilient" fine-grained programs), and leave all delays near 0 when every
 * side is under its share (idle time, not skew).
 */
static stime_t sched_dp_adaptive(struct sched_pcpu *p, struct sched_vcpu *prev,
				 struct sched_vcpu *waker, stime_t now)
{
	return READ_ONCE(waker->dp_delay);
}

#define SCHED_DP_STEP 10000   /* MICROSECS(10) of eq. 2, in ns */

/*
 * Seed 001 eq. 1-2 for one vCPU and one accounting period:
 *   lag   = (t_comp - t_fair) / (t_comp + t_idle)                     (1)
 *   delay = delay + lag * (delay + MICROSECS(10))                      (2)
 * then clamped to [lo, hi]. A vCPU that got more than its fair share waits
 * longer before preempting others; one that got less preempts sooner.
 * Integer arithmetic: the product stays far below 2^63 for periods of
 * seconds and delays of up to 100 ms.
 */
stime_t sched_dp_update(stime_t delay, stime_t t_comp, stime_t t_idle, stime_t t_fair,
			stime_t lo, stime_t hi)
{
	stime_t span = t_comp + t_idle;

	if (span > 0)
		delay += (t_comp - t_fair) * (delay + SCHED_DP_STEP) / span;
	if (delay < lo)
		delay = lo;
	if (delay > hi)
		delay = hi;
	return delay;
}

/* t_fair of eq. 1 for a vCPU whose VM has `weight`, over `span` of wall
 * time: its part of npcpus x span when the machine is split by VM weight
 * over the active vCPUs (wsum = the sum, over every active vCPU, of its VM's
 * weight; credit's and Xen's credit_fair per-active-vCPU weighting), at most
 * the span (one vCPU uses one pCPU at a time). 0 if nothing is active. */
stime_t sched_dp_fair(stime_t span, unsigned npcpus, uint32_t weight, uint64_t wsum)
{
	stime_t fair;

	if (span <= 0 || !wsum)
		return 0;
	fair = (stime_t)((uint64_t)span * npcpus * weight / wsum);
	return MIN(fair, span);
}

/* Readings of eq. 1 the paper leaves open (docs/sched.md "Adaptive DP
 * against the paper"), options; the defaults are the per-vCPU reading:
 *  - sched_dp_scope=vm: t_comp, t_idle and t_fair summed over the VM's
 *    vCPUs, one lag per VM applied to each of its vCPUs' delays ("adjust the
 *    preemption delays for co-running parallel workloads");
 *  - sched_dp_idle=pcpu: t_idle is the idle time of the vCPU's pCPU in the
 *    period ("the idle time on pCPUs is a key indicator"); t_fair is still
 *    the share of the vCPU's wall time. */
enum { SCHED_DP_SCOPE_VCPU, SCHED_DP_SCOPE_VM };
enum { SCHED_DP_IDLE_VCPU, SCHED_DP_IDLE_PCPU };

/* Idle time of each pCPU in the current accounting period (sched_dp_acct),
 * and its idle total at the last one. */
static stime_t sched_dp_pidle[SCHED_MAX_PCPUS], sched_dp_pidle_mark[SCHED_MAX_PCPUS];

static void sched_dp_pidle_update(stime_t now)
{
	for (unsigned i = 0; i < SCHED_MAX_PCPUS; i++) {
		struct sched_pcpu *p = sched_sys.pcpu[i];
		stime_t tot, since;

		if (!p)
			continue;
		/* Without p's lock: a switch racing with this read makes the
		 * figure off by that one interval, which the clamps absorb. */
		tot = READ_ONCE(p->idle_time);
		since = READ_ONCE(p->idle_since);
		if (!READ_ONCE(p->curr) && now > since)
			tot += now - since;
		sched_dp_pidle[i] = MIN(MAX(tot - sched_dp_pidle_mark[i], (stime_t)0), sched_sys.acct_ns);
		sched_dp_pidle_mark[i] = tot;
	}
}

/*
 * Once per accounting period (master pCPU, no runqueue lock): eq. 1-2 for
 * every vCPU that was not OFFLINE. t_comp = RUNNING time in the period,
 * t_idle = BLOCKED (sync) + RUNNABLE (steal) time, t_fair = sched_dp_fair
 * over non-OFFLINE vCPUs (readings: the options above). Reads other pCPUs'
 * vCPU totals without their locks: a figure may be off by the one
 * transition racing with it, which the next period absorbs.
 */
static void sched_dp_acct(stime_t now)
{
	struct sched_vm *vm;
	struct sched_vcpu *v;
	uint64_t wsum = 0;
	stime_t period = sched_sys.acct_ns;
	bool per_vm = sched_opts.dp_scope == SCHED_DP_SCOPE_VM;

	if (period <= 0)
		return;
	if (sched_opts.dp_idle == SCHED_DP_IDLE_PCPU)
		sched_dp_pidle_update(now);
	spin_lock(&sched_sys.vm_lock);
	for (vm = sched_sys.vms; vm; vm = vm->next)
		for (v = vm->vcpus; v; v = v->vm_next)
			if (READ_ONCE(v->state) != SCHED_OFFLINE)
				wsum += vm->params.weight;
	for (vm = sched_sys.vms; vm; vm = vm->next) {
		stime_t vcomp = 0, vidle = 0, vfair = 0;

		for (v = vm->vcpus; v; v = v->vm_next) {
			struct sched_vcpu_stats st;
			stime_t comp, idle, fair, d;

			sched_vcpu_stats(v, now, &st);
			comp = st.time[SCHED_RUNNING] - v->dp_comp_mark;
			idle = st.time[SCHED_BLOCKED] + st.time[SCHED_RUNNABLE] - v->dp_idle_mark;
			v->dp_comp_mark = st.time[SCHED_RUNNING];
			v->dp_idle_mark = st.time[SCHED_BLOCKED] + st.time[SCHED_RUNNABLE];
			comp = MAX(comp, (stime_t)0);   /* a racing transition */
			idle = MAX(idle, (stime_t)0);
			if (READ_ONCE(v->state) == SCHED_OFFLINE || !wsum || comp + idle <= 0)
				continue;
			fair = sched_dp_fair(comp + idle, sched_sys.npcpus, vm->params.weight, wsum);
			if (sched_opts.dp_idle == SCHED_DP_IDLE_PCPU)
				idle = sched_dp_pidle[READ_ONCE(v->pcpu) % SCHED_MAX_PCPUS];
			if (per_vm) {
				vcomp += comp;
				vidle += idle;
				vfair += fair;
				continue;
			}
			d = sched_dp_update(v->dp_delay, comp, idle, fair, sched_opts.dp_min,
					    sched_opts.dp_max);
			WRITE_ONCE(v->dp_delay, d);
			sched_trace_event(sched_sys.master, v, VPE_DP_DELAY, now, (uint64_t)d);
		}
		if (!per_vm || vcomp + vidle <= 0)
			continue;
		for (v = vm->vcpus; v; v = v->vm_next) {   /* one lag for the VM */
			stime_t d;

			if (READ_ONCE(v->state) == SCHED_OFFLINE)
				continue;
			d = sched_dp_update(v->dp_delay, vcomp, vidle, vfair, sched_opts.dp_min,
					    sched_opts.dp_max);
			WRITE_ONCE(v->dp_delay, d);
			sched_trace_event(sched_sys.master, v, VPE_DP_DELAY, now, (uint64_t)d);
		}
	}
	spin_unlock(&sched_sys.vm_lock);
}

/* Differential slices (seed 001 §5.2): a fresh slice uniform in
 * [ds_min, ds_max] from p's own PRNG (seeded per pCPU from sched_seed in
 * sched_pcpu_add: reproducible, where the paper used TSC noise), never longer
 * than the policy's slice. The core calls it only when a new slice starts. */
static stime_t sched_ds_random(struct sched_pcpu *p, stime_t slice, stime_t now)
{
	stime_t span = sched_opts.ds_max - sched_opts.ds_min, s;

	if (sched_opts.ds_min <= 0 || span < 0)
		return slice;
	s = sched_opts.ds_min + (stime_t)(sched_cpu_random(p) % (uint64_t)(span + 1));
	return MIN(s, slice);
}

static const struct sched_hooks sched_hooks_builtin = {
	.name = "builtin (fixed DP, random DS)",
	.preempt_delay = sched_dp_fixed,
	.slice_pick = sched_ds_random,
};

static const struct sched_hooks sched_hooks_adaptive = {
	.name = "builtin (adaptive DP, random DS)",
	.preempt_delay = sched_dp_adaptive,
	.slice_pick = sched_ds_random,
	.acct = sched_dp_acct,
};

/* The built-in hooks, for sched_init() when the options ask for them. */
const struct sched_hooks *sched_hooks_default(void);
const struct sched_hooks *sched_hooks_default(void)
{
	if (sched_opts.dp_mode == SCHED_DP_ADAPTIVE)
		return &sched_hooks_adaptive;
	if ((sched_opts.dp_mode == SCHED_DP_FIXED && sched_opts.dp_delay > 0) ||
	    sched_opts.ds_min > 0)
		return &sched_hooks_builtin;
	return NULL;
}

/* Options (sched/option.h). */
/* sched_dp_us=N alone asks for fixed DP (sched_dp=adaptive keeps its mode and
 * takes N as every vCPU's starting delay). */
static void sched_dp_us_set(void)
{
	if (sched_opts.dp_mode == SCHED_DP_OFF)
		sched_opts.dp_mode = SCHED_DP_FIXED;
}

static const char *const sched_dp_modes[] = { "off", "fixed", "adaptive", NULL };

SCHED_OPT_INT_FN(sched_dp_us, sched_opts.dp_delay, SCHED_US(1), 0, SCHED_MS(100), 0,
		 sched_dp_us_set, "delayed wake-up preemption, us (0 = off; adaptive: start value)");
SCHED_OPT_ENUM(sched_dp, sched_opts.dp_mode, sched_dp_modes, SCHED_DP_OFF,
	       "delayed preemption: off|fixed|adaptive (sched_dp_us alone = fixed)");
SCHED_OPT_INT(sched_dp_min_us, sched_opts.dp_min, SCHED_US(1), 0, SCHED_MS(100), 0,
	      "adaptive delayed preemption: lower bound, us (0)");
SCHED_OPT_INT(sched_dp_max_us, sched_opts.dp_max, SCHED_US(1), 0, SCHED_MS(100), SCHED_MS(20),
	      "adaptive delayed preemption: upper bound, us (20000)");
static const char *const sched_dp_scopes[] = { "vcpu", "vm", NULL };
static const char *const sched_dp_idles[] = { "vcpu", "pcpu", NULL };

SCHED_OPT_ENUM(sched_dp_scope, sched_opts.dp_scope, sched_dp_scopes, SCHED_DP_SCOPE_VCPU,
	       "adaptive delayed preemption: eq. 1 per vcpu (default) or per vm");
SCHED_OPT_ENUM(sched_dp_idle, sched_opts.dp_idle, sched_dp_idles, SCHED_DP_IDLE_VCPU,
	       "adaptive delayed preemption: eq. 1's t_idle = the vcpu's sync+steal (default) "
	       "or its pcpu's idle time");
SCHED_OPT_INT(sched_ds_min_ms, sched_opts.ds_min, SCHED_MS(1), 0, SCHED_MS(1000), 0,
	      "differential slices: minimum, ms (0 = off)");
SCHED_OPT_INT(sched_ds_max_ms, sched_opts.ds_max, SCHED_MS(1), 0, SCHED_MS(1000), 0,
	      "differential slices: maximum, ms");
