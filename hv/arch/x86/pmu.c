/* Host PMU detection and programming (see pmu.h). SDM vol. 3 §20.2
 * (architectural performance monitoring) and vol. 4 Table 2-2 (MSRs).
 * Bochs 2.7 (corei7_icelake_u) reports CPUID.0AH EAX=0x08300805 (version 5,
 * 8 GP counters of 48 bits) and EDX=0x8604 (4 fixed of 48 bits) but does not
 * implement the counter MSRs: with ignore_bad_msrs=0 RDMSR 0xc1 raises #GP,
 * with ignore_bad_msrs=1 reads give 0 and writes are dropped. The probe
 * below catches both and reports the PMU absent (docs/vprofile.md). */
#include "arch/x86/pmu.h"
#include "arch/x86/extable.h"
#include "arch/x86/cpu.h"
#include "cmdline.h"
#include "lib/fmt.h"
#include "errno.h"
#include "log.h"

#define PMU_PROBE_PATTERN  0x5a5a5ull     /* below bit 31: legacy PMC writes sign-extend it */
#define PMU_LIVE_LOOPS     20000u
#define CPUID_INTEL_EBX    0x756e6547u    /* "Genu" */

/* PMU_TSC_TEST: no PMU is touched; "cycles" is the TSC cut to 22 bits
 * (wraps every 0.42 s at Bochs's 10 MHz; a run is at most a 30 ms slice),
 * read around guest runs like a real counter, so an emulator without a PMU
 * runs the sampling path end to end (test/vprof/system_test.py, pmu_tsc). */
#define PMU_TSC_TEST_WIDTH 22

enum pmu_mode { PMU_OFF, PMU_ON, PMU_TSC_TEST };
static const char *const pmu_mode_names[] = { "off", "on", "tsc-test", NULL };

bool pmu_enabled;
static int pmu_mode = PMU_ON;
CMDLINE_ENUM(pmu, pmu_mode, pmu_mode_names,
	     "hardware counters for vProfile: on|off|tsc-test (docs/vprofile.md)");

static struct pmu_caps pmu_caps;
static struct pmu_plan pmu_plan;
static char pmu_why[96];

const struct pmu_plan *pmu_plan_get(void)
{
	return &pmu_plan;
}

static uint32_t pmu_counter_msr(const struct pmu_slot *s)
{
	return s->kind == PMU_SLOT_FIXED ? MSR_IA32_FIXED_CTR0 + s->idx : MSR_IA32_PMC0 + s->idx;
}

/* The MSR must exist, accept a write and give it back (Linux's
 * check_hw_exists() does the same read-back). */
static int pmu_probe_msr(uint32_t msr)
{
	uint64_t v;

	if (rdmsr_safe(msr, &v) || wrmsr_safe(msr, PMU_PROBE_PATTERN)) {
		fmt_snprintf(pmu_why, sizeof(pmu_why), "MSR %#x faults: not implemented", msr);
		return -EIO;
	}
	if (rdmsr_safe(msr, &v) || v != PMU_PROBE_PATTERN) {
		fmt_snprintf(pmu_why, sizeof(pmu_why), "MSR %#x does not keep a written value", msr);
		return -EIO;
	}
	return wrmsr_safe(msr, 0);
}

bool pmu_tsc_test(void)
{
	return pmu_mode == PMU_TSC_TEST;
}

int pmu_cpu_setup(void)
{
	const struct pmu_plan *p = &pmu_plan;
	int err;

	if (pmu_tsc_test())
		return 0;
	err = wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, 0);

	if (!err && p->fixed_used)
		err = wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL, p->fixed_ctrl);
	for (unsigned e = 0; !err && e < PMU_EV_COUNT; e++) {
		const struct pmu_slot *s = &p->slot[e];

		if (s->kind == PMU_SLOT_GP)
			err = wrmsr_safe(MSR_IA32_PERFEVTSEL0 + s->idx, s->evtsel);
		if (!err && s->kind != PMU_SLOT_NONE)
			err = wrmsr_safe(pmu_counter_msr(s), 0);
	}
	return err;
}

int pmu_read(uint64_t v[PMU_EV_COUNT])
{
	int err = 0;

	if (pmu_tsc_test()) {
		v[PMU_EV_CYCLES] = rdtsc() & (BIT(PMU_TSC_TEST_WIDTH) - 1);
		return 0;
	}

	for (unsigned e = 0; e < PMU_EV_COUNT; e++) {
		const struct pmu_slot *s = &pmu_plan.slot[e];

		v[e] = 0;
		if (s->kind != PMU_SLOT_NONE)
			err |= rdmsr_safe(pmu_counter_msr(s), &v[e]);
	}
	return err ? -EIO : 0;
}

