/* Guest-only PMU counting per vCPU (issue 5, seed 001 §2.2) and per-vCPU
 * samples for vProfile. Counters run only between VM entry and VM exit
 * (IA32_PERF_GLOBAL_CTRL loaded by the VM-entry / VM-exit controls, or by
 * MSR-load lists where those controls are missing). Around every guest run
 * the pCPU's counters are read; the deltas (modulo the counter width) belong
 * to the vCPU that ran and are passed to vprof_pmu_add() when the vCPU leaves
 * the pCPU (vcpu_put) and, while it keeps running, at most every
 * pmu_sample_us (runs end at least at every slice end). With no usable PMU
 * every hook is one flag test. */
#ifndef HV_VM_VCPU_PMU_H
#define HV_VM_VCPU_PMU_H
#include "arch/x86/pmu.h"

struct vcpu;

/* BSP, after VMX capabilities are read and before any VMCS exists: choose
 * how VMX gates counting (or turn the PMU off). */
void vcpu_pmu_init(void);
/* Right after vmcs_setup() (the new VMCS is current): the entry/exit loads. */
void vcpu_pmu_vmcs_setup_active(void);
void vcpu_pmu_run_begin_active(struct vcpu *v);
void vcpu_pmu_run_end_active(struct vcpu *v);
void vcpu_pmu_vcpu_put_active(struct vcpu *v);

static inline void vcpu_pmu_vmcs_setup(void)
{
	if (pmu_active())
		vcpu_pmu_vmcs_setup_active();
}

/* vm_cpu_loop(), around vcpu_run(): begin snapshots the counters, end
 * charges the run to v (a sample when pmu_sample_us has passed). */
static inline void vcpu_pmu_run_begin(struct vcpu *v)
{
	if (pmu_active())
		vcpu_pmu_run_begin_active(v);
}

static inline void vcpu_pmu_run_end(struct vcpu *v)
{
	if (pmu_active())
		vcpu_pmu_run_end_active(v);
}

/* vcpu_put(): v leaves this pCPU; its pending sample goes out now. */
static inline void vcpu_pmu_vcpu_put(struct vcpu *v)
{
	if (pmu_active())
		vcpu_pmu_vcpu_put_active(v);
}
#endif
