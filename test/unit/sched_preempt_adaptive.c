/* test_sched_preempt, adaptive delayed preemption (seed 001 §5.1, eq. 1-2;
 * hv/sched/dp_ds.c): the arithmetic and its bounds, t_fair, whose delay a
 * hold uses, the per-period updates, and the readings behind options. */
#include "sched_preempt.h"

/* Seed 001 eq. 1-2 arithmetic and bounds. */
START_TEST(test_dp_equations)
{
	/* lag = (6 - 5) / (6 + 4) = 0.1; delay = 1000us + 0.1 * (1000 + 10)us. */
	ck_assert_int_eq(sched_dp_update(US(1000), MS(6), MS(4), MS(5), 0, MS(20)),
			 US(1000) + US(101));
	/* Negative lag shrinks: (3 - 5) / 10 = -0.2 -> 1000 - 0.2 * 1010 = 798 us. */
	ck_assert_int_eq(sched_dp_update(US(1000), MS(3), MS(7), MS(5), 0, MS(20)), US(798));
	/* From zero the 10 us term still moves it: 0 + 0.5 * 10 us. */
	ck_assert_int_eq(sched_dp_update(0, MS(10), 0, MS(5), 0, MS(20)), US(5));
	/* Bounds. */
	ck_assert_int_eq(sched_dp_update(MS(19), MS(10), 0, 0, 0, MS(20)), MS(20));
	ck_assert_int_eq(sched_dp_update(US(100), 0, MS(10), MS(10), US(50), MS(20)), US(50));
	/* An empty period leaves it alone. */
	ck_assert_int_eq(sched_dp_update(US(700), 0, 0, 0, 0, MS(20)), US(700));
	/* Sign: exactly the fair share (lag 0) keeps the delay, from 0 too. */
	ck_assert_int_eq(sched_dp_update(US(700), MS(15), MS(15), MS(15), 0, MS(20)), US(700));
	ck_assert_int_eq(sched_dp_update(0, MS(15), MS(15), MS(15), 0, MS(20)), 0);
	/* Under the fair share from 0: eq. 2 would go to -lag x 10 us < 0; the
	 * lower bound (0 by default: the paper lets the delay "become zero")
	 * holds it there, so an under-served waker never waits. */
	ck_assert_int_eq(sched_dp_update(0, MS(6), MS(24), MS(15), 0, MS(20)), 0);
	/* The largest fall, lag -1 (no compute, fair = the whole span): delay
	 * - (delay + 10 us), below any delay, so the lower bound. */
	ck_assert_int_eq(sched_dp_update(MS(5), 0, MS(30), MS(30), US(100), MS(20)), US(100));
	/* The largest rise, lag +1: delay + delay + 10 us. */
	ck_assert_int_eq(sched_dp_update(MS(5), MS(30), 0, 0, 0, MS(20)), MS(10) + US(10));
	/* Multiplicative: +1/6 then -1/6 (a 10 ms on / 10 ms off loop's 30 ms
	 * periods, 20 then 10 ms of compute against 15) lands below the start. */
	ck_assert_int_lt(sched_dp_update(sched_dp_update(MS(8), MS(20), MS(10), MS(15), 0, MS(20)),
					 MS(10), MS(20), MS(15), 0, MS(20)), MS(8));
}
END_TEST

/* t_fair of eq. 1 (sched_dp_fair): the VM weight share of the machine over
 * the active vCPUs, at most one pCPU. */
START_TEST(test_dp_fair_share)
{
	/* Seed 001 §3.1/§5: two equal 4-vCPU VMs on 4 pCPUs: half of each
	 * vCPU's wall time. */
	ck_assert_int_eq(sched_dp_fair(MS(30), 4, 256, 8 * 256), MS(15));
	/* Weights 512 : 256, one vCPU each on one pCPU: 2/3 and 1/3. */
	ck_assert_int_eq(sched_dp_fair(MS(30), 1, 512, 768), MS(20));
	ck_assert_int_eq(sched_dp_fair(MS(30), 1, 256, 768), MS(10));
	/* Fewer active vCPUs than pCPUs: one pCPU each at most. */
	ck_assert_int_eq(sched_dp_fair(MS(30), 4, 256, 2 * 256), MS(30));
	/* Nothing active or an empty span. */
	ck_assert_int_eq(sched_dp_fair(MS(30), 4, 256, 0), 0);
	ck_assert_int_eq(sched_dp_fair(0, 4, 256, 256), 0);
	/* No overflow for long spans, many pCPUs and the largest weight. */
	ck_assert_int_eq(sched_dp_fair(MS(10000), 64, 65535, 128ull * 65535), MS(5000));
}
END_TEST

