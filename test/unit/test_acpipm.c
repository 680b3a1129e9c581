/* Unit tests for hv/dev/acpipm.c: PM timer rate and width, SCI_EN, S5
 * power-off, reset register, PM1 status/enable and the timer-overflow SCI. */
#include <check.h>
#include "test_devfake.h"
#include "dev/acpipm.h"

static struct devfake F;
static struct dev_host H;
static struct acpipm P;

static void setup(void)
{
	devfake_setup(&F, &H);
	acpipm_init(&P, &H, devfake_irq, &F);
}

static uint32_t in(uint16_t port, unsigned size)
{
	uint32_t v = 0xdeadbeef;

	ck_assert_int_eq(acpipm_pio(&P, port, size, false, &v), 0);
	return v;
}

static void out(uint16_t port, unsigned size, uint32_t v)
{
	ck_assert_int_eq(acpipm_pio(&P, port, size, true, &v), 0);
}

START_TEST(test_timer_rate)
{
	F.now = 0;
	ck_assert_uint_eq(in(ACPIPM_PM_TMR, 4), 0);
	F.now = 1000000000;                                  /* 1 s */
	ck_assert_uint_eq(in(ACPIPM_PM_TMR, 4), 3579545 & 0xffffff);
	F.now = 1000;                                        /* 1 us -> 3 ticks */
	ck_assert_uint_eq(in(ACPIPM_PM_TMR, 4), 3);
	F.now = 10LL * 3600 * 1000000000;                    /* 10 h: no overflow in the math */
	ck_assert_uint_eq(in(ACPIPM_PM_TMR, 4), (uint32_t)((36000ULL * 3579545) & 0xffffff));
	ck_assert_uint_le(in(ACPIPM_PM_TMR, 4), 0xffffff);
	/* monotonic modulo 2^24 over a window */
	uint32_t prev = in(ACPIPM_PM_TMR, 4);
	for (int i = 0; i < 1000; i++) {
		F.now += 997;
		uint32_t cur = in(ACPIPM_PM_TMR, 4);
		ck_assert_uint_ne(cur, prev);
		ck_assert_uint_lt((cur - prev) & 0xffffff, 8);
		prev = cur;
	}
}
END_TEST

START_TEST(test_sci_en_and_poweroff)
{
	ck_assert_uint_eq(in(ACPIPM_PM1A_CNT, 2) & 1, 1);   /* SCI_EN */
	out(ACPIPM_PM1A_CNT, 2, 0x0000);                     /* SCI_EN sticks */
	ck_assert_uint_eq(in(ACPIPM_PM1A_CNT, 2) & 1, 1);
	out(ACPIPM_PM1A_CNT, 2, (5u << 10) | (1u << 13));   /* S-something else: ignored */
	ck_assert_int_eq(F.stops, 0);
	ck_assert_uint_eq(in(ACPIPM_PM1A_CNT, 2) & (1u << 13), 0);   /* SLP_EN reads 0 */
	out(ACPIPM_PM1A_CNT, 2, 0x2000);                     /* QEMU idiom: S5 */
	ck_assert_int_eq(F.stops, 1);
	ck_assert_int_eq(F.stop_status, DEV_STOP_POWEROFF);
	ck_assert_str_eq(F.stop_why, "acpi-poweroff");
}
END_TEST

START_TEST(test_poweroff_byte_write)
{
	out(ACPIPM_PM1A_CNT + 1, 1, 0x20);                   /* high byte only */
	ck_assert_int_eq(F.stops, 1);
	ck_assert_int_eq(F.stop_status, 0);
}
END_TEST

START_TEST(test_reset)
{
	uint32_t v;

	out(ACPIPM_RESET_PORT, 1, 0x02);                     /* SYS_RST alone: no reset */
	ck_assert_int_eq(F.stops, 0);
	ck_assert_uint_eq(in(ACPIPM_RESET_PORT, 1), 0x02);
	out(ACPIPM_RESET_PORT, 1, 0x06);
	ck_assert_int_eq(F.stops, 1);
	ck_assert_int_eq(F.stop_status, DEV_STOP_RESET);
	out(ACPIPM_RESET_PORT, 1, 0x0e);
	ck_assert_int_eq(F.stops, 2);
	ck_assert_int_ne(DEV_STOP_RESET & 1, 1);             /* never a debug-exit status */
	ck_assert_int_eq(acpipm_pio(&P, ACPIPM_RESET_PORT, 4, true, &v), -ENOENT);
	ck_assert_int_eq(acpipm_pio(&P, 0x5ff, 1, false, &v), -ENOENT);
	ck_assert_int_eq(acpipm_pio(&P, 0x60c, 1, false, &v), -ENOENT);
	ck_assert_int_eq(acpipm_pio(&P, 0x60a, 4, false, &v), -ENOENT);
}
END_TEST

START_TEST(test_status_enable_and_sci)
{
	out(ACPIPM_PM1A_EVT + 2, 2, 0x0001);                 /* TMR_EN */
	ck_assert_uint_eq(in(ACPIPM_PM1A_EVT + 2, 2), 1);
	ck_assert_uint_eq(in(ACPIPM_PM1A_EVT, 4) >> 16, 1);  /* dword view: EN in high half */
	stime_t dl = acpipm_next_deadline(&P);
	/* bit 23 toggles after 2^23 ticks = 2.343 s */
	ck_assert_int_ge(dl, 2343000000LL);
	ck_assert_int_le(dl, 2344000000LL);
	F.now = dl - 1;
	acpipm_advance(&P, F.now);
	ck_assert(!F.line[9]);
	F.now = dl;
	acpipm_advance(&P, F.now);
	ck_assert(F.line[9]);
	ck_assert_uint_eq(in(ACPIPM_PM1A_EVT, 2) & 1, 1);    /* TMR_STS */
	ck_assert_int_eq(acpipm_next_deadline(&P), STIME_NEVER);
	out(ACPIPM_PM1A_EVT, 2, 0x0001);                     /* write 1 to clear */
	ck_assert(!F.line[9]);
	ck_assert_uint_eq(in(ACPIPM_PM1A_EVT, 2) & 1, 0);
	ck_assert_int_gt(acpipm_next_deadline(&P), dl);
	out(ACPIPM_PM1A_EVT + 2, 2, 0);
	ck_assert_int_eq(acpipm_next_deadline(&P), STIME_NEVER);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("acpipm");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_timer_rate);
	tcase_add_test(tc, test_sci_en_and_poweroff);
	tcase_add_test(tc, test_poweroff_byte_write);
	tcase_add_test(tc, test_reset);
	tcase_add_test(tc, test_status_enable_and_sci);
	suite_add_tcase(s, tc);
	return devfake_run(s);
}
