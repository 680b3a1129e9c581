/* Scheduler core: boot, objects, the vCPU state machine with exact per-state
 * time accounting, and the vCPU-side entry points (block, wake, yield, sleep).
 * Lock order: see sched.h. Every function documents the lock it takes. */
#include "sched/policy.h"
#include "log.h"
#include "errno.h"
#include "lib/string.h"

#define SCHED_DEFAULT_POLICY "credit"

const struct sched_hooks *sched_hooks_default(void);

struct sched_sys sched_sys;
int sched_nr_runnable;   /* RUNNABLE vCPUs on all runqueues (halt polling) */

/* No lock; before any pCPU is added. */
int sched_init(const char *name)
{
	const struct sched_policy *ops = sched_policy_find(name);

	sched_options_ensure();
	if (!ops) {
		if (name)
			pr_warn("sched: unknown policy '%s', using '%s'\n", name,
				SCHED_DEFAULT_POLICY);
		sched_policy_list();
		ops = sched_policy_find(SCHED_DEFAULT_POLICY);
	}
	if (!ops)
		return trace_error(-ENOENT);
	if (sched_policy_check(ops))
		return trace_error(-EINVAL);
	memset(&sched_sys, 0, sizeof(sched_sys));
	sched_nr_runnable = 0;
	sched_sys.ops = ops;
	sched_sys.next_acct = STIME_MAX;
	sched_sys.next_balloon = STIME_MAX;
	sched_sys.hooks = sched_hooks_default();
	sched_dedicated_init();
	pr_info("sched: policy '%s'\n", ops->name);
	return ops->init();
}

const char *sched_policy_name(void)
{
	return sched_sys.ops ? sched_sys.ops->name : "none";
}

struct sched_pcpu *sched_pcpu_get(unsigned id)
{
	return id < SCHED_MAX_PCPUS ? sched_sys.pcpu[id] : NULL;
}

unsigned sched_pcpu_count(void)
{
	return sched_sys.npcpus;
}

/* Takes p->lock. The first pCPU added is the accounting master. */
int sched_pcpu_add(struct sched_pcpu *p, unsigned id, stime_t now)
{
	if (id >= SCHED_MAX_PCPUS || sched_sys.pcpu[id] || !sched_sys.ops)
		return trace_error(-EINVAL);
	if (READ_ONCE(sched_sys.switching))
		return -EBUSY;   /* run-time policy switch under way (switch.c) */
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->online = true;
	p->idle_since = now;
	p->slice_end = p->hold_until = p->next_tick = p->timer_at = STIME_MAX;
	p->dp_until = p->sleep_next = STIME_MAX;
	p->rng = (sched_opts.seed ^ 0x9e3779b97f4a7c15ULL) * (id + 1) | 1;
	spin_lock(&p->lock);
	if (sched_sys.ops->pcpu_init)
		sched_sys.ops->pcpu_init(p);
	spin_unlock(&p->lock);
	if (!sched_sys.npcpus) {
		sched_sys.master = id;
		if (sched_sys.acct_ns)
			sched_sys.next_acct = now + sched_sys.acct_ns;
	}
	sched_sys.pcpu[id] = p;
	cpumask_set(&sched_sys.online, id);
	sched_sys.npcpus++;
	sched_cpu_resched(id);   /* arms its timers through the first schedule */
	return 0;
}

/* Takes vm_lock. */
int sched_vm_add(struct sched_vm *vm, uint16_t id, const struct sched_vm_params *prm)
{
	int rc;

	memset(vm, 0, sizeof(*vm));
	vm->id = id;
	vm->params = (struct sched_vm_params){ .weight = 256 };
	if (prm)
		vm->params = *prm;
	if (!vm->params.weight || vm->params.weight > 65535 || vm->params.type > SCHED_TYPE_CON)
		return trace_error(-EINVAL);
	if (READ_ONCE(sched_sys.switching))
		return -EBUSY;
	if (sched_sys.ops->vm_init && (rc = sched_sys.ops->vm_init(vm)))
		return rc;
	spin_lock(&sched_sys.vm_lock);
	vm->next = sched_sys.vms;
	sched_sys.vms = vm;
	spin_unlock(&sched_sys.vm_lock);
	return 0;
}

