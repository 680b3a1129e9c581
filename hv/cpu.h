/* One per-CPU object (issue 11): what the layers keep per physical CPU, in
 * one struct indexed by the dense CPU id (this_cpu_id(), 0..nr_cpus_online-1)
 * instead of parallel [MAX_CPUS] arrays. Parts so far: watchdog
 * (vm/watchdog.c) and pmu (vm/pmu_glue.c). The arch part (GDT, TSS, IST
 * stack, APIC id, VMXON region) stays in struct percpu, page-aligned and
 * reached through GS (arch/x86/percpu.h): cpu_arch() gives it.
 * Not yet here: the sched part (vm/sched_glue.c's runqueues, deadlines,
 * heartbeat, idling) and the vmx part (vmx/fpu.c's FPU owner). Indexing an
 * array of this struct by id costs an instruction or more per access that a
 * scaled array index does not (measured: +15..+205 Bochs cycles on the
 * apicv=off IPI rows of make bench-exits); they move once the per-pCPU loop
 * passes a struct cpu pointer instead of an id (docs/architecture.md). */
#ifndef HV_CPU_H
#define HV_CPU_H
#include "arch/x86/percpu.h"
#include "sched/sched.h"

/* PMU events sampled per run (PMU_EV_COUNT, arch/x86/pmu_calc.h; pmu_glue.c
 * asserts they agree). */
#define CPU_PMU_EVENTS 7

struct cpu {
	/* watchdog: what the checking pCPU last saw of this one */
	struct {
		stime_t alive, seen_beat;
		uint64_t seen_exits;
		bool reported;
	} wd;
	/* pmu */
	struct cpu_pmu {
		int8_t setup;                  /* 0 not yet, 1 programmed, -1 failed */
		bool armed;                    /* last[] is a snapshot for the current run */
		uint64_t last[CPU_PMU_EVENTS];
	} pmu;
} __aligned(64);

extern struct cpu cpus[MAX_CPUS];

static inline struct cpu *cpu_get(unsigned id)
{
	return &cpus[id];
}

static inline struct percpu *cpu_arch(const struct cpu *c)
{
	return &percpu_area[c - cpus];
}
#endif
