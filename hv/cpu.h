/* One per-CPU object (issue 11): what the layers keep per physical CPU, in
 * one struct indexed by the dense CPU id (this_cpu_id(), 0..nr_cpus_online-1)
 * instead of parallel [MAX_CPUS] arrays. Parts: sched (vm/pcpu_loop.c's
 * runqueue, armed and blocked deadlines, heartbeat, idling), vmx (vmx/fpu.c's
 * FPU owner), watchdog (vm/watchdog.c) and pmu (vm/vcpu_pmu.c). The arch part
 * (GDT, TSS, IST stack, APIC id, VMXON region) stays in struct percpu,
 * page-aligned and reached through GS (arch/x86/percpu.h): cpu_arch() gives
 * it, and its `cpu` field points back here (cpu_this()).
 * Cost: indexing an array of this struct by id takes a shift and an add per
 * access that a scaled array index does not (measured, make bench-exits:
 * +15..+85 Bochs cycles on the slow-exit rows); so the size is a power of two
 * and the hot paths (the per-pCPU loop, vcpu_run, halt polling, the FPU
 * switch, the kick IRQ) take cpu_this() once, one GS load instead of
 * this_cpu_id()'s call and RDMSR (docs/architecture.md). */
#ifndef HV_CPU_H
#define HV_CPU_H
#include "arch/x86/percpu.h"
#include "sched/sched.h"

/* PMU events sampled per run (PMU_EV_COUNT, arch/x86/pmu_calc.h; vcpu_pmu.c
 * asserts they agree). */
#define CPU_PMU_EVENTS 7

struct fpu_state;
struct vcpu;

struct cpu {
	/* sched (vm/pcpu_loop.c): the runqueue first, so &cpus[i].sched.rq is
	 * cpus + i * sizeof(struct cpu) */
	struct cpu_sched {
		struct sched_pcpu rq;
		volatile stime_t deadline;       /* what sched armed */
		volatile unsigned long kicks;    /* VEC_KICKs taken, self-kicks (vm/vcpu.c) */
		stime_t blocked_deadline;        /* earliest device timer of a blocked vCPU */
		volatile stime_t heartbeat;      /* last poll (vm/watchdog.c) */
		volatile bool idling;            /* halted in idle_wait() */
		struct vcpu *volatile parked;    /* blocked vCPU whose VMCS stays current
						  * while this pCPU idles (vm/pcpu_loop.c) */
		struct vcpu *vmcs_cur;           /* whose VMCS is current here (vm/vcpu.c) */
		unsigned long nparked, nresumed, nunparked;   /* summary counters */
	} sched;
	/* vmx (vmx/fpu.c): whose FPU state the registers hold */
	struct {
		struct fpu_state *fpu_owner;
	} vmx;
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
		bool sched_only;               /* ... for sched=auto's sample, not vProfile */
		uint64_t last[CPU_PMU_EVENTS];
	} pmu;
} __aligned(1024);
_Static_assert(sizeof(struct cpu) == 1024, "struct cpu: a power of two, so cpus[id] is a shift");

extern struct cpu cpus[MAX_CPUS];

static inline struct cpu *cpu_get(unsigned id)
{
	return &cpus[id];
}

/* This pCPU's object: one GS-relative load (set by cpu_bind() right after
 * percpu_init()). The per-pCPU loop and the vCPU run loop take it once and
 * pass it on, as an array index into 1 KiB objects costs a shift and an add
 * per access that the parallel arrays' scaled index did not. */
static inline struct cpu *cpu_this(void)
{
	struct cpu *c;

	__asm__("movq %%gs:%c1, %0" : "=r"(c) : "i"(offsetof(struct percpu, cpu)));
	return c;
}

void cpu_bind(unsigned id);

static inline struct percpu *cpu_arch(const struct cpu *c)
{
	return &percpu_area[c - cpus];
}
#endif