/* Caller removed every vCPU first. Takes vm_lock. */
void sched_vm_remove(struct sched_vm *vm)
{
	struct sched_vm **pp;

	ASSERT(!vm->vcpus);
	spin_lock(&sched_sys.vm_lock);
	for (pp = &sched_sys.vms; *pp; pp = &(*pp)->next)
		if (*pp == vm) {
			*pp = vm->next;
			break;
		}
	spin_unlock(&sched_sys.vm_lock);
}

/* The state machine: account the time spent in the old state, then move. The
 * caller holds v's runqueue lock. `cpu` is the pCPU doing it (for the trace). */
static void sched_state_set(struct sched_pcpu *p, struct sched_vcpu *v, enum sched_state to,
			    stime_t now)
{
	struct sched_shared_page *sp;
	stime_t d;

	/* Callers on different pCPUs read the clock before taking this lock, so
	 * a transition may carry a timestamp a little older than the last one
	 * (and TSCs of different pCPUs may be skewed): time never runs back in
	 * the accounting, the transition happens at state_since instead. */
	if (now < v->state_since)
		now = v->state_since;
	d = now - v->state_since;
	v->st.time[v->state] += d;
	if (v->state == SCHED_RUNNABLE && to == SCHED_RUNNING && (v->flags & SCHED_VF_WOKEN)) {
		v->st.wake_lat_sum += d;
		v->st.nwake_lat++;
		if (d > v->st.wake_lat_max)
			v->st.wake_lat_max = d;
	}
	if (to != SCHED_RUNNABLE)
		v->flags &= (uint8_t)~(SCHED_VF_WOKEN | SCHED_VF_PREEMPTED);
	if ((v->state == SCHED_RUNNABLE) != (to == SCHED_RUNNABLE) && sched_sys.pcpu[v->pcpu]) {
		sched_sys.pcpu[v->pcpu]->nr_runnable += to == SCHED_RUNNABLE ? 1u : -1u;
		__atomic_fetch_add(&sched_nr_runnable, to == SCHED_RUNNABLE ? 1 : -1, __ATOMIC_RELAXED);
	}
	v->state = (uint8_t)to;
	v->state_since = now;
	sched_trace_state(p, v, now);
	/* Steal time (PV ABI v1 steal_ns, as KVM's): RUNNABLE only, i.e.
	 * preemption, cap parking (credit keeps parked vCPUs RUNNABLE) and the
	 * wait for a pCPU after a wake; never BLOCKED (HLT) or OFFLINE (balloon
	 * sleep, pause). */
	sp = sched_vcpu_shared(v);
	if (sp) {
		sched_shared_begin(sp);
		sp->preempted = to == SCHED_RUNNABLE;
		sp->steal_ns = (uint64_t)v->st.time[SCHED_RUNNABLE];
		sched_shared_end(sp);
	}
}

void sched_vcpu_set_state(struct sched_pcpu *p, struct sched_vcpu *v, enum sched_state to,
			  stime_t now);
void sched_vcpu_set_state(struct sched_pcpu *p, struct sched_vcpu *v, enum sched_state to,
			  stime_t now)
{
	sched_state_set(p, v, to, now);
}

/* No lock held on entry; v becomes visible under its pCPU lock. */
int sched_vcpu_add(struct sched_vcpu *v, struct sched_vm *vm, uint16_t id, stime_t now)
{
	int rc;

	if (!sched_sys.npcpus)
		return trace_error(-ENODEV);
	if (READ_ONCE(sched_sys.switching))
		return -EBUSY;
	memset(v, 0, sizeof(*v));
	v->vm = vm;
	v->id = id;
	v->state = SCHED_OFFLINE;
	v->state_since = now;
	cpumask_fill(&v->affinity, SCHED_MAX_PCPUS);
	v->pcpu = sched_sys.master;
	v->dp_delay = sched_opts.dp_delay;   /* adaptive DP starts from sched_dp_us */
	v->sleep_until = STIME_MAX;
	v->ple_window = (uint32_t)MIN(MAX(sched_opts.ple_window, sched_opts.ple_window_min),
				      sched_opts.ple_window_max);
	rc = sched_sys.ops->vcpu_insert(v);
	if (rc)
		return rc;
	if (!sched_pcpu_get(v->pcpu))
		return trace_error(-EINVAL);
	spin_lock(&sched_sys.vm_lock);
	v->vm_next = vm->vcpus;
	vm->vcpus = v;
	vm->nvcpus++;
	spin_unlock(&sched_sys.vm_lock);
	v->flags |= SCHED_VF_ADDED;
	return 0;
}

