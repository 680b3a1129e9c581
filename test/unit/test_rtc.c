/* Unit tests for hv/dev/rtc.c and rtc_time.c: calendar against libc's gmtime,
 * BCD/binary/12-hour encodings, SET, UIP, periodic/update/alarm interrupts,
 * the NMI bit and the CMOS memory-size bytes. */
#include <check.h>
#include <time.h>
#include "test_devfake.h"
#include "dev/rtc.h"
#include "dev/rtc_time.h"

#define EPOCH 1795240397LL   /* 2026-11-21 05:53:17 UTC, a Saturday */
#define S     1000000000LL

static struct devfake F;
static struct dev_host H;
static struct rtc R;

static void setup(void)
{
	devfake_setup(&F, &H);
	F.now = 123456789;   /* the clock does not start at 0 */
	rtc_init(&R, &H, devfake_irq, &F, EPOCH, 256ULL << 20, 4);
}

static uint8_t rd(uint8_t idx)
{
	uint32_t v = idx;

	ck_assert_int_eq(rtc_pio(&R, RTC_PORT_INDEX, 1, true, &v), 0);
	ck_assert_int_eq(rtc_pio(&R, RTC_PORT_DATA, 1, false, &v), 0);
	return (uint8_t)v;
}

static void wr(uint8_t idx, uint8_t val)
{
	uint32_t v = idx;

	ck_assert_int_eq(rtc_pio(&R, RTC_PORT_INDEX, 1, true, &v), 0);
	v = val;
	ck_assert_int_eq(rtc_pio(&R, RTC_PORT_DATA, 1, true, &v), 0);
}

START_TEST(test_calendar_vs_libc)
{
	uint64_t x = 88172645463325252ULL;

	for (int i = 0; i < 20000; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		int64_t secs = (int64_t)(x % 8000000000ULL);   /* 1970..2223 */
		time_t t = (time_t)secs;
		struct tm g;
		struct rtc_tm tm;

		gmtime_r(&t, &g);
		rtc_tm_from_secs(secs, &tm);
		ck_assert_int_eq(tm.year, g.tm_year + 1900);
		ck_assert_uint_eq(tm.mon, (unsigned)g.tm_mon + 1);
		ck_assert_uint_eq(tm.mday, (unsigned)g.tm_mday);
		ck_assert_uint_eq(tm.hour, (unsigned)g.tm_hour);
		ck_assert_uint_eq(tm.min, (unsigned)g.tm_min);
		ck_assert_uint_eq(tm.sec, (unsigned)g.tm_sec);
		ck_assert_uint_eq(tm.wday, (unsigned)g.tm_wday + 1);
		ck_assert_int_eq(rtc_tm_to_secs(&tm), secs);
	}
	ck_assert_uint_eq(rtc_bcd_encode(59), 0x59);
	ck_assert_uint_eq(rtc_bcd_decode(0x42), 42);
}
END_TEST

START_TEST(test_time_bcd)
{
	ck_assert_uint_eq(rd(0x00), 0x17);
	ck_assert_uint_eq(rd(0x02), 0x53);
	ck_assert_uint_eq(rd(0x04), 0x05);
	ck_assert_uint_eq(rd(0x06), 7);
	ck_assert_uint_eq(rd(0x07), 0x21);
	ck_assert_uint_eq(rd(0x08), 0x11);
	ck_assert_uint_eq(rd(0x09), 0x26);
	ck_assert_uint_eq(rd(RTC_REG_CENTURY), 0x20);
	F.now += 3661 * S;
	ck_assert_uint_eq(rd(0x00), 0x18);
	ck_assert_uint_eq(rd(0x02), 0x54);
	ck_assert_uint_eq(rd(0x04), 0x06);
	ck_assert_int_eq(rtc_wall_secs(&R, F.now), EPOCH + 3661);
	ck_assert_uint_eq(rd(0x0d), 0x80);
	ck_assert_uint_eq(rd(0x0b), 0x02);
	ck_assert_uint_eq(rd(0x0a) & 0x7f, 0x26);
}
END_TEST

