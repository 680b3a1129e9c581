/* Unit tests for the watchdog's decisions (hv/vm/watchdog_calc.c): why a
 * blocked or running vCPU does not go on, and what counts as a livelock. */
#include <check.h>
#include <stdint.h>
#include "vm/watchdog_calc.h"
#include "vmx/exit_reasons.h"
#include "check_run.h"

#define MS 1000000ll
#define NEVER INT64_MAX

/* An idle Linux vCPU: blocked in HLT with IF=1, nothing pending, a timer armed. */
static struct wd_vcpu_snap idle_vcpu(stime_t timer)
{
	return (struct wd_vcpu_snap){ .blocked = true, .halted = true, .halt_if = true,
				      .irr_top = -1, .isr_top = -1, .apic_on = true, .timer = timer };
}

START_TEST(test_idle_is_ok)
{
	struct wd_vcpu_snap s = idle_vcpu(10500 * MS);

	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_OK);
	s.timer = NEVER;    /* no timer: the VM check's business (nothing will wake it) */
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_OK);
	s.timer = 9000 * MS;   /* due 1 s ago, inside the limit: the sweep may be late */
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_OK);
}
END_TEST

START_TEST(test_timer_overdue)
{
	struct wd_vcpu_snap s = idle_vcpu(7999 * MS);

	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_TIMER_OVERDUE);
	s.timer = 8000 * MS;   /* exactly the limit: not yet */
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_OK);
	/* A running vCPU's loop advances its timer at every entry too. */
	s = idle_vcpu(1000 * MS);
	s.blocked = s.halted = false;
	s.running = true;
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_TIMER_OVERDUE);
	/* Runnable, offline or frozen: other checks (runnable-not-run, VM progress). */
	s.running = false;
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_OK);
	/* Overdue beats the other findings: it names the first thing that went wrong. */
	s = idle_vcpu(1000 * MS);
	s.halt_if = false;
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_TIMER_OVERDUE);
}
END_TEST

START_TEST(test_lost_wake)
{
	struct wd_vcpu_snap s = idle_vcpu(NEVER);

	s.irr_top = 0xec;   /* Linux's LOCAL_TIMER_VECTOR fired, vCPU still blocked */
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_LOST_WAKE);
	s.isr_top = 0xd1;   /* lower class in service: still deliverable */
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_LOST_WAKE);
	s.apic_on = false;  /* a disabled vLAPIC delivers nothing: IRR is stale */
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_OK);
	/* Not halted (HC_SCHED_BLOCK, balloon sleep): the IRR test does not apply. */
	s = idle_vcpu(NEVER);
	s.irr_top = 0xec;
	s.halted = false;
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_OK);
}
END_TEST

START_TEST(test_ppr_held)
{
	struct wd_vcpu_snap s = idle_vcpu(NEVER);

	s.irr_top = 0xec;
	s.isr_top = 0xef;   /* same class in service: an EOI that never came */
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_PPR_HELD);
	s.isr_top = -1;
	s.tpr = 0xe0;       /* TPR holds it back */
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_PPR_HELD);
	s.tpr = 0xdf;
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_LOST_WAKE);
	ck_assert_uint_eq(wd_ppr(0x20, 0x41), 0x40);
	ck_assert_uint_eq(wd_ppr(0x52, 0x41), 0x52);
	ck_assert_uint_eq(wd_ppr(0x00, -1), 0x00);
}
END_TEST

START_TEST(test_halted_if_off)
{
	struct wd_vcpu_snap s = idle_vcpu(NEVER);

	s.halt_if = false;   /* cli; hlt, or Linux's kvm_wait() halt() waiting for a kick */
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_IF_OFF);
	s.irr_top = 0x40;
	ck_assert_int_eq(wd_classify(&s, 10000 * MS, 2000 * MS), WD_WAIT_IF_OFF);
	ck_assert_str_eq(wd_wait_name(WD_WAIT_IF_OFF), "halted-if0");
	ck_assert_str_eq(wd_wait_name(WD_WAIT_TIMER_OVERDUE), "timer-overdue");
	ck_assert_str_eq(wd_wait_name((enum wd_wait)99), "?");
}
END_TEST

START_TEST(test_reasons)
{
	ck_assert(wd_reason_no_progress(EXIT_REASON_NMI_WINDOW));
	ck_assert(wd_reason_no_progress(EXIT_REASON_INTERRUPT_WINDOW));
	ck_assert(wd_reason_no_progress(EXIT_REASON_PREEMPTION_TIMER));
	ck_assert(wd_reason_no_progress(EXIT_REASON_EXTERNAL_INTERRUPT));
	ck_assert(!wd_reason_no_progress(EXIT_REASON_HLT));
	ck_assert(!wd_reason_no_progress(EXIT_REASON_IO));
	ck_assert(!wd_reason_no_progress(EXIT_REASON_WRMSR));
	ck_assert(!wd_reason_no_progress(EXIT_REASON_PAUSE));
}
END_TEST

START_TEST(test_livelock)
{
	stime_t w = 2000 * MS;

	/* 2.7 million NMI-window exits in a few seconds: a livelock. */
	ck_assert(wd_livelock(1000000, 999000, w, 1000));
	/* A busy Linux vCPU: ~100 ticks/s (preemption timer) + WRMSR + IPIs. */
	ck_assert(!wd_livelock(600, 300, w, 1000));
	/* Exactly the rate: 2000 in 2 s at 1000/s. */
	ck_assert(wd_livelock(2000, 2000, w, 1000));
	ck_assert(!wd_livelock(2000, 1999, w, 1000));
	/* Fast but mixed with instruction exits (a guest doing port I/O): not one. */
	ck_assert(!wd_livelock(100000, 80000, w, 1000));
	ck_assert(wd_livelock(100000, 90000, w, 1000));
	/* Off, empty or nonsense windows. */
	ck_assert(!wd_livelock(1000000, 1000000, w, 0));
	ck_assert(!wd_livelock(1000000, 1000000, 0, 1000));
	ck_assert(!wd_livelock(63, 63, 1, 1));
	ck_assert(!wd_livelock(10, 20, w, 1));
	/* Long windows do not overflow. */
	ck_assert(wd_livelock(UINT64_MAX / 2, UINT64_MAX / 2, 3600000 * MS, 4000000000u));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("watchdog");
	TCase *tc = tcase_create("calc");

	tcase_add_test(tc, test_idle_is_ok);
	tcase_add_test(tc, test_timer_overdue);
	tcase_add_test(tc, test_lost_wake);
	tcase_add_test(tc, test_ppr_held);
	tcase_add_test(tc, test_halted_if_off);
	tcase_add_test(tc, test_reasons);
	tcase_add_test(tc, test_livelock);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
