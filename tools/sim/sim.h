/* hvsim: discrete-event host simulator running the real hv/sched code.
 * A machine of pCPUs (platform.h implemented on an event queue), VMs whose
 * vCPUs run guest threads under a tiny guest scheduler, and a workload
 * language (docs/sched.md "Workload format"). Deterministic for a seed. */
#ifndef TOOLS_SIM_SIM_H
#define TOOLS_SIM_SIM_H
#include <stdio.h>
#include "sched/policy.h"

#define SIM_MS(x) ((stime_t)((x) * 1000000.0))
#define SIM_US(x) ((stime_t)((x) * 1000.0))

/* ---- event queue ---- */
enum sim_ev { EV_TIMER, EV_KICK, EV_GUEST, EV_THREAD_WAKE, EV_IRQ, EV_GBAL, EV_END };

struct sim_event {
	stime_t t;
	uint64_t seq;
	int kind;
	int idx;           /* pCPU, vCPU or thread index */
	uint64_t gen;      /* invalidation generation */
};

struct sim_eventq {
	struct sim_event *h;
	size_t n, cap;
	uint64_t seq;
};
void simq_push(struct sim_eventq *q, stime_t t, int kind, int idx, uint64_t gen);
bool simq_pop(struct sim_eventq *q, struct sim_event *out);

/* ---- guest programs ---- */
enum sim_op_kind {
	OP_COMPUTE,        /* a = ns (or a..b random when b > a); mode 1 = memory-bound */
	OP_SLEEP,          /* a = ns; b = duty percent: sleep last burst*(100-b)/b */
	OP_BARRIER,        /* a = barrier index, mode, spin */
	OP_LOCK,           /* a = lock index, mode, spin */
	OP_UNLOCK,         /* a = lock index */
	OP_YIELD,          /* hypercall yield */
	OP_LOOP,           /* a = count (0 = forever) */
	OP_END,            /* end of loop body */
	OP_IO_WAIT,        /* a = period: wait for the thread's next I/O timer tick (latprobe);
	                    * mode 1 (`restart`): a late request restarts the schedule */
};
enum sim_wait_mode { WAIT_SPIN, WAIT_BLOCK, WAIT_SPIN_BLOCK };

struct sim_op {
	int kind;
	int mode;
	stime_t a, b;
	stime_t spin;      /* spin-then-block budget */
	int match;         /* LOOP <-> END index */
};

struct sim_prog {
	char name[32];
	struct sim_op *ops;
	int nops;
};

/* ---- objects ---- */
enum sim_tstate { T_READY, T_RUNNING, T_WAIT_SPIN, T_BLOCKED, T_SLEEP, T_DONE };

struct sim_thread {
	int idx;
	int vm, vcpu;             /* global vCPU index */
	const struct sim_prog *prog;
	int pc;
	int loop_left[16];        /* per loop depth */
	int depth;
	int state;
	bool in_op;               /* current op started */
	stime_t left;             /* compute remaining in current op */
	stime_t spin_left;        /* spin budget for spin-then-block */
	stime_t ple_left;         /* spinning left before a PAUSE-loop exit */
	stime_t last_burst;
	int waiting_on;           /* barrier/lock index or -1 */
	bool wait_is_lock;
	int locks_held;
	stime_t spin_time;
	uint64_t wake_gen;
	struct sim_thread *next;  /* guest runqueue link */
	/* Guest-side classes (docs/sched.md "Guest model"): */
	int cls;                  /* enum sim_tcls */
	bool migrated;            /* moved by the IRS migrator (Fig. 4 tag) */
	stime_t vruntime;         /* CFS-like guest scheduling (VMs with `guest=cfs`) */
	stime_t io_next;          /* OP_IO_WAIT: next timer tick */
	stime_t io_fired;         /* when the pending tick fired (latency origin) */
	uint64_t io_done;         /* ticks served */
	stime_t *io_lat; size_t nio_lat, cap_io_lat;   /* wake-up latencies (ns) */
};
enum sim_tcls { TC_NORMAL, TC_IO, TC_BALLOON };

