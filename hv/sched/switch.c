/* Run-time policy switch (issue 16; docs/sched.md "Run-time policy switch").
 *
 * The whole host moves from one policy (and its options) to another without
 * a reboot, and the core never runs with two policies half-installed:
 *
 *  1. request (any pCPU, no lock): the target policy and options are checked
 *     and staged, sched_sys.switching is set, every pCPU is asked to
 *     reschedule (a hard request: no delayed preemption, no SA grace);
 *  2. quiesce (each pCPU, at its next sched_schedule, its runqueue lock
 *     held): the running vCPU is preempted first (the old policy charges it
 *     through its sleep op, the core makes it RUNNABLE and counts/traces the
 *     preemption), then every vCPU of the runqueue is taken out of the old
 *     policy (sleep dequeues a queued one, vcpu_remove releases it) into a
 *     neutral state: its core state (RUNNING is gone, RUNNABLE / BLOCKED /
 *     OFFLINE stay, with their time accounting) and its pCPU. The pCPU then
 *     idles and makes no policy call until the install; a wake on it makes
 *     the vCPU RUNNABLE without a policy (sched_make_runnable);
 *  3. install (the last pCPU to quiesce, all runqueue locks taken in
 *     ascending order): each vCPU's accounting is carried out of the old
 *     policy (vcpu_carry_out: credit and whether it earns), every private
 *     area is cleared, the staged options become sched_opts, the new
 *     policy's init, pcpu_init, vm_init and vcpu_insert run, the accounting
 *     is carried in (vcpu_carry_in), every RUNNABLE vCPU is handed to the
 *     new policy's wake, the accounting timer restarts, switching is
 *     cleared and every pCPU reschedules.
 *
 * While switching: policy calls on a quiesced runqueue are never made;
 * global policy calls (accounting, balloon budget) are skipped; VM and vCPU
 * creation, parameter and affinity changes return -EBUSY. A pCPU not yet
 * quiesced keeps using the old policy for its own runqueue (its structures
 * stay valid until the install, which waits for every pCPU).
 *
 * Kept across the switch: every core field (state and per-state times,
 * counters, PLE window, DP delay, SA registration, shared page), weight, cap,
 * type and SA of each VM (sched_vm.params), and credits through carry.
 * Restarted: a VM's cap budget of the current period, credit's BOOST (given
 * back at the next wake), the co-scheduling state of the old policy.
 */
#include "sched/policy.h"
#include "log.h"
#include "errno.h"
#include "lib/string.h"

#pragma weak vprof_event

const struct sched_hooks *sched_hooks_default(void);

static struct {
	spinlock_t lock;                  /* requests */
	const struct sched_policy *from, *to;
	struct sched_options opts;        /* staged options */
	unsigned quiesced;                /* pCPUs out of the old policy */
	stime_t begin;
	uint64_t nswitch;
} sw;

HV_SECTION_BOUNDS(const struct sched_policy, sched);

int sched_policy_index(const char *name)
{
	const struct sched_policy *o = sched_policy_find(name);

	return o ? (int)(o - __start_hv_sched) : -1;
}

const char *sched_policy_by_index(unsigned idx)
{
	if (!__start_hv_sched || idx >= (size_t)(__stop_hv_sched - __start_hv_sched))
		return NULL;
	return __start_hv_sched[idx].name;
}

static unsigned sw_idx(const struct sched_policy *o)
{
	return o ? (unsigned)(o - __start_hv_sched) : 0xff;
}

static void sw_trace(unsigned cpu, unsigned phase, stime_t now)
{
	if (vprof_event)
		vprof_event(cpu, VPROF_VM_NONE, VPROF_VM_NONE, VPE_SCHED_SWITCH, now,
			    phase | (uint64_t)sw_idx(sw.from) << 8 | (uint64_t)sw_idx(sw.to) << 16);
}

bool sched_policy_switching(void)
{
	return READ_ONCE(sched_sys.switching) != 0;
}

uint64_t sched_policy_switches(void)
{
	return READ_ONCE(sw.nswitch);
}

/* Apply "a=1 b=2" to sched_opts; sw.lock held. 0 or the first error. */
static int sw_parse_opts(const char *opts)
{
	char buf[256], *s, *key, *val;
	int rc;

	if (!opts)
		return 0;
	if (strlen(opts) >= sizeof(buf))
		return trace_error(-E2BIG);
	memcpy(buf, opts, strlen(opts) + 1);
	for (s = buf; (rc = sched_option_next(&s, &key, &val)) > 0;) {
		rc = sched_option_set(key, val);
		if (rc)
			return rc == -ENOENT ? trace_error(-EINVAL) : rc;
	}
	return rc ? trace_error(rc) : 0;
}

