/* Policy interface: a read-only ops table per policy, registered by name with
 * SCHED_POLICY_REGISTER (linker section hv_sched), plus the services the core
 * offers policies. One file per policy; policies never touch each other. */
#ifndef HV_SCHED_POLICY_H
#define HV_SCHED_POLICY_H
#include "sched/sched.h"

/* Global options (command line; see sched_option_set). Times in ns. Each is
 * registered, with its default, by SCHED_OPT_* in the file that reads it. */
struct sched_options {
	stime_t credit_tslice;      /* sched_credit_tslice_ms, default 30 ms */
	stime_t credit_tick;        /* sched_credit_tick_ms, default 10 ms */
	stime_t ratelimit;          /* sched_ratelimit_us, default 1000 us */
	stime_t sa_limit;           /* sched_sa_limit_us: SA hard limit, default 500 us */
	stime_t dp_delay;           /* sched_dp_us: fixed delay (adaptive: the start value) */
	uint8_t dp_mode;            /* sched_dp=off|fixed|adaptive (enum sched_dp_mode) */
	stime_t dp_min, dp_max;     /* sched_dp_min_us/max_us: adaptive bounds (0, 20000) */
	uint8_t dp_scope;           /* sched_dp_scope=vcpu|vm: eq. 1 per vCPU or per VM (vcpu) */
	uint8_t dp_idle;            /* sched_dp_idle=vcpu|pcpu: eq. 1's t_idle (vcpu) */
	stime_t ds_min, ds_max;     /* sched_ds_min_ms/max_ms: differential slices, 0 = off */
	uint64_t seed;              /* sched_seed: PRNG seed for randomised hooks */
	stime_t relaxed_skew;       /* sched_relaxed_skew_us: relaxed co-scheduling threshold (3000) */
	stime_t relaxed_costop;     /* sched_relaxed_costop: 1 = co-stop the leader (default), 0 = swap only */
	bool ple_off;               /* ple=off: no PAUSE-loop exits */
	bool ple_undirected;        /* ple_directed=off: plain yield on a PLE exit */
	stime_t ple_window;         /* ple_window: initial PLE_Window, cycles (4096) */
	stime_t ple_window_min;     /* ple_window_min (1024) */
	stime_t ple_window_max;     /* ple_window_max (16384) */
	stime_t ple_recent;         /* ple_recent_us: "recently yielded to" (1000 us) */
};
extern struct sched_options sched_opts;

/* Delayed preemption modes (seed 001 §5.1). `sched_dp_us=N` alone means fixed. */
enum sched_dp_mode { SCHED_DP_OFF = 0, SCHED_DP_FIXED = 1, SCHED_DP_ADAPTIVE = 2 };

/* Capability flags: which conformance properties a policy promises. */
#define SCHED_CAP_WEIGHTS  BIT(0)   /* share proportional to weight */
#define SCHED_CAP_CAPS     BIT(1)   /* caps enforced */
#define SCHED_CAP_WORKCONS BIT(2)   /* work conserving (when no cap is set) */
#define SCHED_CAP_BOOST    BIT(3)   /* bounded wake-up latency for blockers */
#define SCHED_CAP_BALANCE  BIT(4)   /* spreads runnable vCPUs over pCPUs */

/*
 * Ops. "locked(p)" = called with pCPU p's runqueue lock held. Mandatory:
 * name, init, vcpu_insert, vcpu_remove, wake, sleep, pick. Others are
 * optional and called through NULL-safe wrappers in the core.
 */
struct sched_policy {
	const char *name;
	const char *desc;
	uint32_t caps;                  /* SCHED_CAP_* */
	size_t vcpu_priv, vm_priv, pcpu_priv;   /* bytes of priv[] used */

