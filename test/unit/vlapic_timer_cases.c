/* test_vlapic, the timer (hv/dev/vlapic_timer.c, SDM vol. 3 §11.5.4):
 * one-shot, periodic, masked, the minimum period, TSC-deadline. */
#include "vlapic_fixture.h"

START_TEST(test_timer_oneshot)
{
	setup();
	enable();
	wr(APIC_TDCR, 0x0);                       /* divide by 2 */
	wr(APIC_LVT_TIMER, 0x41);
	wr(APIC_TMICT, 1000);
	ck_assert_int_eq(vlapic_timer_next(&L), 1000 + 2000);
	F.now = 2000;
	ck_assert_uint_eq(rd(APIC_TMCCT), 500);
	vlapic_timer_advance(&L, 2999);
	ck_assert_int_eq(vlapic_pending(&L), -1);
	vlapic_timer_advance(&L, 3000);
	ck_assert_int_eq(vlapic_pending(&L), 0x41);
	ck_assert_int_eq(vlapic_timer_next(&L), STIME_NEVER);
	F.now = 5000;
	ck_assert_uint_eq(rd(APIC_TMCCT), 0);
	ck_assert_uint_eq(rd(APIC_TMICT), 1000);
	wr(APIC_TDCR, 0xb);                       /* divide by 1 */
	wr(APIC_TMICT, 10);
	ck_assert_int_eq(vlapic_timer_next(&L), 5010);
	wr(APIC_TMICT, 0);                        /* zero stops */
	ck_assert_int_eq(vlapic_timer_next(&L), STIME_NEVER);
	wr(APIC_TDCR, 0xa);                       /* divide by 128 */
	wr(APIC_TMICT, 3);
	ck_assert_int_eq(vlapic_timer_next(&L), 5000 + 384);
}
END_TEST

START_TEST(test_timer_periodic_and_masked)
{
	setup();
	enable();
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, BIT(17) | 0x42);
	wr(APIC_TMICT, 100000);
	vlapic_timer_advance(&L, 101000);
	ck_assert_int_eq(vlapic_timer_next(&L), 201000);
	ck_assert_int_eq(vlapic_ack(&L, 0x42), 0);
	wr(APIC_EOI, 0);
	vlapic_timer_advance(&L, 351000);         /* 3.5 periods late: one interrupt */
	ck_assert_int_eq(vlapic_timer_next(&L), 401000);
	ck_assert_uint_eq(L.timer_fired, 2);
	ck_assert_int_eq(vlapic_pending(&L), 0x42);
	F.now = 376000;
	ck_assert_uint_eq(rd(APIC_TMCCT), 25000);
	ck_assert_int_eq(vlapic_ack(&L, 0x42), 0);
	wr(APIC_EOI, 0);
	wr(APIC_LVT_TIMER, BIT(17) | APIC_LVT_MASKED | 0x42);
	vlapic_timer_advance(&L, 401000);         /* masked: counts but no interrupt */
	ck_assert_uint_eq(L.timer_fired, 3);
	ck_assert_int_eq(vlapic_pending(&L), -1);
	ck_assert_int_eq(vlapic_timer_next(&L), 501000);
}
END_TEST

/* A hostile 1-tick periodic timer re-arms no sooner than VLAPIC_MIN_PERIOD. */
START_TEST(test_timer_periodic_min_period)
{
	setup();
	enable();
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, BIT(17) | 0x42);
	wr(APIC_TMICT, 1);
	ck_assert_int_eq(vlapic_timer_next(&L), 1001);   /* the first period as asked */
	vlapic_timer_advance(&L, 1001);
	ck_assert_uint_eq(L.timer_fired, 1);
	ck_assert_int_eq(vlapic_timer_next(&L), 1000 + VLAPIC_MIN_PERIOD);
	vlapic_timer_advance(&L, 1002);                  /* no storm */
	ck_assert_uint_eq(L.timer_fired, 1);
	vlapic_timer_advance(&L, 1000 + VLAPIC_MIN_PERIOD);
	ck_assert_uint_eq(L.timer_fired, 2);
	ck_assert_int_eq(vlapic_timer_next(&L), 1000 + 2 * VLAPIC_MIN_PERIOD);
}
END_TEST

START_TEST(test_timer_tsc_deadline)
{
	uint64_t v;

	setup();
	enable();
	ck_assert_int_eq(vlapic_msr_write(&L, MSR_IA32_TSC_DEADLINE, 100000), 0);
	ck_assert_int_eq(vlapic_timer_next(&L), STIME_NEVER);   /* ignored in one-shot mode */
	ck_assert_uint_eq(L.tscdl_ignored, 1);                  /* and counted (watchdog dump) */
	ck_assert_int_eq(vlapic_msr_write(&L, MSR_IA32_TSC_DEADLINE, 0), 0);
	ck_assert_uint_eq(L.tscdl_ignored, 1);                  /* a disarm is not a lost arm */
	wr(APIC_TMICT, 500);
	ck_assert_int_eq(vlapic_timer_next(&L), 1000 + 1000);
	wr(APIC_LVT_TIMER, (2u << 17) | 0x43);    /* mode change disarms */
	ck_assert_int_eq(vlapic_timer_next(&L), STIME_NEVER);
	ck_assert_uint_eq(rd(APIC_TMICT), 0);
	wr(APIC_TMICT, 500);                      /* ignored in TSC-deadline mode */
	ck_assert_int_eq(vlapic_timer_next(&L), STIME_NEVER);
	ck_assert_int_eq(vlapic_msr_write(&L, MSR_IA32_TSC_DEADLINE, 100000), 0);
	ck_assert_int_eq(vlapic_timer_next(&L), 50000);         /* 2 GHz TSC */
	ck_assert_int_eq(vlapic_msr_read(&L, MSR_IA32_TSC_DEADLINE, &v), 0);
	ck_assert_uint_eq(v, 100000);
	vlapic_timer_advance(&L, 50000);
	ck_assert_int_eq(vlapic_pending(&L), 0x43);
	ck_assert_int_eq(vlapic_msr_read(&L, MSR_IA32_TSC_DEADLINE, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(vlapic_ack(&L, 0x43), 0);
	F.now = 60000;                            /* a past deadline fires at once */
	ck_assert_int_eq(vlapic_msr_write(&L, MSR_IA32_TSC_DEADLINE, 2), 0);
	ck_assert(vlapic_vec_test(&L, APIC_IRR, 0x43));
	ck_assert_int_eq(vlapic_msr_write(&L, MSR_IA32_TSC_DEADLINE, 200000), 0);
	ck_assert_int_eq(vlapic_msr_write(&L, MSR_IA32_TSC_DEADLINE, 0), 0);   /* disarm */
	ck_assert_int_eq(vlapic_timer_next(&L), STIME_NEVER);
	ck_assert_uint_eq(L.tscdl_ignored, 1);
}
END_TEST

void vlapic_timer_cases(TCase *tc)
{
	tcase_add_test(tc, test_timer_oneshot);
	tcase_add_test(tc, test_timer_periodic_and_masked);
	tcase_add_test(tc, test_timer_periodic_min_period);
	tcase_add_test(tc, test_timer_tsc_deadline);
}
