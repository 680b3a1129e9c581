/* vCPU scheduler framework: the objects the hypervisor embeds and the entry
 * points it calls. Policies plug in through policy.h; the machine is reached
 * only through platform.h. See docs/sched.md for the design.
 *
 * Lock order (whole subsystem):
 *   pCPU runqueue locks (struct sched_pcpu.lock), two at once only in
 *   ascending pCPU id order or by trylock  ->  policy-global lock (e.g.
 *   credit's prv lock)  ->  sched_sys.vm_lock (VM list).
 * A vCPU is protected by the lock of the pCPU named in sched_vcpu.pcpu
 * ("its runqueue"); that field changes only with both old and new locks held.
 */
#ifndef HV_SCHED_SCHED_H
#define HV_SCHED_SCHED_H
#include "compiler.h"
#include "spinlock.h"
#include "trace/vprof.h"
#include "sched/cpumask.h"
#include "sched/platform.h"

/* vCPU states; same numbering as vProfile's enum vp_state. */
enum sched_state {
	SCHED_RUNNING  = VP_RUNNING,
	SCHED_RUNNABLE = VP_RUNNABLE,
	SCHED_BLOCKED  = VP_BLOCKED,   /* HLT / waiting for an event */
	SCHED_OFFLINE  = VP_OFFLINE,   /* not started, paused, balloon sleep */
	SCHED_NSTATES
};

enum sched_yield_reason {
	SCHED_YIELD_HYPERCALL = 1,     /* HC_SCHED_YIELD */
	SCHED_YIELD_PLE       = 2,     /* PAUSE-loop exit */
	SCHED_YIELD_SA        = 3,     /* SA receiver answered SCHEDOP_yield */
};

enum sched_vm_type { SCHED_TYPE_HIT = 0, SCHED_TYPE_CON = 1 };   /* seed 003 */
enum sched_balloon_mode { SCHED_BALLOON_WC = 0, SCHED_BALLOON_NWC = 1 }; /* seed 004 */

/* Per-VM parameters (module string at creation, HC_SCHED_SET_PARAM later). */
struct sched_vm_params {
	uint32_t weight;   /* relative share, 1..65535, default 256 */
	uint32_t cap;      /* percent of one pCPU for the whole VM, 0 = none */
	uint8_t  type;     /* enum sched_vm_type */
	bool     sa;       /* scheduler-activation upcalls wanted */
};

/* Parameter ids for sched_vm_param_set/get (HC_SCHED_*_PARAM rcx). */
enum sched_param {
	SCHED_PARAM_WEIGHT = 0,
	SCHED_PARAM_CAP    = 1,
	SCHED_PARAM_TYPE   = 2,
	SCHED_PARAM_SA     = 3,
	SCHED_PARAM_NPARAMS
};

#define SCHED_VCPU_PRIV_WORDS 16
#define SCHED_VM_PRIV_WORDS   16
#define SCHED_PCPU_PRIV_WORDS 48

/* Accounting a vCPU keeps across a run-time policy switch (switch.c): the
 * policy-neutral form of its credit (ns; credit family: its credit and
 * whether it earns). valid = the old policy filled it in. */
struct sched_carry {
	int64_t credit;
	bool active;
	bool valid;
};

