/* sched=auto's private header: what hv/sched/auto.c (the signals and the
 * CON/HIT type) and hv/sched/auto_mech.c (the per-VM and host mechanism
 * choosers: DS/DP, PLE, SA, balloon sharing, the cap guard) share. The
 * policy itself is described at the top of auto.c. */
#ifndef HV_SCHED_AUTO_PRIV_H
#define HV_SCHED_AUTO_PRIV_H

#include "sched/cosched.h"
#include "sched/credit_priv.h"

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

struct auto_vm {
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
};

extern struct auto_vm avm[AUTO_MAX_VMS];


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

static inline void auto_trail(struct sched_vm *vm, stime_t now, uint64_t arg)
{
	if (vprof_event && vm->vcpus)
		vprof_event(sched_sys.master, vm->id, vm->vcpus->id, VPE_AUTO_DECISION, now, arg);
}

/* auto_mech.c: the choosers, called from auto_acct on the master pCPU. */
void auto_seed001(struct sched_vm *vm, const struct auto_sig *g, stime_t now);
void auto_ple(struct sched_vm *vm, const struct auto_sig *g, stime_t now);
void auto_sa(struct sched_vm *vm, const struct auto_sig *g, stime_t now);
void auto_balloon(struct sched_vm **vms, unsigned n, stime_t now);
bool auto_cap_pressure(struct sched_vm *vm);
void auto_cap_guard(struct sched_vm **vms, unsigned n, const bool *press, stime_t now);
void auto_carry_out(struct sched_vcpu *v, struct sched_carry *c);

#endif
