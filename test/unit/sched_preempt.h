/* What the parts of test_sched_preempt share (test_sched_preempt.c: the fake
 * platform, wake-up DP, DP + SA, DS, PLE and main; sched_preempt_adaptive.c:
 * adaptive DP, seed 001 §5.1 eq. 1-2). */
#ifndef TEST_UNIT_SCHED_PREEMPT_H
#define TEST_UNIT_SCHED_PREEMPT_H
#include <check.h>
#include <string.h>
#include "shim.h"
#include "errno.h"
#include "log.h"
#include "sched/policy.h"
#include "abi.h"

#define MS(x) ((stime_t)(x) * 1000000)
#define US(x) ((stime_t)(x) * 1000)

extern unsigned long long vprof_stub_events[VPE_NEVENTS];
extern stime_t fake_now;
extern stime_t fake_timer[4];
extern struct sched_pcpu P[2];
extern struct sched_vm VM[2];
extern struct sched_vcpu V[4];
/* One pCPU; VM 0 with vCPUs 0,1, VM 1 with vCPUs 2,3 (nv per VM), all on pCPU 0. */
void setup_machine(int nv, bool sa);
/* Schedule pCPU 0 at time t (the fake clock moves there). */
struct sched_vcpu *sched_at(stime_t t);
/* The first vCPU of the VM a is not in (V[0] or V[2]). */
struct sched_vcpu *other(struct sched_vcpu *a);

/* sched_preempt_adaptive.c adds its tests to the suite's one test case. */
void sched_preempt_adaptive_add(TCase *tc);
#endif
