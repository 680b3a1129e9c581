/* Per-vCPU PMU sample accumulator (seed 001 §2.2): the hypervisor reads the
 * counters around every guest run, but passes a sample to vprof_pmu_add() at
 * a bounded rate, so the spin heuristic sees samples of a useful size and the
 * trace ring is not flooded by short runs. Pure C, host-testable. */
#ifndef HV_TRACE_PMU_ACC_H
#define HV_TRACE_PMU_ACC_H
#include "compiler.h"
#include "trace/vprof.h"

struct vprof_pmu_acc {
	uint64_t delta[VPMU_NCOUNTERS];   /* summed since the last flush */
	uint32_t present;                 /* counters measured in every run summed */
	uint32_t runs;                    /* runs summed since the last flush */
	stime_t since;                    /* time of the last flush */
};

/* Add one guest run's deltas; a counter missing from any run of the sample
 * is absent from the sample (never zero). */
void vprof_pmu_acc_add(struct vprof_pmu_acc *a, uint32_t present,
		       const uint64_t delta[VPMU_NCOUNTERS]);
/* When runs are pending and period_ns has passed since the last flush (or
 * force is set), pass the sum to vprof_pmu_add() and start a new sample.
 * Returns true if a sample was passed on. */
bool vprof_pmu_acc_flush(struct vprof_pmu_acc *a, unsigned pcpu, uint16_t vm, uint16_t vcpu,
			 stime_t now, uint64_t period_ns, bool force);
#endif
