/* Architectural PMU arithmetic (see pmu_calc.h). SDM vol. 3 §20.2 "Architectural
 * Performance Monitoring" versions 1-5; vol. 2 CPUID leaf 0AH. */
#include "arch/x86/pmu_calc.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "errno.h"

/* Pre-defined architectural events (SDM §20.2.1.2, Table 20-1): the EBX bit
 * that says "not available" and the event select / unit mask. */
struct pmu_arch_event {
	int8_t ebx_bit;        /* -1: model-specific, no EBX bit */
	int8_t fixed;          /* fixed counter that counts it, or -1 */
	uint32_t evtsel;       /* event | umask << 8 | cmask << 24 */
};

static const struct pmu_arch_event pmu_events[PMU_EV_COUNT] = {
	[PMU_EV_INSTRUCTIONS] = { 1, 0, PERFEVTSEL(0xc0, 0x00) },   /* INST_RETIRED.ANY_P */
	[PMU_EV_CYCLES]       = { 0, 1, PERFEVTSEL(0x3c, 0x00) },   /* CPU_CLK_UNHALTED.CORE */
	[PMU_EV_BRANCHES]     = { 5, -1, PERFEVTSEL(0xc4, 0x00) },  /* BR_INST_RETIRED.ALL */
	[PMU_EV_BRANCH_MISSES] = { 6, -1, PERFEVTSEL(0xc5, 0x00) }, /* BR_MISP_RETIRED.ALL */
	[PMU_EV_LLC_REFS]     = { 3, -1, PERFEVTSEL(0x2e, 0x4f) },  /* LONGEST_LAT_CACHE.REFERENCE */
	[PMU_EV_LLC_MISSES]   = { 4, -1, PERFEVTSEL(0x2e, 0x41) },  /* LONGEST_LAT_CACHE.MISS */
	[PMU_EV_OFFCORE_STALL] = { -1, -1, 0 },                     /* per model */
};

static const char *const pmu_event_names[PMU_EV_COUNT] = {
	"ins", "cyc", "br", "brmiss", "llcref", "llcmiss", "offcore",
};

const char *pmu_event_name(enum pmu_event e)
{
	return (unsigned)e < PMU_EV_COUNT ? pmu_event_names[e] : "?";
}

/* Display family and model (SDM vol. 2, CPUID leaf 1 EAX: extended model
 * applies to families 6 and 15, extended family to 15). */
static void pmu_family_model(uint32_t eax, uint32_t *family, uint32_t *model)
{
	uint32_t fam = (eax >> 8) & 0xf, mod = (eax >> 4) & 0xf;

	if (fam == 0x6 || fam == 0xf)
		mod |= ((eax >> 16) & 0xf) << 4;
	if (fam == 0xf)
		fam += (eax >> 20) & 0xff;
	*family = fam;
	*model = mod;
}

static uint32_t pmu_low_bits(unsigned n)
{
	return n >= 32 ? ~0u : (uint32_t)BIT(n) - 1u;
}

int pmu_caps_decode(uint32_t max_basic, uint32_t leaf1_eax, uint32_t a, uint32_t b,
		    uint32_t c, uint32_t d, struct pmu_caps *out, const char **why)
{
	const char *dummy;

	why = why ? why : &dummy;
	memset(out, 0, sizeof(*out));
	pmu_family_model(leaf1_eax, &out->family, &out->model);
	if (max_basic < 0xa) {
		*why = "CPUID has no leaf 0AH";
		return -ENODEV;
	}
	out->version = (uint8_t)a;
	out->ngp = (uint8_t)(a >> 8);
	out->gp_width = (uint8_t)(a >> 16);
	out->ebx_len = (uint8_t)(a >> 24);
	out->unavail = b | ~pmu_low_bits(out->ebx_len);
	if (out->version >= 2) {   /* EDX is reserved before version 2 (§20.2.2) */
		out->nfixed = (uint8_t)(d & 0x1f);
		out->fixed_width = (uint8_t)((d >> 5) & 0xff);
		out->fixed_mask = pmu_low_bits(out->nfixed);
		if (out->version >= 5)   /* §20.2.5: ECX enumerates fixed counters too */
			out->fixed_mask |= c;
		out->fixed_mask &= pmu_low_bits(PMU_MAX_FIXED);
	}
	if (out->version == 0) {
		*why = "CPUID.0AH version 0";
		return -ENODEV;
	}
	if (out->version == 1) {
		*why = "CPUID.0AH version 1: no IA32_PERF_GLOBAL_CTRL to limit counting to guests";
		return -ENODEV;
	}
	if (!out->ngp && !out->fixed_mask) {
		*why = "CPUID.0AH reports no counters";
		return -ENODEV;
	}
	if ((out->ngp && out->gp_width < 32) || (out->fixed_mask && out->fixed_width < 32)) {
		*why = "CPUID.0AH counter width below 32 bits";
		return -ENODEV;
	}
	return 0;
}

/* Event 60H umask 01H with CMASK 1: cycles with at least one demand data
 * read outstanding beyond L2, i.e. in the offcore memory system (seed 001
 * §2.2 OFFCORE_STALL, §4 t_mem). Same encoding from Sandy Bridge to Coffee
 * Lake (Intel perfmon event lists); later cores changed it, so they get none. */
