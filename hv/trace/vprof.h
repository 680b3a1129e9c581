/* vProfile recording API (seed 001 §2): what the scheduler core and the exit
 * handlers report. Implemented in hv/trace/; pure C, host-buildable, so the
 * simulator writes the same trace format as the hypervisor. */
#ifndef HV_TRACE_VPROF_H
#define HV_TRACE_VPROF_H
#include "types.h"

/* vCPU run states; every transition is reported by hv/sched/core. */
enum vp_state { VP_RUNNING, VP_RUNNABLE, VP_BLOCKED, VP_OFFLINE, VP_NSTATES };

enum vp_event {
	VPE_YIELD = 1,      /* voluntary: arg = reason (hypercall, PLE, halt) */
	VPE_PREEMPT,        /* involuntary deschedule */
	VPE_WAKE,
	VPE_BLOCK,
	VPE_IDLE_BEGIN,     /* pCPU idle (vm/vcpu fields unused) */
	VPE_IDLE_END,
	VPE_PLE,            /* PAUSE-loop exit */
	VPE_SPIN_BEGIN,     /* arg = detector (1 = PLE, 2 = PMU heuristic) */
	VPE_SPIN_END,
	VPE_MIGRATE,        /* arg = new pCPU */
	VPE_SA_UPCALL,      /* scheduler-activation upcall sent (seed 000 Alg. 1): arg = seq */
	VPE_SA_ACK,         /* accepted ack: arg = op << 56 | ns since injection (docs/pv-abi.md) */
	VPE_SA_TIMEOUT,     /* hard limit expired: arg = seq */
	VPE_DELAY_PREEMPT,  /* preemption delayed: arg = delay ns (seed 001 §5.1) */
	VPE_BALLOON_SLEEP,  /* seed 004: arg 0 = slept, 1 = cancelled (interrupt pending) */
	VPE_BALLOON_WAKE,
	VPE_BALLOON_MODE,   /* arg = new mode */
	VPE_COSCHED_SIGNAL, /* arg = target pCPU; charged to the launching vCPU (one per target) */
	VPE_VMEXIT,         /* arg = exit reason (only when exit tracing is on) */
	VPE_DEDICATED_BEGIN,
	VPE_DEDICATED_END,
	VPE_PROFILE_START,
	VPE_PROFILE_STOP,
	VPE_MARK,           /* arg = guest-supplied value */
	VPE_DP_DELAY,       /* adaptive DP: vCPU's new preemption delay, arg = ns (seed 001 eq. 2) */
	VPE_SA_STALE,       /* stale / duplicate SA ack ignored: arg = the seq the guest gave */
	VPE_SCHED_SWITCH,   /* run-time policy switch (pCPU record): arg = phase (0 requested,
			     * 1 installed) | from policy index << 8 | to index << 16; one VM
			     * moved (hv/sched/vmpolicy.c; on the VM's first vCPU): phase 2,
			     * | its DP << 24 | its DS << 26 (0 host's, 1 off, 2 its own) */
	VPE_AUTO_DECISION,  /* sched=auto changed the VM's choice: arg = type (0 HIT, 1 CON) |
			     * yields+PLE exits per running second << 8 (hv/sched/auto.c) */
	VPE_NEVENTS
};

/* Called by hv/sched/core on every state change of a vCPU, with the pCPU doing it. */
void vprof_state(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_state to, stime_t now);
/* Called for events; cheap and allocation-free. */
void vprof_event(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_event ev, stime_t now,
		 uint64_t arg);
/* ------------------------------------------------------------------------
 * Everything below is added to the original contract above (which stays).
 * Call order for the integrator (see docs/vprofile.md):
 *   boot:      vprof_init(npcpus, mem, len); vprof_set_sink(serial_fn, ctx);
 *              vprof_vm_config(vm, nvcpus, may_dedicate) for every VM;
 *   run time:  vprof_state/vprof_event from hv/sched/core, vprof_exit from the
 *              exit dispatcher, vprof_pmu_add around guest execution,
 *              vprof_dedicated_epoch once per scheduling epoch (one CPU),
 *              vprof_vcpu_frozen(vm) in pick-next, vprof_hcall on VMCALL;
 *   endings:   vprof_vm_end(vm) when a VM ends, vprof_shutdown() at shutdown,
 *              vprof_dump_all(VPD_KEY) on the serial dump key.
 * ------------------------------------------------------------------------ */
