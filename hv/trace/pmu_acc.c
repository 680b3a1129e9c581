/* Per-vCPU PMU sample accumulator (see pmu_acc.h). */
#include "trace/pmu_acc.h"
#include "lib/string.h"

void vprof_pmu_acc_add(struct vprof_pmu_acc *a, uint32_t present,
		       const uint64_t delta[VPMU_NCOUNTERS])
{
	a->present = a->runs ? (a->present & present) : present;
	a->runs++;
	for (unsigned c = 0; c < VPMU_NCOUNTERS; c++)
		if (present & BIT(c))
			a->delta[c] += delta[c];
}

bool vprof_pmu_acc_flush(struct vprof_pmu_acc *a, unsigned pcpu, uint16_t vm, uint16_t vcpu,
			 stime_t now, uint64_t period_ns, bool force)
{
	struct vprof_pmu_sample s;

	if (!a->runs || (!force && now - a->since < (stime_t)period_ns))
		return false;
	s.present = a->present;
	for (unsigned c = 0; c < VPMU_NCOUNTERS; c++)
		s.delta[c] = (a->present & BIT(c)) ? a->delta[c] : 0;
	memset(a, 0, sizeof(*a));
	a->since = now;
	vprof_pmu_add(pcpu, vm, vcpu, &s, now);
	return true;
}