/* Adaptive DP holds a wake-up for the *waker's* own delay ("the delay a
 * vCPU waits to preempt the current running vCPU"), not the running one's. */
START_TEST(test_dp_adaptive_waker_delay)
{
	struct sched_vcpu *a, *b;

	ck_assert_int_eq(sched_option_set("sched_dp", "adaptive"), 0);
	setup_machine(1, false);
	a = sched_at(0);
	b = other(a);
	a->dp_delay = MS(3);
	b->dp_delay = MS(7);
	sched_block(a, MS(1));
	ck_assert_ptr_eq(sched_at(MS(1)), b);
	sched_wake(a, MS(2));                       /* BOOST: would preempt b */
	ck_assert_ptr_eq(sched_at(MS(2)), b);
	ck_assert_int_eq(P[0].dp_until, MS(5));     /* a's 3 ms, not b's 7 */
	ck_assert(sched_timer_fire(&P[0], MS(5)));
	ck_assert_ptr_eq(sched_at(MS(5)), a);
	/* A waker whose delay is 0 preempts at once, whatever prev's. */
	a->dp_delay = 0;
	sched_block(a, MS(6));
	ck_assert_ptr_eq(sched_at(MS(6)), b);
	sched_wake(a, MS(7));
	ck_assert_ptr_eq(sched_at(MS(7)), a);
	ck_assert_int_eq(P[0].dp_until, STIME_MAX);
	ck_assert_int_eq(b->st.ndelayed, 1);        /* held once, as prev */
	ck_assert_int_eq(b->st.npreempt, 2);
}
END_TEST

/* Adaptive DP end to end: per-vCPU delays follow eq. 1-2 every accounting
 * period, are reported as VPE_DP_DELAY, and the waker's own delay is used. */
START_TEST(test_dp_adaptive)
{
	struct sched_vcpu *a, *b;
	stime_t t;

	ck_assert_int_eq(sched_option_set("sched_dp", "adaptive"), 0);
	ck_assert_int_eq(sched_option_set("sched_dp", "bogus"), -EINVAL);
	ck_assert_int_eq(sched_option_set("sched_dp_us", "1000"), 0);
	ck_assert_int_eq(sched_opts.dp_mode, SCHED_DP_ADAPTIVE);
	ck_assert_int_eq(sched_option_set("sched_dp_max_us", "5000"), 0);
	setup_machine(1, false);
	ck_assert_int_eq(V[0].dp_delay, US(1000));
	a = sched_at(0);
	b = other(a);
	/* a hogs the pCPU for the whole first period, b waits: a's lag is
	 * (30 - 15) / 30 = 0.5, b's (0 - 15) / 30 = -0.5. */
	t = sched_sys.next_acct;
	ck_assert_int_eq(t, MS(30));
	sched_timer_fire(&P[0], t);
	ck_assert_int_eq(a->dp_delay, US(1000) + (US(1010) / 2));
	ck_assert_int_eq(b->dp_delay, US(1000) - (US(1010) / 2));
	ck_assert_int_eq(vprof_stub_events[VPE_DP_DELAY], 2);
	/* The upper bound holds after many periods of the same. */
	for (int i = 0; i < 20; i++) {
		t += MS(30);
		sched_at(t - MS(1));
		sched_timer_fire(&P[0], t);
	}
	ck_assert_int_le(a->dp_delay, MS(5));
	ck_assert_int_le(b->dp_delay, MS(5));
	ck_assert_int_ge(a->dp_delay, 0);
}
END_TEST

