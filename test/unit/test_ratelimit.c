/* ratelimit: the per-VM bucket of hypercall console output (issue 10). */
#include <check.h>
#include "check_run.h"
#include "lib/ratelimit.h"

#define MS 1000000ll

START_TEST(test_burst_then_drop)
{
	struct ratelimit rl;
	int ok = 0;

	ratelimit_init(&rl, 4, 100 * MS, 0);
	for (int i = 0; i < 10; i++)
		ok += ratelimit_take(&rl, 0);
	ck_assert_int_eq(ok, 4);
	ck_assert_uint_eq(rl.dropped, 6);
	ck_assert_uint_eq(ratelimit_unreported(&rl), 6);
	ck_assert_uint_eq(ratelimit_unreported(&rl), 0);
}
END_TEST

START_TEST(test_refill)
{
	struct ratelimit rl;
	int ok = 0;

	ratelimit_init(&rl, 2, 100 * MS, 1000 * MS);
	ck_assert(ratelimit_take(&rl, 1000 * MS));
	ck_assert(ratelimit_take(&rl, 1000 * MS));
	ck_assert(!ratelimit_take(&rl, 1050 * MS));      /* half a token */
	ck_assert(ratelimit_take(&rl, 1100 * MS));       /* one */
	ck_assert(!ratelimit_take(&rl, 1150 * MS));      /* the half left over is kept ... */
	ck_assert(ratelimit_take(&rl, 1200 * MS));       /* ... and completes here */
	/* A long pause refills to the burst, not beyond. */
	for (int i = 0; i < 10; i++)
		ok += ratelimit_take(&rl, 100000 * MS);
	ck_assert_int_eq(ok, 2);
	/* A flood at 1 kHz for 10 s gets burst + 10 s / interval through. */
	ratelimit_init(&rl, 8, 1000 * MS, 0);
	ok = 0;
	for (long t = 0; t < 10000; t++)
		ok += ratelimit_take(&rl, t * MS);
	ck_assert_int_eq(ok, 8 + 9);
	ck_assert_uint_eq(rl.dropped, 10000 - 17);
}
END_TEST

START_TEST(test_time_backwards)
{
	struct ratelimit rl;

	ratelimit_init(&rl, 1, 10 * MS, 500 * MS);
	ck_assert(ratelimit_take(&rl, 500 * MS));
	ck_assert(!ratelimit_take(&rl, 400 * MS));   /* another pCPU's older clock */
	ck_assert(ratelimit_take(&rl, 510 * MS));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ratelimit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_burst_then_drop);
	tcase_add_test(tc, test_refill);
	tcase_add_test(tc, test_time_backwards);
	suite_add_tcase(s, tc);
	return check_run(s);
}
