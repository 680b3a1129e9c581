/* Host PMU (SDM vol. 3 ch. 20): detection at boot, per-CPU programming and
 * counter reads for vProfile's per-vCPU statistics. Counters are programmed
 * once per pCPU and gated by IA32_PERF_GLOBAL_CTRL, which is 0 in the
 * hypervisor and the plan's enable mask only while a guest runs (VM-entry /
 * VM-exit loads, hv/vm/vcpu_pmu.c). Decode and arithmetic: pmu_calc.h. */
#ifndef HV_ARCH_X86_PMU_H
#define HV_ARCH_X86_PMU_H
#include "arch/x86/pmu_calc.h"

extern bool pmu_enabled;   /* set once by pmu_init(); cleared by pmu_disable() */

static inline bool pmu_active(void)
{
	return READ_ONCE(pmu_enabled);
}

/* BSP, once, before VMX: honour pmu=off, decode CPUID.0AH, probe the MSRs
 * with fault fixups (Bochs advertises a PMU whose MSRs #GP), check that the
 * counters count, and print the one "pmu: ..." boot line. */
void pmu_init(void);
/* Turn sampling off for good (e.g. VMX cannot gate counting); logs why. */
void pmu_disable(const char *why);
const struct pmu_plan *pmu_plan_get(void);
/* pmu=tsc-test: only "cycles", read from the TSC; nothing to gate in VMX. */
bool pmu_tsc_test(void);
/* This pCPU: program the event selects and fixed-counter control with
 * IA32_PERF_GLOBAL_CTRL = 0 (nothing counts in the hypervisor). 0 or -EIO. */
int pmu_cpu_setup(void);
/* Read every planned counter into v[event]. 0 or -EIO (a read faulted). */
int pmu_read(uint64_t v[PMU_EV_COUNT]);
#endif