int sched_policy_switch(const char *policy, const char *opts, stime_t now)
{
	const struct sched_policy *to = sched_policy_find(policy);
	struct sched_options cur;
	int rc, vm_id;

	if (!to)
		return trace_error(-ENOENT);
	if (sched_policy_check(to))
		return trace_error(-EINVAL);
	if (!sched_sys.ops || !sched_sys.npcpus)
		return trace_error(-ENODEV);
	spin_lock(&sw.lock);
	if (READ_ONCE(sched_sys.switching)) {
		spin_unlock(&sw.lock);
		return -EBUSY;
	}
	vm_id = sched_vmpol_opt_vm(opts);
	if (vm_id != -1) {
		/* One VM only (vmpolicy.c): synchronous, nothing quiesces. */
		rc = vm_id < 0 ? trace_error(-EINVAL) : sched_vm_policy_move((unsigned)vm_id, policy,
									      opts, now);
		spin_unlock(&sw.lock);
		return rc;
	}
	/* sched_option_set writes sched_opts: stage on it and put it back
	 * (readers elsewhere see the staged values for these few instructions
	 * at most; they are validated values either way). */
	cur = sched_opts;
	rc = sw_parse_opts(opts);
	sw.opts = sched_opts;
	sched_opts = cur;
	if (rc) {
		spin_unlock(&sw.lock);
		return rc;
	}
	sw.from = sched_sys.ops;
	sw.to = to;
	sw.quiesced = 0;
	sw.begin = now;
	__atomic_store_n(&sched_sys.switching, 1, __ATOMIC_RELEASE);
	spin_unlock(&sw.lock);
	pr_info("sched: switching policy '%s' -> '%s'%s%s\n", sw.from->name, to->name,
		opts && *opts ? " with " : "", opts && *opts ? opts : "");
	sw_trace(sched_sys.master, 0, now);
	for (unsigned c = 0; c < SCHED_MAX_PCPUS; c++)
		if (sched_sys.pcpu[c])
			sched_cpu_resched(c);   /* hard: not a wake's request */
	return 0;
}

/* locked(p); p->curr is NULL (schedule.c switched it away). */
bool sched_switch_quiesce(struct sched_pcpu *p, stime_t now)
{
	const struct sched_policy *old = sched_sys.ops;

	for (struct sched_vm *vm = READ_ONCE(sched_sys.vms); vm; vm = READ_ONCE(vm->next))
		for (struct sched_vcpu *v = READ_ONCE(vm->vcpus); v; v = READ_ONCE(v->vm_next)) {
			if (v->pcpu != p->id || !(v->flags & SCHED_VF_ADDED))
				continue;
			if (v->state == SCHED_RUNNABLE)
				old->sleep(v, now);   /* dequeue */
			old->vcpu_remove(v);
		}
	p->sw_quiesced = true;
	p->slice_end = p->hold_until = p->dp_until = STIME_MAX;
	p->next_tick = STIME_MAX;
	p->dp_waker = NULL;
	p->yield_target = NULL;
	p->force_preempt = false;
	return __atomic_add_fetch(&sw.quiesced, 1, __ATOMIC_ACQ_REL) == sched_sys.npcpus;
}

#define for_each_sched_vcpu(vm, v) \
	for (vm = sched_sys.vms; vm; vm = vm->next) \
		for (v = vm->vcpus; v; v = v->vm_next) \
			if (v->flags & SCHED_VF_ADDED)

static void sw_lock_all(bool lock)
{
	for (unsigned c = 0; c < SCHED_MAX_PCPUS; c++)
		if (sched_sys.pcpu[c]) {
			if (lock)
				spin_lock(&sched_sys.pcpu[c]->lock);
			else
				spin_unlock(&sched_sys.pcpu[c]->lock);
		}
}

/* No policy's private data survives a switch: every pCPU, VM and vCPU. */
static void sw_clear_priv(void)
{
	struct sched_vm *vm;
	struct sched_vcpu *v;

	for_each_sched_vcpu(vm, v)
		memset(v->priv, 0, sizeof(v->priv));
	for (vm = sched_sys.vms; vm; vm = vm->next)
		memset(vm->priv, 0, sizeof(vm->priv));
	for (unsigned c = 0; c < SCHED_MAX_PCPUS; c++)
		if (sched_sys.pcpu[c])
			memset(sched_sys.pcpu[c]->priv, 0, sizeof(sched_sys.pcpu[c]->priv));
}

