/* sched=auto's mechanism choosers (issue 16; docs/sched.md "sched=auto"):
 * per VM, seed 001's DS/DP, PLE off/on and SA; for the host, balloon
 * sharing and the NWC cap guard. hv/sched/auto.c gathers each period's
 * signals (struct auto_sig) and calls these from auto_acct. */
#include "sched/auto_priv.h"
#include "sched/option.h"
#include "log.h"

/* Seed 001 §5 per VM: DS for a memory-bound VM, DP for a VM whose blocking
 * synchronisation is cut by other VMs' wake-ups. Master pCPU, no lock. */
void auto_seed001(struct sched_vm *vm, const struct auto_sig *g, stime_t now)
{
	struct auto_vm *a = &avm[vm->id % AUTO_MAX_VMS];
	uint64_t stall = g->dcycles ? g->dstall * 1000 / g->dcycles : 0;
	uint64_t wrate = g->drun > 0 ? g->dwpre * 1000000000ull / (uint64_t)g->drun : 0;
	uint64_t brate = g->drun > 0 ? g->dblocks * 1000000000ull / (uint64_t)g->drun : 0;
	bool ds = a->ds_on, dp = a->dp_on;
	stime_t delay = a->dp;

	if (g->n < 2 || g->drun <= 0)
		return;
	if (!a->ds_on) {
		ds = g->dcycles && stall >= AUTO_DS_STALL;
		a->ds_quiet = 0;
	} else {
		a->ds_quiet = stall < AUTO_DS_OFF ? (uint8_t)MIN(a->ds_quiet + 1, 255) : 0;
		ds = a->ds_quiet < AUTO_HIT_PERIODS;
	}
	if (!a->dp_on) {
		dp = wrate >= AUTO_DP_RATE && brate >= AUTO_DP_BLOCKS;
		a->dp_quiet = 0;
	} else {
		a->dp_quiet = wrate < AUTO_DP_OFF ? (uint8_t)MIN(a->dp_quiet + 1, 255) : 0;
		dp = a->dp_quiet < AUTO_HIT_PERIODS;
	}
	if (dp && !a->dp_on) {
		/* Twice the mean run between blocks: room to reach the next
		 * synchronisation point (§5.1's "delay the preemption"). */
		delay = g->dblocks ? 2 * g->drun / (stime_t)g->dblocks : AUTO_DP_HI;
		delay = MAX(MIN(delay, AUTO_DP_HI), AUTO_DP_LO);
	}
	if (ds == a->ds_on && dp == a->dp_on)
		return;
	sched_vmpol_auto_set(vm, dp ? delay : 0, ds ? AUTO_DS_MIN : 0, ds ? AUTO_DS_MAX : 0);
	if (ds != a->ds_on) {
		auto_trail(vm, now, (uint64_t)ds | 1u << 4 | stall << 8);
		pr_info("sched: auto: vm%u ds %s (%llu stall cycles per 1000)\n", vm->id,
			ds ? "on 10-30 ms" : "off", (unsigned long long)stall);
	}
	if (dp != a->dp_on) {
		auto_trail(vm, now, (uint64_t)dp | 2u << 4 | MIN(wrate, 0xffffull) << 8 |
				    (uint64_t)(delay / 1000) << 24);
		pr_info("sched: auto: vm%u dp %s %lld us (%llu wake-up preemptions, %llu blocks per "
			"running s)\n", vm->id, dp ? "on" : "off", (long long)(delay / 1000),
			(unsigned long long)wrate, (unsigned long long)brate);
	}
	a->ds_on = ds;
	a->dp_on = dp;
	a->dp = delay;
}

