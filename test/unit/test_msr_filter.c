/* Unit tests for hv/vmx/msr_filter.c: decisions per MSR and the VMX bitmap. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "vmx/msr_filter.h"

static struct msr_policy P;

static enum msr_action act(uint32_t msr, bool wr, struct msr_decision *d)
{
	return msr_filter_lookup(&P, msr, wr, d);
}

/* SDM vol. 3C §25.6.9 bitmap test, written independently of the filter. */
static bool bitmap_exits(const uint8_t *b, uint32_t msr, bool wr)
{
	unsigned base = (wr ? 2048 : 0) + (msr >= 0xc0000000u ? 1024 : 0);
	uint32_t i = msr & 0x1fff;

	return (b[base + i / 8] >> (i % 8)) & 1;
}

START_TEST(test_decisions)
{
	struct msr_decision d;

	memset(&P, 0, sizeof(P));
	ck_assert_int_eq(act(0x1b, false, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(d.handler, MSR_H_APIC_BASE);
	ck_assert_int_eq(act(0x830, true, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(d.handler, MSR_H_X2APIC);
	ck_assert_int_eq(act(0x6e0, true, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(d.handler, MSR_H_TSC_DEADLINE);
	ck_assert_int_eq(act(0xc0000080, true, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(d.handler, MSR_H_EFER);
	ck_assert_int_eq(act(0x10, false, &d), MSR_ACT_PASS);
	ck_assert_int_eq(act(0x10, true, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(d.handler, MSR_H_TSC);
	ck_assert_int_eq(act(0xc0000082, true, &d), MSR_ACT_PASS);   /* LSTAR */
	ck_assert_int_eq(act(0xc0000102, false, &d), MSR_ACT_PASS);  /* KERNEL_GS_BASE */
	ck_assert_int_eq(act(0x175, true, &d), MSR_ACT_PASS);        /* SYSENTER_ESP */
	ck_assert_int_eq(act(0x1a0, false, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(d.handler, MSR_H_MISC_ENABLE);
	ck_assert_uint_eq(MSR_MISC_ENABLE_RESET & 1, 1);             /* fast strings */
	ck_assert_uint_eq(MSR_MISC_ENABLE_RESET & (1u << 18), 0);    /* no MONITOR */
	ck_assert_uint_eq(MSR_MISC_ENABLE_RESET & (3u << 11), 3u << 11);   /* no BTS/PEBS */
	/* MCG_CAP: zero banks, read-only; MCG_STATUS reads 0 (issue 18 item 9). */
	ck_assert_int_eq(act(0x179, false, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(d.handler, MSR_H_CONST);
	ck_assert_uint_eq(d.value, 0);
	ck_assert_int_eq(act(0x179, true, &d), MSR_ACT_GP);
	ck_assert_int_eq(act(0x17a, false, &d), MSR_ACT_EMUL);
	ck_assert_uint_eq(d.value, 0);
	ck_assert_int_eq(act(0x17b, false, &d), MSR_ACT_GP);         /* no MCG_CTL */
	ck_assert_int_eq(act(0x3a, false, &d), MSR_ACT_EMUL);
	ck_assert_uint_eq(d.value & 5, 1);                           /* locked, VMX off */
	ck_assert_int_eq(act(0x3a, true, &d), MSR_ACT_GP);
}
END_TEST

START_TEST(test_misc_enable_write)
{
	uint64_t v = MSR_MISC_ENABLE_RESET;

	ck_assert(msr_misc_enable_write(&v, MSR_MISC_ENABLE_RESET & ~1ull));   /* fast strings off */
	ck_assert_uint_eq(v, MSR_MISC_ENABLE_RESET & ~1ull);
	ck_assert(msr_misc_enable_write(&v, MSR_MISC_ENABLE_RESET));
	ck_assert(!msr_misc_enable_write(&v, MSR_MISC_ENABLE_RESET | (1ull << 22)));   /* CPUID limit */
	ck_assert(!msr_misc_enable_write(&v, MSR_MISC_ENABLE_RESET | (1ull << 34)));   /* XD disable */
	ck_assert(!msr_misc_enable_write(&v, 1));                                      /* BTS/PEBS RO */
	ck_assert_uint_eq(v, MSR_MISC_ENABLE_RESET);
}
END_TEST

START_TEST(test_gp_default)
{
	struct msr_decision d;
	const uint32_t bad[] = { 0x0, 0x48, 0x49, 0xe7, 0xe8, 0xfe, 0x17b, 0x2ff, 0x345,
				 0x480, 0x900, 0x7ff, 0xc0000104, 0xc0010000, 0x40000000,
				 0x4b564d00, 0x11, 0xc0000103, 0xffffffff };

	memset(&P, 0, sizeof(P));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(act(bad[i], false, &d), MSR_ACT_GP);
		ck_assert_int_eq(act(bad[i], true, &d), MSR_ACT_GP);
		ck_assert_int_eq(d.handler, MSR_H_NONE);
	}
}
END_TEST

START_TEST(test_gated)
{
	struct msr_decision d;

	memset(&P, 0, sizeof(P));
	P.kvm_pv = true;
	ck_assert_int_eq(act(0x4b564d01, true, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(d.handler, MSR_H_KVM);
	ck_assert_int_eq(act(0x4b564d03, false, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(act(0x12, true, &d), MSR_ACT_EMUL);
	ck_assert_int_eq(act(0x4b564d08, true, &d), MSR_ACT_GP);
	P.rdtscp = true;
	ck_assert_int_eq(act(0xc0000103, true, &d), MSR_ACT_PASS);
	ck_assert_str_eq(msr_handler_name(MSR_H_KVM), "kvm");
	ck_assert_str_eq(msr_handler_name(MSR_H_COUNT), "?");
}
END_TEST

/* The bitmap agrees with lookup for every MSR it covers. */
START_TEST(test_bitmap_matches_lookup)
{
	static uint8_t bm[4096];
	struct msr_decision d;
	unsigned pass = 0;

	memset(&P, 0, sizeof(P));
	P.rdtscp = true;
	msr_filter_fill_bitmap(&P, bm);
	for (uint32_t hi = 0; hi < 2; hi++) {
		for (uint32_t i = 0; i <= 0x1fff; i++) {
			uint32_t msr = (hi ? 0xc0000000u : 0) | i;

			for (int wr = 0; wr < 2; wr++) {
				bool passes = act(msr, wr, &d) == MSR_ACT_PASS;
				ck_assert_int_eq(bitmap_exits(bm, msr, wr), !passes);
				pass += passes;
			}
		}
	}
	ck_assert_uint_eq(pass, 1 + 3 * 2 + 4 * 2 + 3 * 2 + 2);   /* TSC rd, SYSENTER, STAR.., FS.., TSC_AUX */
	ck_assert(bitmap_exits(bm, 0x1b, false));
	ck_assert(!bitmap_exits(bm, 0xc0000100, true));
}
END_TEST

/* The hypervisor owns the PMU (hv/arch/x86/pmu.c counts guest time for
 * vProfile): a guest reaching any counter, event select or global control
 * would corrupt the samples, so every architectural PMU MSR is refused. */
START_TEST(test_pmu_msrs_refused)
{
	static const struct { uint32_t first, last; } pmu[] = {
		{ 0xc1, 0xc8 },          /* IA32_PMC0-7 */
		{ 0x186, 0x18d },        /* IA32_PERFEVTSEL0-7 */
		{ 0x1a6, 0x1a7 },        /* MSR_OFFCORE_RSP_0/1 */
		{ 0x309, 0x30c },        /* IA32_FIXED_CTR0-3 */
		{ 0x345, 0x345 },        /* IA32_PERF_CAPABILITIES */
		{ 0x38d, 0x391 },        /* FIXED_CTR_CTRL, GLOBAL_STATUS/CTRL/OVF_CTRL, .._SET */
		{ 0x3f1, 0x3f1 },        /* IA32_PEBS_ENABLE */
		{ 0x4c1, 0x4c8 },        /* IA32_A_PMC0-7 (full-width writes) */
	};
	static uint8_t bm[4096];
	struct msr_decision d;

	memset(&P, 0, sizeof(P));
	P.kvm_pv = true;
	P.rdtscp = true;
	msr_filter_fill_bitmap(&P, bm);
	for (size_t i = 0; i < sizeof(pmu) / sizeof(pmu[0]); i++) {
		for (uint32_t m = pmu[i].first; m <= pmu[i].last; m++) {
			ck_assert_int_eq(act(m, false, &d), MSR_ACT_GP);
			ck_assert_int_eq(act(m, true, &d), MSR_ACT_GP);
			ck_assert(bitmap_exits(bm, m, false) && bitmap_exits(bm, m, true));
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("msr_filter");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_decisions);
	tcase_add_test(tc, test_gp_default);
	tcase_add_test(tc, test_misc_enable_write);
	tcase_add_test(tc, test_gated);
	tcase_add_test(tc, test_bitmap_matches_lookup);
	tcase_add_test(tc, test_pmu_msrs_refused);
	suite_add_tcase(s, tc);

	return check_run(s);
}