struct sched_vcpu_stats {
	stime_t  time[SCHED_NSTATES];  /* exact time spent in each state */
	uint64_t npreempt;             /* involuntary RUNNING->RUNNABLE */
	uint64_t nyield;               /* voluntary (yield/PLE) */
	uint64_t nblock, nwake, nmigrate;
	uint64_t nsa_upcall, nsa_timeout, ndelayed;
	uint64_t nsa_ack_yield, nsa_ack_block; /* accepted SA acks by op */
	uint64_t nsa_stale;            /* stale / duplicate SA acks, ignored */
	uint64_t nsa_moot;             /* upcalls ended by block/yield without ack */
	uint64_t nsleep, nsleep_cancel; /* balloon sleeps; returned at once (irq pending) */
	uint64_t nple_directed;        /* PLE exits that ran a preempted sibling next */
	stime_t  wake_lat_max;         /* longest wake -> RUNNING */
	stime_t  wake_lat_sum;
	uint64_t nwake_lat;
	uint64_t npoll, npoll_ok;      /* halt polls (haltpoll.c), those a wake-up ended */
	stime_t  poll_time;            /* ... their time (also pCPU idle in vProfile) */
	/* sched=auto's signals (auto.c): wake-up preemptions of this RUNNING
	 * vCPU by another VM's waker, and the platform's PMU figures for it
	 * (sched_vcpu_pmu; 0 when the platform has none). */
	uint64_t nwake_preempted;
	uint64_t pmu_cycles, pmu_stall;   /* cycles, offcore (memory) stall cycles */
};

/* Embedded in the hypervisor's struct vcpu (container_of). */
struct sched_vcpu {
	struct sched_vm *vm;
	struct sched_vcpu *vm_next;    /* VM's vCPU list */
	uint16_t id;                   /* index within the VM */
	uint8_t  state;                /* enum sched_state */
	uint8_t  flags;                /* SCHED_VF_* */
	unsigned pcpu;                 /* runqueue / pCPU it belongs to */
	stime_t  state_since;
	struct cpumask affinity;       /* hard affinity (pinning) */
	uint8_t  sa_vector;            /* 0 = no SA receiver registered */
	uint8_t  balloon_sub;          /* HV_SA_REG_BALLOON: wants balloon mode upcalls */
	uint8_t  pmu_want;             /* runs sched=auto still wants PMU figures of (auto.c) */
	stime_t  sa_deadline;
	stime_t  sa_sent_at;           /* injection time of the pending SA upcall */
	uint32_t sa_seq;               /* seq of the latest SA upcall (shared page sa_seq) */
	stime_t  sleep_until;          /* balloon sleep timeout (STIME_MAX = none) */
	/* Adaptive delayed preemption (seed 001 §5.1 eq. 1-2, preempt.c): the
	 * delay this vCPU waits before preempting a running one when it wakes,
	 * and its RUNNING / BLOCKED+RUNNABLE totals at the last update. */
	stime_t  dp_delay, dp_comp_mark, dp_idle_mark;
	/* PAUSE-loop exiting (ple.c): this vCPU's PLE_Window (VMCS units, TSC
	 * cycles of spinning), whether the guest was in kernel mode when last
	 * seen by the platform / when preempted, and when it was last the
	 * target of a directed yield. */
	uint32_t ple_window;
	uint8_t  guest_kernel, preempted_kernel;
	stime_t  ple_target_at;
	stime_t  halt_poll_ns;         /* adaptive halt-poll window (haltpoll.c) */
	struct sched_vcpu_stats st;
	struct sched_carry carry;      /* policy switch: old policy's accounting (switch.c) */
	uint64_t priv[SCHED_VCPU_PRIV_WORDS];   /* policy data */
};

#define SCHED_VF_YIELD     BIT(0)   /* yielded: deschedule at next schedule */
#define SCHED_VF_WOKEN     BIT(1)   /* RUNNABLE because of a wake (latency stats) */
#define SCHED_VF_SA_PEND   BIT(2)   /* SA upcall sent, no ack yet */
#define SCHED_VF_BALLOON   BIT(3)   /* OFFLINE by balloon sleep: wake-on-event */
#define SCHED_VF_ADDED     BIT(4)
#define SCHED_VF_FROZEN    BIT(5)   /* OFFLINE for another VM's dedicated mode */
#define SCHED_VF_THAW_RUN  BIT(6)   /* ...and RUNNABLE when thawed */
#define SCHED_VF_PREEMPTED BIT(7)   /* RUNNABLE because it was preempted */