START_TEST(test_binary_and_12h)
{
	wr(0x0b, 0x06);                      /* binary, 24h */
	ck_assert_uint_eq(rd(0x00), 17);
	ck_assert_uint_eq(rd(0x09), 26);
	F.now += 8 * 3600 * S;               /* 13:53 */
	wr(0x0b, 0x04);                      /* binary, 12h */
	ck_assert_uint_eq(rd(0x04), 0x80 | 1);
	wr(0x0b, 0x00);                      /* BCD, 12h */
	F.now += 11 * 3600 * S;              /* 00:53 next day -> 12 AM */
	ck_assert_uint_eq(rd(0x04), 0x12);
	ck_assert_uint_eq(rd(0x07), 0x22);
}
END_TEST

START_TEST(test_set_time)
{
	wr(0x0b, 0x82);                      /* SET */
	F.now += 5 * S;
	ck_assert_uint_eq(rd(0x00), 0x17);   /* frozen */
	wr(0x09, 0x00); wr(RTC_REG_CENTURY, 0x20);
	wr(0x08, 0x02); wr(0x07, 0x29);
	wr(0x04, 0x23); wr(0x02, 0x59); wr(0x00, 0x58);
	wr(0x0b, 0x02);                      /* run */
	ck_assert_uint_eq(rd(0x07), 0x29);
	F.now += 2 * S;
	ck_assert_uint_eq(rd(0x00), 0x00);
	ck_assert_uint_eq(rd(0x07), 0x01);   /* 2000 is leap: 02-29 -> 03-01 */
	ck_assert_uint_eq(rd(0x08), 0x03);
	ck_assert_uint_eq(rd(0x09), 0x00);
	wr(0x00, 0x30);                      /* write while running */
	ck_assert_uint_eq(rd(0x00), 0x30);
	ck_assert_uint_eq(rd(0x02), 0x00);
}
END_TEST

START_TEST(test_uip_clears)
{
	unsigned seen = 0, polls = 0;

	ck_assert_uint_eq(rd(0x0a) & 0x80, 0);   /* wall clock is at a whole second */
	F.now += S - 400000;                     /* 400 us before the next update */
	/* Linux mc146818_get_time(): wait while UIP is set */
	for (int i = 0; i < 3000; i++) {
		F.now += 1000;
		if (rd(0x0a) & 0x80)
			seen++;
		else if (seen)
			break;
		polls++;
	}
	ck_assert_uint_ge(seen, 200);            /* ~244 us of UIP */
	ck_assert_uint_le(seen, 250);
	ck_assert_uint_lt(polls, 600);
	ck_assert_uint_eq(rd(0x0a) & 0x80, 0);
}
END_TEST

START_TEST(test_periodic_irq)
{
	ck_assert_int_eq(rtc_next_deadline(&R), STIME_NEVER);
	wr(0x0b, 0x42);                          /* PIE */
	stime_t dl = rtc_next_deadline(&R);
	ck_assert_int_gt(dl, F.now);
	ck_assert_int_le(dl - F.now, 976563);    /* 1024 Hz */
	rtc_advance(&R, dl - 1);
	ck_assert(!F.line[8]);
	rtc_advance(&R, dl);
	ck_assert(F.line[8]);
	ck_assert_int_eq(rtc_next_deadline(&R), STIME_NEVER);
	F.now = dl;
	ck_assert_uint_eq(rd(0x0c) & 0xc0, 0xc0);
	ck_assert(!F.line[8]);
	ck_assert_uint_eq(rd(0x0c), 0);
	wr(0x0a, 0x23);                          /* 8192 Hz */
	ck_assert_int_le(rtc_next_deadline(&R) - dl, 122071);
}
END_TEST

