/* Moving one VM between policies at run time (issue 16; docs/sched.md
 * "Moving one VM between policies").
 *
 * Design (b) of the issue: per-VM variants inside the policy family of the
 * host. The host runs one policy (struct sched_sys.ops); a VM may carry its
 * own variant of it, and moving the VM changes that variant, synchronously,
 * without quiescing anything:
 *   - co-scheduling: under a co-scheduling host (pcs, cs, cds, gang, bcs,
 *     auto; seed 003) a VM moves between "credit" (never co-scheduled: HIT)
 *     and the host's co-scheduling policy (CON; under auto: "pcs" pins CON,
 *     "auto" gives the choice back to auto). The kernel (cosched.c) already
 *     treats each VM by its type, and turning a VM CON re-scatters it
 *     (cosched_scatter_vm) exactly as HC_SCHED_SET_PARAM type= does;
 *   - delayed preemption (seed 001 §5.1) and differential slices (seed 001
 *     §5.2) per VM, under any host policy: `sched_dp_us=N` (fixed delay of
 *     a wake-up preemption of the VM's running vCPUs; 0 or `sched_dp=off` =
 *     none) and `sched_ds_min_ms=A sched_ds_max_ms=B` (the VM's fresh
 *     slices uniform in [A, B]; 0 = none). They are applied by the core's
 *     preemption hooks: vmpolicy installs a table that answers for VMs with
 *     their own setting and delegates to the host's hooks for the others.
 * Accounting is untouched: the VM keeps its credits, priorities and every
 * core field (the family shares one credit core; nothing is torn down).
 * A host switch (switch.c) resets every VM to the host's policy (types as
 * they were before the first move). Not possible: a VM under a policy of
 * another family (rr beside credit), which design (a), Xen-style CPU pools,
 * would allow at the price of partitioned pCPUs (docs/sched.md).
 * vProfile: VPE_SCHED_SWITCH with the VM's id, phase 2.
 */
#include "sched/credit.h"
#include "sched/option.h"
#include "log.h"
#include "errno.h"
#include "lib/string.h"

#pragma weak vprof_event

static struct {
	const struct sched_hooks *base;   /* the host's hooks behind vp_hooks */
} vp;

struct sched_vm *sched_vm_find(unsigned vm_id)
{
	struct sched_vm *vm;

	spin_lock(&sched_sys.vm_lock);
	for (vm = sched_sys.vms; vm && vm->id != vm_id; vm = vm->next)
		;
	spin_unlock(&sched_sys.vm_lock);
	return vm;
}

const char *sched_vm_policy_name(const struct sched_vm *vm)
{
	unsigned i = READ_ONCE(vm->pol.idx1);
	const char *n = i ? sched_policy_by_index(i - 1) : NULL;

	return n ? n : sched_policy_name();
}

/* ---- the preemption hooks ------------------------------------------------ */
/* Seed 001 §5.1, fixed DP for the VM of the running vCPU (the one whose
 * preemption is delayed); the host's hook for the others. locked(p). */
static stime_t vp_delay(struct sched_pcpu *p, struct sched_vcpu *prev, struct sched_vcpu *waker,
			stime_t now)
{
	const struct sched_hooks *b = vp.base;

	switch (READ_ONCE(prev->vm->pol.dp)) {
	case SCHED_VMPOL_OFF:
		return 0;
	case SCHED_VMPOL_OWN:
		return prev->vm->pol.dp_delay;
	}
	return b && b->preempt_delay ? b->preempt_delay(p, prev, waker, now) : 0;
}

/* Seed 001 §5.2 for the VM of the vCPU starting its slice (p->curr: the core
 * asks after the switch), from p's PRNG as the built-in DS. locked(p). */
static stime_t vp_slice(struct sched_pcpu *p, stime_t slice, stime_t now)
{
	const struct sched_hooks *b = vp.base;
	struct sched_vm *vm = p->curr ? p->curr->vm : NULL;

	if (vm && READ_ONCE(vm->pol.ds) == SCHED_VMPOL_OFF)
		return slice;
	if (vm && READ_ONCE(vm->pol.ds) == SCHED_VMPOL_OWN) {
		stime_t lo = vm->pol.ds_min, span = vm->pol.ds_max - lo;

		return MIN(lo + (stime_t)(sched_cpu_random(p) % (uint64_t)(span + 1)), slice);
	}
	return b && b->slice_pick ? b->slice_pick(p, slice, now) : slice;
}

static void vp_acct(stime_t now)
{
	if (vp.base && vp.base->acct)
		vp.base->acct(now);
}

static void vp_switched(struct sched_pcpu *p, struct sched_vcpu *prev, struct sched_vcpu *next,
			stime_t now)
{
	if (vp.base && vp.base->switched)
		vp.base->switched(p, prev, next, now);
}