/* Embedded in the hypervisor's struct vm. */
struct sched_vm {
	uint16_t id;
	uint16_t nvcpus;
	struct sched_vm_params params;
	struct sched_vcpu *vcpus;      /* list through vm_next */
	struct sched_vm *next;         /* global list */
	/* Balloon (seed 004 §4.3, preempt.c sched_balloon_acct): the mode the
	 * last accounting period decided and the policy's vm_budget then. */
	uint8_t  balloon_mode;         /* enum sched_balloon_mode */
	uint8_t  balloon_guard;        /* NWC and short of budget (sched_balloon_guard) */
	int64_t  credit_left;          /* ns; shared page credit_left_ns */
	uint64_t nballoon_switch;      /* mode changes */
	/* The VM's own policy inside the host's family (vmpolicy.c, docs/sched.md
	 * "Moving one VM between policies"); all zero = the host's. */
	struct sched_vm_pol {
		uint8_t idx1;              /* registry index + 1 of the VM's policy, 0 = host's */
		uint8_t type0;             /* params.type before the first move (restored) */
		uint8_t dp, ds;            /* 0 = the host's; SCHED_VMPOL_OFF / _OWN */
		uint8_t by_auto;           /* dp/ds were set by sched=auto (still auto's) */
		uint8_t ple_off;           /* sched=auto: PLE windows at SCHED_PLE_WINDOW_OFF (ple.c) */
		uint8_t sa_auto;           /* sched=auto turned params.sa on (off again at a host switch) */
		stime_t dp_delay;          /* dp == OWN: fixed delay (seed 001 §5.1) */
		stime_t ds_min, ds_max;    /* ds == OWN: slice range (seed 001 §5.2) */
		uint64_t nmove;            /* moves of this VM */
	} pol;
	/* sched_balloon_share=excl (preempt.c; master pCPU only): the pCPUs
	 * its vCPUs may use, whether it listens to the mode upcall, and the
	 * refill ending the period in which it was last decided WC. */
	struct cpumask balloon_cpus;
	uint8_t  balloon_listened;
	stime_t  balloon_wc_until;
	stime_t  balloon_guard_until;  /* refill ending the period the guard was set in */
	uint64_t priv[SCHED_VM_PRIV_WORDS];
};
enum { SCHED_VMPOL_HOST = 0, SCHED_VMPOL_OFF = 1, SCHED_VMPOL_OWN = 2 };

/* Embedded in the hypervisor's per-CPU data. */
struct sched_pcpu {
	unsigned id;
	spinlock_t lock;               /* the runqueue lock */
	struct sched_vcpu *curr;       /* NULL = idle */
	stime_t curr_since;
	stime_t slice_end;             /* end of curr's slice */
	stime_t next_tick;             /* policy accounting tick */
	stime_t hold_until;            /* delayed preemption / SA wait */
	stime_t dp_until;              /* delayed wake-up preemption ends (STIME_MAX = none) */
	stime_t hold_since;            /* when the current hold was decided */
	struct sched_vcpu *dp_waker;   /* a wake asked to preempt curr (locked) */
	bool in_wake;                  /* policy wake() running on this runqueue (locked) */
	bool resched_hard;             /* a reschedule that is never delayed (cap, co-sched) */
	struct sched_vcpu *yield_target; /* directed yield of curr (PLE), for the next pick */
	stime_t timer_at;              /* what is armed on the platform timer */
	bool need_resched;
	bool force_preempt;            /* hold expired: skip preemption hooks */
	bool online;
	uint64_t rng;                  /* per-pCPU PRNG (differential slices) */
	uint64_t nschedule, nswitch;
	stime_t idle_time, idle_since;
	stime_t sleep_next;            /* earliest balloon-sleep timeout it watches */
	unsigned nr_runnable;          /* RUNNABLE vCPUs of this runqueue (locked) */
	bool sw_quiesced;              /* policy switch: out of the old policy (switch.c; locked) */
	bool woke_run;                 /* curr was made current by sched_wake_run (locked; p clears it) */
	uint64_t nwake_run;            /* wake-ups that ran at once (sched_wake_run) */
	uint64_t priv[SCHED_PCPU_PRIV_WORDS];
};