struct sim_vcpu {
	struct sched_vcpu sv;     /* embedded, as the hypervisor does */
	int idx, vm, id;
	int pcpu;                 /* where it runs, -1 = not running */
	stime_t run_since;
	uint64_t gen;             /* guest event generation */
	struct sim_thread *cur;   /* thread on the vCPU */
	struct sim_thread *rq_head, *rq_tail;
	stime_t gslice_end;
	stime_t spin_time;
	stime_t cold_left;         /* `cache_refill` still to pay before progress */
	uint64_t lhp, lwp;        /* lock-holder / lock-waiter preemptions */
	struct cpumask pin;       /* affinity from `pin` (empty = all) */
	bool trace_spin;          /* vProfile has an open spinning interval */
	/* Modelled PMU (guest.c guest_pmu): cycles and offcore stall cycles
	 * not yet passed to vProfile as a sample (with -t), since pmu_since. */
	uint64_t pmu_cyc, pmu_stall;
	stime_t pmu_since;
	bool pmu_run;             /* this run's figures go to sched=auto (its sample) */
	int nrq;                  /* threads queued on rq */
	stime_t min_vr;           /* CFS-like min_vruntime (VMs with `guest=cfs`) */
	stime_t off_since;        /* left its pCPU at (vruntime charging of steal) */
	/* PV ABI (pvglue.c): the shared page, interrupts pending in the guest. */
	struct sched_shared_page shp;
	bool irq_pending;         /* an injected vector not yet taken by the guest */
	bool in_handler;          /* running the SA receiver (Alg. 2 context switcher) */
	bool fig4;                /* a waker chose to preempt the migrated current task */
	stime_t hnd_left;         /* handler time still to run */
	uint32_t hnd_seq;         /* the upcall's seq being answered */
	stime_t sa_inj_run;       /* RUNNING total at injection (guest-time latency) */
	uint64_t sa_handled, sa_ack_yield, sa_ack_block, sa_migrate, sa_nomove, sa_stale;
	/* Guest patch 0106 (irs_pullback): the thread this vCPU's last upcall
	 * moved away, to take back when the ack returns (the vCPU runs again)
	 * if it still waits queued on its target; NULL when none. */
	struct sim_thread *sa_moved;
	uint64_t sa_pullback;     /* threads taken back that way */
	/* Blocked inside the ack hypercall (ack block accepted) until the
	 * hypervisor runs v again: the guest's stopper stays current there, so
	 * the other vCPUs do not see v idle (no wake-up placed on it, no NOHZ
	 * pull into it); its own tick wakes it (guest_balance_tick). */
	bool in_ack;
	stime_t sa_lat_sum, sa_lat_max;
	struct sim_thread *balloon;   /* this vCPU's balloon thread (VMs with `balloon=`) */
	bool balloon_asleep;      /* vCPU is in HC_SCHED_SLEEP on behalf of the balloon */
	stime_t sleep_since;
	uint64_t nsleep, nsleep_cancel;
	stime_t bal_sleep_ns;
};

struct sim_vm {
	struct sched_vm sv;
	char name[32];
	int nvcpus, first_vcpu;
	int nthreads, ndone;
	bool measure;             /* completion counts for the end of the run */
	stime_t done_at;
	struct sched_vm_params prm;
	/* Guest model (docs/sched.md "Guest model"). */
	bool gbal;                /* guest load balancing: wake-up, newly idle, periodic */
	bool pv;                  /* guest reads `preempted` (steal time, vcpu_is_preempted) */
	bool irs;                 /* SA receiver + migrator (seed 000 Alg. 2) */
	stime_t ack_lat;          /* SA receiver's injection-to-ack time (guest time) */
	bool irs_block;           /* ack block when the run queue is left empty (§3.2 as
				   * published, the guest's default irs_block=1); off: always
				   * yield (guest irs_block=0) */
	bool irs_pullback;        /* take the moved thread back when the ack returns (guest
				   * patch 0106, default irs_pullback=1); off: left to the
				   * guest's balancer (§3.3 as published) */
	bool irs_ack_busy;        /* a vCPU blocked in its ack hypercall is busy to the guest
				   * (its stopper is current; sim_vcpu.in_ack), as in Linux;
				   * off: idle, the model before it */
	bool cfs;                 /* CFS-like guest scheduling with classes */
	bool io_rt;               /* I/O threads are SCHED_RR (`io_prio=rt`) */
	uint64_t gmigrate;        /* threads moved by the guest balancer */
	stime_t thr_cpu[3];       /* guest CPU time by thread class */
	stime_t work;             /* compute done, at full speed (a memory-bound
				   * burst slowed by contention does less per ns
				   * of CPU time); the progress a blocking
				   * program makes, `work_ms` in the report */
	int balloon;              /* 0 off, 1 static (§4.4), 2 dynamic (§4.5) */
	bool steal_clock;         /* guest excludes steal from task runtimes (rq_clock_task) */
	uint64_t nmode_switch;    /* balloon mode upcalls seen */
};

struct sim_barrier {
	char name[32];
	int parties, arrived;
	uint64_t generation;
};

struct sim_lock {
	char name[32];
	int holder;               /* thread index or -1 */
	int waiters[256];
	int nwait;
	uint64_t acquires, contended;
};

struct sim_pcpu {
	struct sched_pcpu sp;
	int running;              /* vCPU index or -1 */
	uint64_t timer_gen;
	stime_t timer_at;
	bool kick_pending;
	int last;                 /* vCPU that ran here last (`cache_refill`), -1 none */
};