/* Makes v OFFLINE first. Takes v's runqueue lock, then vm_lock. */
void sched_vcpu_remove(struct sched_vcpu *v, stime_t now)
{
	struct sched_vcpu **pp;
	struct sched_pcpu *p;

	sched_vcpu_pause(v, now);
	p = sched_vcpu_lock(v);
	if (p->curr == v) {   /* paused but not yet switched away */
		p->curr = NULL;
		p->need_resched = true;
	}
	if (!p->sw_quiesced)   /* else already out of the old policy (switch.c) */
		sched_sys.ops->vcpu_remove(v);
	sched_vcpu_unlock(p);
	spin_lock(&sched_sys.vm_lock);
	for (pp = &v->vm->vcpus; *pp; pp = &(*pp)->vm_next)
		if (*pp == v) {
			*pp = v->vm_next;
			v->vm->nvcpus--;
			break;
		}
	spin_unlock(&sched_sys.vm_lock);
	v->flags = 0;
}

struct sched_pcpu *sched_vcpu_lock(struct sched_vcpu *v)
{
	for (;;) {
		unsigned c = READ_ONCE(v->pcpu);
		struct sched_pcpu *p = sched_sys.pcpu[c];

		spin_lock(&p->lock);
		if (READ_ONCE(v->pcpu) == c)
			return p;
		spin_unlock(&p->lock);
	}
}

void sched_vcpu_unlock(struct sched_pcpu *p)
{
	spin_unlock(&p->lock);
}

void sched_lock_pair(struct sched_pcpu *a, struct sched_pcpu *b)
{
	if (a == b) {
		spin_lock(&a->lock);
	} else if (a->id < b->id) {
		spin_lock(&a->lock);
		spin_lock(&b->lock);
	} else {
		spin_lock(&b->lock);
		spin_lock(&a->lock);
	}
}

void sched_unlock_pair(struct sched_pcpu *a, struct sched_pcpu *b)
{
	spin_unlock(&a->lock);
	if (a != b)
		spin_unlock(&b->lock);
}

/* Both locks held. v is not running anywhere. */
void sched_vcpu_migrate(struct sched_vcpu *v, unsigned to, stime_t now)
{
	if (v->pcpu == to)
		return;
	ASSERT(cpumask_test(&v->affinity, to));
	v->st.nmigrate++;
	sched_trace_event(v->pcpu, v, VPE_MIGRATE, now, to);
	if (v->state == SCHED_RUNNABLE && sched_sys.pcpu[v->pcpu] && sched_sys.pcpu[to]) {
		sched_sys.pcpu[v->pcpu]->nr_runnable--;   /* both runqueue locks held */
		sched_sys.pcpu[to]->nr_runnable++;
	}
	WRITE_ONCE(v->pcpu, to);
}

/* Make v RUNNABLE on the pCPU the policy prefers and hand it to the policy.
 * Entered with v's runqueue lock held (p); returns with it released. */