/* ---- boot and configuration -------------------------------------------- */
/* Select a policy by name (NULL or unknown: log the available ones and use
 * the default, "credit"); checks mandatory ops. Call after sched_platform_set
 * and sched_option_set. Returns 0 or -errno (-ENOENT: no policy linked). */
int sched_init(const char *name);
const char *sched_policy_name(void);
/* Bring a pCPU under the scheduler (BSP first: it is the accounting master). */
int sched_pcpu_add(struct sched_pcpu *p, unsigned id, stime_t now);
int sched_vm_add(struct sched_vm *vm, uint16_t id, const struct sched_vm_params *prm);
void sched_vm_remove(struct sched_vm *vm);
/* New vCPU, starts OFFLINE; sched_vcpu_start() makes it RUNNABLE. */
int sched_vcpu_add(struct sched_vcpu *v, struct sched_vm *vm, uint16_t id, stime_t now);
void sched_vcpu_remove(struct sched_vcpu *v, stime_t now);
void sched_vcpu_start(struct sched_vcpu *v, stime_t now);
void sched_vcpu_pause(struct sched_vcpu *v, stime_t now);

/* vProfile dedicated mode (seed 001 §2.3): owner >= 0 freezes every other
 * VM OFFLINE, owner < 0 thaws them. Installed as hv/trace's dedicated hook
 * by sched_init when hv/trace is linked; callable directly too. */
void sched_dedicated_apply(int owner, stime_t now);

/* ---- events from the exit handlers ------------------------------------- */
/* HLT / HC_SCHED_BLOCK on the pCPU running v: RUNNING -> BLOCKED. */
void sched_block(struct sched_vcpu *v, stime_t now);
/* Interrupt/event for v (any pCPU): BLOCKED or balloon-OFFLINE -> RUNNABLE.
 * Returns true if the state changed. */
bool sched_wake(struct sched_vcpu *v, stime_t now);
/* sched_wake(), and when v's pCPU is idle for it and the policy says its
 * next pick there would be v (ops->wake_local), v becomes that pCPU's
 * current vCPU at once, with the wake's and the switch's accounting, and the
 * pCPU is kicked (not when it is the caller's): it runs v without a
 * sched_schedule (sched_wake_run_take). SCHED_WOKE_RUN then, else what
 * sched_wake() would return (SCHED_WOKE / SCHED_WOKE_NOT). The hypervisor
 * calls it; the simulator keeps sched_wake, whose kick latency and later
 * pick it models. */
enum { SCHED_WOKE_NOT = 0, SCHED_WOKE = 1, SCHED_WOKE_RUN = 2 };
int sched_wake_run(struct sched_vcpu *v, stime_t now);
/* Ends a balloon sleep without a wake's BOOST / wake-up preemption (core.c). */
bool sched_wake_quiet(struct sched_vcpu *v, stime_t now);
/* HC_SCHED_YIELD / PLE / SA: give up the pCPU; target (may be NULL) is a
 * directed-yield hint passed to the policy. */
void sched_vcpu_yield(struct sched_vcpu *v, struct sched_vcpu *target,
		 enum sched_yield_reason why, stime_t now);
/* PAUSE-loop exit of the running v (seed 000 §2, seed 002; ple.c): with
 * `ple=on` and `ple_directed=on`, yield to a preempted, runnable sibling of
 * the same VM (preferring one preempted in guest kernel mode and not yielded
 * to in the last ple_recent_us), else a plain yield; v's PLE window grows
 * when no such sibling exists and shrinks when the directed yield ran one.
 * On v's own pCPU; takes its runqueue lock. */
