/* Guest-only PMU counting per vCPU (see vcpu_pmu.h). SDM vol. 3
 * §25.7.1/§25.8.1 (VM-exit/VM-entry controls "load IA32_PERF_GLOBAL_CTRL",
 * bit 12 / bit 13), §25.7.2/§25.8.2 (MSR-load lists, the fallback),
 * §28.3/§28.5 (when the loads happen). */
#include "vm/vcpu_pmu.h"
#include "vm/vm.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_setup.h"
#include "vmx/caps.h"
#include "vm/exit_route.h"
#include "trace/pmu_acc.h"
#include "arch/x86/percpu.h"
#include "arch/x86/time.h"
#include "cmdline.h"
#include "log.h"
#include "cpu.h"
#include "arch/x86/exc.h"

_Static_assert((int)PMU_EV_COUNT == (int)VPMU_NCOUNTERS &&
	       (int)PMU_EV_INSTRUCTIONS == (int)VPMU_INSTRUCTIONS &&
	       (int)PMU_EV_BRANCH_MISSES == (int)VPMU_BRANCH_MISSES &&
	       (int)PMU_EV_OFFCORE_STALL == (int)VPMU_OFFCORE_STALL,
	       "pmu_calc.h events must follow vprof.h's counter order");

/* MSR-load list entry (SDM §25.7.2, Table 25-15); the area is 16-byte aligned. */
struct pmu_msr_entry {
	uint32_t index, rsvd;
	uint64_t value;
};
_Static_assert(sizeof(struct pmu_msr_entry) == 16, "VMX MSR-load entry layout");

enum pmu_gate { PMU_GATE_CTLS, PMU_GATE_LISTS };
_Static_assert(CPU_PMU_EVENTS == PMU_EV_COUNT, "struct cpu's PMU part");

static int pmu_sample_us = 1000;
CMDLINE_INT(pmu_sample_us, pmu_sample_us, 0, 1000000,
	    "least guest-run time between two PMU samples of a vCPU, in us (0: every run)");

static enum pmu_gate pmu_gate;
static struct pmu_msr_entry pmu_entry_load __aligned(16);
static struct pmu_msr_entry pmu_exit_load __aligned(16);
/* Written only by the pCPU running the vCPU (one at a time; the scheduler's
 * locks order a migration). */
static struct vprof_pmu_acc pmu_accs[VPROF_MAX_VMS][VPROF_MAX_VCPUS];

void vcpu_pmu_init(void)
{
	const struct vmx_caps *c = &vmx_caps;

	if (!pmu_active())
		return;
	if (pmu_tsc_test()) {
		pr_info("pmu: no VMX gating in TSC test mode, samples every %d us\n", pmu_sample_us);
		return;
	}
	if (vmx_ctl_has(&c->entry, ENTRY_LOAD_PERF_GLOBAL) &&
	    vmx_ctl_has(&c->exit, EXIT_LOAD_PERF_GLOBAL)) {
		pmu_gate = PMU_GATE_CTLS;
		pr_info("pmu: guest-only counting by the VM-entry/exit \"load "
			"IA32_PERF_GLOBAL_CTRL\" controls, samples every %d us\n", pmu_sample_us);
		return;
	}
	/* Every VMCS may hold MSR-load lists (512 entries at least, App. A.6). */
	pmu_gate = PMU_GATE_LISTS;
	pmu_entry_load = (struct pmu_msr_entry){ MSR_IA32_PERF_GLOBAL_CTRL, 0,
						 pmu_plan_get()->global_ctrl };
	pmu_exit_load = (struct pmu_msr_entry){ MSR_IA32_PERF_GLOBAL_CTRL, 0, 0 };
	pr_info("pmu: guest-only counting by VM-entry/exit MSR-load lists, samples every %d us\n",
		pmu_sample_us);
}

void vcpu_pmu_vmcs_setup_active(void)
{
	if (pmu_tsc_test())
		return;
	vmcs_setup_pmu(pmu_gate == PMU_GATE_CTLS, pmu_plan_get()->global_ctrl, &pmu_entry_load,
		       &pmu_exit_load);
}

/* RDPMC exit (SDM §26.1.3; set only while the host PMU is in use): the guest
 * was told there is no PMU (CPUID.0AH = 0), so any counter index is invalid:
 * #GP(0) as on a CPU without it (SDM vol. 2 RDPMC). */
