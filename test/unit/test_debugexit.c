/* Unit tests for hv/dev/debugexit.c: status encoding and port decoding. */
#include <check.h>
#include "test_devfake.h"
#include "dev/debugexit.h"

START_TEST(test_exit_status)
{
	struct devfake f;
	struct dev_host h;
	struct debugexit d;
	uint32_t v = 0x10;

	devfake_setup(&f, &h);
	debugexit_init(&d, &h, DEBUGEXIT_PORT);
	ck_assert_int_eq(debugexit_pio(&d, DEBUGEXIT_PORT, 1, true, &v), 0);
	ck_assert_int_eq(f.stops, 1);
	ck_assert_int_eq(f.stop_status, 0x21);
	ck_assert_str_eq(f.stop_why, "debug-exit");
	v = 0;
	debugexit_pio(&d, DEBUGEXIT_PORT, 1, true, &v);
	ck_assert_int_eq(f.stop_status, 1);
	v = 0x1ff;                              /* byte write keeps the low byte */
	debugexit_pio(&d, DEBUGEXIT_PORT, 1, true, &v);
	ck_assert_int_eq(f.stop_status, 0x1ff);
	v = 0x1ff;
	debugexit_pio(&d, DEBUGEXIT_PORT, 2, true, &v);
	ck_assert_int_eq(f.stop_status, 0x3ff);
	ck_assert(d.fired);
}
END_TEST

START_TEST(test_other_ports_and_reads)
{
	struct devfake f;
	struct dev_host h;
	struct debugexit d;
	uint32_t v = 5;

	devfake_setup(&f, &h);
	debugexit_init(&d, &h, DEBUGEXIT_PORT);
	ck_assert_int_eq(debugexit_pio(&d, 0xf5, 1, true, &v), -ENOENT);
	ck_assert_int_eq(debugexit_pio(&d, DEBUGEXIT_PORT, 1, false, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(f.stops, 0);
	ck_assert_int_eq(debugexit_status(3), 7);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("debugexit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_exit_status);
	tcase_add_test(tc, test_other_ports_and_reads);
	suite_add_tcase(s, tc);
	return devfake_run(s);
}
