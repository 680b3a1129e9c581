/* Unit tests for hv/dev/pit.c: counting against a fake clock, access modes,
 * latch and read-back, modes 0-5, the channel 2 gate and port 0x61, and the
 * IRQ0 pull model. */
#include <check.h>
#include "test_devfake.h"
#include "dev/pit.h"

static struct devfake F;
static struct dev_host H;
static struct pit P;

/* ns for t ticks, rounded up (so pit_ticks(ns(t)) == t). */
static stime_t ns(uint64_t t)
{
	return (stime_t)((t * 1000000000ULL + PIT_HZ - 1) / PIT_HZ);
}

static void setup(void)
{
	devfake_setup(&F, &H);
	pit_init(&P, &H, devfake_irq, &F);
}

static uint32_t in(uint16_t port)
{
	uint32_t v = 0xdeadbeef;

	ck_assert_int_eq(pit_pio(&P, port, 1, false, &v), 0);
	ck_assert_uint_le(v, 0xff);
	return v;
}

static void out(uint16_t port, uint32_t v)
{
	ck_assert_int_eq(pit_pio(&P, port, 1, true, &v), 0);
}

static uint16_t read16(unsigned ch)
{
	uint16_t lo = (uint16_t)in(PIT_PORT_CH0 + ch);

	return (uint16_t)(lo | in(PIT_PORT_CH0 + ch) << 8);
}

START_TEST(test_conversion)
{
	F.now = 1000000000;                      /* 1 s = 1193182 ticks */
	out(PIT_PORT_CMD, 0x34);                 /* ch0 lohi mode 2 */
	out(0x40, 0); out(0x40, 0);              /* 65536 */
	F.now += ns(1000);
	ck_assert_uint_eq(read16(0), 65536 - 1000);
	F.now = 5LL * 3600 * 1000000000;         /* hours later: no overflow */
	out(PIT_PORT_CMD, 0x34);
	out(0x40, 0x10); out(0x40, 0x27);        /* 10000 */
	ck_assert_uint_eq(read16(0), 10000);
	F.now += ns(2500) + 1;
	ck_assert_uint_eq(read16(0), 7500);
}
END_TEST

/* Linux pit_calibrate_tsc(): ch2 mode 0, gate via 0x61, poll bit 5. */
START_TEST(test_linux_calibration_loop)
{
	const uint32_t latch = 1193182 / 20;     /* 50 ms */
	unsigned polls = 0;

	out(PIT_PORT_61, (in(PIT_PORT_61) & ~0x02) | 0x01);
	out(PIT_PORT_CMD, 0xb0);
	out(0x42, latch & 0xff);
	ck_assert_uint_eq(in(PIT_PORT_61) & 0x20, 0);   /* mode 0: out low */
	out(0x42, latch >> 8);
	stime_t t0 = F.now;
	while ((in(PIT_PORT_61) & 0x20) == 0) {
		F.now += 1000;                   /* each poll costs 1 us */
		ck_assert_uint_lt(++polls, 100000);
	}
	ck_assert_int_ge(F.now - t0, 49990000);
	ck_assert_int_le(F.now - t0, 50010000);
}
END_TEST

/* Linux quick_pit_calibrate(): ch2 mode 0 count 0xffff, reads LSB then MSB. */
START_TEST(test_quick_calibrate_reads)
{
	out(PIT_PORT_61, 0x01);
	out(PIT_PORT_CMD, 0xb0);
	out(0x42, 0xff); out(0x42, 0xff);
	uint16_t prev = read16(2);
	for (int i = 1; i <= 50; i++) {
		F.now += ns(256);
		uint16_t c = read16(2);
		ck_assert_uint_eq((uint16_t)(prev - c), 256);
		prev = c;
	}
	ck_assert_uint_eq(prev >> 8, 0xff - 50);
}
END_TEST

START_TEST(test_gate_pauses_mode0)
{
	out(PIT_PORT_61, 0x01);
	out(PIT_PORT_CMD, 0xb0);
	out(0x42, 0xe8); out(0x42, 0x03);        /* 1000 */
	F.now += ns(300);
	out(PIT_PORT_61, 0x00);                  /* gate low */
	F.now += ns(5000);
	ck_assert_uint_eq(read16(2), 700);
	ck_assert_uint_eq(in(PIT_PORT_61) & 0x20, 0);
	out(PIT_PORT_61, 0x01);
	F.now += ns(700);
	ck_assert_uint_eq(in(PIT_PORT_61) & 0x20, 0x20);
	ck_assert_uint_eq(in(PIT_PORT_61) & 0x0f, 0x01);
}
END_TEST