enum exit_action exit_rdpmc(struct vmx_vcpu *v, struct exit_info *x)
{
	vcpu_queue_exception(v, X86_EXC_GP, true, 0);
	return EXIT_RESUME;
}

static bool vcpu_pmu_cpu_ready(unsigned cpu)
{
	struct cpu_pmu *pc = &cpus[cpu].pmu;

	if (pc->setup == 0) {
		pc->setup = pmu_cpu_setup() ? -1 : 1;
		if (pc->setup < 0)
			pr_warn("pmu: cpu%u: programming the counters faulted; no samples here\n", cpu);
	}
	return pc->setup > 0;
}

/* The pCPU's counters are programmed before its first guest run, profile or
 * not (VM entry enables them; stale BIOS event selects must not count or
 * raise PMIs). Nothing to snapshot unless v's VM is being profiled
 * (vprof_pmu_add would drop the sample) or sched=auto wants this run's
 * figures (sched_vcpu_pmu_wanted). */
void vcpu_pmu_run_begin_active(struct vcpu *v)
{
	unsigned cpu = this_cpu_id();
	struct cpu_pmu *pc = &cpus[cpu].pmu;
	bool ready = vcpu_pmu_cpu_ready(cpu), prof, want;

	prof = ready && v->vmx.id < VPROF_MAX_VCPUS && vprof_vm_profiling((uint16_t)v->vm->id);
	/* sched=auto's own sample (auto.c: a few runs per accounting period;
	 * 0 runs under any other policy): cycles needed, stall if present. */
	want = ready && !prof && sched_vcpu_pmu_wanted(&v->sv) &&
	       (pmu_plan_get()->present & BIT(VPMU_CYCLES));
	pc->sched_only = want;
	pc->armed = (prof || want) && !pmu_read(pc->last);
}

static struct vprof_pmu_acc *vcpu_pmu_acc(struct vcpu *v)
{
	if (v->vm->id >= VPROF_MAX_VMS || v->vmx.id >= VPROF_MAX_VCPUS)
		return NULL;
	return &pmu_accs[v->vm->id][v->vmx.id];
}

void vcpu_pmu_run_end_active(struct vcpu *v)
{
	unsigned cpu = this_cpu_id();
	struct cpu_pmu *pc = &cpus[cpu].pmu;
	const struct pmu_plan *p = pmu_plan_get();
	uint64_t now_v[PMU_EV_COUNT], delta[PMU_EV_COUNT];
	struct vprof_pmu_acc *a;

	if (!pc->armed)
		return;
	pc->armed = false;
	if (pc->sched_only) {
		/* Not profiled: the scheduler's figures only, no vProfile sample. */
		if (pmu_read(now_v))
			return;
		pmu_plan_delta(p, pc->last, now_v, delta);
		sched_vcpu_pmu(&v->sv, delta[VPMU_CYCLES],
			       (p->present & BIT(VPMU_OFFCORE_STALL)) ? delta[VPMU_OFFCORE_STALL] : 0);
		sched_vcpu_pmu_run_done(&v->sv);
		return;
	}
	a = vcpu_pmu_acc(v);
	if (!a || pmu_read(now_v))
		return;
	pmu_plan_delta(p, pc->last, now_v, delta);
	vprof_pmu_acc_add(a, p->present, delta);
	/* sched=auto's memory-boundness signal (hv/sched/auto.c). */
	if ((p->present & BIT(VPMU_CYCLES)) && (p->present & BIT(VPMU_OFFCORE_STALL)))
		sched_vcpu_pmu(&v->sv, delta[VPMU_CYCLES], delta[VPMU_OFFCORE_STALL]);
	vprof_pmu_acc_flush(a, cpu, (uint16_t)v->vm->id, (uint16_t)v->vmx.id, time_now(),
			    (uint64_t)pmu_sample_us * 1000u, false);
}

void vcpu_pmu_vcpu_put_active(struct vcpu *v)
{
	struct vprof_pmu_acc *a = vcpu_pmu_acc(v);

	if (a)
		vprof_pmu_acc_flush(a, this_cpu_id(), (uint16_t)v->vm->id, (uint16_t)v->vmx.id,
				    time_now(), 0, true);
}