#define VPROF_MAX_PCPUS    256
#define VPROF_MAX_VMS      8
#define VPROF_MAX_VCPUS    16     /* per VM */
#define VPROF_EXIT_REASONS 80     /* SDM Vol. 3 App. C basic exit reasons 0..79 */
#define VPROF_DEDICATED_MAX_EPOCHS 10000u
#define VPROF_VM_NONE      0xffffu /* vm/vcpu field of pCPU-only records (idle) */

/* Spinning detectors (arg of VPE_SPIN_BEGIN; seed 001 §2.1). */
enum vp_spin_detector { VPS_UNKNOWN = 0, VPS_PLE = 1, VPS_PMU = 2, VPS_NDETECTORS };

/* Hardware counters kept per vCPU (seed 001 §2.2 HARDWARE_STAT). A counter
 * whose bit is clear in `present` was not measured: absent, never zero. */
enum vp_pmu_counter {
	VPMU_INSTRUCTIONS, VPMU_CYCLES, VPMU_BRANCHES, VPMU_BRANCH_MISSES,
	VPMU_LLC_REFS, VPMU_LLC_MISSES, VPMU_OFFCORE_STALL, VPMU_NCOUNTERS
};
struct vprof_pmu_sample {
	uint32_t present;               /* BIT(enum vp_pmu_counter) per measured counter */
	uint64_t delta[VPMU_NCOUNTERS]; /* counts since the previous sample */
};

/* Spinning detectors (spin.c, seed 001 §2.1).
 * PLE: a PAUSE-loop exit proves the vCPU spun for about the PLE window; with
 * the window set (ns; 0 = off, the default) each VPE_PLE credits that much
 * spinning, never before the vCPU started running nor twice for one span.
 * PMU: a sample with a high branch-per-instruction ratio and a low branch miss
 * rate (the heuristic of seed 001's ref. [25]) opens a spinning interval, the
 * next sample that fails it closes it. Thresholds in thousandths; a bpi of 0
 * turns it off. Defaults: bpi >= 250, misses <= 10 per 1000 branches,
 * at least 10000 instructions in the sample. */
void vprof_spin_set_ple(uint64_t ple_window_ns);
void vprof_spin_set_pmu(uint32_t bpi_min_permille, uint32_t miss_max_permille,
			uint64_t min_instructions);
/* 1 spinning, 0 not, -1 cannot tell (a needed counter is absent). */
int vprof_spin_pmu_verdict(const struct vprof_pmu_sample *s);

/* Why a dump was written (carried in the BEGIN frame). */
enum vp_dump_reason { VPD_STOP = 1, VPD_VM_END, VPD_SHUTDOWN, VPD_KEY };

/* Output of the serial encoder: one complete text line (with '\n') per call. */
typedef void (*vprof_sink_t)(void *ctx, const char *line, size_t len);

/* Bytes of buffer memory for `recs_per_pcpu` records on each of `npcpus`. */
size_t vprof_mem_size(unsigned npcpus, size_t recs_per_pcpu);
/* Once at boot, before any other call: per-pCPU rings carved from mem[len]
 * (8-byte aligned; the hypervisor keeps it for ever). -EINVAL on bad args. */
int vprof_init(unsigned npcpus, void *mem, size_t len);
void vprof_set_sink(vprof_sink_t sink, void *ctx);
/* Declare a VM (before its vCPUs run): vCPU count and dedicated-mode permission. */
int vprof_vm_config(uint16_t vm, uint16_t nvcpus, bool may_dedicate);
/* Record every VM exit as a timeline event too (counts are always kept). */
void vprof_set_exit_trace(bool on);