START_TEST(test_latch_and_access_modes)
{
	out(PIT_PORT_CMD, 0x30);                 /* ch0 lohi mode 0 */
	out(0x40, 0x34); out(0x40, 0x12);        /* 0x1234 */
	F.now += ns(0x34);
	out(PIT_PORT_CMD, 0x00);                 /* latch ch0 */
	F.now += ns(0x100);
	out(PIT_PORT_CMD, 0x00);                 /* second latch ignored */
	ck_assert_uint_eq(read16(0), 0x1200);
	ck_assert_uint_eq(read16(0), 0x1100);    /* live again */
	out(PIT_PORT_CMD, 0x10);                 /* LSB only */
	out(0x40, 0x80);
	ck_assert_uint_eq(in(0x40), 0x80);
	ck_assert_uint_eq(in(0x40), 0x80);
	out(PIT_PORT_CMD, 0x20);                 /* MSB only */
	out(0x40, 0x02);
	F.now += ns(0x10);
	ck_assert_uint_eq(in(0x40), 0x01);       /* 0x200 - 0x10 = 0x1f0 */
	out(PIT_PORT_CMD, 0x00);
	ck_assert_uint_eq(in(0x40), 0x01);       /* latched MSB */
	ck_assert_uint_eq(in(PIT_PORT_CMD), 0xff);
}
END_TEST

START_TEST(test_readback)
{
	out(PIT_PORT_CMD, 0x36);                 /* ch0 lohi mode 3 */
	ck_assert_uint_eq(in(PIT_PORT_CMD) , 0xff);
	out(PIT_PORT_CMD, 0xe2);                 /* read-back status only, ch0 */
	ck_assert_uint_eq(in(0x40), 0x80 | 0x40 | 0x36);   /* out high, null count */
	out(0x40, 100); out(0x40, 0);
	F.now += ns(10);
	out(PIT_PORT_CMD, 0xc2);                 /* status + count */
	ck_assert_uint_eq(in(0x40) & 0x40, 0);   /* count loaded */
	ck_assert_uint_eq(read16(0), 80);        /* mode 3 counts by 2 */
	out(PIT_PORT_CMD, 0x30);                 /* mode 0 */
	out(PIT_PORT_CMD, 0xe2);
	ck_assert_uint_eq(in(0x40) & 0x80, 0);   /* mode 0 output low */
}
END_TEST

START_TEST(test_mode2_periodic_irq)
{
	ck_assert_int_eq(pit_next_deadline(&P), STIME_NEVER);
	out(PIT_PORT_CMD, 0x34);
	out(0x40, 0xa9); out(0x40, 0x04);        /* 1193: ~1 ms */
	stime_t d1 = pit_next_deadline(&P);
	ck_assert_int_eq(d1, ns(1193));
	pit_advance(&P, d1 - 1);
	ck_assert_int_eq(F.rises[0], 0);
	pit_advance(&P, d1);
	ck_assert_int_eq(F.rises[0], 1);
	ck_assert_int_eq(F.falls[0], 1);         /* pulse */
	ck_assert_int_eq(pit_next_deadline(&P), ns(2 * 1193));
	pit_advance(&P, ns(10 * 1193) + 5);      /* late: 9 edges due, one pulse */
	ck_assert_int_eq(F.rises[0], 2);
	ck_assert_uint_eq(P.irqs_missed, 8);
	ck_assert_int_eq(pit_next_deadline(&P), ns(11 * 1193));
	F.now = ns(1193 * 5 + 1192);
	ck_assert(!pit_out_get(&P, 0, F.now));   /* low on count 1 */
	ck_assert(pit_out_get(&P, 0, F.now + ns(1)));
}
END_TEST

START_TEST(test_min_irq_period)
{
	stime_t prev = 0;

	out(PIT_PORT_CMD, 0x34);
	out(0x40, 2); out(0x40, 0);              /* period of 2 ticks */
	for (int i = 0; i < 50; i++) {
		stime_t dl = pit_next_deadline(&P);
		if (i > 0)
			ck_assert_int_ge(dl - prev, 99000);   /* >= ~100 us apart */
		pit_advance(&P, dl);
		prev = dl;
	}
	ck_assert_int_eq(F.rises[0], 50);
	F.now = prev + ns(1);
	ck_assert_uint_le(read16(0), 2);         /* the counter still runs at full rate */
}
END_TEST

