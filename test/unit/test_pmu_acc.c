/* Unit tests for hv/trace/pmu_acc.c: counter readings of guest runs become
 * per-vCPU samples at a bounded rate, reach vprof_pmu_add() (totals, the
 * PMU frame's present mask) and drive the branch-per-instruction spin
 * heuristic of seed 001 §2.1. Readings go through pmu_plan_delta() with a
 * real plan, as hv/vm/vcpu_pmu.c does. */
#include <check.h>
#include "check_run.h"
#include "arch/x86/pmu_calc.h"
#include "trace/pmu_acc.h"
#include "shim.h"

static uint64_t mem[4096];
static struct pmu_plan plan;

static void setup(void)
{
	struct pmu_caps c;

	/* Core i7-4770 (Haswell): ins, cyc fixed; offcore, br, brmiss, llcmiss GP. */
	ck_assert_int_eq(pmu_caps_decode(0xd, 0x306c3, 0x07300403, 0, 0, 0x603, &c, NULL), 0);
	ck_assert_uint_eq(pmu_plan_make(&c, &plan), 6);
	ck_assert_int_eq(vprof_init(1, mem, sizeof(mem)), 0);
	ck_assert_int_eq(vprof_vm_config(0, 2, false), 0);
	ck_assert_int_eq(vprof_vm_start(0, 0, 0), 0);
	vprof_state(0, 0, 0, VP_RUNNING, 0);
}

static struct vprof_vcpu_stats stats(uint16_t vcpu, stime_t now)
{
	struct vprof_vcpu_stats s;

	ck_assert_int_eq(vprof_vcpu_stats_get(0, vcpu, now, &s), 0);
	return s;
}

/* One guest run: counters advance by ins/br/miss (cycles = 2 x ins). */
static void run(struct vprof_pmu_acc *a, uint64_t *ctr, uint64_t ins, uint64_t br,
		uint64_t miss)
{
	uint64_t prev[PMU_EV_COUNT], now[PMU_EV_COUNT], d[PMU_EV_COUNT];

	for (unsigned e = 0; e < PMU_EV_COUNT; e++)
		prev[e] = ctr[e];
	ctr[PMU_EV_INSTRUCTIONS] = (ctr[PMU_EV_INSTRUCTIONS] + ins) & (BIT(48) - 1);
	ctr[PMU_EV_CYCLES] = (ctr[PMU_EV_CYCLES] + 2 * ins) & (BIT(48) - 1);
	ctr[PMU_EV_BRANCHES] = (ctr[PMU_EV_BRANCHES] + br) & (BIT(48) - 1);
	ctr[PMU_EV_BRANCH_MISSES] = (ctr[PMU_EV_BRANCH_MISSES] + miss) & (BIT(48) - 1);
	for (unsigned e = 0; e < PMU_EV_COUNT; e++)
		now[e] = ctr[e];
	pmu_plan_delta(&plan, prev, now, d);
	vprof_pmu_acc_add(a, plan.present, d);
}

START_TEST(test_sample_totals_and_present)
{
	struct vprof_pmu_acc a = { 0 };
	uint64_t ctr[PMU_EV_COUNT] = { 0 };
	struct vprof_vcpu_stats s;

	setup();
	/* Counters start just below the 48-bit wrap: deltas must not notice. */
	ctr[PMU_EV_INSTRUCTIONS] = BIT(48) - 1000;
	run(&a, ctr, 50000, 5000, 50);
	ck_assert(vprof_pmu_acc_flush(&a, 0, 0, 0, 2000000, 1000000, false));
	s = stats(0, 3000000);
	ck_assert_uint_eq(s.pmu_samples, 1);
	ck_assert_uint_eq(s.pmu[VPMU_INSTRUCTIONS], 50000);
	ck_assert_uint_eq(s.pmu[VPMU_CYCLES], 100000);
	ck_assert_uint_eq(s.pmu[VPMU_BRANCHES], 5000);
	ck_assert_uint_eq(s.pmu[VPMU_BRANCH_MISSES], 50);
	ck_assert_uint_eq(s.pmu[VPMU_LLC_REFS], 0);
	/* Haswell has OFFCORE; LLC references did not get a counter: absent. */
	ck_assert_uint_eq(s.pmu_present, plan.present);
	ck_assert_uint_eq(s.pmu_present & BIT(VPMU_LLC_REFS), 0);
	ck_assert_uint_ne(s.pmu_present & BIT(VPMU_OFFCORE_STALL), 0);
}
END_TEST

