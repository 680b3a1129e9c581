/* Unit tests for the vProfile spinning detectors (hv/trace/spin.c): PLE
 * window credit and the branch-per-instruction PMU heuristic. */
#include <check.h>
#include "check_run.h"
#include "compiler.h"
#include "trace/vprof.h"
#include "shim.h"

static uint64_t mem[2048];

static void setup(void)
{
	ck_assert_int_eq(vprof_init(1, mem, sizeof(mem)), 0);
	ck_assert_int_eq(vprof_vm_config(0, 1, false), 0);
}

static struct vprof_vcpu_stats stats(stime_t now)
{
	struct vprof_vcpu_stats s;

	ck_assert_int_eq(vprof_vcpu_stats_get(0, 0, now, &s), 0);
	return s;
}

static struct vprof_pmu_sample sample(uint64_t ins, uint64_t br, uint64_t miss)
{
	struct vprof_pmu_sample s = {
		.present = (uint32_t)(BIT(VPMU_INSTRUCTIONS) | BIT(VPMU_BRANCHES) |
				      BIT(VPMU_BRANCH_MISSES)),
	};

	s.delta[VPMU_INSTRUCTIONS] = ins;
	s.delta[VPMU_BRANCHES] = br;
	s.delta[VPMU_BRANCH_MISSES] = miss;
	return s;
}

START_TEST(test_ple_off_by_default)
{
	setup();
	vprof_vm_start(0, 0, 0);
	vprof_state(0, 0, 0, VP_RUNNING, 0);
	vprof_event(0, 0, 0, VPE_PLE, 1000, 0);
	ck_assert_uint_eq(stats(2000).spin_ns, 0);
	ck_assert_uint_eq(stats(2000).events[VPE_PLE], 1);
}
END_TEST

START_TEST(test_ple_credit_bounded)
{
	setup();
	vprof_spin_set_ple(300);
	vprof_vm_start(0, 0, 0);
	vprof_state(0, 0, 0, VP_RUNNING, 1000);
	vprof_event(0, 0, 0, VPE_PLE, 1100, 0);     /* ran only 100: credit 100 */
	vprof_event(0, 0, 0, VPE_PLE, 1250, 0);     /* since last credit: 150 */
	vprof_event(0, 0, 0, VPE_PLE, 2000, 0);     /* full window: 300 */
	vprof_state(0, 0, 0, VP_RUNNABLE, 2100);
	vprof_event(0, 0, 0, VPE_PLE, 2200, 0);     /* not running: nothing */
	struct vprof_vcpu_stats s = stats(3000);
	ck_assert_uint_eq(s.spin_ns, 550);
	ck_assert_uint_eq(s.spin_begins[VPS_PLE], 3);
	ck_assert_uint_le(s.spin_ns, s.state_ns[VP_RUNNING]);
	/* Each credit is in the timeline as a SPIN_BEGIN/END pair:
	 * snapshot + start + 2 states + 4 PLE + 3 x 2 spin records. */
	struct vprof_pcpu_stats p;
	vprof_pcpu_stats_get(0, &p);
	ck_assert_uint_eq(p.used, 2 + 2 + 4 + 6);
}
END_TEST

START_TEST(test_pmu_verdict)
{
	struct vprof_pmu_sample s;

	setup();
	s = sample(100000, 33000, 10);      /* pause; cmp; jne: 1 branch in 3 */
	ck_assert_int_eq(vprof_spin_pmu_verdict(&s), 1);
	s = sample(100000, 15000, 10);      /* ordinary code */
	ck_assert_int_eq(vprof_spin_pmu_verdict(&s), 0);
	s = sample(100000, 33000, 2000);    /* branchy but mispredicting */
	ck_assert_int_eq(vprof_spin_pmu_verdict(&s), 0);
	s = sample(500, 200, 0);            /* too few instructions to judge */
	ck_assert_int_eq(vprof_spin_pmu_verdict(&s), -1);
	s = sample(100000, 33000, 10);
	s.present &= ~(uint32_t)BIT(VPMU_BRANCH_MISSES);
	ck_assert_int_eq(vprof_spin_pmu_verdict(&s), -1);   /* absent counter */
	vprof_spin_set_pmu(0, 10, 0);
	s = sample(100000, 33000, 10);
	ck_assert_int_eq(vprof_spin_pmu_verdict(&s), -1);   /* turned off */
}
END_TEST

START_TEST(test_pmu_opens_and_closes)
{
	struct vprof_pmu_sample spin = sample(100000, 40000, 5), work = sample(100000, 10000, 500);

	setup();
	vprof_vm_start(0, 0, 0);
	vprof_state(0, 0, 0, VP_RUNNING, 0);
	vprof_pmu_add(0, 0, 0, &work, 100);
	vprof_pmu_add(0, 0, 0, &spin, 200);   /* opens at 200 */
	vprof_pmu_add(0, 0, 0, &spin, 300);   /* still */
	vprof_pmu_add(0, 0, 0, &work, 450);   /* closes: 250 */
	vprof_pmu_add(0, 0, 0, &spin, 500);
	vprof_state(0, 0, 0, VP_BLOCKED, 560); /* leaving RUNNING closes: 60 */
	vprof_pmu_add(0, 0, 0, &work, 600);
	struct vprof_vcpu_stats s = stats(700);
	ck_assert_uint_eq(s.spin_ns, 310);
	ck_assert_uint_eq(s.spin_begins[VPS_PMU], 2);
	ck_assert_uint_eq(s.events[VPE_SPIN_END], 1);
	ck_assert_uint_eq(s.anomalies, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vprof_spin");
	TCase *tc = tcase_create("detectors");
	tcase_add_test(tc, test_ple_off_by_default);
	tcase_add_test(tc, test_ple_credit_bounded);
	tcase_add_test(tc, test_pmu_verdict);
	tcase_add_test(tc, test_pmu_opens_and_closes);
	suite_add_tcase(s, tc);

	return check_run(s);
}