START_TEST(test_mode0_oneshot_irq)
{
	out(PIT_PORT_CMD, 0x30);
	out(0x40, 100); out(0x40, 0);
	ck_assert_int_eq(pit_next_deadline(&P), ns(100));
	pit_advance(&P, ns(100));
	ck_assert_int_eq(F.rises[0], 1);
	ck_assert_int_eq(pit_next_deadline(&P), STIME_NEVER);
	F.now = ns(200);
	ck_assert_uint_eq(read16(0), (uint16_t)(100 - 200));   /* wraps */
	out(PIT_PORT_CMD, 0x30);                 /* reprogramming cancels */
	ck_assert_int_eq(pit_next_deadline(&P), STIME_NEVER);
}
END_TEST

START_TEST(test_mode3_square_wave)
{
	out(PIT_PORT_61, 0x01);
	out(PIT_PORT_CMD, 0xb6);                 /* ch2 lohi mode 3 */
	out(0x42, 10); out(0x42, 0);
	unsigned high = 0;
	for (uint64_t t = 0; t < 100; t++)
		high += pit_out_get(&P, 2, ns(t));
	ck_assert_uint_eq(high, 50);
	out(PIT_PORT_61, 0x00);                  /* gate low: output high, stopped */
	ck_assert(pit_out_get(&P, 2, ns(105)));
	out(PIT_PORT_61, 0x01);                  /* rising edge restarts */
	F.now = ns(200);
	out(PIT_PORT_61, 0x00);
	out(PIT_PORT_61, 0x01);
	ck_assert_uint_eq(read16(2), 10);
}
END_TEST

START_TEST(test_mode1_and_mode5_need_trigger)
{
	out(PIT_PORT_61, 0x00);
	out(PIT_PORT_CMD, 0xb2);                 /* ch2 mode 1 */
	out(0x42, 50); out(0x42, 0);
	F.now = ns(100);
	ck_assert_uint_eq(in(PIT_PORT_61) & 0x20, 0x20);   /* idle high */
	out(PIT_PORT_61, 0x01);                  /* trigger */
	F.now = ns(110);
	ck_assert_uint_eq(in(PIT_PORT_61) & 0x20, 0);
	ck_assert_uint_eq(read16(2), 40);
	F.now = ns(150);
	ck_assert_uint_eq(in(PIT_PORT_61) & 0x20, 0x20);
	out(PIT_PORT_61, 0x00);
	out(PIT_PORT_CMD, 0xba);                 /* ch2 mode 5 */
	out(0x42, 20); out(0x42, 0);
	out(PIT_PORT_61, 0x01);
	F.now += ns(20);
	ck_assert_uint_eq(in(PIT_PORT_61) & 0x20, 0);      /* strobe low at terminal count */
	F.now += ns(1);
	ck_assert_uint_eq(in(PIT_PORT_61) & 0x20, 0x20);
}
END_TEST

START_TEST(test_mode4_and_ports)
{
	uint32_t v;

	out(PIT_PORT_CMD, 0x38);                 /* ch0 mode 4 */
	out(0x40, 5); out(0x40, 0);
	ck_assert(pit_out_get(&P, 0, ns(4)));
	ck_assert(!pit_out_get(&P, 0, ns(5)));
	ck_assert(pit_out_get(&P, 0, ns(6)));
	ck_assert_int_eq(pit_next_deadline(&P), ns(6));
	ck_assert_int_eq(pit_pio(&P, 0x44, 1, false, &v), -ENOENT);
	ck_assert_int_eq(pit_pio(&P, 0x3f, 1, false, &v), -ENOENT);
	ck_assert_int_eq(pit_pio(&P, 0x60, 1, false, &v), -ENOENT);
	F.now = 15085;                           /* refresh bit toggles */
	unsigned a = in(PIT_PORT_61) & 0x10;
	F.now += 15085;
	ck_assert_uint_ne(a, in(PIT_PORT_61) & 0x10);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pit");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_conversion);
	tcase_add_test(tc, test_linux_calibration_loop);
	tcase_add_test(tc, test_quick_calibrate_reads);
	tcase_add_test(tc, test_gate_pauses_mode0);
	tcase_add_test(tc, test_latch_and_access_modes);
	tcase_add_test(tc, test_readback);
	tcase_add_test(tc, test_mode2_periodic_irq);
	tcase_add_test(tc, test_mode0_oneshot_irq);
	tcase_add_test(tc, test_min_irq_period);
	tcase_add_test(tc, test_mode3_square_wave);
	tcase_add_test(tc, test_mode1_and_mode5_need_trigger);
	tcase_add_test(tc, test_mode4_and_ports);
	suite_add_tcase(s, tc);
	return devfake_run(s);
}
