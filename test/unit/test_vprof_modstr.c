/* The vProfile dedicated-mode permission key of module strings
 * (`vprof=dedicated`, hv/vm/modstr.c; seed 001 §2.3). */
#include <check.h>
#include "check_run.h"
#include "vm/modstr.h"
#include "log.h"
#include "shim.h"

START_TEST(test_vprof_key_default_off)
{
	struct vm_params p;

	ck_assert_int_eq(modstr_parse("vm=0 role=kernel", &p), 0);
	ck_assert(!p.vprof_dedicated);
}
END_TEST

START_TEST(test_vprof_key_values)
{
	struct vm_params p;

	ck_assert_int_eq(modstr_parse("vm=2 role=kernel vprof=dedicated vcpus=2", &p), 0);
	ck_assert(p.vprof_dedicated);
	ck_assert_int_eq(p.vm, 2);
	ck_assert_uint_eq(p.vcpus, 2);
	ck_assert_int_eq(modstr_parse("vm=2 vprof=dedicated vprof=normal", &p), 0);
	ck_assert(!p.vprof_dedicated);
}
END_TEST

START_TEST(test_vprof_key_bad_value)
{
	struct vm_params p;

	shim_reset_logs();
	ck_assert_int_lt(modstr_parse("vm=0 role=kernel vprof=yes", &p), 0);
	ck_assert_int_lt(modstr_parse("vm=0 role=kernel vprof=", &p), 0);
	ck_assert_int_ge(shim_log_count[LOG_ERR], 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vprof_modstr");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_vprof_key_default_off);
	tcase_add_test(tc, test_vprof_key_values);
	tcase_add_test(tc, test_vprof_key_bad_value);
	suite_add_tcase(s, tc);

	return check_run(s);
}
