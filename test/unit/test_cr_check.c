/* cr0_write_ok()/cr4_write_ok(): the #GP rules for MOV to CR0/CR4 (the
 * hostile guest's NW-without-CD writes used to be accepted). */
#include <check.h>
#include "check_run.h"
#include "vmx/cr_check.h"

START_TEST(test_cr0)
{
	ck_assert(cr0_write_ok(0x60000010, false));          /* reset value */
	ck_assert(cr0_write_ok(0x80000011, false));
	ck_assert(!cr0_write_ok(0x20000011, false));         /* NW without CD */
	ck_assert(cr0_write_ok(0x60000011, false));
	ck_assert(!cr0_write_ok(0x80000010, false));         /* PG without PE */
	ck_assert(!cr0_write_ok(0x180000011ull, true));      /* bit 32 */
	ck_assert(!cr0_write_ok(0x00000011, true));          /* PG off in IA-32e mode */
	ck_assert(cr0_write_ok(0x80000011, true));
}
END_TEST

START_TEST(test_cr4)
{
	ck_assert(cr4_write_ok(0x20, false));
	ck_assert(cr4_write_ok(0x6f8, true));
	ck_assert(!cr4_write_ok(0x2020, false));             /* VMXE */
	ck_assert(!cr4_write_ok(0x8020, false));             /* bit 15 */
	ck_assert(!cr4_write_ok(0x40000020, false));         /* bit 30 */
	ck_assert(!cr4_write_ok(0x100000020ull, true));      /* bit 32 */
	ck_assert(!cr4_write_ok(0x0, true));                 /* PAE off in IA-32e mode */
	ck_assert(cr4_write_ok(0x0, false));
	ck_assert(!cr4_write_ok(0x20020, false));            /* PCIDE outside IA-32e mode */
	ck_assert(cr4_write_ok(0x20020, true));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cr_check");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cr0);
	tcase_add_test(tc, test_cr4);
	suite_add_tcase(s, tc);
	return check_run(s);
}
