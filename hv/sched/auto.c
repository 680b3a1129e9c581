/* sched=auto, first version (issue 16; docs/sched.md "sched=auto").
 *
 * The base is pcs (credit + partial co-scheduling of CON VMs, seed 003
 * Alg. 1). What auto chooses, per VM and online, is the one mechanism that
 * policy makes per-VM: whether the VM is co-scheduled (CON) or plain credit
 * (HIT). The signal is the spinning the core sees: PAUSE-loop exits and
 * yield hypercalls of the VM's vCPUs (both end in sched_vcpu_yield, counted
 * in st.nyield; vProfile records them as VPE_PLE / VPE_YIELD), per second of
 * the VM's RUNNING time, over each accounting period:
 *   - a VM with at least 2 vCPUs whose rate reaches AUTO_CON_RATE turns CON
 *     (spin-synchronised: its lock holders / barrier peers must run
 *     together, seed 003 §II);
 *   - a CON VM turns back HIT after AUTO_HIT_PERIODS consecutive periods
 *     under AUTO_HIT_RATE (hysteresis: co-scheduling itself removes most of
 *     the spinning it was chosen for).
 * Every change is recorded as VPE_AUTO_DECISION on the VM's first vCPU:
 * the decision trail in the vProfile trace. A VM's `type=` is auto's to
 * change under this policy.
 * Not covered (yet): spinning without PLE exits (the core does not see it),
 * DP delay, PLE window behaviour, SA, balloon mode, sibling skew, wake-up
 * rate, cap pressure.
 */
#include "sched/cosched.h"
#include "log.h"
#include "lib/string.h"

#pragma weak vprof_event

#define AUTO_CON_RATE    200   /* yields+PLE exits per running second: turn CON */
#define AUTO_HIT_RATE    50    /* under this ... */
#define AUTO_HIT_PERIODS 3     /* ... for this many periods: back to HIT */
#define AUTO_MAX_VMS     256   /* by VM id */

static const struct cosched_variant auto_variant = {
	.name = "auto", .global = false, .persist = false, .codesched = false, .strict = false,
};

static struct auto_vm {
	uint64_t yields;          /* VM's st.nyield sum at the last period */
	stime_t run;              /* VM's RUNNING time at the last period */
	uint8_t quiet;            /* consecutive periods under AUTO_HIT_RATE */
} avm[AUTO_MAX_VMS];

static int auto_init(void)
{
	memset(avm, 0, sizeof(avm));
	return cosched_init(&auto_variant);
}

/* One VM, master pCPU after credit's accounting, no lock held. Returns the
 * type to set, or -1 to keep. */
static int auto_decide(struct sched_vm *vm, stime_t now, uint64_t *rate_out)
{
	struct auto_vm *a = &avm[vm->id % AUTO_MAX_VMS];
	uint64_t yields = 0, rate;
	stime_t run = 0, drun;
	unsigned n = 0;

	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next, n++) {
		struct sched_vcpu_stats st;

		sched_vcpu_stats(v, now, &st);
		yields += st.nyield;
		run += st.time[SCHED_RUNNING];
	}
	spin_unlock(&sched_sys.vm_lock);
	drun = run - a->run;
	rate = drun > 0 ? (yields - a->yields) * 1000000000ull / (uint64_t)drun : 0;
	a->yields = yields;
	a->run = run;
	*rate_out = rate;
	if (n < 2 || drun <= 0)
		return -1;
	if (vm->params.type != SCHED_TYPE_CON) {
		a->quiet = 0;
		return rate >= AUTO_CON_RATE ? SCHED_TYPE_CON : -1;
	}
	a->quiet = rate < AUTO_HIT_RATE ? (uint8_t)MIN(a->quiet + 1, 255) : 0;
	return a->quiet >= AUTO_HIT_PERIODS ? SCHED_TYPE_HIT : -1;
}

static void auto_acct(stime_t now)
{
	struct sched_vm *vms[AUTO_MAX_VMS];
	unsigned n = 0;

	csched_acct(now);
	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vm *vm = sched_sys.vms; vm && n < AUTO_MAX_VMS; vm = vm->next)
		vms[n++] = vm;
	spin_unlock(&sched_sys.vm_lock);
	for (unsigned i = 0; i < n; i++) {
		uint64_t rate;
		int t = auto_decide(vms[i], now, &rate);

		if (t < 0 || sched_vm_param_set(vms[i], SCHED_PARAM_TYPE, (uint64_t)t))
			continue;
		avm[vms[i]->id % AUTO_MAX_VMS].quiet = 0;
		/* arg: new type (0 HIT, 1 CON) | yields per running second << 8. */
		if (vprof_event && vms[i]->vcpus)
			vprof_event(sched_sys.master, vms[i]->id, vms[i]->vcpus->id,
				    VPE_AUTO_DECISION, now,
				    (uint64_t)t | MIN(rate, (uint64_t)1 << 40) << 8);
		pr_info("sched: auto: vm%u -> %s (%llu yields/PLE exits per running s)\n",
			vms[i]->id, t == SCHED_TYPE_CON ? "con" : "hit", (unsigned long long)rate);
	}
}

SCHED_POLICY_REGISTER(auto) = {
	.name = "auto",
	.desc = "pcs with each VM's CON/HIT type chosen online from its PLE/yield rate (first version)",
	.caps = SCHED_CAP_WEIGHTS | SCHED_CAP_CAPS | SCHED_CAP_WORKCONS | SCHED_CAP_BOOST |
		SCHED_CAP_BALANCE,
	.vcpu_priv = CSCHED_VCPU_BYTES + CSCHED_VCPU_EXT_BYTES,
	.vm_priv = CSCHED_VM_BYTES + CSCHED_VM_EXT_BYTES,
	.pcpu_priv = CSCHED_PCPU_BYTES,
	.init = auto_init, .pcpu_init = csched_pcpu_init,
	.vm_init = csched_vm_init, .vm_adjust = csched_vm_adjust,
	.vcpu_insert = csched_vcpu_insert, .vcpu_remove = csched_vcpu_remove,
	.wake = csched_wake, .sleep = csched_sleep, .pick = csched_pick,
	.yield = csched_yield, .pick_cpu = csched_pick_cpu,
	.tick = csched_tick, .acct = auto_acct,
	.preempt_check = csched_preempt_check, .vm_budget = csched_vm_budget,
	.balloon_unboost = csched_balloon_unboost, .dump = csched_dump,
	.vcpu_carry_out = csched_carry_out, .vcpu_carry_in = csched_carry_in,
};
