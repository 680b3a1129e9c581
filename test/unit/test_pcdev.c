/* Unit tests for hv/dev/pcdev.c: routing of every port to the right model,
 * unclaimed ports, the sinks, and the merged timer deadline. */
#include <check.h>
#include "test_devfake.h"
#include "dev/pcdev.h"

static struct devfake F;
static struct dev_host H;
static struct pcdev D;

static void setup(void)
{
	struct pcdev_cfg cfg = { .host = &H, .irq = devfake_irq, .irqctx = &F,
				 .ram_size = 64ULL << 20, .nr_vcpus = 2, .epoch_secs = 0 };

	devfake_setup(&F, &H);
	pcdev_init(&D, &cfg);
}

static uint32_t in(uint16_t port, unsigned size)
{
	uint32_t v = 0x5a5a5a5a;

	ck_assert_int_eq(pcdev_pio(&D, port, size, false, &v), 0);
	return v;
}

static void out(uint16_t port, unsigned size, uint32_t v)
{
	ck_assert_int_eq(pcdev_pio(&D, port, size, true, &v), 0);
}

START_TEST(test_routing)
{
	out(0x3f8, 1, 'x');
	ck_assert_str_eq(F.out, "x");
	ck_assert_uint_eq(in(0x3fd, 1) & 0x60, 0x60);
	out(0x510, 2, 5);
	ck_assert_uint_eq(in(0x511, 1), 2);
	F.now = 1000000000;
	ck_assert_uint_eq(in(0x608, 4), 3579545);
	ck_assert_uint_eq(in(0x604, 2) & 1, 1);
	out(0x70, 1, 0x5f);
	ck_assert_uint_eq(in(0x71, 1), 1);
	ck_assert_uint_eq(in(0xcfc, 4), 0xffffffffu);
	out(0x43, 1, 0x34);
	out(0x40, 1, 0x00); out(0x40, 1, 0x10);
	ck_assert_int_eq(pcdev_next_deadline(&D), F.now + (stime_t)(4096ULL * 1000000000 / 1193182) + 1);
	out(0x80, 1, 0x12);
	ck_assert_uint_eq(in(0x80, 1), 0xff);
	ck_assert_uint_eq(in(0x64, 1), 0);
	ck_assert_int_eq(F.stops, 0);
}
END_TEST

START_TEST(test_unclaimed)
{
	uint32_t v = 0x1234;
	const uint16_t ports[] = { 0x20, 0x21, 0xa0, 0x60, 0x3f7, 0x400, 0x4d0, 0x5ff, 0x60c,
				   0x512, 0xcf7, 0xd00, 0xf5, 0x2f8 };

	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++)
		ck_assert_int_eq(pcdev_pio(&D, ports[i], 1, false, &v), -ENOENT);
	ck_assert_uint_eq(v, 0x1234);
	ck_assert_uint_eq(D.pio_unclaimed, sizeof(ports) / sizeof(ports[0]));
}
END_TEST

START_TEST(test_stops)
{
	out(0xf4, 1, 3);
	ck_assert_int_eq(F.stop_status, 7);
	out(0xcf9, 1, 0x06);
	ck_assert_int_eq(F.stop_status, DEV_STOP_RESET);
	ck_assert_str_eq(F.stop_why, "reset");
	out(0x64, 1, 0xfe);
	ck_assert_str_eq(F.stop_why, "kbd-reset");
	out(0x604, 2, 0x2000);
	ck_assert_int_eq(F.stop_status, DEV_STOP_POWEROFF);
	ck_assert_int_eq(F.stops, 4);
}
END_TEST

START_TEST(test_merged_deadline)
{
	ck_assert_int_eq(pcdev_next_deadline(&D), STIME_NEVER);
	out(0x70, 1, 0x0b);
	out(0x71, 1, 0x42);                      /* RTC periodic, 1024 Hz */
	stime_t rtc_dl = pcdev_next_deadline(&D);
	ck_assert_int_lt(rtc_dl, STIME_NEVER);
	out(0x43, 1, 0x34);
	out(0x40, 1, 100); out(0x40, 1, 0);      /* PIT ~84 us: earlier */
	stime_t pit_dl = pcdev_next_deadline(&D);
	ck_assert_int_lt(pit_dl, rtc_dl);
	pcdev_advance(&D, pit_dl);
	ck_assert_int_eq(F.rises[0], 1);
	ck_assert(!F.line[8]);
	pcdev_advance(&D, rtc_dl);
	ck_assert(F.line[8]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pcdev");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_routing);
	tcase_add_test(tc, test_unclaimed);
	tcase_add_test(tc, test_stops);
	tcase_add_test(tc, test_merged_deadline);
	suite_add_tcase(s, tc);
	return devfake_run(s);
}