static const struct sched_hooks vp_hooks = {
	.name = "per-VM DP/DS over the host's hooks",
	.preempt_delay = vp_delay,
	.slice_pick = vp_slice,
	.acct = vp_acct,
	.switched = vp_switched,
};

static void vp_install(void)
{
	const struct sched_hooks *h = READ_ONCE(sched_sys.hooks);

	if (h != &vp_hooks) {
		vp.base = h;
		sched_hooks_set(&vp_hooks);
	}
}

void sched_vmpol_auto_set(struct sched_vm *vm, stime_t dp, stime_t ds_min, stime_t ds_max)
{
	vm->pol.dp_delay = dp;
	vm->pol.ds_min = ds_min;
	vm->pol.ds_max = ds_max;
	vm->pol.by_auto = 1;
	WRITE_ONCE(vm->pol.dp, dp > 0 ? SCHED_VMPOL_OWN : SCHED_VMPOL_HOST);
	WRITE_ONCE(vm->pol.ds, ds_min > 0 ? SCHED_VMPOL_OWN : SCHED_VMPOL_HOST);
	if (dp > 0 || ds_min > 0)
		vp_install();
}

bool sched_vmpol_pinned(const struct sched_vm *vm)
{
	return READ_ONCE(vm->pol.idx1) ||
	       ((READ_ONCE(vm->pol.dp) || READ_ONCE(vm->pol.ds)) && !READ_ONCE(vm->pol.by_auto));
}

/* A host switch is being installed (switch.c, every runqueue lock held):
 * every VM goes back to the host's policy and the host's own hooks return. */
void sched_vmpol_reset(void)
{
	for (struct sched_vm *vm = sched_sys.vms; vm; vm = vm->next) {
		if (vm->pol.idx1)
			vm->params.type = vm->pol.type0;
		vm->pol.idx1 = 0;
		vm->pol.dp = vm->pol.ds = SCHED_VMPOL_HOST;
		vm->pol.by_auto = 0;
		if (vm->pol.ple_off)   /* sched=auto's PLE off: the host's windows */
			sched_ple_vm_set(vm, false);
		if (vm->pol.sa_auto)   /* sched=auto's SA: the VM's own setting again */
			vm->params.sa = false;
		vm->pol.sa_auto = 0;
	}
	if (sched_sys.hooks == &vp_hooks)
		sched_sys.hooks = vp.base;
}

/* ---- the move ------------------------------------------------------------ */
/* The host co-schedules CON VMs (seed 003 variants, auto). */
static bool vp_host_cosched(void)
{
	const struct sched_policy *h = sched_sys.ops;

	return h && h->pick == csched_pick && h->vm_adjust == csched_vm_adjust &&
	       strcmp(h->name, "credit") && strcmp(h->name, "relaxed");
}

static bool vp_per_vm_opt(const char *name)
{
	return !strcmp(name, "sched_dp_us") || !strcmp(name, "sched_dp") ||
	       !strcmp(name, "sched_ds_min_ms") || !strcmp(name, "sched_ds_max_ms");
}

/* "vm=ID" among the options: ID, else -1. */
int sched_vmpol_opt_vm(const char *opts)
{
	for (const char *s = opts; s && *s; s++) {
		if (s[0] != 'v' || s[1] != 'm' || s[2] != '=')
			continue;
		if (s == opts || s[-1] == ' ' || s[-1] == ',' || s[-1] == '\t') {
			unsigned id = 0;
			const char *d = s + 3;

			if (*d < '0' || *d > '9')
				return -2;
			while (*d >= '0' && *d <= '9' && id < 65536)
				id = id * 10 + (unsigned)(*d++ - '0');
			return *d && *d != ' ' && *d != ',' && *d != '\t' ? -2 : (int)id;
		}
	}
	return -1;
}

/* The per-VM options of a move, staged on sched_opts and put back (as
 * switch.c stages a host switch); *dp and *ds: whether each was given. */
