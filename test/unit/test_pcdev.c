/* Unit tests for hv/dev/pcdev.c: routing of every port to the right model,
 * unclaimed ports, the sinks, and the merged timer deadline. */
#include <check.h>
#include <stdlib.h>
#include "test_devfake.h"
#include "dev/pcdev.h"
#include "dev/uart.h"
#include "dev/acpipm.h"

static struct devfake F;
static struct dev_host H;
static struct pcdev D;

static void setup(void)
{
	struct dev_cfg cfg = { .host = &H, .irq = devfake_irq, .irqctx = &F,
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

/* A guest can only hurt itself: random accesses to every claimed port with
 * random sizes, values and clock jumps (forwards and backwards) must never
 * trip ASan/UBSan, and the models must stay usable afterwards. */
START_TEST(test_random_accesses)
{
	static const uint16_t base[] = { 0x3f8, 0x40, 0x61, 0x600, 0x70, 0xcf8, 0x510, 0xf4,
					 0x80, 0x64 };
	static const uint8_t span[] = { 8, 4, 1, 12, 2, 8, 2, 1, 1, 1 };
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	const char *seed = getenv("HV_FUZZ_SEED");   /* other seeds on demand */

	if (seed)
		x ^= strtoull(seed, NULL, 0) | 1;

	for (int i = 0; i < 200000; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		unsigned dev = (unsigned)(x % 10);
		uint16_t port = (uint16_t)(base[dev] + (x >> 8) % span[dev]);
		unsigned size = 1u << ((x >> 16) % 3);
		uint32_t v = (uint32_t)(x >> 24);
		bool write = (x >> 60) & 1;

		if ((x >> 56 & 0xf) == 0)
			F.now += (stime_t)((x >> 20) % 2000000000);
		else if ((x >> 56 & 0xff) == 1)
			F.now -= (stime_t)((x >> 20) % 1000000);
		int rc = pcdev_pio(&D, port, size, write, &v);
		ck_assert(rc == 0 || rc == -ENOENT);
		if ((i & 63) == 0) {
			stime_t dl = pcdev_next_deadline(&D);
			if (dl != STIME_NEVER)
				pcdev_advance(&D, dl);
		}
	}
	/* still a working UART and PM timer */
	struct uart *com1 = pcdev_find(&D, "uart");

	com1->mcr = 0;
	com1->lcr = 3;
	F.out_len = 0;
	out(0x3f8, 1, 'k');
	ck_assert_uint_eq(F.out[F.out_len - 1], 'k');
	ck_assert_uint_le(in(0x608, 4), 0xffffff);
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
	tcase_add_test(tc, test_random_accesses);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return devfake_run(s);
}
