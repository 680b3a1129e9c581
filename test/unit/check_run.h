/* The main() body every check-based unit test shares: run the suite with the
 * default (forking) runner, print its summary, exit 1 if anything failed. */
#ifndef TEST_UNIT_CHECK_RUN_H
#define TEST_UNIT_CHECK_RUN_H
#include <check.h>

static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
#endif