void sched_ple_exit(struct sched_vcpu *v, stime_t now);
/* Whether PAUSE-loop exiting is on (`ple=`), for the platform's VMCS setup. */
bool sched_ple_enabled(void);
/* sched=auto (auto_mech.c): PLE off for one VM (its vCPUs' windows at
 * SCHED_PLE_WINDOW_OFF, ~0.7 s of spinning at 3 GHz: no exit within a
 * slice; auto writes them again every period, since an exit clamps the
 * window back into ple_window_min..max) or back to the adaptive window
 * (ple_window). No lock held. */
#define SCHED_PLE_WINDOW_OFF 0x7fffffffu
void sched_ple_vm_set(struct sched_vm *vm, bool off);
/* PMU figures of a run of v (seed 001 §2.2 OFFCORE_STALL): cycles and
 * cycles stalled in the offcore memory system; by the pCPU that ran v (the
 * hypervisor's PMU glue while the VM is profiled or auto samples it,
 * hvsim's memory model). */
static inline void sched_vcpu_pmu(struct sched_vcpu *v, uint64_t cycles, uint64_t stall)
{
	__atomic_fetch_add(&v->st.pmu_cycles, cycles, __ATOMIC_RELAXED);
	__atomic_fetch_add(&v->st.pmu_stall, stall, __ATOMIC_RELAXED);
}
/* sched=auto's PMU sample without vProfile (auto.c, issue 16): at each
 * accounting period auto asks for the figures of a few runs of each vCPU it
 * decides for (pmu_want = runs); the platform reads the PMU around a run of v
 * only while profiling v's VM or while this is true, and calls
 * sched_vcpu_pmu_run_done() when such a run ends. Under any other policy
 * pmu_want stays 0: one load, no PMU access. No lock (a hint: the master
 * refills it, v's pCPU counts it down). */
static inline bool sched_vcpu_pmu_wanted(const struct sched_vcpu *v)
{
	return READ_ONCE(v->pmu_want) != 0;
}
static inline void sched_vcpu_pmu_run_done(struct sched_vcpu *v)
{
	uint8_t n = READ_ONCE(v->pmu_want);

	if (n)
		WRITE_ONCE(v->pmu_want, (uint8_t)(n - 1));
}
/* The platform tells whether v's guest runs in kernel mode (CPL 0) when it
 * leaves the pCPU; kept for the directed-yield choice. No lock. */
static inline void sched_vcpu_guest_mode(struct sched_vcpu *v, bool kernel)
{
	WRITE_ONCE(v->guest_kernel, (uint8_t)kernel);
}
/* HC_SCHED_SLEEP (seed 004 SCHEDOP_sleep): returns 1 at once, without
 * sleeping, if the platform says an interrupt is pending for v (the paper's
 * cancel-if-pending); else RUNNING -> OFFLINE (not steal time) until
 * sched_wake() or `timeout` ns (0 = none), and returns 0. On v's pCPU, no
 * lock held. */
int sched_sleep(struct sched_vcpu *v, stime_t timeout, stime_t now);
/* Waiting for an event that sched_wake() ends (HLT/block or balloon sleep):
 * its device timers must keep being advanced while it does not run. */
static inline bool sched_vcpu_waits_event(const struct sched_vcpu *v)
{
	return v->state == SCHED_BLOCKED ||
	       (v->state == SCHED_OFFLINE && (v->flags & SCHED_VF_BALLOON));
}
/* HC_SCHED_SA_REGISTER / HC_SCHED_SA_ACK (seed 000 Alg. 1 lines 4-7, 15).
 * reg = vector (0 off, else 32..255) | HV_SA_REG_* flags; -EINVAL for a bad
 * vector, unknown flags or flags without a vector. */
