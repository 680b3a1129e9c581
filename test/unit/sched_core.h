/* What the parts of test_sched_core share (test_sched_core.c: the fake
 * platform, the core state machine and main; sched_core_sa.c: scheduler
 * activations; sched_core_balloon.c: the balloon; sched_core_opts.c:
 * options, per-VM parameters and budgets). */
#ifndef TEST_UNIT_SCHED_CORE_H
#define TEST_UNIT_SCHED_CORE_H
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "shim.h"
#include "errno.h"
#include "log.h"
#include "sched/policy.h"
#include "sched/option.h"
#include "cmdline.h"
#include "abi.h"

#define MS(x) ((stime_t)(x) * 1000000)
#define US(x) ((stime_t)(x) * 1000)

/* The fake platform (test_sched_core.c). */
extern stime_t fake_now;
extern stime_t fake_timer[8];
extern int fake_kicks[8];
extern int fake_injected, fake_vector;
extern struct sched_shared_page fake_page;
extern bool fake_irq;   /* platform: "an interrupt is pending" for every vCPU */
extern unsigned long long vprof_stub_events[VPE_NEVENTS];
extern struct sched_pcpu P[4];
extern struct sched_vm VM[2];
extern struct sched_vcpu V[4];
/* npcpu pCPUs, one VM with nvcpu vCPUs pinned to pCPU 0, all started. */
void setup_machine(int npcpu, int nvcpu, bool sa);
/* Schedule pCPU cpu at time t (the fake clock moves there). */
struct sched_vcpu *sched_at(int cpu, stime_t t);

/* Each part adds its tests to the suite's one test case. */
void sched_core_sa_add(TCase *tc);
void sched_core_balloon_add(TCase *tc);
void sched_core_opts_add(TCase *tc);
#endif
