/* Architectural PMU arithmetic (SDM vol. 3 ch. 20 "Performance Monitoring",
 * §20.2): decode CPUID.0AH, choose a fixed or general-purpose counter for each
 * event vProfile records, and turn two counter readings into a delta at the
 * counter's width. Pure C: no MSR access, builds on the host for unit tests. */
#ifndef HV_ARCH_X86_PMU_CALC_H
#define HV_ARCH_X86_PMU_CALC_H
#include "compiler.h"

/* Events in vProfile's order (trace/vprof.h enum vp_pmu_counter; the glue
 * asserts the two agree). */
enum pmu_event {
	PMU_EV_INSTRUCTIONS, PMU_EV_CYCLES, PMU_EV_BRANCHES, PMU_EV_BRANCH_MISSES,
	PMU_EV_LLC_REFS, PMU_EV_LLC_MISSES, PMU_EV_OFFCORE_STALL, PMU_EV_COUNT
};

#define PMU_MAX_GP    8    /* general-purpose counters we program (IA32_PMC0-7) */
#define PMU_MAX_FIXED 4    /* fixed-function counters (IA32_FIXED_CTR0-3) */

/* MSRs of the architectural PMU (SDM vol. 4 Table 2-2). */
#define MSR_IA32_PMC0              0x000000c1u
#define MSR_IA32_PERFEVTSEL0       0x00000186u
#define MSR_IA32_FIXED_CTR0        0x00000309u
#define MSR_IA32_PERF_CAPABILITIES 0x00000345u
#define MSR_IA32_FIXED_CTR_CTRL    0x0000038du
#define MSR_IA32_PERF_GLOBAL_STATUS 0x0000038eu
#ifndef MSR_IA32_PERF_GLOBAL_CTRL
#define MSR_IA32_PERF_GLOBAL_CTRL  0x0000038fu
#endif
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL 0x00000390u
#define MSR_IA32_A_PMC0            0x000004c1u

/* IA32_PERFEVTSELx fields (SDM §20.2.1.1, Figure 20-1). */
#define PERFEVTSEL_USR     BIT(16)
#define PERFEVTSEL_OS      BIT(17)
#define PERFEVTSEL_EN      BIT(22)
#define PERFEVTSEL_CMASK(n) ((uint32_t)(n) << 24)
#define PERFEVTSEL(ev, um) ((uint32_t)(ev) | ((uint32_t)(um) << 8))
/* IA32_FIXED_CTR_CTRL: 4 bits per counter, bit 0 = ring 0, bit 1 = ring > 0 (§20.2.2). */
#define FIXED_CTRL_OS_USR  0x3u

/* What CPUID.0AH (and leaf 1's family/model) says. */
struct pmu_caps {
	uint8_t version;       /* EAX[7:0]; 0 = no architectural PMU */
	uint8_t ngp;           /* EAX[15:8] general-purpose counters */
	uint8_t gp_width;      /* EAX[23:16] bits */
	uint8_t ebx_len;       /* EAX[31:24] valid bits of the EBX event vector */
	uint8_t nfixed;        /* EDX[4:0] (version >= 2) */
	uint8_t fixed_width;   /* EDX[12:5] (version >= 2) */
	uint32_t unavail;      /* EBX, plus every bit at or beyond ebx_len: event absent */
	uint32_t fixed_mask;   /* fixed counters present (v5: ECX bitmap or EDX count) */
	uint32_t family, model;   /* display family / model (SDM vol. 2 CPUID leaf 1) */
};

/* Where one event is counted. */
enum pmu_slot_kind { PMU_SLOT_NONE, PMU_SLOT_FIXED, PMU_SLOT_GP };
struct pmu_slot {
	uint8_t kind;          /* enum pmu_slot_kind */
	uint8_t idx;           /* fixed or GP counter number */
	uint8_t width;         /* counter width in bits */
	uint8_t pad;
	uint32_t evtsel;       /* GP: IA32_PERFEVTSELx value (with USR|OS|EN) */
};

struct pmu_plan {
	struct pmu_slot slot[PMU_EV_COUNT];
	uint32_t present;      /* BIT(enum pmu_event) of events with a counter */
	uint64_t global_ctrl;  /* IA32_PERF_GLOBAL_CTRL bits that enable them */
	uint64_t fixed_ctrl;   /* IA32_FIXED_CTR_CTRL value */
	uint32_t gp_used;      /* BIT(n) per GP counter programmed */
	uint32_t fixed_used;   /* BIT(n) per fixed counter enabled */
};

/* Decode leaf 0xA. max_basic is CPUID.0.EAX, leaf1_eax CPUID.1.EAX.
 * Returns 0, or -ENODEV with *why naming the reason (version 0, version 1
 * without IA32_PERF_GLOBAL_CTRL, no counters). */
int pmu_caps_decode(uint32_t max_basic, uint32_t leaf1_eax, uint32_t a, uint32_t b,
		    uint32_t c, uint32_t d, struct pmu_caps *out, const char **why);
/* Assign counters: fixed counters first (instructions, cycles), then GP ones
 * by need (offcore, spin heuristic, LLC misses, LLC references), skipping
 * events EBX marks unavailable. OFFCORE stall cycles only on models whose
 * event is known (pmu_offcore_event). Returns the number of events placed. */
unsigned pmu_plan_make(const struct pmu_caps *c, struct pmu_plan *p);
/* OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DEMAND_DATA_RD encoding for the
 * model, or 0 when we do not know the event on it. */
uint32_t pmu_offcore_event(uint32_t family, uint32_t model);
/* (now - prev) modulo 2^width: a counter that wrapped once still gives the
 * right delta. width 0 or >= 64 means 64. */
uint64_t pmu_counter_delta(uint64_t prev, uint64_t now, unsigned width);
/* Deltas of every planned event from two readings in plan order (value of
 * slot e at index e). Events not in the plan get 0. */
void pmu_plan_delta(const struct pmu_plan *p, const uint64_t prev[PMU_EV_COUNT],
		    const uint64_t now[PMU_EV_COUNT], uint64_t delta[PMU_EV_COUNT]);
/* "v4, 4 gp x 48 bit, 3 fixed: ins cyc br brmiss llcref llcmiss". */
int pmu_describe(const struct pmu_caps *c, const struct pmu_plan *p, char *buf, size_t size);
/* Short name of an event ("ins", "cyc", ...). */
const char *pmu_event_name(enum pmu_event e);
#endif