/* PLE per VM (seed 000 §2, seed 002 §4: a PAUSE-loop exit helps only when
 * the spinner waits for a preempted sibling; else it is a VM exit and a
 * yield for nothing). Off (sched_ple_vm_set: windows at the largest the
 * VMCS field holds) for a VM whose PLE exits and yields (st.nyield) ran no
 * preempted sibling (st.nple_directed: ple.c's exit path is untouched) in
 * AUTO_HIT_PERIODS consecutive periods with at least AUTO_PLE_MIN exits
 * each, and whose vCPUs were not preempted at all meanwhile (or that has one
 * vCPU: it has no sibling to help); back on (the adaptive window, ple.c) as
 * soon as one of its 2+ vCPUs is preempted AUTO_PLE_PRE times in a period:
 * a lock holder may then be preempted, and with PLE off the spin would not
 * be seen. The per-vCPU window (ple.c) already grows to ple_window_max on
 * exits that find nobody; this removes the exits left at that window.
 * Master pCPU, no lock. */
void auto_ple(struct sched_vm *vm, const struct auto_sig *g, stime_t now)
{
	struct auto_vm *a = &avm[vm->id % AUTO_MAX_VMS];
	uint64_t rate = g->drun > 0 ? g->dple * 1000000000ull / (uint64_t)g->drun : 0;
	bool off = a->ple_off;

	if (!sched_ple_enabled() || g->drun <= 0)
		return;
	if (!a->ple_off) {
		/* Not a CON VM: co-scheduling is why its siblings are not
		 * preempted, and its PLE/yield rate is auto's CON signal. */
		bool idle = g->dple >= AUTO_PLE_MIN && g->dple_sib == 0 &&
			    (g->n < 2 || g->dpre == 0) && vm->params.type != SCHED_TYPE_CON;

		a->ple_quiet = idle ? (uint8_t)MIN(a->ple_quiet + 1, 255) : 0;
		off = a->ple_quiet >= AUTO_HIT_PERIODS;
	} else if (g->n >= 2 && (g->dpre >= AUTO_PLE_PRE || vm->params.type == SCHED_TYPE_CON)) {
		off = false;
		a->ple_quiet = 0;
	}
	if (off == a->ple_off) {
		if (off)   /* an exit at the huge window clamped it back: off again */
			sched_ple_vm_set(vm, true);
		return;
	}
	sched_ple_vm_set(vm, off);
	a->ple_off = off;
	/* arg: 1 = PLE off, 0 = on | 3 << 4 | PLE exits per running s << 8 |
	 * preemptions of its vCPUs in the period << 32. */
	auto_trail(vm, now, (uint64_t)off | 3u << 4 | MIN(rate, 0xffffffull) << 8 |
			    MIN(g->dpre, 0xffffull) << 32);
	pr_info("sched: auto: vm%u ple %s (%llu PLE exits+yields per running s, %llu ran a preempted "
		"sibling, %llu preemptions)\n", vm->id, off ? "off" : "on", (unsigned long long)rate,
		(unsigned long long)g->dple_sib, (unsigned long long)g->dpre);
}

/* SA per VM (seed 000 Alg. 1, docs/pv-abi.md): the upcall before an
 * involuntary preemption lets the guest move the preempted vCPU's work
 * (IRS: Alg. 2), which pays when the VM loses its pCPUs to others. On for a
 * VM whose guest registered the upcall vector for SA (HC_SCHED_SA_REGISTER
 * on any vCPU without HV_SA_REG_BALLOON: a balloon guest registers the
 * vector for the mode upcall and need not ack SA; `balloon=dynamic sa=on`
 * never ends in hvsim, credit or auto) and whose vCPUs waited RUNNABLE (steal) for
 * at least AUTO_SA_STEAL per mille of their RUNNING + RUNNABLE time in a
 * period; off again after AUTO_SA_OFF_PERIODS periods under AUTO_SA_OFF
 * with no upcall sent (nobody tried to preempt its running vCPUs: an SA
 * that is not needed costs nothing, so this waits longer than the other
 * choices, through the phases where IRS itself removed the steal). Only
 * the SA auto turned on: a VM created with sa=on keeps it. Master pCPU. */