struct sim {
	stime_t now, end, duration;
	uint64_t seed, rng;
	stime_t kick_lat, gslice;
	stime_t t0;               /* `start`: the VMs start then (hv time: the ticks' grid
				   * counts from 0); figures count from it */
	stime_t acct_off;         /* `acct_offset`: the scheduler (its accounting period)
				   * started this long before the VMs, as hv boot does */
	stime_t timer_lat;        /* `timer_latency`: a pCPU timer fires this late (hv: the
				   * timer exit and the way to the scheduler's clock read) */
	stime_t io_lat;           /* `io_latency`: an I/O timer's request reaches its
				   * thread this late (the guest's interrupt and wake-up
				   * path; 0 = at once, the default) */
	stime_t gbal_period;      /* guest periodic load balancing (`guest_balance`) */
	stime_t warmup;           /* I/O latencies are recorded from then on (`warmup`) */
	stime_t ple;              /* PLE window as spin time; 0 = no PLE exits */
	/* Memory contention (`memory alpha=A free=F`): a memory-bound compute
	 * burst progresses at 1 / (1 + A * max(0, n - F)) of full speed while n
	 * memory-bound bursts run at the same moment (all VMs). */
	int mem_alpha_milli, mem_free, mem_n;
	/* Time integrals of mem_n and mem_n^2 since mem_since: their ratio is
	 * how many memory-bound bursts ran together, on average over the time
	 * of each burst (`mem_overlap` in the report). */
	double mem_int1, mem_int2;
	stime_t mem_since;
	/* `cache_refill T`: a vCPU that starts on a pCPU where another vCPU ran
	 * since it last ran there computes without progress for its first T
	 * (its caches refill); 0 = off. */
	stime_t cache_refill;
	char policy[32];
	int npcpus;
	struct sim_pcpu *pcpu;
	struct sim_vm *vm;  int nvms;
	struct sim_vcpu *vcpu; int nvcpus;
	struct sim_thread *thr; int nthr;
	struct sim_prog *prog; int nprogs;
	struct sim_barrier *bar; int nbars;
	struct sim_lock *lock; int nlocks;
	char (*opts)[96]; int nopts;
	/* `pin`: affinity clo..chi; `place VM.V C`: clo = -1, the vCPU starts on
	 * pCPU chi (a measured start state, e.g. Bochs's at the profile start),
	 * else where the policy's pick_cpu puts it, as the hypervisor does. */
	struct { int vm, lo, hi, clo, chi; } *pins; int npins;
	struct sim_eventq q;
	uint64_t nevents;
	stime_t swc_idle;         /* pCPU idle while a ballooning vCPU sleeps with work queued */
	bool all_done;
	bool trace;               /* vProfile records (hvsim -t) */
	/* Run-time policy switches (`switch TIME POLICY [name=value ...]`,
	 * hvsim -S): requested at `at`, in time order. */
	struct sim_switch {
		stime_t at, installed;   /* installed: -1 = not (yet) */
		char policy[32], opts[160];
		int rc;
	} *sw;
	int nsw, sw_next;
	struct sched_platform plat;
};

/* workload.c */
int sim_parse(struct sim *s, const char *text, char *err, size_t errlen);
void sim_free(struct sim *s);
/* engine.c */
int sim_setup(struct sim *s);
void sim_run(struct sim *s);
uint64_t sim_random(struct sim *s);
/* guest.c */
void guest_start(struct sim *s);
void guest_event(struct sim *s, struct sim_vcpu *v);
void guest_thread_wake(struct sim *s, struct sim_thread *t);
void guest_plan(struct sim *s, struct sim_vcpu *v);
void guest_sync(struct sim *s, struct sim_vcpu *v);
void guest_mem_account(struct sim *s);
void guest_descheduled(struct sim *s, struct sim_vcpu *v, bool preempted);
void guest_trace_spin(struct sim *s, struct sim_vcpu *v);
void engine_resched(struct sim *s, int pcpu);
void guest_mem_update(struct sim *s);
/* pvglue.c: the simulated guest's only calls into hv/sched's PV ABI. */
struct sched_shared_page *pv_shared_page(void *ctx, struct sched_vcpu *v);
void pv_inject(void *ctx, struct sched_vcpu *v, uint8_t vector);
void pv_register(struct sim *s, struct sim_vcpu *v);
uint32_t pv_take_reasons(struct sim_vcpu *v);
uint32_t pv_sa_seq(const struct sim_vcpu *v);
int pv_sa_ack(struct sim *s, struct sim_vcpu *v, int op, uint32_t seq);
int pv_sleep(struct sim *s, struct sim_vcpu *v, stime_t timeout);
bool pv_preempted(const struct sim_vcpu *v);
bool pv_sa_pending(const struct sim_vcpu *v);
uint32_t pv_balloon_mode(const struct sim_vcpu *v);
bool pv_balloon_guard(const struct sim_vcpu *v);
bool pv_irq_pending(void *ctx, struct sched_vcpu *v);
#define SIM_UPCALL_VECTOR 0xf3   /* Linux HYPERVISOR_CALLBACK_VECTOR */
/* guest.c, the PV guest model */
void guest_irq(struct sim *s, struct sim_vcpu *v);
void guest_balance_tick(struct sim *s);
void guest_resumed(struct sim *s, struct sim_vcpu *v);
void guest_add_balloons(struct sim *s);
bool guest_swc_idle(const struct sim *s);
/* report.c */
void sim_report(struct sim *s, FILE *f);
struct sim_vm *sim_vm_find(struct sim *s, const char *name);
double sim_vm_cpu_ms(struct sim *s, struct sim_vm *vm);
#endif
