/* pat_write_ok(): WRMSR IA32_PAT #GP rule (SDM vol. 3 §11.12.2, issue 10). */
#include <check.h>
#include "check_run.h"
#include "vmx/pat.h"

START_TEST(test_pat_values)
{
	ck_assert(pat_write_ok(0x0007040600070406ull));   /* power-on value */
	ck_assert(pat_write_ok(0x0001040600070406ull));   /* Linux: WC in entry 6 */
	ck_assert(pat_write_ok(0));
	ck_assert(pat_write_ok(0x0706050401000706ull));
	ck_assert(!pat_write_ok(0x0007040600070402ull));   /* entry 0 = 2 */
	ck_assert(!pat_write_ok(0x0307040600070406ull));   /* entry 7 = 3 */
}
END_TEST

START_TEST(test_pat_reserved_each_entry)
{
	static const uint8_t bad[] = { 2, 3, 8, 0x10, 0x46, 0x80, 0xff };

	for (unsigned i = 0; i < 8; i++)
		for (unsigned b = 0; b < sizeof(bad); b++) {
			uint64_t v = 0x0606060606060606ull;

			v &= ~(0xffull << (8 * i));
			v |= (uint64_t)bad[b] << (8 * i);
			ck_assert_msg(!pat_write_ok(v), "entry %u = %#x accepted", i, bad[b]);
		}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pat");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_pat_values);
	tcase_add_test(tc, test_pat_reserved_each_entry);
	suite_add_tcase(s, tc);
	return check_run(s);
}