void auto_sa(struct sched_vm *vm, const struct auto_sig *g, stime_t now)
{
	struct auto_vm *a = &avm[vm->id % AUTO_MAX_VMS];
	stime_t tot = g->drun + g->dsteal;
	uint64_t pm = tot > 0 ? (uint64_t)g->dsteal * 1000 / (uint64_t)tot : 0;
	bool on = a->sa_on;

	if (tot <= 0 || (!a->sa_on && (vm->params.sa || !g->sa_reg)))
		return;
	if (!a->sa_on) {
		on = pm >= AUTO_SA_STEAL;
		a->sa_quiet = 0;
	} else {
		/* SA removes much of the steal it was chosen for (the guest
		 * moves the work off a vCPU about to wait): its own upcalls say
		 * the preemptions go on. */
		bool quiet = pm < AUTO_SA_OFF && g->dsa == 0;

		a->sa_quiet = quiet ? (uint8_t)MIN(a->sa_quiet + 1, 255) : 0;
		on = a->sa_quiet < AUTO_SA_OFF_PERIODS;
	}
	if (on == a->sa_on || sched_vm_param_set(vm, SCHED_PARAM_SA, on))
		return;
	a->sa_on = on;
	vm->pol.sa_auto = on;
	/* arg: 1 = SA on, 0 = off | 4 << 4 | steal per mille << 8. */
	auto_trail(vm, now, (uint64_t)on | 4u << 4 | pm << 8);
	pr_info("sched: auto: vm%u sa %s (steal %llu per mille of its vCPUs' time)\n", vm->id,
		on ? "on" : "off", (unsigned long long)pm);
}

/* Balloon (seed 004 §4.3). The SWC mode itself needs no choice: under auto,
 * as under credit, sched_balloon_update (preempt.c) decides it every period
 * for every VM from its budget (cap, credit), and a guest that runs the
 * balloon opts in to the mode upcall (HV_SA_REG_BALLOON): hvsim's balloon
 * arms give auto credit's tail latencies to the microsecond. What is left to
 * choose is the host's sched_balloon_share: two ballooning VMs that share a
 * pCPU hold their saved credit together under the paper's rule and wait out
 * each other's slices (docs/sched.md "Balloon mode"); `excl` (one WC VM per
 * pCPU at a time) gives a p99 of 1 ms instead of 28 ms in hvsim's share
 * case. auto turns it on when two VMs that listen to the mode upcall have
 * pCPUs in common (balloon_listened / balloon_cpus, as the last balloon
 * update saw them) and the option is at `paper`, and back to `paper` after
 * AUTO_HIT_PERIODS periods without such a pair, or when the host leaves
 * auto (auto_carry_out). Master pCPU. */
static bool auto_excl;
static uint8_t auto_excl_quiet;

static bool auto_balloon_pair(struct sched_vm **vms, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++) {
			if (!READ_ONCE(vms[i]->balloon_listened) || !READ_ONCE(vms[j]->balloon_listened))
				continue;
			for (unsigned w = 0; w < CPUMASK_WORDS; w++)
				if (vms[i]->balloon_cpus.w[w] & vms[j]->balloon_cpus.w[w])
					return true;
		}
	return false;
}

void auto_balloon(struct sched_vm **vms, unsigned n, stime_t now)
{
	bool pair = auto_balloon_pair(vms, n);
	uint64_t cur = 0;

	if (!auto_excl) {
		if (!pair || sched_option_get("sched_balloon_share", &cur) || cur != 0 ||
		    sched_option_set("sched_balloon_share", "excl"))
			return;
		auto_excl = true;
		auto_excl_quiet = 0;
	} else {
		auto_excl_quiet = pair ? 0 : (uint8_t)MIN(auto_excl_quiet + 1, 255);
		if (auto_excl_quiet < AUTO_HIT_PERIODS || sched_option_set("sched_balloon_share", "paper"))
			return;
		auto_excl = false;
	}
	/* arg: 1 = excl, 0 = paper | 5 << 4, on every listening VM. */
	for (unsigned i = 0; i < n; i++)
		if (READ_ONCE(vms[i]->balloon_listened))
			auto_trail(vms[i], now, (uint64_t)auto_excl | 5u << 4);
	pr_info("sched: auto: sched_balloon_share=%s (%s)\n", auto_excl ? "excl" : "paper",
		auto_excl ? "ballooning VMs share a pCPU" : "no ballooning VMs share a pCPU");
}