/* Hot-path hooks (allocation-free; ignore unknown ids, counting them). */
void vprof_exit(unsigned pcpu, uint16_t vm, uint16_t vcpu, uint32_t reason, stime_t now);
void vprof_pmu_add(unsigned pcpu, uint16_t vm, uint16_t vcpu,
		   const struct vprof_pmu_sample *s, stime_t now);

/* Per-VM profiling on/off (what the hypercalls call). Stop dumps the trace. */
int vprof_vm_start(unsigned pcpu, uint16_t vm, stime_t now);
int vprof_vm_stop(unsigned pcpu, uint16_t vm, stime_t now, enum vp_dump_reason why);
bool vprof_vm_profiling(uint16_t vm);
/* Address of vm's "profiling" flag for lock-free polling on the exit path
 * (stable for the recorder's lifetime), or NULL for an unknown id. */
const volatile bool *vprof_vm_profiling_flag(uint16_t vm);
/* The VM ended: stop its profile (dumping it) and end its dedicated mode. */
void vprof_vm_end(unsigned pcpu, uint16_t vm, stime_t now);
/* Hypervisor shutdown: stop and dump every active profile. */
void vprof_shutdown(unsigned pcpu, stime_t now);
/* Dump every VM with an active profile without stopping it (serial key). */
int vprof_dump_all(enum vp_dump_reason why, stime_t now);

/* Dedicated mode (seed 001 §2.3). */
int vprof_dedicated_request(unsigned pcpu, uint16_t vm, uint16_t vcpu, uint32_t epochs,
			    stime_t now);
/* Once per scheduling epoch (on one CPU): counts the dedicated period down. */
void vprof_dedicated_epoch(unsigned pcpu, stime_t now);
/* True when vm's vCPUs must stay off the run queues (another VM is dedicated). */
bool vprof_vcpu_frozen(uint16_t vm);
/* True while credit must not be debited (any dedicated period is running). */
bool vprof_accounting_suspended(void);
/* Owner VM of the running dedicated period, or -1. */
int vprof_dedicated_owner(void);
/* Called (outside vProfile locks) after a dedicated period begins (owner =
 * the VM) or ends (owner = -1): the scheduler kicks every pCPU there so
 * frozen vCPUs leave or rejoin the run queues at once. */
typedef void (*vprof_dedicated_hook_t)(void *ctx, int owner, stime_t now);
void vprof_set_dedicated_hook(vprof_dedicated_hook_t fn, void *ctx);

/* Hypercall handlers (pure): nr is HC_VPROF_*; rbx the first argument.
 * Returns the value for guest RAX (>= 0 or negative errno); -ENOSYS when nr
 * is not a vProfile call. */
int64_t vprof_hcall(unsigned pcpu, uint16_t vm, uint16_t vcpu, uint32_t nr, uint64_t rbx,
		    stime_t now);

/* Read-only views for tests, the simulator and the dump encoder. */
struct vprof_vcpu_stats {
	uint64_t state_ns[VP_NSTATES];
	uint64_t spin_ns;
	uint64_t spin_begins[VPS_NDETECTORS];
	uint64_t events[VPE_NEVENTS];
	uint64_t exits[VPROF_EXIT_REASONS];
	uint64_t exits_other;          /* reasons >= VPROF_EXIT_REASONS */
	uint64_t anomalies;            /* clock going backwards, bad nesting */
	uint64_t pmu[VPMU_NCOUNTERS];
	uint32_t pmu_present;          /* counters present in every sample */
	uint32_t pmu_samples;
	uint8_t state;                 /* current state */
	uint8_t spinning;
	uint16_t last_pcpu;
};
int vprof_vcpu_stats_get(uint16_t vm, uint16_t vcpu, stime_t now, struct vprof_vcpu_stats *out);
struct vprof_pcpu_stats { uint64_t recorded, lost, idle_ns, used, cap; };
int vprof_pcpu_stats_get(unsigned pcpu, struct vprof_pcpu_stats *out);
uint64_t vprof_bad_ids(void);
#endif