/* The readings of eq. 1 behind options (docs/sched.md "Adaptive DP against
 * the paper"): sched_dp_scope=vm gives every vCPU of a VM the VM's lag (sums
 * of t_comp, t_idle, t_fair); sched_dp_idle=pcpu takes t_idle from the
 * vCPU's pCPU's idle time, t_fair still from the vCPU's wall time. */
START_TEST(test_dp_adaptive_readings)
{
	struct sched_vcpu *a, *sib, *b;

	ck_assert_int_eq(sched_option_set("sched_dp", "adaptive"), 0);
	ck_assert_int_eq(sched_option_set("sched_dp_us", "1000"), 0);
	ck_assert_int_eq(sched_option_set("sched_dp_scope", "vm"), 0);
	ck_assert_int_eq(sched_option_set("sched_dp_scope", "app"), -EINVAL);
	setup_machine(2, false);
	a = sched_at(0);
	sib = a == &V[0] ? &V[1] : a == &V[1] ? &V[0] : a == &V[2] ? &V[3] : &V[2];
	b = a->vm == &VM[0] ? &V[2] : &V[0];
	/* a runs the 30 ms period, the other three wait; t_fair = 30 / 4 each.
	 * a's VM: (30 - 15) / 60 = +0.25, the other VM (0 - 15) / 60 = -0.25
	 * (per vCPU a would get +0.75 and its sibling -0.25). */
	sched_timer_fire(&P[0], MS(30));
	ck_assert_int_eq(a->dp_delay, US(1000) + US(1010) / 4);
	ck_assert_int_eq(sib->dp_delay, a->dp_delay);
	ck_assert_int_eq(b->dp_delay, US(1000) - US(1010) / 4);
	ck_assert_int_eq(vprof_stub_events[VPE_DP_DELAY], 4);
}
END_TEST

START_TEST(test_dp_adaptive_pcpu_idle)
{
	struct sched_vcpu *a, *b;
	stime_t da, db;

	ck_assert_int_eq(sched_option_set("sched_dp", "adaptive"), 0);
	ck_assert_int_eq(sched_option_set("sched_dp_us", "1000"), 0);
	ck_assert_int_eq(sched_option_set("sched_dp_idle", "pcpu"), 0);
	setup_machine(1, false);
	a = sched_at(0);
	b = other(a);
	/* Period 1: a runs throughout, the pCPU never idles: a's lag (30 - 15)
	 * / (30 + 0) = +0.5 as per vCPU; b's span t_comp + t_idle is 0, so its
	 * delay stays (per vCPU it would fall by half). */
	sched_timer_fire(&P[0], MS(30));
	ck_assert_int_eq(a->dp_delay, US(1000) + US(1010) / 2);
	ck_assert_int_eq(b->dp_delay, US(1000));
	da = a->dp_delay;
	db = b->dp_delay;
	/* Period 2: a runs 1 ms and blocks, b runs 14 ms and blocks, the pCPU
	 * idles 15 ms: t_idle = 15 ms for both, t_fair = 15 ms (half the wall). */
	sched_block(a, MS(31));
	ck_assert_ptr_eq(sched_at(MS(31)), b);
	sched_block(b, MS(45));
	ck_assert_ptr_null(sched_at(MS(45)));
	sched_timer_fire(&P[0], MS(60));
	ck_assert_int_eq(a->dp_delay, sched_dp_update(da, MS(1), MS(15), MS(15), 0, MS(20)));
	ck_assert_int_eq(b->dp_delay, sched_dp_update(db, MS(14), MS(15), MS(15), 0, MS(20)));
}
END_TEST

void sched_preempt_adaptive_add(TCase *tc)
{
	tcase_add_test(tc, test_dp_equations);
	tcase_add_test(tc, test_dp_adaptive);
	tcase_add_test(tc, test_dp_fair_share);
	tcase_add_test(tc, test_dp_adaptive_waker_delay);
	tcase_add_test(tc, test_dp_adaptive_readings);
	tcase_add_test(tc, test_dp_adaptive_pcpu_idle);
}
