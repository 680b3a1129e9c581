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
#include "sched/cosched.h"
#include "sched/credit_priv.h"
#include "sched/option.h"
#include "log.h"
#include "lib/string.h"

#pragma weak vprof_event

#define AUTO_CON_RATE    200   /* yields+PLE exits per running second: turn CON */
#define AUTO_HIT_RATE    50    /* under this ... */
#define AUTO_HIT_PERIODS 3     /* ... for this many periods: back to HIT */
#define AUTO_MAX_VMS     256   /* by VM id */
#define AUTO_SKEW_VCPUS  16    /* vCPUs per VM whose progress auto follows (VM_MAX_VCPUS) */
#define AUTO_SKEW_CON    50    /* sibling skew per mille of the period: CON needs this much */
#define AUTO_DS_STALL    300   /* stall cycles per 1000 cycles: memory-bound, DS on */
#define AUTO_DS_OFF      150   /* under this ... (AUTO_HIT_PERIODS periods): DS off */
#define AUTO_DS_MIN      SCHED_MS(10)   /* seed 001 §5.2's range */
#define AUTO_DS_MAX      SCHED_MS(30)
#define AUTO_DP_RATE     20    /* wake-up preemptions by other VMs per running s: DP on */
#define AUTO_DP_OFF      5     /* under this ... (AUTO_HIT_PERIODS periods): DP off */
#define AUTO_DP_BLOCKS   50    /* blocks per running s: the VM synchronises by blocking */
#define AUTO_DP_LO       SCHED_MS(1)
#define AUTO_DP_HI       SCHED_MS(10)
/* PMU sample per vCPU and accounting period when the VM is not profiled:
 * the platform reads the counters around this many runs (two reads each),
 * the first after the period starts; the stall ratio is taken over them. */
#define AUTO_PMU_RUNS    8
#define AUTO_PLE_MIN     4     /* PLE exits in a period: enough to judge them */
#define AUTO_PLE_PRE     1     /* preemptions of a PLE-off VM's vCPUs in a period: PLE on */
#define AUTO_SA_STEAL    100   /* steal per mille of RUNNING + RUNNABLE: SA on */
#define AUTO_SA_OFF      30    /* under this, and no upcall, ... */
#define AUTO_SA_OFF_PERIODS 10 /* ... for this many periods: SA off (an SA that is
				* not needed sends nothing, so off can wait) */
#define AUTO_GUARD_PCT   25    /* sched_balloon_guard auto sets under cap pressure */
#define AUTO_GUARD_OFF_PERIODS 10 /* periods without cap pressure: guard off again */

static const struct cosched_variant auto_variant = {
	.name = "auto", .global = false, .persist = false, .codesched = false, .strict = false,
};

static struct auto_vm {
	uint64_t yields;          /* VM's st.nyield sum at the last period */
	stime_t run;              /* VM's RUNNING time at the last period */
	uint8_t quiet;            /* consecutive periods under AUTO_HIT_RATE */
	uint8_t auto_con;         /* CON by auto's choice (a user's CON stays) */
	/* DS / DP (seed 001 §5): sums at the last period, state. */
	uint64_t cycles, stall, wpre, blocks;
	uint8_t ds_on, ds_quiet, dp_on, dp_quiet;
	stime_t dp;
	/* PLE (seed 000 §2, seed 002 §4): sums at the last period, state. */
	uint64_t ple, ple_sib, npre;
	uint8_t ple_off, ple_quiet;
	/* SA (seed 000): RUNNABLE time at the last period, state. */
	stime_t steal;
	uint64_t nsa;
	uint8_t sa_on, sa_quiet;
	/* Sibling skew (seed 000 §5.1): each vCPU's RUNNABLE time at the last
	 * period (the first AUTO_SKEW_VCPUS), the period's start, the last
	 * skew, and whether a CON choice is held back for low skew. */
	stime_t vq[AUTO_SKEW_VCPUS];
	stime_t t;
	uint16_t skew;
	uint8_t skew_held;
} avm[AUTO_MAX_VMS];

/* One period's figures of a VM (deltas), for the DS/DP choice. */
struct auto_sig {
	unsigned n;
	stime_t drun;
	uint64_t dcycles, dstall, dwpre, dblocks;
	uint64_t dple, dpre;
	uint64_t dple_sib;        /* PLE exits whose directed yield ran a preempted sibling */
	stime_t dsteal;           /* RUNNABLE time of its vCPUs (steal) */
	bool sa_reg;              /* a vCPU registered the upcall vector for SA */
	uint64_t dsa;             /* SA upcalls sent */
	unsigned skew;            /* sibling skew in the period, per mille of it */
	bool held;                /* spin enough for CON, but skew too low: kept HIT */
};

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

static void auto_trail(struct sched_vm *vm, stime_t now, uint64_t arg)
{
	if (vprof_event && vm->vcpus)
		vprof_event(sched_sys.master, vm->id, vm->vcpus->id, VPE_AUTO_DECISION, now, arg);
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

/* Seed 001 §5 per VM: DS for a memory-bound VM, DP for a VM whose blocking
 * synchronisation is cut by other VMs' wake-ups. Master pCPU, no lock. */
static void auto_seed001(struct sched_vm *vm, const struct auto_sig *g, stime_t now)
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
static void auto_ple(struct sched_vm *vm, const struct auto_sig *g, stime_t now)
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
static void auto_sa(struct sched_vm *vm, const struct auto_sig *g, stime_t now)
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

static void auto_balloon(struct sched_vm **vms, unsigned n, stime_t now)
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
static bool auto_cap_pressure(struct sched_vm *vm)
{
	return vm->params.cap && READ_ONCE(vm->balloon_listened) &&
	       (READ_ONCE(CD(vm)->parked) || READ_ONCE(vm->balloon_guard));
}

static void auto_cap_guard(struct sched_vm **vms, unsigned n, const bool *press, stime_t now)
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

unsigned sched_auto_vm_skew(const struct sched_vm *vm, bool *held)
{
	const struct auto_vm *a = &avm[vm->id % AUTO_MAX_VMS];

	*held = a->skew_held;
	return a->skew;
}

/* The host leaves auto (switch.c, every runqueue lock held): the balloon
 * sharing and guard auto chose go back to the paper's (and the default). */
static void auto_carry_out(struct sched_vcpu *v, struct sched_carry *c)
{
	if (auto_excl && !sched_option_set("sched_balloon_share", "paper"))
		auto_excl = false;
	if (auto_guard && !sched_option_set("sched_balloon_guard", "0"))
		auto_guard = false;
	csched_carry_out(v, c);
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