int sched_sa_register(struct sched_vcpu *v, uint32_t reg);
/* HC_SCHED_SA_ACK(op = HV_SA_ACK_*, seq) of the running v (PV ABI v1,
 * docs/pv-abi.md). -EINVAL: bad op; -ESTALE: no upcall pending or seq is not
 * the pending one (ignored, counted). Accepted: 0 when v has been made to
 * yield (op yield, or op block with an interrupt pending); 1 when the caller
 * must block v as for HLT (op block, nothing pending). No lock held. */
int sched_sa_ack(struct sched_vcpu *v, unsigned op, uint32_t seq, stime_t now);
/* A shared page was registered for v: write the hypervisor's fields of PV
 * ABI v1 (abi_version, sa_grace_us, current state). Takes v's lock. */
void sched_shared_page_init(struct sched_vcpu *v, stime_t now);

/* ---- pCPU entry points -------------------------------------------------- */
/* Platform timer expired / kick IPI received on p. Return true when the
 * caller must call sched_schedule(p) before resuming a guest. */
bool sched_timer_fire(struct sched_pcpu *p, stime_t now);
bool sched_kicked(struct sched_pcpu *p, stime_t now);
static inline bool sched_need_resched(const struct sched_pcpu *p)
{
	return READ_ONCE(p->need_resched);
}
/* On p itself, while it runs no vCPU (idle): the vCPU a sched_wake_run made
 * p's current one, or NULL. Consumed once; the caller switches to it as to
 * what sched_schedule() returns. A reschedule request raised since then is
 * left to the next sched_schedule(). Lock-free (the flag is set under p's
 * lock before the kick). */
static inline struct sched_vcpu *sched_wake_run_take(struct sched_pcpu *p)
{
	if (!__atomic_load_n(&p->woke_run, __ATOMIC_ACQUIRE))
		return NULL;
	__atomic_store_n(&p->woke_run, false, __ATOMIC_RELAXED);
	return READ_ONCE(p->curr);
}
static inline bool sched_wake_run_pending(const struct sched_pcpu *p)
{
	return __atomic_load_n(&p->woke_run, __ATOMIC_ACQUIRE);
}
/* Choose what p runs next. Returns the vCPU (now RUNNING) or NULL for idle;
 * *until gets the end of its slice. The caller switches contexts. */
struct sched_vcpu *sched_schedule(struct sched_pcpu *p, stime_t now, stime_t *until);

/* ---- parameters at run time (privileged hypercall) --------------------- */
int sched_vm_param_set(struct sched_vm *vm, enum sched_param which, uint64_t val);
int sched_vm_param_get(const struct sched_vm *vm, enum sched_param which, uint64_t *val);
int sched_vcpu_affinity_set(struct sched_vcpu *v, const struct cpumask *m, stime_t now);
/* Command line: `name=value` for the options registered with SCHED_OPT_*
 * (sched/option.h; list in docs/sched.md). Failures are logged. */
int sched_option_set(const char *name, const char *value);
int sched_option_get(const char *name, uint64_t *val);
/* Walk an option string "a=1 b=2" (separated by spaces, tabs or commas) in
 * a caller's copy, splitting it in place: 1 with *key and *val set, 0 at its
 * end, -EINVAL for an item without '='. *cur starts at the copy and
 * advances (options.c; used by the run-time switch and VM moves). */
int sched_option_next(char **cur, char **key, char **val);
/* `sched=` as registered with hv/cmdline (options.c): pass to sched_init(). */
extern char sched_opt_policy[32];

/* ---- run-time policy switch (switch.c; docs/sched.md "Run-time policy
 * switch") ------------------------------------------------------------------ */
/* Ask for the whole host to run `policy` with the options `opts` (space-
 * separated name=value as on the command line; NULL/"" = keep the current
 * ones; the same policy re-initialises it with new options). Validates
 * everything, then every pCPU quiesces at its next schedule and the last one
 * installs the new policy: asynchronous, returns at once. 0, -ENOENT (no
 * such policy), -EINVAL/-ERANGE (bad option), -EBUSY (a switch is under
 * way), -ENODEV (no pCPU yet). No lock held. */
