/* Serial console keys (hv/console_keys.c): which bytes act, and the poll
 * rate limiter that keeps the BSP's COM1 reads to one per period. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "console_keys.h"

START_TEST(test_decode_keys)
{
	ck_assert_int_eq(ckey_decode('v'), CKEY_VPROF_DUMP);
	ck_assert_int_eq(ckey_decode('w'), CKEY_STATE_DUMP);
	ck_assert_int_eq(ckey_decode('?'), CKEY_HELP);
}
END_TEST

/* Every other byte, line noise and "no byte" (-1) included, does nothing. */
START_TEST(test_decode_ignores_the_rest)
{
	int acting = 0;

	for (int b = -1; b < 256; b++)
		if (ckey_decode(b) != CKEY_NONE)
			acting++;
	ck_assert_int_eq(acting, 5);
	ck_assert_int_eq(ckey_decode('V'), CKEY_NONE);
	ck_assert_int_eq(ckey_decode('\r'), CKEY_NONE);
	ck_assert_int_eq(ckey_decode(0x76 | 0x100), CKEY_NONE);
}
END_TEST

START_TEST(test_help_names_every_key)
{
	const char *h = ckey_help();

	ck_assert_ptr_nonnull(strstr(h, "v ="));
	ck_assert_ptr_nonnull(strstr(h, "w ="));
	ck_assert_ptr_nonnull(strstr(h, "? ="));
	ck_assert_ptr_nonnull(strstr(h, "s ="));
	ck_assert_ptr_nonnull(strstr(h, "m ="));
	ck_assert_ptr_eq(strchr(h, '\n'), h + strlen(h) - 1);   /* one line */
}
END_TEST

/* 's' then a key: the policy switch sequence; anything else cancels it,
 * and single keys keep working between sequences. */
START_TEST(test_sched_sequence)
{
	struct ckey_seq q = { 0 };
	int arg = -1;

	ck_assert_int_eq(ckey_feed(&q, 's', &arg), CKEY_SCHED_MENU);
	ck_assert_int_eq(ckey_feed(&q, '3', &arg), CKEY_SCHED_SWITCH);
	ck_assert_int_eq(arg, 3);
	ck_assert_int_eq(ckey_feed(&q, '3', &arg), CKEY_NONE);   /* a lone digit: nothing */
	ck_assert_int_eq(ckey_feed(&q, 's', &arg), CKEY_SCHED_MENU);
	ck_assert_int_eq(ckey_feed(&q, 'b', &arg), CKEY_SCHED_SWITCH);
	ck_assert_int_eq(arg, 11);
	ck_assert_int_eq(ckey_feed(&q, 's', &arg), CKEY_SCHED_MENU);
	ck_assert_int_eq(ckey_feed(&q, '\r', &arg), CKEY_SCHED_CANCEL);
	ck_assert_int_eq(ckey_feed(&q, 'w', &arg), CKEY_STATE_DUMP);
	ck_assert_int_eq(ckey_feed(&q, 's', &arg), CKEY_SCHED_MENU);
	ck_assert_int_eq(ckey_feed(&q, '!', &arg), CKEY_SCHED_CANCEL);
	ck_assert_int_eq(ckey_feed(&q, 'v', &arg), CKEY_VPROF_DUMP);
	ck_assert_int_eq(ckey_policy_key(0), '0');
	ck_assert_int_eq(ckey_policy_key(10), 'a');
	ck_assert_int_eq(ckey_policy_key(36), 0);
}
END_TEST

/* 'm', a VM digit, a policy key: move that VM (hv/sched/vmpolicy.c). */
START_TEST(test_vm_move_sequence)
{
	struct ckey_seq q = { 0 };
	int arg = -1;

	ck_assert_int_eq(ckey_feed(&q, 'm', &arg), CKEY_VM_MENU);
	ck_assert_int_eq(ckey_feed(&q, '2', &arg), CKEY_VM_PICKED);
	ck_assert_int_eq(arg, 2);
	ck_assert_int_eq(ckey_feed(&q, 'b', &arg), CKEY_VM_MOVE);
	ck_assert_int_eq(arg, 2 << 8 | 11);
	ck_assert_int_eq(ckey_feed(&q, '4', &arg), CKEY_NONE);   /* sequence over */
	ck_assert_int_eq(ckey_feed(&q, 'm', &arg), CKEY_VM_MENU);
	ck_assert_int_eq(ckey_feed(&q, 'x', &arg), CKEY_SCHED_CANCEL);   /* not a VM id */
	ck_assert_int_eq(ckey_feed(&q, 'm', &arg), CKEY_VM_MENU);
	ck_assert_int_eq(ckey_feed(&q, '0', &arg), CKEY_VM_PICKED);
	ck_assert_int_eq(ckey_feed(&q, '!', &arg), CKEY_SCHED_CANCEL);   /* not a policy key */
	ck_assert_int_eq(ckey_feed(&q, 's', &arg), CKEY_SCHED_MENU);   /* other sequences still work */
	ck_assert_int_eq(ckey_feed(&q, '1', &arg), CKEY_SCHED_SWITCH);
	ck_assert_int_eq(arg, 1);
}
END_TEST

START_TEST(test_rate_once_per_period)
{
	struct ckey_rate r;
	int due = 0;

	ckey_rate_init(&r, CKEY_PERIOD_NS, 1000);
	ck_assert(ckey_rate_due(&r, 1000));             /* first poll at once */
	ck_assert(!ckey_rate_due(&r, 1000));
	ck_assert(!ckey_rate_due(&r, 1000 + CKEY_PERIOD_NS - 1));
	ck_assert(ckey_rate_due(&r, 1000 + CKEY_PERIOD_NS));
	/* Called every microsecond for one second: 100 polls, not a million. */
	ckey_rate_init(&r, CKEY_PERIOD_NS, 0);
	for (stime_t t = 0; t < 1000000000ll; t += 1000)
		due += ckey_rate_due(&r, t);
	ck_assert_int_eq(due, 100);
}
END_TEST

/* A long gap (idle halt, a dump) gives one poll, then the period again. */
START_TEST(test_rate_no_catch_up_burst)
{
	struct ckey_rate r;

	ckey_rate_init(&r, 10, 0);
	ck_assert(ckey_rate_due(&r, 0));
	ck_assert(ckey_rate_due(&r, 1000));
	ck_assert(!ckey_rate_due(&r, 1001));
	ck_assert(!ckey_rate_due(&r, 1009));
	ck_assert(ckey_rate_due(&r, 1010));
	ck_assert_int_eq(r.next, 1020);
}
END_TEST

START_TEST(test_rate_bad_period)
{
	struct ckey_rate r;

	ckey_rate_init(&r, 0, 5);
	ck_assert(ckey_rate_due(&r, 5));
	ck_assert(!ckey_rate_due(&r, 5));
	ck_assert(ckey_rate_due(&r, 6));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("console_keys");
	TCase *tc = tcase_create("keys");

	tcase_add_test(tc, test_decode_keys);
	tcase_add_test(tc, test_decode_ignores_the_rest);
	tcase_add_test(tc, test_help_names_every_key);
	tcase_add_test(tc, test_sched_sequence);
	tcase_add_test(tc, test_vm_move_sequence);
	tcase_add_test(tc, test_rate_once_per_period);
	tcase_add_test(tc, test_rate_no_catch_up_burst);
	tcase_add_test(tc, test_rate_bad_period);
	suite_add_tcase(s, tc);

	return check_run(s);
}