	/* Boot: global state from sched_opts; sets tick/acct periods. No lock. */
	int (*init)(void);
	/* New pCPU, locked(p). */
	void (*pcpu_init)(struct sched_pcpu *p);
	/* VM added / parameters changed (no lock; takes its own). */
	int (*vm_init)(struct sched_vm *vm);
	void (*vm_adjust)(struct sched_vm *vm);
	/* New vCPU (OFFLINE); choose v->pcpu. No lock held; v not yet visible. */
	int (*vcpu_insert)(struct sched_vcpu *v);
	void (*vcpu_remove)(struct sched_vcpu *v);     /* v OFFLINE, locked(v->pcpu) */
	/* v became RUNNABLE (state already set): enqueue, maybe tickle. locked(v->pcpu). */
	void (*wake)(struct sched_vcpu *v, stime_t now);
	/* Optional "wake and run here" (issue 19; default: not handled). v is
	 * waking from BLOCKED (SCHED_VF_WOKEN set, state still BLOCKED) and
	 * its pCPU p runs nothing (p->curr NULL) with no reschedule, hold,
	 * directed yield or policy switch pending. Return true only if
	 * wake(v) followed by pick(p, NULL) would choose v now, with no other
	 * effect than the policy's own bookkeeping of both (priority, queues,
	 * idle masks, charge start), done here; *slice = what pick would set.
	 * The core then makes v RUNNING on p. False: nothing changed, the
	 * normal wake and schedule run. locked(p). */
	bool (*wake_local)(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now,
			   stime_t *slice);
	/* v left RUNNABLE/RUNNING for BLOCKED/OFFLINE: dequeue if queued. locked(v->pcpu). */
	void (*sleep)(struct sched_vcpu *v, stime_t now);
	/* Choose what p runs; prev is p->curr if it still wants the pCPU (state
	 * RUNNING) else NULL. The policy requeues prev as it sees fit and may
	 * steal from peers (trylock only, then sched_vcpu_migrate). Returns a
	 * RUNNABLE vCPU on p (or prev, or NULL = idle) and *slice. locked(p). */
	struct sched_vcpu *(*pick)(struct sched_pcpu *p, struct sched_vcpu *prev,
				   stime_t now, stime_t *slice);

	/* Optional. */
	/* Yield of the running v (flag already set); target may be NULL. locked(v->pcpu). */
	void (*yield)(struct sched_vcpu *v, struct sched_vcpu *target, int why);
	/* Placement on wake/start: preferred pCPU for v. locked(v->pcpu). */
	unsigned (*pick_cpu)(struct sched_vcpu *v, stime_t now);
	/* Periodic tick on a busy pCPU (every sched_sys.tick_ns). locked(p). */
	void (*tick)(struct sched_pcpu *p, stime_t now);
	/* Periodic global accounting on the master pCPU (every acct_ns). No lock. */
	void (*acct)(stime_t now);
	/* Would a schedule now take the pCPU away from running prev? locked(p).
	 * Lets the preemption hooks act only on real preemptions. */
	bool (*preempt_check)(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now);
	/* Balloon (seed 004 §4.3): CPU the VM may still consume before the next
	 * refill without going OVER or being capped; *refill_at = next refill. */
	stime_t (*vm_budget)(struct sched_vm *vm, stime_t now, stime_t *refill_at);
	/* Balloon, sched_balloon_share=excl: v's VM turned WC; drop a wake
	 * priority v still holds (credit's BOOST), so its compute does not run
	 * with it. Optional. locked(v->pcpu); true if p should reschedule. */
	bool (*balloon_unboost)(struct sched_vcpu *v);
	void (*dump)(struct sched_pcpu *p, stime_t now);
	/* Run-time policy switch (switch.c): hand v's accounting over in the
	 * neutral form (old policy, before it is torn down), and take it
	 * (new policy, after vcpu_insert). All runqueue locks held. */
	void (*vcpu_carry_out)(struct sched_vcpu *v, struct sched_carry *c);
	void (*vcpu_carry_in)(struct sched_vcpu *v, const struct sched_carry *c);
};