static void sched_make_runnable(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now)
{
	unsigned to;
	struct sched_pcpu *q;

	if (p->sw_quiesced) {
		/* Policy switch: RUNNABLE without a policy; the install queues it. */
		sched_state_set(p, v, SCHED_RUNNABLE, now);
		spin_unlock(&p->lock);
		return;
	}
	to = sched_sys.ops->pick_cpu ? sched_sys.ops->pick_cpu(v, now) : v->pcpu;
	q = sched_pcpu_get(to);
	sched_state_set(p, v, SCHED_RUNNABLE, now);
	if (q && q != p && p->curr != v && cpumask_test(&v->affinity, to)) {
		spin_unlock(&p->lock);
		sched_lock_pair(p, q);
		/* Nobody else moves a RUNNABLE, unqueued vCPU: v->pcpu is still p. */
		if (v->state == SCHED_RUNNABLE && v->pcpu == p->id)
			sched_vcpu_migrate(v, to, now);
		spin_unlock(&p->lock);
		p = q;
		if (v->state != SCHED_RUNNABLE || v->pcpu != q->id || q->sw_quiesced) {
			spin_unlock(&q->lock);   /* paused meanwhile / policy switch */
			return;
		}
	}
	/* A wake from blocking that makes the policy preempt p's running vCPU
	 * is the one preemption delayed preemption may hold (seed 001 §5.1):
	 * in_wake marks the policy's reschedule request as such (schedule.c). */
	WRITE_ONCE(p->in_wake, (v->flags & SCHED_VF_WOKEN) != 0);
	sched_sys.ops->wake(v, now);
	WRITE_ONCE(p->in_wake, false);
	if ((v->flags & SCHED_VF_WOKEN) && p->curr && p->curr != v &&
	    p->curr->state == SCHED_RUNNING && READ_ONCE(p->need_resched)) {
		p->dp_waker = v;
		if (p->curr->vm != v->vm)   /* auto's DP signal (auto.c) */
			p->curr->st.nwake_preempted++;
	}
	spin_unlock(&p->lock);
}

/* Takes v's runqueue lock. OFFLINE -> RUNNABLE. */
void sched_vcpu_start(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_vcpu_lock(v);

	if (v->state != SCHED_OFFLINE) {
		spin_unlock(&p->lock);
		return;
	}
	v->flags &= (uint8_t)~SCHED_VF_BALLOON;
	sched_make_runnable(p, v, now);
}

/* Takes v's runqueue lock. Any state -> OFFLINE (admin pause). */
void sched_vcpu_pause(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_vcpu_lock(v);

	if (v->state != SCHED_OFFLINE) {
		if (v->state != SCHED_BLOCKED && !p->sw_quiesced)
			sched_sys.ops->sleep(v, now);
		sched_sa_cancel(p, v, false, now);
		sched_state_set(p, v, SCHED_OFFLINE, now);
		if (p->curr == v)
			sched_cpu_resched(p->id);
	}
	v->flags &= (uint8_t)~SCHED_VF_BALLOON;
	spin_unlock(&p->lock);
}

/* On v's own pCPU (exit handler): takes its runqueue lock. */
static void sched_leave_cpu(struct sched_vcpu *v, enum sched_state to, enum vp_event ev,
			    stime_t now)
{
	struct sched_pcpu *p = sched_vcpu_lock(v);

	if (v->state == SCHED_RUNNING && p->curr == v) {
		/* Blocking or sleeping answers a pending SA upcall (PV ABI v1). */
		sched_sa_cancel(p, v, true, now);
		sched_sys.ops->sleep(v, now);
		sched_state_set(p, v, to, now);
		sched_trace_event(p->id, v, ev, now, 0);
		p->need_resched = true;
		if (to == SCHED_OFFLINE) {   /* balloon sleep: wake-on-event, timeout */
			v->flags |= SCHED_VF_BALLOON;
			v->st.nsleep++;
			p->sleep_next = MIN(p->sleep_next, v->sleep_until);
		}
	}
	spin_unlock(&p->lock);
}

void sched_block(struct sched_vcpu *v, stime_t now)
{
	v->st.nblock++;
	sched_leave_cpu(v, SCHED_BLOCKED, VPE_BLOCK, now);
}

/* Seed 004 SCHEDOP_sleep with its cancel-if-pending (§5: "VM pause ... should
 * be canceled if an I/O request is already pending"). The platform's check
 * runs without locks, so it is made before the sleep and again after it: an
 * interrupt that arrived between the first check and the BALLOON flag did not
 * see a sleeper to wake; the second check wakes it (and reports a cancel). */
int sched_sleep(struct sched_vcpu *v, stime_t timeout, stime_t now)
{
	if (sched_vcpu_irq_pending(v)) {
		v->st.nsleep_cancel++;
		sched_trace_event(v->pcpu, v, VPE_BALLOON_SLEEP, now, 1);
		return 1;
	}
	v->sleep_until = timeout > 0 && timeout < STIME_MAX - now ? now + timeout : STIME_MAX;
	sched_leave_cpu(v, SCHED_OFFLINE, VPE_BALLOON_SLEEP, now);
	if (sched_vcpu_irq_pending(v) && sched_wake(v, now)) {
		v->st.nsleep_cancel++;
		return 1;
	}
	return 0;
}