uint32_t pmu_offcore_event(uint32_t family, uint32_t model)
{
	static const uint8_t models[] = {
		0x2a, 0x2d,                 /* Sandy Bridge */
		0x3a, 0x3e,                 /* Ivy Bridge */
		0x3c, 0x3f, 0x45, 0x46,     /* Haswell */
		0x3d, 0x47, 0x4f, 0x56,     /* Broadwell */
		0x4e, 0x5e, 0x55,           /* Skylake (client, server) */
		0x8e, 0x9e, 0xa5, 0xa6,     /* Kaby / Coffee / Comet Lake */
	};

	if (family != 6)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(models); i++)
		if (models[i] == model)
			return PERFEVTSEL(0x60, 0x01) | PERFEVTSEL_CMASK(1);
	return 0;
}

static bool pmu_event_available(const struct pmu_caps *c, enum pmu_event e)
{
	int bit = pmu_events[e].ebx_bit;

	return bit < 0 || !(c->unavail & BIT(bit));
}

static void pmu_plan_fixed(const struct pmu_caps *c, struct pmu_plan *p, enum pmu_event e)
{
	int f = pmu_events[e].fixed;

	if (f < 0 || !(c->fixed_mask & BIT(f)))
		return;
	p->slot[e] = (struct pmu_slot){ .kind = PMU_SLOT_FIXED, .idx = (uint8_t)f,
					.width = c->fixed_width };
	p->fixed_used |= (uint32_t)BIT(f);
	p->fixed_ctrl |= (uint64_t)FIXED_CTRL_OS_USR << (4 * f);
	p->global_ctrl |= BIT(32 + f);
	p->present |= (uint32_t)BIT(e);
}

static void pmu_plan_gp(const struct pmu_caps *c, struct pmu_plan *p, enum pmu_event e,
			uint32_t evtsel, unsigned *next)
{
	unsigned ngp = c->ngp < PMU_MAX_GP ? c->ngp : PMU_MAX_GP;

	if ((p->present & BIT(e)) || !evtsel || !pmu_event_available(c, e) || *next >= ngp)
		return;
	p->slot[e] = (struct pmu_slot){
		.kind = PMU_SLOT_GP, .idx = (uint8_t)*next, .width = c->gp_width,
		.evtsel = evtsel | PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_EN,
	};
	p->gp_used |= (uint32_t)BIT(*next);
	p->global_ctrl |= BIT(*next);
	p->present |= (uint32_t)BIT(e);
	(*next)++;
}

/* The fixed counters count instructions and cycles. GP counters go by
 * need: OFFCORE first (t_mem of seed 001 §4; PMC0, where Nehalem-era cores
 * required event 60H and no later core forbids it), then what the spin
 * heuristic needs (instructions and cycles if no fixed counter took them,
 * branches, branch misses), then LLC misses (MPKI) before LLC references. */
unsigned pmu_plan_make(const struct pmu_caps *c, struct pmu_plan *p)
{
	static const uint8_t gp_order[] = {
		PMU_EV_INSTRUCTIONS, PMU_EV_CYCLES, PMU_EV_BRANCHES, PMU_EV_BRANCH_MISSES,
		PMU_EV_LLC_MISSES, PMU_EV_LLC_REFS,
	};
	unsigned next = 0, n = 0;

	memset(p, 0, sizeof(*p));
	if (c->version < 2)
		return 0;
	if (pmu_event_available(c, PMU_EV_INSTRUCTIONS))
		pmu_plan_fixed(c, p, PMU_EV_INSTRUCTIONS);
	if (pmu_event_available(c, PMU_EV_CYCLES))
		pmu_plan_fixed(c, p, PMU_EV_CYCLES);
	pmu_plan_gp(c, p, PMU_EV_OFFCORE_STALL, pmu_offcore_event(c->family, c->model), &next);
	for (size_t i = 0; i < ARRAY_SIZE(gp_order); i++)
		pmu_plan_gp(c, p, (enum pmu_event)gp_order[i], pmu_events[gp_order[i]].evtsel, &next);
	for (unsigned e = 0; e < PMU_EV_COUNT; e++)
		n += !!(p->present & BIT(e));
	return n;
}

uint64_t pmu_counter_delta(uint64_t prev, uint64_t now, unsigned width)
{
	uint64_t mask = width == 0 || width >= 64 ? ~0ull : BIT(width) - 1;

	return (now - prev) & mask;
}

void pmu_plan_delta(const struct pmu_plan *p, const uint64_t prev[PMU_EV_COUNT],
		    const uint64_t now[PMU_EV_COUNT], uint64_t delta[PMU_EV_COUNT])
{
	for (unsigned e = 0; e < PMU_EV_COUNT; e++)
		delta[e] = (p->present & BIT(e)) ?
			   pmu_counter_delta(prev[e], now[e], p->slot[e].width) : 0;
}

int pmu_describe(const struct pmu_caps *c, const struct pmu_plan *p, char *buf, size_t size)
{
	int n = fmt_snprintf(buf, size, "v%u, %u gp x %u bit, ", c->version, c->ngp, c->gp_width);

	if (c->fixed_mask)
		n += fmt_snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0,
				  "%u fixed x %u bit:", (unsigned)__builtin_popcount(c->fixed_mask),
				  c->fixed_width);
	else
		n += fmt_snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "no fixed:");
	for (unsigned e = 0; e < PMU_EV_COUNT; e++)
		if (p->present & BIT(e))
			n += fmt_snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, " %s",
					  pmu_event_names[e]);
	return n;
}
