/* Unit tests for module-string parsing, including GRUB's re-quoted forms
 * documented in docs/running.md. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "vm/modstr.h"
#include "shim.h"

START_TEST(test_words_grub_forms)
{
	const char *s = "vm=0 role=kernel \"cmdline=console=ttyS0 quiet\" note=it\\'s "
			"\"cmdline=init=\\\"/bin/sh -c x\\\"\" cmdline=";
	const char *want[] = { "vm=0", "role=kernel", "cmdline=console=ttyS0 quiet", "note=it's",
			       "cmdline=init=\"/bin/sh -c x\"", "cmdline=" };
	char w[128];

	for (unsigned i = 0; i < 6; i++) {
		ck_assert_int_gt(modstr_next_word(&s, w, sizeof(w)), 0);
		ck_assert_str_eq(w, want[i]);
	}
	ck_assert_int_eq(modstr_next_word(&s, w, sizeof(w)), 0);
}
END_TEST

START_TEST(test_parse_full)
{
	struct vm_params p;

	ck_assert_int_eq(modstr_parse("vm=1 role=kernel kind=linux vcpus=4 mem=256M pcpus=0,1,2,3 "
				      "weight=512 cap=50 \"cmdline=console=ttyS0 quiet\"", &p), 0);
	ck_assert_int_eq(p.vm, 1);
	ck_assert_int_eq(p.kind, VM_KIND_LINUX);
	ck_assert_uint_eq(p.vcpus, 4);
	ck_assert_uint_eq(p.mem, 256ull << 20);
	ck_assert_int_eq(p.pcpus[3], 3);
	ck_assert_int_eq(p.pcpus[4], -1);
	ck_assert_uint_eq(p.weight, 512);
	ck_assert_uint_eq(p.cap, 50);
	ck_assert_str_eq(p.cmdline, "console=ttyS0 quiet");
	ck_assert_str_eq(p.name, "vm1");
}
END_TEST

START_TEST(test_parse_defaults_and_initrd)
{
	struct vm_params p;

	ck_assert_int_eq(modstr_parse("vm=2 role=initrd", &p), 0);
	ck_assert_int_eq(p.role, MOD_ROLE_INITRD);
	ck_assert_uint_eq(p.vcpus, 1);
	ck_assert_uint_eq(p.mem, 64ull << 20);
	ck_assert_str_eq(p.cmdline, "");
	ck_assert(!p.ple_set);                   /* PLE by vCPU count (vmcs_setup.c) */
	ck_assert_int_eq(modstr_parse("vm=0 vcpus=1 ple=on", &p), 0);
	ck_assert(p.ple_set && p.ple);
	ck_assert_int_eq(modstr_parse("vm=0 vcpus=4 ple=off", &p), 0);
	ck_assert(p.ple_set && !p.ple);
	ck_assert_int_ne(modstr_parse("vm=0 ple=maybe", &p), 0);
}
END_TEST

START_TEST(test_parse_errors)
{
	struct vm_params p;

	ck_assert_int_lt(modstr_parse("role=kernel", &p), 0);           /* no vm= */
	ck_assert_int_lt(modstr_parse("vm=0 vcpus=0", &p), 0);
	ck_assert_int_lt(modstr_parse("vm=0 vcpus=17", &p), 0);
	ck_assert_int_lt(modstr_parse("vm=0 mem=1K", &p), 0);
	ck_assert_int_lt(modstr_parse("vm=0 mem=lots", &p), 0);
	ck_assert_int_lt(modstr_parse("vm=0 kind=windows", &p), 0);
	ck_assert_int_lt(modstr_parse("vm=0 pcpus=0,x", &p), 0);
	ck_assert_int_lt(modstr_parse("vm=0 justaword", &p), 0);
	ck_assert_int_lt(modstr_parse("vm=9", &p), 0);
	shim_reset_logs();
	ck_assert_int_eq(modstr_parse("vm=0 colour=blue", &p), 0);   /* unknown: warned */
	ck_assert_int_eq(shim_log_count[1], 1);
}
END_TEST

START_TEST(test_overlong)
{
	static char big[4096];
	struct vm_params p;

	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "vm=0 cmdline=", 13);
	ck_assert_int_lt(modstr_parse(big, &p), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("modstr");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_words_grub_forms);
	tcase_add_test(tc, test_parse_full);
	tcase_add_test(tc, test_parse_defaults_and_initrd);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_overlong);
	suite_add_tcase(s, tc);

	return check_run(s);
}