/* The new policy's objects for every pCPU, VM and vCPU. All locks held. */
static int sw_bring_up(const struct sched_policy *to, stime_t now)
{
	struct sched_vm *vm;
	struct sched_vcpu *v;
	int rc;

	sched_sys.tick_ns = sched_sys.acct_ns = 0;
	sched_sys.ops = to;
	rc = to->init();
	if (rc)
		return rc;
	for (unsigned c = 0; c < SCHED_MAX_PCPUS; c++) {
		struct sched_pcpu *p = sched_sys.pcpu[c];

		if (p && to->pcpu_init)
			to->pcpu_init(p);
	}
	for (vm = sched_sys.vms; vm; vm = vm->next)
		if (to->vm_init && (rc = to->vm_init(vm)))
			return rc;
	/* Each VM's vCPU count grows as they are inserted, as at creation (the
	 * co-scheduling variants' scatter counts the vCPU being placed). Every
	 * vCPU stays on its pCPU whatever insert chose: a vCPU just preempted
	 * by the quiesce may still have its VMCS current on that pCPU until
	 * its loop puts it (hv/vm/pcpu_loop.c), so the install must not hand
	 * it to another pCPU (a Linux guest took a double fault and a VM entry
	 * failed with VM-instruction error 5 when it did). Later wakes and
	 * work stealing re-place vCPUs the usual way (scatter homes included:
	 * cosched_pick_cpu). */
	for (vm = sched_sys.vms; vm; vm = vm->next)
		vm->nvcpus = 0;
	for_each_sched_vcpu(vm, v) {
		unsigned was = v->pcpu;

		rc = to->vcpu_insert(v);
		vm->nvcpus++;
		v->pcpu = was;
		if (rc)
			return rc;
		if (v->carry.valid && to->vcpu_carry_in)
			to->vcpu_carry_in(v, &v->carry);
	}
	return 0;
}

void sched_switch_install(stime_t now)
{
	const struct sched_policy *old = sw.from, *to = sw.to;
	const struct sched_hooks *def = sched_hooks_default();
	struct sched_options old_opts = sched_opts;
	struct sched_vm *vm;
	struct sched_vcpu *v;
	int rc;

	sw_lock_all(true);
	for_each_sched_vcpu(vm, v) {
		memset(&v->carry, 0, sizeof(v->carry));
		if (old->vcpu_carry_out)
			old->vcpu_carry_out(v, &v->carry);
	}
	/* The old policy is gone from here on: no stale private data. Every
	 * VM follows the new host policy (its own variant was of the old one). */
	sw_clear_priv();
	sched_vmpol_reset();
	sched_opts = sw.opts;
	/* Hooks follow the options unless someone installed their own. */
	if (sched_sys.hooks == def)
		sched_sys.hooks = sched_hooks_default();
	rc = sw_bring_up(to, now);
	if (rc) {
		/* The old policy with its old options, from the same clean state. */
		pr_err("sched: policy '%s' failed to start (%d): back to '%s'\n", to->name, rc,
		       old->name);
		sched_opts = old_opts;
		sched_sys.hooks = def;
		sw_clear_priv();
		sw.to = to = old;
		if (sw_bring_up(old, now))
			panic("sched: cannot restart policy '%s'\n", old->name);
	}
	/* RUNNABLE vCPUs join the new runqueues of their pCPUs (VM-list order). */
	for_each_sched_vcpu(vm, v)
		if (v->state == SCHED_RUNNABLE)
			to->wake(v, now);
	sched_sys.next_acct = sched_sys.acct_ns ? now + sched_sys.acct_ns : STIME_MAX;
	sched_sys.next_balloon = STIME_MAX;
	for (unsigned c = 0; c < SCHED_MAX_PCPUS; c++)
		if (sched_sys.pcpu[c]) {
			sched_sys.pcpu[c]->sw_quiesced = false;
			sched_sys.pcpu[c]->timer_at = -1;   /* re-arm at the next schedule */
		}
	sw.nswitch++;
	sw_trace(sched_sys.master, 1, now);
	__atomic_store_n(&sched_sys.switching, 0, __ATOMIC_RELEASE);
	sw_lock_all(false);
	pr_info("sched: policy '%s' installed (was '%s'), %lld us after the request\n", to->name,
		old->name, (long long)((now - sw.begin) / 1000));
	for (unsigned c = 0; c < SCHED_MAX_PCPUS; c++)
		if (sched_sys.pcpu[c])
			sched_cpu_resched(c);
}
