/* Unit tests for halt polling (hv/sched/haltpoll.c): KVM's grow/shrink of
 * the per-vCPU window, the options, and the rule that a vCPU polls only while
 * its runqueue holds no RUNNABLE vCPU (core's nr_runnable, kept through
 * wakes, schedules and migrations) and no reschedule is pending. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "shim.h"
#include "errno.h"
#include "sched/policy.h"
#include "cmdline.h"

#define US(x) ((stime_t)(x) * 1000)

static const struct sched_haltpoll_opts kvm = {
	.max_ns = 200000, .grow = 2, .grow_start_ns = 10000, .shrink = 0,
};

START_TEST(test_grow_from_zero)
{
	/* A short halt with no window starts one at grow_start, then doubles. */
	ck_assert_int_eq(sched_halt_poll_next(&kvm, 0, US(50)), US(10));
	ck_assert_int_eq(sched_halt_poll_next(&kvm, US(10), US(50)), US(20));
	ck_assert_int_eq(sched_halt_poll_next(&kvm, US(20), US(50)), US(40));
	ck_assert_int_eq(sched_halt_poll_next(&kvm, US(40), US(50)), US(80));
	/* Caught by the poll: keep the window. */
	ck_assert_int_eq(sched_halt_poll_next(&kvm, US(80), US(50)), US(80));
	ck_assert_int_eq(sched_halt_poll_next(&kvm, US(80), US(80)), US(80));
	/* Grows but never past the maximum. */
	ck_assert_int_eq(sched_halt_poll_next(&kvm, US(160), US(190)), US(200));
	ck_assert_int_eq(sched_halt_poll_next(&kvm, US(200), US(199)), US(200));
}
END_TEST

START_TEST(test_shrink_on_long_halt)
{
	struct sched_haltpoll_opts o = kvm;

	/* Longer than the maximum: the poll was wasted; shrink = 0 resets. */
	ck_assert_int_eq(sched_halt_poll_next(&kvm, US(200), US(201)), 0);
	ck_assert_int_eq(sched_halt_poll_next(&kvm, US(40), US(5000)), 0);
	/* No window and a long halt: stays off. */
	ck_assert_int_eq(sched_halt_poll_next(&kvm, 0, US(5000)), 0);
	/* A divisor: halve, and below grow_start turn off. */
	o.shrink = 2;
	ck_assert_int_eq(sched_halt_poll_next(&o, US(200), US(300)), US(100));
	ck_assert_int_eq(sched_halt_poll_next(&o, US(15), US(300)), 0);
	/* A halt between the window and the max: grow (KVM's third case). */
	ck_assert_int_eq(sched_halt_poll_next(&o, US(100), US(150)), US(200));
}
END_TEST

START_TEST(test_off_and_no_grow)
{
	struct sched_haltpoll_opts o = kvm;

	o.max_ns = 0;   /* halt_poll_ns=0: no polling at all */
	ck_assert_int_eq(sched_halt_poll_next(&o, US(100), US(5)), 0);
	ck_assert_int_eq(sched_halt_poll_next(&o, 0, US(5)), 0);
	o = kvm;
	o.grow = 0;     /* never grows from 0 */
	ck_assert_int_eq(sched_halt_poll_next(&o, 0, US(5)), 0);
	/* A lowered maximum caps an existing window. */
	o = kvm;
	o.max_ns = US(50);
	ck_assert_int_eq(sched_halt_poll_next(&o, US(100), US(20)), US(50));
}
END_TEST

START_TEST(test_options)
{
	uint64_t save = sched_haltpoll.max_ns;

	ck_assert_int_eq(cmdline_parse("halt_poll_ns=0"), 0);
	ck_assert_int_eq(sched_haltpoll.max_ns, 0);
	ck_assert_int_eq(cmdline_parse("halt_poll_ns=50000 halt_poll_grow=4 halt_poll_shrink=2 "
				       "halt_poll_grow_start_ns=2000"), 0);
	ck_assert_int_eq(sched_haltpoll.max_ns, 50000);
	ck_assert_int_eq(sched_haltpoll.grow, 4);
	ck_assert_int_eq(sched_haltpoll.shrink, 2);
	ck_assert_int_eq(sched_haltpoll.grow_start_ns, 2000);
	ck_assert_int_ne(cmdline_parse("halt_poll_ns=-1"), 0);
	sched_haltpoll = kvm;
	sched_haltpoll.max_ns = save;
}
END_TEST

