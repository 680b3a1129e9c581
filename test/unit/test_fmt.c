/* Unit tests for hv/lib/fmt.c against the C library's printf. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <string.h>
#include "lib/fmt.h"

#define SAME(...) do { char a[128], b[128]; \
	int na = fmt_snprintf(a, sizeof(a), __VA_ARGS__); \
	int nb = snprintf(b, sizeof(b), __VA_ARGS__); \
	ck_assert_str_eq(a, b); ck_assert_int_eq(na, nb); } while (0)

START_TEST(test_basic)
{
	SAME("x=%d y=%u z=%x Z=%X", -42, 42u, 0xbeefu, 0xbeefu);
	SAME("%5d|%-5d|%05d|%-5s|%.3s", 7, 7, -7, "ab", "abcdef");
	SAME("%lx %llx %zu %hhx %hx", 0xffffffffffUL, 0x1234567890abcdefULL, (size_t)99,
	     0x1ff, 0x1ffff);
	SAME("%c%%%s", 'q', "end");
	SAME("%016llx", 0xabcULL);
	SAME("%#x %#X %#o %#lx %#x", 0x2bu, 0x2bu, 8u, 0x1000UL, 0u);
	SAME("%d %d", -2147483647 - 1, 2147483647);
	SAME("%lld", (long long)-9223372036854775807LL - 1);
}
END_TEST

START_TEST(test_truncation)
{
	char b[6];
	int n = fmt_snprintf(b, sizeof(b), "%s", "hello world");
	ck_assert_int_eq(n, 11);
	ck_assert_str_eq(b, "hello");
	ck_assert_int_eq(fmt_snprintf(NULL, 0, "%d", 12345), 5);
}
END_TEST

START_TEST(test_null_and_pointer)
{
	char b[64];
	const char *volatile np = NULL;
	fmt_snprintf(b, sizeof(b), "%s", np);
	ck_assert_str_eq(b, "(null)");
	fmt_snprintf(b, sizeof(b), "%p", (void *)0x1000);
	ck_assert_str_eq(b, "0x1000");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fmt");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_null_and_pointer);
	suite_add_tcase(s, tc);

	return check_run(s);
}