static int sched_wake_as(struct sched_vcpu *v, stime_t now, bool woken, bool run);

/* Any pCPU. Takes v's runqueue lock (and the target's, when moving it). */
bool sched_wake(struct sched_vcpu *v, stime_t now)
{
	return sched_wake_as(v, now, true, false) != SCHED_WOKE_NOT;
}

/* Any pCPU, as sched_wake; see sched.h. */
int sched_wake_run(struct sched_vcpu *v, stime_t now)
{
	return sched_wake_as(v, now, true, true);
}

/* End a balloon sleep without a wake's privileges (no BOOST, no wake-up
 * preemption, not a wake-latency sample): the sleeper becomes RUNNABLE as
 * if its timeout had been reached, to run whenever its turn comes (balloon
 * mode NWC -> WC, preempt.c). False if v was not in a balloon sleep. */
bool sched_wake_quiet(struct sched_vcpu *v, stime_t now)
{
	return sched_wake_as(v, now, false, false) != SCHED_WOKE_NOT;
}

static int sched_wake_as(struct sched_vcpu *v, stime_t now, bool woken, bool run)
{
	struct sched_pcpu *p = sched_vcpu_lock(v);
	bool balloon = v->state == SCHED_OFFLINE && (v->flags & SCHED_VF_BALLOON);

	if (v->flags & SCHED_VF_FROZEN) {
		v->flags |= SCHED_VF_THAW_RUN;   /* runs once thawed */
		spin_unlock(&p->lock);
		return SCHED_WOKE_NOT;
	}
	if ((v->state != SCHED_BLOCKED || !woken) && !balloon) {
		spin_unlock(&p->lock);
		return SCHED_WOKE_NOT;
	}
	v->st.nwake++;
	v->flags &= (uint8_t)~SCHED_VF_BALLOON;
	v->sleep_until = STIME_MAX;
	sched_trace_event(p->id, v, balloon ? VPE_BALLOON_WAKE : VPE_WAKE, now, 0);
	if (p->curr == v) {
		/* Woken between HLT and the switch away: it never left the pCPU. */
		sched_state_set(p, v, SCHED_RUNNING, now);
		spin_unlock(&p->lock);
		return SCHED_WOKE;
	}
	if (woken)
		v->flags |= SCHED_VF_WOKEN;
	/* Wake and run here: p idles and the policy's pick would be v. */
	if (run && !balloon && sched_switch_woken(p, v, now)) {
		unsigned id = p->id;

		spin_unlock(&p->lock);
		sched_platform_get()->kick(sched_platform_get()->ctx, id);
		return SCHED_WOKE_RUN;
	}
	sched_make_runnable(p, v, now);
	return SCHED_WOKE;
}

/* On v's own pCPU. Takes its runqueue lock. */
void sched_vcpu_yield(struct sched_vcpu *v, struct sched_vcpu *target, enum sched_yield_reason why,
		 stime_t now)
{
	struct sched_pcpu *p = sched_vcpu_lock(v);

	if (v->state == SCHED_RUNNING && p->curr == v) {
		/* Yielding answers a pending SA upcall (PV ABI v1); an SA ack
		 * cleared it already. */
		sched_sa_cancel(p, v, true, now);
		v->flags |= SCHED_VF_YIELD;
		v->st.nyield++;
		/* arg: the reason; bits 8+: directed-yield target's vCPU id + 1. */
		sched_trace_event(p->id, v, why == SCHED_YIELD_PLE ? VPE_PLE : VPE_YIELD, now,
				  (uint64_t)why | (target ? (uint64_t)(target->id + 1) << 8 : 0));
		/* Directed yield: the next pick on p runs the sibling if it can
		 * (schedule.c pulls it here; credit honours it). */
		if (target && target != v && target->vm == v->vm)
			p->yield_target = target;
		if (sched_sys.ops->yield)
			sched_sys.ops->yield(v, target, (int)why);
		p->need_resched = true;
	}
	spin_unlock(&p->lock);
}

void sched_vcpu_stats(const struct sched_vcpu *v, stime_t now, struct sched_vcpu_stats *out)
{
	*out = v->st;
	out->time[v->state] += now - v->state_since;
}