static int vp_parse(const char *opts, struct sched_options *out, bool *dp, bool *ds)
{
	struct sched_options cur = sched_opts;
	char buf[256], *s, *key, *val;
	int rc = 0, n;

	*dp = *ds = false;
	sched_opts.dp_mode = SCHED_DP_OFF;
	sched_opts.dp_delay = sched_opts.ds_min = sched_opts.ds_max = 0;
	if (strlen(opts) >= sizeof(buf))
		rc = -E2BIG;
	else
		memcpy(buf, opts, strlen(opts) + 1);
	for (s = buf; !rc && (n = sched_option_next(&s, &key, &val)) != 0;) {
		if (n < 0) {
			rc = n;
			break;
		}
		if (!strcmp(key, "vm"))
			continue;
		if (!vp_per_vm_opt(key)) {
			pr_info("sched: '%s' is a host option, not a VM's\n", key);
			rc = -EINVAL;
			break;
		}
		rc = sched_option_set(key, val);
		if (rc == -ENOENT)
			rc = -EINVAL;
		*dp |= !strncmp(key, "sched_dp", 8);
		*ds |= !strncmp(key, "sched_ds", 8);
	}
	*out = sched_opts;
	sched_opts = cur;
	if (!rc && *ds && (out->ds_min < 0 || out->ds_max < out->ds_min ||
			   (out->ds_min == 0) != (out->ds_max == 0)))
		rc = -ERANGE;
	if (!rc && *dp && out->dp_mode == SCHED_DP_ADAPTIVE)
		rc = -ENOTSUP;   /* adaptive DP is the host's (one eq. 1-2 pass for all) */
	return rc ? trace_error(rc) : 0;
}

/* Called by sched_policy_switch under its request lock (no host switch can
 * start meanwhile). */
int sched_vm_policy_move(unsigned vm_id, const char *policy, const char *opts, stime_t now)
{
	const struct sched_policy *host = sched_sys.ops;
	struct sched_vm *vm = sched_vm_find(vm_id);
	int to = sched_policy_index(policy), from, type = -1, rc;
	struct sched_options o;
	bool dp, ds;

	if (!vm || to < 0)
		return trace_error(-ENOENT);
	if (!host || READ_ONCE(sched_sys.switching))
		return -EBUSY;
	rc = vp_parse(opts ? opts : "", &o, &dp, &ds);
	if (rc)
		return rc;
	/* Which variants the host's family has: the host's own policy (the VM
	 * follows the host: its type as before its first move), credit under
	 * a co-scheduling host (HIT), pcs under auto (CON pinned). */
	if (!strcmp(policy, host->name))
		type = vm->pol.idx1 ? vm->pol.type0 : -1;
	else if (!strcmp(policy, "credit") && vp_host_cosched())
		type = SCHED_TYPE_HIT;
	else if (!strcmp(policy, "pcs") && !strcmp(host->name, "auto"))
		type = SCHED_TYPE_CON;
	else
		return trace_error(-ENOTSUP);
	if (!vm->pol.idx1)
		vm->pol.type0 = vm->params.type;
	if (type >= 0 && (uint8_t)type != vm->params.type &&
	    (rc = sched_vm_param_set(vm, SCHED_PARAM_TYPE, (uint64_t)type)))
		return rc;
	from = vm->pol.idx1 ? vm->pol.idx1 - 1 : sched_policy_index(host->name);
	WRITE_ONCE(vm->pol.idx1, !strcmp(policy, host->name) ? 0 : (uint8_t)(to + 1));
	/* Per-VM DP/DS: given ones are the VM's own, others follow the host. */
	vm->pol.dp_delay = o.dp_mode == SCHED_DP_FIXED ? o.dp_delay : 0;
	WRITE_ONCE(vm->pol.dp, !dp ? SCHED_VMPOL_HOST :
			       vm->pol.dp_delay > 0 ? SCHED_VMPOL_OWN : SCHED_VMPOL_OFF);
	vm->pol.ds_min = o.ds_min;
	vm->pol.ds_max = o.ds_max;
	WRITE_ONCE(vm->pol.ds, !ds ? SCHED_VMPOL_HOST :
			       o.ds_min > 0 ? SCHED_VMPOL_OWN : SCHED_VMPOL_OFF);
	vm->pol.by_auto = 0;
	if (dp || ds)
		vp_install();
	vm->pol.nmove++;
	/* On the VM's first vCPU (its trace), as auto's decisions. */
	if (vprof_event && vm->vcpus)
		vprof_event(sched_sys.master, vm->id, vm->vcpus->id, VPE_SCHED_SWITCH, now,
			    2 | (uint64_t)(from & 0xff) << 8 | (uint64_t)(to & 0xff) << 16 |
			    (uint64_t)vm->pol.dp << 24 | (uint64_t)vm->pol.ds << 26);
	pr_info("sched: vm%u now '%s' (host '%s'; dp %s %lld us, ds %s %lld-%lld ms)\n", vm->id,
		policy, host->name, vm->pol.dp == SCHED_VMPOL_HOST ? "host" : "own",
		(long long)(vm->pol.dp_delay / 1000), vm->pol.ds == SCHED_VMPOL_HOST ? "host" : "own",
		(long long)(vm->pol.ds_min / 1000000), (long long)(vm->pol.ds_max / 1000000));
	return 0;
}
