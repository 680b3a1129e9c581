/* Spinning detectors for the vProfile "spinning" sub-state of RUNNING
 * (seed 001 §2.1): PAUSE-loop exits, and the PMU heuristic of its ref. [25]
 * (spin loops retire many branches per instruction and mispredict almost
 * none). Called with the VM lock held; the configuration is set at boot. */
#include "trace/internal.h"
#include "compiler.h"

static struct {
	uint64_t ple_ns;
	uint32_t bpi_min, miss_max;   /* thousandths */
	uint64_t min_instr;
} spin_cfg;

void vp_spin_reset(void)
{
	spin_cfg.ple_ns = 0;
	spin_cfg.bpi_min = 250;
	spin_cfg.miss_max = 10;
	spin_cfg.min_instr = 10000;
}

void vprof_spin_set_ple(uint64_t ple_window_ns)
{
	spin_cfg.ple_ns = ple_window_ns;
}

void vprof_spin_set_pmu(uint32_t bpi_min_permille, uint32_t miss_max_permille,
			uint64_t min_instructions)
{
	spin_cfg.bpi_min = bpi_min_permille;
	spin_cfg.miss_max = miss_max_permille;
	spin_cfg.min_instr = min_instructions;
}

/* Credit [max(run start, last credit, now - window), now] as PLE spinning;
 * the timeline gets the interval as a SPIN_BEGIN/SPIN_END pair. */
void vp_spin_ple(unsigned pcpu, uint16_t vm, uint16_t vcpu, struct vp_acct *a, bool on,
		 stime_t now)
{
	stime_t from = now - (stime_t)spin_cfg.ple_ns;

	if (!on || !spin_cfg.ple_ns || a->s.state != VP_RUNNING || a->s.spinning)
		return;
	from = MAX(from, MAX(a->since, a->ple_until));
	if (from >= now)
		return;
	a->s.spin_ns += (uint64_t)(now - from);
	a->s.spin_begins[VPS_PLE]++;
	a->ple_until = now;
	vp_record(pcpu, vm, vcpu, VPR_EVENT, VPE_SPIN_BEGIN, VPS_PLE, from);
	vp_record(pcpu, vm, vcpu, VPR_EVENT, VPE_SPIN_END, VPS_PLE, now);
}

int vprof_spin_pmu_verdict(const struct vprof_pmu_sample *s)
{
	const uint32_t need = (uint32_t)(BIT(VPMU_INSTRUCTIONS) | BIT(VPMU_BRANCHES) |
					 BIT(VPMU_BRANCH_MISSES));
	uint64_t ins = s->delta[VPMU_INSTRUCTIONS], br = s->delta[VPMU_BRANCHES];

	if (!spin_cfg.bpi_min || (s->present & need) != need || ins < spin_cfg.min_instr || !ins)
		return -1;
	/* Ratios compared by cross-multiplication: no division, no overflow for
	 * counts below 2^54. */
	return br * 1000 >= (uint64_t)spin_cfg.bpi_min * ins &&
	       s->delta[VPMU_BRANCH_MISSES] * 1000 <= (uint64_t)spin_cfg.miss_max * br;
}

void vp_spin_pmu(unsigned pcpu, uint16_t vm, uint16_t vcpu, struct vp_acct *a,
		 const struct vprof_pmu_sample *s, stime_t now)
{
	int v = vprof_spin_pmu_verdict(s);
	enum vp_event ev;

	if (v == 1 && !a->s.spinning && a->s.state == VP_RUNNING)
		ev = VPE_SPIN_BEGIN;
	else if (v == 0 && a->s.spinning && a->spin_det == VPS_PMU)
		ev = VPE_SPIN_END;
	else
		return;
	vp_acct_event(a, ev, VPS_PMU, true, now);
	vp_record(pcpu, vm, vcpu, VPR_EVENT, (uint8_t)ev, VPS_PMU, now);
}