int sched_policy_switch(const char *policy, const char *opts, stime_t now);
/* True from the request until the new policy is installed. */
bool sched_policy_switching(void);
/* Switches completed since boot. */
uint64_t sched_policy_switches(void);
/* Move one VM to another policy of the host's family without a reboot
 * (vmpolicy.c; docs/sched.md "Moving one VM between policies"):
 * sched_policy_switch(policy, "vm=ID [sched_dp_us=N] [sched_ds_min_ms=A
 * sched_ds_max_ms=B]", now) does it, synchronously (0 = moved). -ENOENT (no
 * such VM/policy), -ENOTSUP (not in the host's family), -EINVAL (an option
 * that is not per-VM), -EBUSY (a host switch is under way). */
int sched_vm_policy_move(unsigned vm_id, const char *policy, const char *opts, stime_t now);
/* The VM's policy name (the host's when it has none of its own). */
const char *sched_vm_policy_name(const struct sched_vm *vm);
struct sched_vm *sched_vm_find(unsigned vm_id);
/* Registry index of a policy name (-1: none), and the name of an index. */
int sched_policy_index(const char *name);
const char *sched_policy_by_index(unsigned idx);

/* ---- halt polling (haltpoll.c; KVM's halt_poll_ns, docs/vmx.md) -------- */
/* Options: `halt_poll_ns=` (the largest window, 0 = off), `halt_poll_grow=`,
 * `halt_poll_grow_start_ns=`, `halt_poll_shrink=`. */
struct sched_haltpoll_opts {
	uint64_t max_ns, grow, grow_start_ns, shrink;
};
extern struct sched_haltpoll_opts sched_haltpoll;
extern int sched_nr_runnable;   /* RUNNABLE vCPUs on all runqueues (core.c) */
/* v (RUNNING on its pCPU) just halted with nothing to take: the window it may
 * poll for before blocking, 0 = block now. Polling is allowed only while no
 * runqueue holds a RUNNABLE vCPU (an idle pCPU would run or steal it) and no
 * reschedule is pending on v's pCPU. Traces the
 * pCPU as idle (vProfile IDLE_BEGIN, arg 1) when it returns non-zero. */
stime_t sched_halt_poll_begin(struct sched_vcpu *v, stime_t now);
/* While polling: false when the pCPU has other work (stop and block). */
bool sched_halt_poll_continue(const struct sched_vcpu *v);
/* The poll that began at `start` ended (woke: a wake-up ended it). */
void sched_halt_poll_end(struct sched_vcpu *v, stime_t start, stime_t now, bool woke);
/* A halt of v (HLT exit to wake-up, polled or blocked) lasted halt_ns: grow
 * or shrink v's window (KVM's update_halt_poll_stats, grow/shrink_halt_poll_ns). */
void sched_halt_poll_update(struct sched_vcpu *v, stime_t halt_ns);
/* Pure form of the update, for tests: the new window. */
stime_t sched_halt_poll_next(const struct sched_haltpoll_opts *o, stime_t cur, stime_t halt_ns);

/* ---- observation --------------------------------------------------------- */
/* Stats with the current state's time brought up to `now`. */
void sched_vcpu_stats(const struct sched_vcpu *v, stime_t now, struct sched_vcpu_stats *out);
struct sched_pcpu *sched_pcpu_get(unsigned id);
unsigned sched_pcpu_count(void);
/* Every pCPU's and vCPU's scheduler state on the console, lock-free (the
 * watchdog calls it when something may hold a lock; hv/sched/dump.c). */
void sched_dump(stime_t now);
void sched_dump_vcpu(const struct sched_vcpu *v, stime_t now);
const char *sched_state_name(unsigned state);
#endif