/*
 * Cross-cutting preemption hooks (ARCHITECTURE "Preemption passes through the
 * core"). Installed with sched_hooks_set() by a mechanism (delayed preemption,
 * SA policy variants, differential slices); NULL members are skipped. The
 * core provides the fixed-delay DP and the random-slice DS below as defaults
 * when their options are set.
 */
struct sched_hooks {
	const char *name;
	/* Delayed preemption (seed 001 §5.1, eq. 1-2): how long prev may keep
	 * running after `waker`, just woken, was found to preempt it; 0 = preempt
	 * now. Only wake-up preemptions ask (never slice expiry, caps, pause or
	 * co-scheduling signals). locked(p). */
	stime_t (*preempt_delay)(struct sched_pcpu *p, struct sched_vcpu *prev,
				 struct sched_vcpu *waker, stime_t now);
	/* Differential slices (seed 001 §5.2): final slice for p; asked only
	 * when a new slice starts, and never allowed to lengthen the policy's
	 * slice (kept or cap-cut slices stay as they are). locked(p). */
	stime_t (*slice_pick)(struct sched_pcpu *p, stime_t slice, stime_t now);
	/* Periodic, on the master pCPU after ops->acct (adaptive DP). No lock. */
	void (*acct)(stime_t now);
	/* Observe every switch (adaptive DP statistics, co-scheduling). locked(p). */
	void (*switched)(struct sched_pcpu *p, struct sched_vcpu *prev,
			 struct sched_vcpu *next, stime_t now);
};
void sched_hooks_set(const struct sched_hooks *h);

/* Registration: `SCHED_POLICY_REGISTER(credit) = { .name = "credit", ... };` */
#define SCHED_POLICY_REGISTER(id) \
	static const struct sched_policy sched_policy_##id HV_REGISTER(sched)

/* ---- core services for policies ----------------------------------------- */
struct sched_sys {
	const struct sched_policy *ops;
	const struct sched_hooks *hooks;
	struct sched_pcpu *pcpu[SCHED_MAX_PCPUS];
	struct cpumask online;
	unsigned npcpus;
	unsigned master;            /* pCPU running ops->acct */
	stime_t tick_ns;            /* ops->tick period (0 = none) */
	stime_t acct_ns;            /* ops->acct period (0 = none) */
	stime_t next_acct;
	stime_t next_balloon;       /* balloon mode re-check (master pCPU timer) */
	spinlock_t vm_lock;
	struct sched_vm *vms;
	uint8_t switching;          /* run-time policy switch under way (switch.c) */
};
extern struct sched_sys sched_sys;

/* Ask p to run its scheduler soon (sets need_resched, kicks unless p is the
 * caller's pCPU and is about to schedule anyway). */
void sched_cpu_resched(unsigned cpu);
/* Cross-pCPU reschedule of a CPU set (plain kicks, not traced). */
void sched_cpus_resched(const struct cpumask *m, stime_t now);
/* Co-scheduling signal from pCPU `from` to the set m on behalf of vCPU `by`
 * (seed 003 Alg. 1): kicks each and traces VPE_COSCHED_SIGNAL per target,
 * charged to `by`, arg = target pCPU. */
void sched_cosched_signal(unsigned from, struct sched_vcpu *by, const struct cpumask *m,
			  stime_t now);
/* Move queued/idle v to pCPU `to`; both runqueue locks held by the caller. */
void sched_vcpu_migrate(struct sched_vcpu *v, unsigned to, stime_t now);
/* Lock the runqueue v belongs to (loops until v->pcpu is stable). */
struct sched_pcpu *sched_vcpu_lock(struct sched_vcpu *v);
void sched_vcpu_unlock(struct sched_pcpu *p);
void sched_lock_pair(struct sched_pcpu *a, struct sched_pcpu *b);
void sched_unlock_pair(struct sched_pcpu *a, struct sched_pcpu *b);
/* Shared page of v through the platform (NULL if none). */
struct sched_shared_page *sched_vcpu_shared(struct sched_vcpu *v);
/* Seqcount bracket for hypervisor writes to a shared page (version odd inside). */
void sched_shared_begin(struct sched_shared_page *sp);
void sched_shared_end(struct sched_shared_page *sp);
void sched_vcpu_inject(struct sched_vcpu *v, uint8_t vector);
/* Next value of p's xorshift PRNG. */
uint64_t sched_cpu_random(struct sched_pcpu *p);