static int pmu_probe_all(void)
{
	const struct pmu_plan *p = &pmu_plan;

	if (wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, 0)) {
		fmt_snprintf(pmu_why, sizeof(pmu_why), "MSR %#x faults: not implemented",
			     MSR_IA32_PERF_GLOBAL_CTRL);
		return -EIO;
	}
	for (unsigned e = 0; e < PMU_EV_COUNT; e++) {
		const struct pmu_slot *s = &p->slot[e];

		if (s->kind == PMU_SLOT_GP && wrmsr_safe(MSR_IA32_PERFEVTSEL0 + s->idx, 0)) {
			fmt_snprintf(pmu_why, sizeof(pmu_why), "MSR %#x faults: not implemented",
				     MSR_IA32_PERFEVTSEL0 + s->idx);
			return -EIO;
		}
		if (s->kind != PMU_SLOT_NONE && pmu_probe_msr(pmu_counter_msr(s)))
			return -EIO;
	}
	return 0;
}

/* Count in the hypervisor for a moment: a loop of known length must move
 * the instruction (else cycle) counter, or the counters are decorative. */
static int pmu_check_live(void)
{
	uint64_t v[PMU_EV_COUNT];
	enum pmu_event e = (pmu_plan.present & BIT(PMU_EV_INSTRUCTIONS)) ? PMU_EV_INSTRUCTIONS
									   : PMU_EV_CYCLES;
	int err = pmu_cpu_setup();

	if (!err)
		err = wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, pmu_plan.global_ctrl);
	for (volatile unsigned i = 0; !err && i < PMU_LIVE_LOOPS; i++)
		;
	err |= wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	err |= pmu_read(v);
	if (!err && (pmu_plan.present & BIT(e)) && v[e] < PMU_LIVE_LOOPS) {
		fmt_snprintf(pmu_why, sizeof(pmu_why), "%s counter moved %lu in a %u-iteration loop",
			     pmu_event_name(e), v[e], PMU_LIVE_LOOPS);
		return -EIO;
	}
	if (err)
		fmt_snprintf(pmu_why, sizeof(pmu_why), "counter MSRs fault when enabled");
	return err ? -EIO : pmu_cpu_setup();
}

static int pmu_detect(const char **why)
{
	struct cpuid_regs r0, r1, ra = { 0 };

	cpuid_count(0, 0, &r0);
	cpuid_count(1, 0, &r1);
	if (r0.ebx != CPUID_INTEL_EBX) {
		*why = "not an Intel CPU (no architectural PMU)";
		return -ENODEV;
	}
	if (r0.eax >= 0xa)
		cpuid_count(0xa, 0, &ra);
	pr_debug("pmu: CPUID.0AH eax=%#x ebx=%#x ecx=%#x edx=%#x, CPUID.1 eax=%#x\n",
		 ra.eax, ra.ebx, ra.ecx, ra.edx, r1.eax);
	if (pmu_caps_decode(r0.eax, r1.eax, ra.eax, ra.ebx, ra.ecx, ra.edx, &pmu_caps, why))
		return -ENODEV;
	if (!pmu_plan_make(&pmu_caps, &pmu_plan)) {
		*why = "CPUID.0AH marks every event we record unavailable";
		return -ENODEV;
	}
	if (pmu_probe_all() || pmu_check_live()) {
		wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, 0);
		*why = pmu_why;
		return -EIO;
	}
	return 0;
}

static void pmu_init_tsc_test(void)
{
	pmu_plan.slot[PMU_EV_CYCLES] = (struct pmu_slot){ .kind = PMU_SLOT_FIXED,
							  .width = PMU_TSC_TEST_WIDTH };
	pmu_plan.present = (uint32_t)BIT(PMU_EV_CYCLES);
	WRITE_ONCE(pmu_enabled, true);
	pr_info("pmu: TSC test mode (pmu=tsc-test): cyc = TSC ticks around guest runs, "
		"%u-bit counter; no PMU used\n", PMU_TSC_TEST_WIDTH);
}

void pmu_init(void)
{
	const char *why = "";
	char desc[128];

	if (pmu_mode == PMU_OFF) {
		pr_info("pmu: absent (disabled by pmu=off)\n");
		return;
	}
	if (pmu_tsc_test()) {
		pmu_init_tsc_test();
		return;
	}
	if (pmu_detect(&why)) {
		if (pmu_caps.version >= 2)
			pr_info("pmu: absent (CPUID.0AH v%u, %u gp x %u bit, %u fixed, but %s)\n",
				pmu_caps.version, pmu_caps.ngp, pmu_caps.gp_width, pmu_caps.nfixed, why);
		else
			pr_info("pmu: absent (%s)\n", why);
		return;
	}
	pmu_describe(&pmu_caps, &pmu_plan, desc, sizeof(desc));
	WRITE_ONCE(pmu_enabled, true);
	pr_info("pmu: %s\n", desc);
}

void pmu_disable(const char *why)
{
	if (!pmu_active())
		return;
	WRITE_ONCE(pmu_enabled, false);
	pr_warn("pmu: sampling off: %s\n", why);
}