START_TEST(test_rate_bound)
{
	struct vprof_pmu_acc a = { 0 };
	uint64_t ctr[PMU_EV_COUNT] = { 0 };
	stime_t t = 5000000;
	unsigned flushed = 0;

	setup();
	ck_assert(!vprof_pmu_acc_flush(&a, 0, 0, 0, t, 1000000, true));   /* nothing yet */
	/* 100 runs 50 us apart with a 1 ms period: about one sample per ms. */
	for (unsigned i = 0; i < 100; i++, t += 50000) {
		run(&a, ctr, 1000, 100, 1);
		flushed += vprof_pmu_acc_flush(&a, 0, 0, 0, t, 1000000, false);
	}
	ck_assert_uint_ge(flushed, 4);
	ck_assert_uint_le(flushed, 6);
	/* Descheduling flushes what is left, whatever its age. */
	ck_assert(vprof_pmu_acc_flush(&a, 0, 0, 0, t, 1000000, true));
	struct vprof_vcpu_stats s = stats(0, t);
	ck_assert_uint_eq(s.pmu_samples, flushed + 1);
	ck_assert_uint_eq(s.pmu[VPMU_INSTRUCTIONS], 100 * 1000);   /* nothing lost */
	ck_assert_uint_eq(s.pmu[VPMU_BRANCHES], 100 * 100);
}
END_TEST

START_TEST(test_absent_in_one_run_is_absent)
{
	struct vprof_pmu_acc a = { 0 };
	uint64_t d[VPMU_NCOUNTERS] = { 10, 20, 30, 40, 50, 60, 70 };
	struct vprof_vcpu_stats s;

	setup();
	vprof_pmu_acc_add(&a, (uint32_t)(BIT(VPMU_INSTRUCTIONS) | BIT(VPMU_LLC_REFS)), d);
	vprof_pmu_acc_add(&a, (uint32_t)BIT(VPMU_INSTRUCTIONS), d);
	ck_assert_uint_eq(a.present, BIT(VPMU_INSTRUCTIONS));
	ck_assert(vprof_pmu_acc_flush(&a, 0, 0, 1, 10, 0, false));
	s = stats(1, 20);
	ck_assert_uint_eq(s.pmu_present, BIT(VPMU_INSTRUCTIONS));
	ck_assert_uint_eq(s.pmu[VPMU_INSTRUCTIONS], 20);
	ck_assert_uint_eq(s.pmu[VPMU_LLC_REFS], 0);
	ck_assert_uint_eq(a.runs, 0);          /* a new sample starts empty */
	ck_assert_uint_eq(a.delta[VPMU_INSTRUCTIONS], 0);
}
END_TEST

START_TEST(test_spin_heuristic_fires)
{
	struct vprof_pmu_acc a = { 0 };
	uint64_t ctr[PMU_EV_COUNT] = { 0 };
	struct vprof_vcpu_stats s;

	setup();
	/* Ordinary code: 1 branch in 8, then a PAUSE loop: 1 in 3, predicted. */
	run(&a, ctr, 200000, 25000, 500);
	vprof_pmu_acc_flush(&a, 0, 0, 0, 1000000, 1000000, false);
	run(&a, ctr, 300000, 100000, 5);
	vprof_pmu_acc_flush(&a, 0, 0, 0, 2000000, 1000000, false);
	s = stats(0, 2500000);
	ck_assert_uint_eq(s.spinning, 1);
	ck_assert_uint_eq(s.spin_begins[VPS_PMU], 1);
	run(&a, ctr, 200000, 25000, 500);
	vprof_pmu_acc_flush(&a, 0, 0, 0, 3000000, 1000000, false);
	s = stats(0, 3500000);
	ck_assert_uint_eq(s.spinning, 0);
	ck_assert_uint_eq(s.spin_ns, 1000000);  /* from the spinning sample to the next */
}
END_TEST

START_TEST(test_no_profile_drops)
{
	struct vprof_pmu_acc a = { 0 };
	uint64_t ctr[PMU_EV_COUNT] = { 0 };

	setup();
	ck_assert_int_eq(vprof_vm_stop(0, 0, 10, VPD_STOP), 0);
	run(&a, ctr, 1000, 10, 1);
	ck_assert(vprof_pmu_acc_flush(&a, 0, 0, 0, 2000000, 0, false));
	ck_assert_uint_eq(stats(0, 3000000).pmu_samples, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pmu_acc");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_sample_totals_and_present);
	tcase_add_test(tc, test_rate_bound);
	tcase_add_test(tc, test_absent_in_one_run_is_absent);
	tcase_add_test(tc, test_spin_heuristic_fires);
	tcase_add_test(tc, test_no_profile_drops);
	suite_add_tcase(s, tc);

	return check_run(s);
}
