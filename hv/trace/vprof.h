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
	VPE_SA_UPCALL,      /* scheduler-activation upcall sent (seed 000 Alg. 1) */
	VPE_SA_ACK,
	VPE_SA_TIMEOUT,     /* hard limit expired */
	VPE_DELAY_PREEMPT,  /* preemption delayed: arg = delay ns (seed 001 §5.1) */
	VPE_BALLOON_SLEEP,  /* seed 004 */
	VPE_BALLOON_WAKE,
	VPE_BALLOON_MODE,   /* arg = new mode */
	VPE_COSCHED_SIGNAL, /* arg = target pCPU mask (low 64) */
	VPE_VMEXIT,         /* arg = exit reason (only when exit tracing is on) */
	VPE_DEDICATED_BEGIN,
	VPE_DEDICATED_END,
	VPE_PROFILE_START,
	VPE_PROFILE_STOP,
	VPE_MARK,           /* arg = guest-supplied value */
	VPE_NEVENTS
};

/* Called by hv/sched/core on every state change of a vCPU, with the pCPU doing it. */
void vprof_state(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_state to, stime_t now);
/* Called for events; cheap and allocation-free. */
void vprof_event(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_event ev, stime_t now,
		 uint64_t arg);
#endif
