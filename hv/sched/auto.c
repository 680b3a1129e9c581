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
 *   - a VM auto turned CON turns back HIT after AUTO_HIT_PERIODS
 *     consecutive periods under AUTO_HIT_RATE (hysteresis: co-scheduling
 *     itself removes most of the spinning it was chosen for);
 *   - a VM the user declared CON (`type=con` at creation, or set by hand
 *     under this policy) stays CON: seed 003 §V-B makes the type the
 *     administrator's configuration, and §I counts "no concurrent or
 *     synchronization detection is needed" among co-scheduling's merits.
 *     The absence of PLE/yield exits is no evidence against CON: a guest
 *     that spins without PAUSE (or with ple=off) exits for neither, and
 *     turning such a VM HIT cost 2.7x against cs/pcs on cosched_solo_con
 *     (docs/sched.md "sched=auto"). auto adds CON on evidence only and
 *     takes back only what it added.
 * Second, per VM and with the same period and hysteresis, the two seed 001
 * mechanisms, as the VM's own variants (hv/sched/vmpolicy.c):
 *   - differential slices (§5.2: "DS was only effective in optimizing
 *     memory-bound programs", Fig. 10a): a VM with at least 2 vCPUs whose
 *     offcore memory stall cycles (§2.2 OFFCORE_STALL, from the platform's
 *     PMU: sched_vcpu_pmu) reach AUTO_DS_STALL of its cycles gets slices
 *     uniform in [10, 30] ms (the paper's range); off again after
 *     AUTO_HIT_PERIODS periods under AUTO_DS_OFF;
 *   - delayed preemption (§5.1): a VM with at least 2 vCPUs that block to
 *     synchronise (AUTO_DP_BLOCKS blocks per running second) and whose
 *     running vCPUs are preempted by another VM's wake-ups
 *     (st.nwake_preempted) AUTO_DP_RATE times per running second gets a
 *     fixed delay of twice its mean run between blocks, in [1, 10] ms (long
 *     enough for a vCPU to reach its next synchronisation point); off after
 *     AUTO_HIT_PERIODS periods under AUTO_DP_OFF.
 * Third, per VM with the same period: PLE off for a VM whose PAUSE-loop
 * exits help nobody (auto_ple, seed 002 §4), SA for a VM whose guest
 * registered the upcall for it and suffers steal (auto_sa, seed 000), and
 * for the host, excl balloon sharing while ballooning VMs share a pCPU
 * (auto_balloon, seed 004 §4.3; the SWC mode itself is credit's, per VM).
 * Fourth, two more signals: sibling skew (seed 000 §5.1's progress: a vCPU
 * progresses while it runs or idles, not while it waits RUNNABLE; the VM's
 * skew in a period is the spread of that over its vCPUs, per mille of the
 * period) gates the CON choice: spin whose siblings progress together
 * (skew under AUTO_SKEW_CON) is contention inside the guest, which
 * co-scheduling cannot help, and the VM is held HIT (then PLE may go off
 * for it); cap pressure (seed 004 §4.3: a capped VM parked by its cap
 * before the refill) turns the host's NWC guard on (auto_cap_guard).
 * Every change is recorded as VPE_AUTO_DECISION on the VM's first vCPU:
 * the decision trail in the vProfile trace. arg = value (bits 0-3: type 0
 * HIT / 1 CON, DS, DP or SA 0 off / 1 on, PLE 1 off / 0 on, balloon share
 * 1 excl / 0 paper) | what << 4 (0 type, 1 DS, 2 DP, 3 PLE, 4 SA, 5 balloon
 * share) | signal << 8 (type: yields+PLE exits per running second; DS:
 * stall cycles per thousand cycles; DP: wake-up preemptions per running
 * second | delay in us << 24; PLE: PLE exits per running second |
 * preemptions << 32; SA: steal per mille; 6 CON held for low skew, 7 NWC
 * guard: see auto_skew_trail, auto_cap_guard). A VM's `type=` is auto's to
 * change under this policy; a VM moved by hand (vmpolicy.c) is left alone.
 * Not covered: spinning without PAUSE in a VM not declared CON (what the
 * scheduler sees of it, running/steal/blocks/preemptions/skew, is a hog's:
 * docs/sched.md "sched=auto"); moving a VM to a policy of another family.
 * The PMU figures: all of them while the VM is profiled (vProfile on);
 * otherwise auto asks the platform for AUTO_PMU_RUNS runs of each vCPU per
 * period (sched_vcpu_pmu_wanted: the hypervisor's PMU glue reads the
 * counters around those runs only, hvsim's model feeds only those), so DS
 * needs no vProfile; with no PMU at all (Bochs) DS is never chosen.
 */
#include "sched/auto_priv.h"
#include "sched/option.h"
#include "log.h"
#include "lib/string.h"

static const struct cosched_variant auto_variant = {
	.name = "auto", .global = false, .persist = false, .codesched = false, .strict = false,
};

struct auto_vm avm[AUTO_MAX_VMS];

static int auto_init(void)
{
	memset(avm, 0, sizeof(avm));
	return cosched_init(&auto_variant);
}

/* A new VM (or every VM at a switch to auto) starts with no history: a
 * CON type it has now is the user's, not auto's. */
static int auto_vm_init(struct sched_vm *vm)
{
	memset(&avm[vm->id % AUTO_MAX_VMS], 0, sizeof(avm[0]));
	return csched_vm_init(vm);
}

/* A new vCPU is sampled from its first runs: the first period's DS choice
 * has its figures (vProfile or not). */
static int auto_vcpu_insert(struct sched_vcpu *v)
{
	WRITE_ONCE(v->pmu_want, AUTO_PMU_RUNS);
	return csched_vcpu_insert(v);
}

/* One VM, master pCPU after credit's accounting, no lock held. Returns the
 * type to set, or -1 to keep. */
static int auto_decide(struct sched_vm *vm, stime_t now, uint64_t *rate_out,
		       struct auto_sig *sig)
{
	struct auto_vm *a = &avm[vm->id % AUTO_MAX_VMS];
	uint64_t yields = 0, rate, cycles = 0, stall = 0, wpre = 0, blocks = 0;
	uint64_t ple = 0, ple_sib = 0, npre = 0;
	stime_t run = 0, drun, steal = 0;
	uint64_t nsa = 0;
	unsigned n = 0;
	bool sa_reg = false;
	stime_t qhi = 0, qlo = STIME_MAX, span = now - a->t;

	bool sample = vm->nvcpus >= 2 && !sched_vmpol_pinned(vm);

	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next, n++) {
		struct sched_vcpu_stats st;

		/* The next period's PMU sample (DS signal) without vProfile. */
		WRITE_ONCE(v->pmu_want, sample ? AUTO_PMU_RUNS : 0);
		sched_vcpu_stats(v, now, &st);
		yields += st.nyield;
		run += st.time[SCHED_RUNNING];
		cycles += st.pmu_cycles;
		stall += st.pmu_stall;
		wpre += st.nwake_preempted;
		blocks += st.nblock;
		ple += st.nyield;   /* PLE exits and yield hypercalls */
		/* PLE exits whose directed yield ran a preempted sibling (ple.c's
		 * own count: the exit path has nothing added for auto). */
		ple_sib += st.nple_directed;
		npre += st.npreempt;
		steal += st.time[SCHED_RUNNABLE];
		nsa += st.nsa_upcall;
		/* Sibling skew (seed 000 §5.1's relaxed co-scheduling: a vCPU
		 * progresses while it runs or idles, not while it waits
		 * RUNNABLE): the spread of the period's progress over the
		 * siblings = the spread of their RUNNABLE time. */
		if (n < AUTO_SKEW_VCPUS) {
			stime_t dq = st.time[SCHED_RUNNABLE] - a->vq[n];

			a->vq[n] = st.time[SCHED_RUNNABLE];
			qhi = MAX(qhi, dq);
			qlo = MIN(qlo, dq);
		}
		/* Registered for SA: a vector without the balloon opt-in (ABI v1
		 * has no "SA receiver" flag; a balloon-only guest registers with
		 * HV_SA_REG_BALLOON and may not ack SA upcalls). */
		sa_reg |= READ_ONCE(v->sa_vector) != 0 && !READ_ONCE(v->balloon_sub);
	}
	spin_unlock(&sched_sys.vm_lock);
	drun = run - a->run;
	rate = drun > 0 ? (yields - a->yields) * 1000000000ull / (uint64_t)drun : 0;
	*sig = (struct auto_sig){ .n = n, .drun = drun, .dcycles = cycles - a->cycles,
				  .dstall = stall - a->stall, .dwpre = wpre - a->wpre,
				  .dblocks = blocks - a->blocks, .dple = ple - a->ple,
				  .dple_sib = ple_sib - a->ple_sib, .dpre = npre - a->npre,
				  .dsteal = steal - a->steal, .sa_reg = sa_reg,
				  .dsa = nsa - a->nsa };
	if (n >= 2 && span > 0)
		sig->skew = (unsigned)MIN((uint64_t)(qhi - qlo) * 1000 / (uint64_t)span, 1000ull);
	a->t = now;
	a->skew = (uint16_t)sig->skew;
	a->yields = yields;
	a->run = run;
	a->cycles = cycles;
	a->stall = stall;
	a->wpre = wpre;
	a->blocks = blocks;
	a->ple = ple;
	a->ple_sib = ple_sib;
	a->npre = npre;
	a->steal = steal;
	a->nsa = nsa;
	*rate_out = rate;
	/* A VM moved to a policy of its own (vmpolicy.c) is not auto's. */
	if (n < 2 || drun <= 0 || sched_vmpol_pinned(vm))
		return -1;
	if (vm->params.type != SCHED_TYPE_CON) {
		a->quiet = 0;
		/* Spinning whose siblings progress together (skew under
		 * AUTO_SKEW_CON): nobody it waits for is kept from running, so
		 * co-scheduling has nothing to align (seed 003 Fig. 1-2: the
		 * waste is a sibling spinning while another is descheduled);
		 * it is contention inside the guest. Held HIT (auto_skew_trail). */
		sig->held = rate >= AUTO_CON_RATE && sig->skew < AUTO_SKEW_CON;
		return rate >= AUTO_CON_RATE && !sig->held ? SCHED_TYPE_CON : -1;
	}
	if (!a->auto_con)
		return -1;   /* the user's CON (seed 003 §V-B): not auto's to undo */
	a->quiet = rate < AUTO_HIT_RATE ? (uint8_t)MIN(a->quiet + 1, 255) : 0;
	return a->quiet >= AUTO_HIT_PERIODS ? SCHED_TYPE_HIT : -1;
}

/* Sibling skew's trail: a VM whose spin rate asks for CON while its
 * siblings progress together is held HIT; the hold and its end are
 * decisions (what 6). Master pCPU. */
static void auto_skew_trail(struct sched_vm *vm, const struct auto_sig *g, uint64_t rate,
			    stime_t now)
{
	struct auto_vm *a = &avm[vm->id % AUTO_MAX_VMS];

	if (g->held == a->skew_held)
		return;
	a->skew_held = g->held;
	/* arg: 1 = held HIT, 0 = released | 6 << 4 | rate << 8 (24 bits) |
	 * skew per mille << 32. */
	auto_trail(vm, now, (uint64_t)g->held | 6u << 4 | MIN(rate, 0xffffffull) << 8 |
			    (uint64_t)g->skew << 32);
	pr_info("sched: auto: vm%u %s (%llu yields/PLE exits per running s, sibling skew %u per "
		"mille)\n", vm->id, g->held ? "con held: siblings progress together" : "con hold ended",
		(unsigned long long)rate, g->skew);
}

unsigned sched_auto_vm_skew(const struct sched_vm *vm, bool *held)
{
	const struct auto_vm *a = &avm[vm->id % AUTO_MAX_VMS];

	*held = a->skew_held;
	return a->skew;
}

static void auto_acct(stime_t now)
{
	struct sched_vm *vms[AUTO_MAX_VMS];
	bool press[AUTO_MAX_VMS];
	unsigned n = 0;

	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vm *vm = sched_sys.vms; vm && n < AUTO_MAX_VMS; vm = vm->next)
		vms[n++] = vm;
	spin_unlock(&sched_sys.vm_lock);
	/* Cap pressure before the refill unparks (auto_cap_guard). */
	for (unsigned i = 0; i < n; i++)
		press[i] = auto_cap_pressure(vms[i]);
	csched_acct(now);
	for (unsigned i = 0; i < n; i++) {
		uint64_t rate;
		struct auto_sig sig;
		int t = auto_decide(vms[i], now, &rate, &sig);

		auto_skew_trail(vms[i], &sig, rate, now);

		if (!sched_vmpol_pinned(vms[i])) {
			auto_seed001(vms[i], &sig, now);
			auto_ple(vms[i], &sig, now);
			auto_sa(vms[i], &sig, now);
		}
		if (t < 0 || sched_vm_param_set(vms[i], SCHED_PARAM_TYPE, (uint64_t)t))
			continue;
		avm[vms[i]->id % AUTO_MAX_VMS].quiet = 0;
		avm[vms[i]->id % AUTO_MAX_VMS].auto_con = t == SCHED_TYPE_CON;
		/* arg: new type (0 HIT, 1 CON) | yields per running second << 8
		 * (40 bits) | sibling skew per mille << 48. */
		auto_trail(vms[i], now, (uint64_t)t | MIN(rate, ((uint64_t)1 << 40) - 1) << 8 |
					(uint64_t)sig.skew << 48);
		pr_info("sched: auto: vm%u -> %s (%llu yields/PLE exits per running s, sibling skew %u "
			"per mille)\n", vms[i]->id, t == SCHED_TYPE_CON ? "con" : "hit",
			(unsigned long long)rate, sig.skew);
	}
	auto_balloon(vms, n, now);
	auto_cap_guard(vms, n, press, now);
}

SCHED_POLICY_REGISTER(auto) = {
	.name = "auto",
	.desc = "pcs with each VM's CON/HIT type, DS, DP, PLE and SA chosen online (docs/sched.md)",
	.caps = SCHED_CAP_WEIGHTS | SCHED_CAP_CAPS | SCHED_CAP_WORKCONS | SCHED_CAP_BOOST |
		SCHED_CAP_BALANCE,
	.vcpu_priv = CSCHED_VCPU_BYTES + CSCHED_VCPU_EXT_BYTES,
	.vm_priv = CSCHED_VM_BYTES + CSCHED_VM_EXT_BYTES,
	.pcpu_priv = CSCHED_PCPU_BYTES,
	.init = auto_init, .pcpu_init = csched_pcpu_init,
	.vm_init = auto_vm_init, .vm_adjust = csched_vm_adjust,
	.vcpu_insert = auto_vcpu_insert, .vcpu_remove = csched_vcpu_remove,
	.wake = csched_wake, .sleep = csched_sleep, .pick = csched_pick,
	.yield = csched_yield, .pick_cpu = csched_pick_cpu,
	.tick = csched_tick, .acct = auto_acct,
	.preempt_check = csched_preempt_check, .vm_budget = csched_vm_budget,
	.balloon_unboost = csched_balloon_unboost, .dump = csched_dump,
	.vcpu_carry_out = auto_carry_out, .vcpu_carry_in = csched_carry_in,
};
