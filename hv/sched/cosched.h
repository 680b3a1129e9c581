/* The co-scheduling layer shared by the signal-based variants (gang, cs,
 * cds, pcs) and the helpers every co-scheduling variant uses (vCPU scatter,
 * statistics). It plugs into the credit core through struct csched_ext
 * (credit.h); each variant is one file that picks its rules with a
 * struct cosched_variant. Seed 003 Alg. 1 is the kernel; docs/sched.md
 * "Co-scheduling family" describes every rule and option. */
#ifndef HV_SCHED_COSCHED_H
#define HV_SCHED_COSCHED_H
#include "sched/credit.h"

struct cosched_variant {
	const char *name;
	/* Which pCPUs an operation signals: all online (cs, cds) or only the
	 * pCPUs that hold the VM's vCPUs, its CoCPUs (pcs, gang). */
	bool global;
	/* The operation reserves its pCPUs while the VM runs, up to one credit
	 * slice (cs, cds, gang: one co-scheduled VM per pCPU set at a time);
	 * otherwise it ends once every signalled pCPU has scheduled (pcs,
	 * Alg. 1 lines 12-15). */
	bool persist;
	/* Co-descheduling (cds, gang): a member that stops running the VM
	 * ends the operation and signals the others to deschedule too. */
	bool codesched;
	/* Gang: a CON vCPU runs only inside an operation of its VM. */
	bool strict;
};

/* The layer's per-vCPU area (csched_vcpu_ext); variants that add their own
 * hooks (bcs) use the same. */
struct cosched_vcpu {
	stime_t edge_from;       /* co-scheduling launch awaiting this vCPU's start (0 = none) */
	unsigned home;           /* scatter target + 1 (0 = none) */
};

/* Variant init: credit's init plus the layer's hooks. */
int cosched_init(const struct cosched_variant *var);

/* Scatter (seed 003 §IV-B): placement of a new vCPU of a CON VM, fewest
 * siblings first, then least loaded, then fewest CON vCPUs; -1 if the VM
 * is HIT. Also used by bcs. */
int cosched_scatter_place(struct sched_vcpu *v);
/* A VM turned CON at run time: re-place its vCPUs (not-running ones now,
 * running ones at their next wake). */
void cosched_scatter_vm(struct sched_vm *vm);
/* Keep a CON VM scattered: p may take v only if p holds no sibling. */
bool cosched_may_steal(struct sched_pcpu *p, struct sched_vcpu *v);
int cosched_pick_cpu(struct sched_vcpu *v, stime_t now);
bool cosched_vm_is_con(const struct sched_vm *vm);
/* sched=auto (auto.c): a VM's sibling skew in its last period (per mille;
 * *held: its spin asked for CON but the skew was too low), and whether
 * auto set sched_balloon_guard for cap pressure. */
unsigned sched_auto_vm_skew(const struct sched_vm *vm, bool *held);
bool sched_auto_guard_on(void);

/* Statistics (hvsim prints them; tools/vprof cosched derives the same from
 * a trace). Edges: launch -> each sibling's start, 10 us buckets. */
#define COSCHED_EDGE_BUCKETS 1001
struct cosched_stats {
	uint64_t ops;          /* co-scheduling operations launched */
	uint64_t signals;      /* pCPUs signalled (pcs/cs/cds/gang) */
	uint64_t refused;      /* launches refused (overlap) */
	uint64_t codesched;    /* co-descheduling operations */
	uint64_t nedge;        /* sibling starts measured */
	uint32_t edge_hist[COSCHED_EDGE_BUCKETS];   /* last = >= 10 ms */
	stime_t edge_max;
};
extern struct cosched_stats cosched_stats;
void cosched_stats_reset(void);
/* Edge of a sibling start `now` for an operation launched at `launch`. */
void cosched_edge(stime_t launch, stime_t now);
/* Fraction (ppm) of edges <= limit. */
uint64_t cosched_edge_ppm_le(stime_t limit);
#endif