START_TEST(test_update_and_alarm_irq)
{
	wr(0x01, 0x19);                          /* alarm hh:mm:19, any hour/min */
	wr(0x03, 0xc0);
	wr(0x05, 0xc0);
	wr(0x0b, 0x22);                          /* AIE */
	stime_t dl = rtc_next_deadline(&R);      /* next second: :18, no match */
	rtc_advance(&R, dl);
	ck_assert(!F.line[8]);
	F.now = dl;
	ck_assert_uint_eq(rd(0x0c) & 0xb0, 0x10);   /* UF set, not enabled; no IRQF */
	dl = rtc_next_deadline(&R);
	rtc_advance(&R, dl);
	ck_assert(F.line[8]);
	F.now = dl;
	ck_assert_uint_eq(rd(0x0c) & 0xb0, 0x80 | 0x20 | 0x10);
	wr(0x0b, 0x12);                          /* UIE only */
	dl = rtc_next_deadline(&R);
	ck_assert_int_le(dl - F.now, S);
	rtc_advance(&R, dl);
	ck_assert(F.line[8]);
}
END_TEST

START_TEST(test_nmi_and_ports)
{
	uint32_t v = 0x80 | 0x0a;

	rtc_pio(&R, RTC_PORT_INDEX, 1, true, &v);
	ck_assert(rtc_nmi_masked(&R));
	ck_assert_uint_eq(R.index, 0x0a);
	v = 0x0a;
	rtc_pio(&R, RTC_PORT_INDEX, 1, true, &v);
	ck_assert(!rtc_nmi_masked(&R));
	ck_assert_int_eq(rtc_pio(&R, 0x72, 1, false, &v), -ENOENT);
	wr(0x40, 0xa5);                          /* plain CMOS RAM */
	ck_assert_uint_eq(rd(0x40), 0xa5);
	wr(0x0c, 0xff);                          /* C and D are read-only */
	ck_assert_uint_eq(rd(0x0c), 0);
	ck_assert_uint_eq(rd(0x0d), 0x80);
}
END_TEST

START_TEST(test_cmos_memory)
{
	ck_assert_uint_eq(rd(0x15) | rd(0x16) << 8, 640);
	ck_assert_uint_eq(rd(0x17) | rd(0x18) << 8, 0xffff);       /* 255 MiB in KiB, capped */
	ck_assert_uint_eq(rd(0x30) | rd(0x31) << 8, 0xffff);
	ck_assert_uint_eq(rd(0x34) | rd(0x35) << 8, (256 - 16) * 16);
	ck_assert_uint_eq(rd(0x5b) | rd(0x5c) << 8 | rd(0x5d) << 16, 0);
	ck_assert_uint_eq(rd(0x5f), 3);
	rtc_init(&R, &H, devfake_irq, &F, EPOCH, 32ULL << 20, 1);
	ck_assert_uint_eq(rd(0x30) | rd(0x31) << 8, 31 * 1024);
	ck_assert_uint_eq(rd(0x34) | rd(0x35) << 8, 16 * 16);
	ck_assert_uint_eq(rd(0x5f), 0);
	rtc_init(&R, &H, devfake_irq, &F, EPOCH, 4ULL << 30, 2);     /* 1 GiB above 3 GiB */
	ck_assert_uint_eq(rd(0x5b) | rd(0x5c) << 8 | rd(0x5d) << 16, 16384);
	unsigned sum = 0;
	for (unsigned i = 0x10; i <= 0x2d; i++)
		sum += rd((uint8_t)i);
	ck_assert_uint_eq(rd(0x2e) << 8 | rd(0x2f), sum);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rtc");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_calendar_vs_libc);
	tcase_add_test(tc, test_time_bcd);
	tcase_add_test(tc, test_binary_and_12h);
	tcase_add_test(tc, test_set_time);
	tcase_add_test(tc, test_uip_clears);
	tcase_add_test(tc, test_periodic_irq);
	tcase_add_test(tc, test_update_and_alarm_irq);
	tcase_add_test(tc, test_nmi_and_ports);
	tcase_add_test(tc, test_cmos_memory);
	suite_add_tcase(s, tc);
	return devfake_run(s);
}
