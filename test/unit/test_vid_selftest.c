/* Unit tests for the pure half of the VID gate's self-test
 * (hv/vmx/vid_selftest_calc.c): what an exit of the throw-away guest says
 * about the CPU, and apicv_vid_gate=auto|on|off with each outcome. */
#include <check.h>
#include "vmx/vid_selftest.h"
#include "vmx/exit_reasons.h"
#include "check_run.h"

#define V VID_SELFTEST_VECTOR

static enum vid_selftest_result classify(uint32_t reason, uint64_t rip, uint16_t st)
{
	struct vid_selftest_exit e = { .reason = reason, .rip = rip, .intr_status = st };

	return vid_selftest_classify(&e);
}

START_TEST(test_classify_correct)
{
	/* SDM §30.2.1-30.2.2: the external interrupt's exit, vector still in RVI,
	 * at the loop's first instruction or after its CLI. */
	for (unsigned i = 0; i < VID_SELFTEST_LOOP_LEN; i++)
		ck_assert_int_eq(classify(EXIT_REASON_EXTERNAL_INTERRUPT, VID_SELFTEST_LOOP + i, V),
				 VID_SELFTEST_CORRECT);
}
END_TEST

START_TEST(test_classify_bug)
{
	/* What Bochs 2.7 shows: the exit one boundary into the handler, SVI = V. */
	ck_assert_int_eq(classify(EXIT_REASON_EXTERNAL_INTERRUPT, VID_SELFTEST_HANDLER, V << 8),
			 VID_SELFTEST_BUG);
	/* Any single sign of delivery is enough. */
	ck_assert_int_eq(classify(EXIT_REASON_EXTERNAL_INTERRUPT, VID_SELFTEST_LOOP, V << 8),
			 VID_SELFTEST_BUG);
	ck_assert_int_eq(classify(EXIT_REASON_EXTERNAL_INTERRUPT, VID_SELFTEST_HANDLER + 3, 0),
			 VID_SELFTEST_BUG);
	ck_assert_int_eq(classify(EXIT_REASON_VMCALL, VID_SELFTEST_HANDLER, 0), VID_SELFTEST_BUG);
	ck_assert_int_eq(classify(EXIT_REASON_PREEMPTION_TIMER, VID_SELFTEST_HANDLER + 3, V << 8),
			 VID_SELFTEST_BUG);
}
END_TEST

START_TEST(test_classify_unclear)
{
	/* The host interrupt never came: the preemption timer ended the run. */
	ck_assert_int_eq(classify(EXIT_REASON_PREEMPTION_TIMER, VID_SELFTEST_LOOP, V),
			 VID_SELFTEST_UNCLEAR);
	/* An NMI, a fault, a failed entry (bit 31), a triple fault. */
	ck_assert_int_eq(classify(EXIT_REASON_EXCEPTION_NMI, VID_SELFTEST_LOOP, V),
			 VID_SELFTEST_UNCLEAR);
	ck_assert_int_eq(classify(0x80000000u | EXIT_REASON_INVALID_GUEST_STATE,
				  VID_SELFTEST_LOOP, V), VID_SELFTEST_UNCLEAR);
	ck_assert_int_eq(classify(EXIT_REASON_TRIPLE_FAULT, 0, V), VID_SELFTEST_UNCLEAR);
	/* An external-interrupt exit elsewhere, or with RVI gone and no SVI. */
	ck_assert_int_eq(classify(EXIT_REASON_EXTERNAL_INTERRUPT, VID_SELFTEST_LOOP +
				  VID_SELFTEST_LOOP_LEN, V), VID_SELFTEST_UNCLEAR);
	ck_assert_int_eq(classify(EXIT_REASON_EXTERNAL_INTERRUPT, VID_SELFTEST_LOOP, 0),
			 VID_SELFTEST_UNCLEAR);
	ck_assert_int_eq(classify(EXIT_REASON_EXTERNAL_INTERRUPT, VID_SELFTEST_LOOP, V - 1),
			 VID_SELFTEST_UNCLEAR);
}
END_TEST

START_TEST(test_gate)
{
	static const enum vid_selftest_result all[] = {
		VID_SELFTEST_NOT_RUN, VID_SELFTEST_BUG, VID_SELFTEST_CORRECT, VID_SELFTEST_UNCLEAR,
	};

	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		ck_assert(vid_selftest_gate(VID_GATE_ON, all[i]));     /* forced */
		ck_assert(!vid_selftest_gate(VID_GATE_OFF, all[i]));
		/* auto: off only when the CPU was seen to be correct */
		ck_assert_int_eq(vid_selftest_gate(VID_GATE_AUTO, all[i]),
				 all[i] != VID_SELFTEST_CORRECT);
	}
	ck_assert_str_eq(vid_gate_mode_names[VID_GATE_AUTO], "auto");
	ck_assert_str_eq(vid_gate_mode_names[VID_GATE_ON], "on");
	ck_assert_str_eq(vid_gate_mode_names[VID_GATE_OFF], "off");
	ck_assert_ptr_null(vid_gate_mode_names[3]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("vid_selftest");
	TCase *tc = tcase_create("calc");

	tcase_add_test(tc, test_classify_correct);
	tcase_add_test(tc, test_classify_bug);
	tcase_add_test(tc, test_classify_unclear);
	tcase_add_test(tc, test_gate);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