/* Internal to the core files (core.c, preempt.c, params.c). */
const struct sched_policy *sched_policy_find(const char *name);
void sched_policy_list(void);
int sched_policy_check(const struct sched_policy *ops);
stime_t sched_preempt_hold(struct sched_pcpu *p, struct sched_vcpu *prev, bool hard, stime_t now);
/* SA upcall bookkeeping (preempt.c), locked(v's pCPU): drop a pending
 * upcall; `moot` = because v blocked/yielded/slept (counted, no timeout). */
void sched_sa_cancel(struct sched_pcpu *p, struct sched_vcpu *v, bool moot, stime_t now);
/* The SA hard limit of p's running vCPU expired: count it, drop it. locked(p). */
void sched_sa_timeout(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now);
/* Balloon (seed 004 §4.3, preempt.c): decide every VM's mode from the
 * policy's vm_budget, write the shared pages, raise mode upcalls. No lock.
 * Returns when it must run again (STIME_MAX = at the next accounting). */
stime_t sched_balloon_update(stime_t now);
/* Wake balloon sleepers whose timeout passed; returns the next timeout. No lock. */
stime_t sched_sleep_expire(stime_t now);
bool sched_vcpu_irq_pending(struct sched_vcpu *v);
/* Adaptive DP, eq. 1-2 (preempt.c): the new delay from one period's figures. */
stime_t sched_dp_update(stime_t delay, stime_t t_comp, stime_t t_idle, stime_t t_fair,
			stime_t lo, stime_t hi);
/* Adaptive DP's t_fair (preempt.c): span x min(1, npcpus x weight / wsum). */
stime_t sched_dp_fair(stime_t span, unsigned npcpus, uint32_t weight, uint64_t wsum);
stime_t sched_slice_adjust(struct sched_pcpu *p, stime_t slice, stime_t now);
/* core.c -> schedule.c: the switch of an idle p to the woken v (sched_wake_run). */
bool sched_switch_woken(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now);
void sched_options_defaults(void);
/* sched_options_defaults() unless done (before the first set/get, sched_init). */
void sched_options_ensure(void);
void sched_yield_pull(struct sched_pcpu *p, stime_t now);
void sched_ple_after_pick(struct sched_pcpu *p, struct sched_vcpu *prev, struct sched_vcpu *next);
void sched_dedicated_init(void);
void sched_dedicated_epoch(unsigned cpu, stime_t now);
/* Policy switch (switch.c). locked(p): take p's vCPUs out of the old policy
 * (p->curr already switched away); true when p was the last pCPU to do so. */
bool sched_switch_quiesce(struct sched_pcpu *p, stime_t now);
/* The last quiesced pCPU, no lock held: install the new policy. */
void sched_switch_install(stime_t now);
/* Per-VM policies (vmpolicy.c): back to the host's for every VM (the host
 * switch's install, all locks held); the id of a "vm=ID" option (-1: none,
 * -2: malformed). */
void sched_vmpol_reset(void);
/* sched=auto's own per-VM DP/DS (auto_mech.c, master pCPU): dp = fixed delay (0:
 * the host's), DS in [ds_min, ds_max] (0: the host's); the VM stays auto's. */
void sched_vmpol_auto_set(struct sched_vm *vm, stime_t dp, stime_t ds_min, stime_t ds_max);
/* The VM's policy was chosen by hand (a move): auto leaves it alone. */
bool sched_vmpol_pinned(const struct sched_vm *vm);
int sched_vmpol_opt_vm(const char *opts);
void sched_trace_state(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now);
void sched_trace_event(unsigned cpu, struct sched_vcpu *v, enum vp_event ev, stime_t now,
		       uint64_t arg);
#endif