/* ---- with the core: who may poll ---- */
static stime_t fake_now;
static stime_t f_now(void *c) { return fake_now; }
static void f_timer(void *c, unsigned cpu, stime_t t) { }
static void f_kick(void *c, unsigned cpu) { }
static void f_inject(void *c, struct sched_vcpu *v, uint8_t vec) { }
static struct sched_shared_page *f_page(void *c, struct sched_vcpu *v) { return NULL; }
static const struct sched_platform fake_plat = {
	.now = f_now, .timer_arm = f_timer, .kick = f_kick, .inject = f_inject,
	.shared_page = f_page,
};
static struct sched_pcpu P[2];
static struct sched_vm VM;
static struct sched_vcpu V[3];

/* Two pCPUs; vCPUs 0 and 1 pinned to pCPU 0, vCPU 2 free. */
static void machine(void)
{
	struct sched_vm_params prm = { .weight = 256 };
	struct cpumask m;

	sched_options_defaults();
	sched_haltpoll = kvm;
	fake_now = 0;
	sched_platform_set(&fake_plat);
	ck_assert_int_eq(sched_init("credit"), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(sched_pcpu_add(&P[i], (unsigned)i, 0), 0);
	ck_assert_int_eq(sched_vm_add(&VM, 0, &prm), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(sched_vcpu_add(&V[i], &VM, (uint16_t)i, 0), 0);
		if (i < 2) {
			cpumask_zero(&m);
			cpumask_set(&m, 0);
			ck_assert_int_eq(sched_vcpu_affinity_set(&V[i], &m, 0), 0);
		}
	}
}

static struct sched_vcpu *sched_at(int cpu, stime_t t)
{
	stime_t until;

	fake_now = t;
	return sched_schedule(&P[cpu], t, &until);
}

START_TEST(test_poll_only_with_empty_runqueue)
{
	struct sched_vcpu *r;

	machine();
	sched_vcpu_start(&V[0], 0);
	sched_vcpu_start(&V[1], 0);
	ck_assert_uint_eq(P[0].nr_runnable, 2);
	r = sched_at(0, US(1));
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(P[0].nr_runnable, 1);
	/* The other vCPU waits on this runqueue: no polling, even with a window. */
	r->halt_poll_ns = US(100);
	ck_assert_int_eq(sched_halt_poll_begin(r, US(2)), 0);
	ck_assert(!sched_halt_poll_continue(r));
	/* The other one blocks (it runs, then halts): the runqueue empties. */
	sched_block(r, US(3));
	r = sched_at(0, US(3));
	ck_assert_uint_eq(P[0].nr_runnable, 0);
	ck_assert_int_eq(sched_halt_poll_begin(r, US(4)), 0);   /* its window is 0 */
	sched_halt_poll_update(r, US(5));                       /* a short halt: grow */
	ck_assert_int_eq(r->halt_poll_ns, US(10));
	ck_assert_int_eq(sched_halt_poll_begin(r, US(5)), US(10));
	ck_assert(sched_halt_poll_continue(r));
	/* The blocked sibling wakes onto this runqueue: polling must stop. */
	sched_wake(r == &V[0] ? &V[1] : &V[0], US(6));
	ck_assert_uint_eq(P[0].nr_runnable, 1);
	ck_assert(!sched_halt_poll_continue(r));
	sched_halt_poll_end(r, US(5), US(7), false);
	ck_assert_uint_eq(r->st.npoll, 1);
	ck_assert_uint_eq(r->st.npoll_ok, 0);
	ck_assert_int_eq(r->st.poll_time, US(2));
}
END_TEST

START_TEST(test_poll_stops_on_resched_and_off)
{
	struct sched_vcpu *r;

	machine();
	sched_vcpu_start(&V[0], 0);
	r = sched_at(0, US(1));
	ck_assert_ptr_eq(r, &V[0]);
	r->halt_poll_ns = US(50);
	ck_assert_int_eq(sched_halt_poll_begin(r, US(2)), US(50));
	P[0].need_resched = true;
	ck_assert(!sched_halt_poll_continue(r));
	ck_assert_int_eq(sched_halt_poll_begin(r, US(2)), 0);
	P[0].need_resched = false;
	sched_haltpoll.max_ns = 0;          /* halt_poll_ns=0 */
	ck_assert_int_eq(sched_halt_poll_begin(r, US(3)), 0);
	sched_haltpoll.max_ns = US(20);     /* the window is capped by the maximum */
	ck_assert_int_eq(sched_halt_poll_begin(r, US(3)), US(20));
	sched_halt_poll_end(r, US(3), US(4), true);
	ck_assert_uint_eq(r->st.npoll_ok, 1);
	/* A vCPU that is not RUNNING on its pCPU never polls. */
	ck_assert_int_eq(sched_halt_poll_begin(&V[1], US(5)), 0);
}
END_TEST

START_TEST(test_runnable_count_follows_migration)
{
	struct sched_vcpu *r0, *r1;

	machine();
	/* vCPU 2 (free) starts and may be placed on either pCPU; the counts
	 * over both runqueues always equal the RUNNABLE vCPUs. */
	sched_vcpu_start(&V[2], 0);
	sched_vcpu_start(&V[0], 0);
	ck_assert_uint_eq(P[0].nr_runnable + P[1].nr_runnable, 2);
	r1 = sched_at(1, US(1));   /* pCPU 1 may steal vCPU 2 */
	r0 = sched_at(0, US(1));
	ck_assert_uint_eq(P[0].nr_runnable + P[1].nr_runnable,
			  (unsigned)(V[0].state == SCHED_RUNNABLE) + (V[2].state == SCHED_RUNNABLE));
	if (r1) {
		ck_assert_ptr_eq(r1, &V[2]);
		ck_assert_uint_eq(P[1].nr_runnable, 0);
	}
	ck_assert_ptr_nonnull(r0);
	sched_vcpu_pause(&V[2], US(2));
	sched_vcpu_pause(&V[0], US(2));
	ck_assert_uint_eq(P[0].nr_runnable + P[1].nr_runnable, 0);
}
END_TEST

START_TEST(test_no_poll_while_other_runqueue_waits)
{
	struct cpumask m;

	machine();
	sched_vcpu_start(&V[0], 0);
	ck_assert_ptr_eq(sched_at(0, US(1)), &V[0]);
	V[0].halt_poll_ns = US(50);
	ck_assert(sched_halt_poll_continue(&V[0]));
	/* vCPU 2 queued on pCPU 1 (not yet run there): pCPU 0, idle, would
	 * steal it, so vCPU 0 must not poll. */
	cpumask_zero(&m);
	cpumask_set(&m, 1);
	ck_assert_int_eq(sched_vcpu_affinity_set(&V[2], &m, US(1)), 0);
	sched_vcpu_start(&V[2], US(2));
	ck_assert_uint_eq(P[1].nr_runnable, 1);
	ck_assert_int_eq(sched_nr_runnable, 1);
	ck_assert(!sched_halt_poll_continue(&V[0]));
	ck_assert_int_eq(sched_halt_poll_begin(&V[0], US(2)), 0);
	/* Once pCPU 1 runs it, polling is fine again. */
	ck_assert_ptr_eq(sched_at(1, US(3)), &V[2]);
	ck_assert_int_eq(sched_nr_runnable, 0);
	ck_assert(sched_halt_poll_continue(&V[0]));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("haltpoll");
	TCase *tc = tcase_create("haltpoll");

	tcase_add_test(tc, test_grow_from_zero);
	tcase_add_test(tc, test_shrink_on_long_halt);
	tcase_add_test(tc, test_off_and_no_grow);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_poll_only_with_empty_runqueue);
	tcase_add_test(tc, test_poll_stops_on_resched_and_off);
	tcase_add_test(tc, test_runnable_count_follows_migration);
	tcase_add_test(tc, test_no_poll_while_other_runqueue_waits);
	suite_add_tcase(s, tc);
	return check_run(s);
}