/* Cap pressure (seed 004 §4.3, §4.5). A capped VM that reaches its cap
 * before the refill is parked until it ("forcibly suspended when periodic
 * accounting is performed", §4.3), and its I/O waits out the rest of the
 * period. Seed 004 wants compute to run "only when there are sufficient
 * credits left until the next accounting period to avoid a forcible
 * suspension"; with the guest's static priority (§4.4) the balloon's NWC
 * mode does that, with dynamic priority (§4.5) compute keeps running in NWC
 * and the VM is parked anyway (docs/sched.md "Balloon mode": p99 998 us
 * for 1 vCPU capped at 50, 1998 us for 4 capped at 200). The NWC guard
 * (sched_balloon_guard, preempt.c) closes that gap: the guest ranks the
 * balloon above compute once the budget is short. It is a host option, off
 * by default; auto turns it on (AUTO_GUARD_PCT) when a capped VM that listens
 * to the mode upcall was parked by its cap at the end of a period or had
 * the guard trip in it (the guard, once on, keeps it from being parked:
 * that is pressure too), and off again after AUTO_GUARD_OFF_PERIODS periods
 * without, or when the host leaves auto. A user's non-zero guard is left
 * alone. Cap pressure is sampled before credit's accounting refills and
 * unparks (csched_acct_vm). Master pCPU. */
static bool auto_guard;
static uint8_t auto_guard_quiet;

/* Before csched_acct: a capped VM that listens to the mode upcall, parked
 * by its cap or guarded in the period ending now. */
bool auto_cap_pressure(struct sched_vm *vm)
{
	return vm->params.cap && READ_ONCE(vm->balloon_listened) &&
	       (READ_ONCE(CD(vm)->parked) || READ_ONCE(vm->balloon_guard));
}

void auto_cap_guard(struct sched_vm **vms, unsigned n, const bool *press, stime_t now)
{
	unsigned k = 0;
	uint64_t cur = 0;
	char val[8];

	for (unsigned i = 0; i < n; i++)
		k += press[i];
	if (!auto_guard) {
		if (!k || sched_option_get("sched_balloon_guard", &cur) || cur != 0)
			return;
		val[0] = '0' + AUTO_GUARD_PCT / 10;
		val[1] = '0' + AUTO_GUARD_PCT % 10;
		val[2] = 0;
		if (sched_option_set("sched_balloon_guard", val))
			return;
		auto_guard = true;
		auto_guard_quiet = 0;
	} else {
		auto_guard_quiet = k ? 0 : (uint8_t)MIN(auto_guard_quiet + 1, 255);
		if (auto_guard_quiet < AUTO_GUARD_OFF_PERIODS ||
		    sched_option_set("sched_balloon_guard", "0"))
			return;
		auto_guard = false;
	}
	/* arg: 1 = guard on, 0 = off | 7 << 4 | guard % << 8 | capped VMs
	 * under pressure << 16, on every VM under pressure (on) or every
	 * listening VM (off). */
	for (unsigned i = 0; i < n; i++)
		if (auto_guard ? press[i] : READ_ONCE(vms[i]->balloon_listened))
			auto_trail(vms[i], now, (uint64_t)auto_guard | 7u << 4 |
						(uint64_t)(auto_guard ? AUTO_GUARD_PCT : 0) << 8 |
						(uint64_t)k << 16);
	pr_info("sched: auto: sched_balloon_guard=%u (%u capped ballooning VMs parked by their cap or "
		"guarded)\n", auto_guard ? AUTO_GUARD_PCT : 0, k);
}

bool sched_auto_guard_on(void)
{
	return auto_guard;
}

/* The host leaves auto (switch.c, every runqueue lock held): the balloon
 * sharing and guard auto chose go back to the paper's (and the default). */
void auto_carry_out(struct sched_vcpu *v, struct sched_carry *c)
{
	if (auto_excl && !sched_option_set("sched_balloon_share", "paper"))
		auto_excl = false;
	if (auto_guard && !sched_option_set("sched_balloon_guard", "0"))
		auto_guard = false;
	csched_carry_out(v, c);
}
