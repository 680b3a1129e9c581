/* Unit tests for the preemption path (hv/sched/preempt.c, schedule.c):
 * delayed preemption only for wake-ups (seed 001 §5.1; adaptive DP, eq. 1-2:
 * sched_preempt_adaptive.c),
 * differential-slice draw points (§5.2), and the DP + SA ordering
 * (seed 000 Alg. 1). Credit on fake pCPUs and a fake clock. */
#include "check_run.h"
#include "sched_preempt.h"

stime_t fake_now;
stime_t fake_timer[4];
static int fake_injected;
static struct sched_shared_page fake_page;

static stime_t f_now(void *c) { return fake_now; }
static void f_timer(void *c, unsigned cpu, stime_t t) { fake_timer[cpu] = t; }
static void f_kick(void *c, unsigned cpu) { }
static void f_inject(void *c, struct sched_vcpu *v, uint8_t vec) { fake_injected++; }
static struct sched_shared_page *f_page(void *c, struct sched_vcpu *v) { return &fake_page; }

static const struct sched_platform fake_plat = {
	.now = f_now, .timer_arm = f_timer, .kick = f_kick, .inject = f_inject,
	.shared_page = f_page,
};

struct sched_pcpu P[2];
struct sched_vm VM[2];
struct sched_vcpu V[4];

void setup_machine(int nv, bool sa)
{
	struct sched_vm_params prm = { .weight = 256, .sa = sa };

	fake_now = 0;
	memset(fake_timer, 0, sizeof(fake_timer));
	memset(&fake_page, 0, sizeof(fake_page));
	fake_injected = 0;
	sched_platform_set(&fake_plat);
	ck_assert_int_eq(sched_init("credit"), 0);
	ck_assert_int_eq(sched_pcpu_add(&P[0], 0, 0), 0);
	for (int d = 0; d < 2; d++) {
		ck_assert_int_eq(sched_vm_add(&VM[d], (uint16_t)d, &prm), 0);
		for (int i = 0; i < nv; i++) {
			struct sched_vcpu *v = &V[d * 2 + i];

			ck_assert_int_eq(sched_vcpu_add(v, &VM[d], (uint16_t)i, 0), 0);
			sched_vcpu_start(v, 0);
		}
	}
}

struct sched_vcpu *sched_at(stime_t t)
{
	stime_t until;

	fake_now = t;
	return sched_schedule(&P[0], t, &until);
}

struct sched_vcpu *other(struct sched_vcpu *a)
{
	return a == &V[0] ? &V[2] : &V[0];
}

static void setup(void)
{
	sched_options_defaults();
	shim_reset_logs();
	memset(vprof_stub_events, 0, sizeof(vprof_stub_events));
}

/* The hook is told which vCPU preempts. */
static struct sched_vcpu *seen_waker, *seen_prev;
static stime_t hook_delay(struct sched_pcpu *p, struct sched_vcpu *prev, struct sched_vcpu *waker,
			  stime_t now)
{
	seen_waker = waker;
	seen_prev = prev;
	return MS(2);
}
static const struct sched_hooks test_hooks = { .name = "test", .preempt_delay = hook_delay };

START_TEST(test_dp_wake_told_waker)
{
	struct sched_vcpu *a, *b;

	setup_machine(1, false);
	sched_hooks_set(&test_hooks);
	seen_waker = seen_prev = NULL;
	a = sched_at(0);
	b = other(a);
	sched_block(a, MS(1));
	ck_assert_ptr_eq(sched_at(MS(1)), b);
	sched_wake(a, MS(3));                       /* BOOST: preempts b */
	ck_assert(sched_need_resched(&P[0]));
	ck_assert_ptr_eq(sched_at(MS(3)), b);       /* delayed */
	ck_assert_ptr_eq(seen_waker, a);
	ck_assert_ptr_eq(seen_prev, b);
	ck_assert_int_eq(fake_timer[0], MS(5));     /* one-shot at now + delay */
	ck_assert_int_eq(vprof_stub_events[VPE_DELAY_PREEMPT], 1);
	ck_assert(sched_timer_fire(&P[0], MS(5)));
	ck_assert_ptr_eq(sched_at(MS(5)), a);
	ck_assert_int_eq(b->st.npreempt, 1);
}
END_TEST

/* Slice expiry is never delayed (the old code delayed every preemption). */
START_TEST(test_dp_not_on_slice_expiry)
{
	struct sched_vcpu *a;

	ck_assert_int_eq(sched_option_set("sched_dp_us", "2000"), 0);
	ck_assert_int_eq(sched_opts.dp_mode, SCHED_DP_FIXED);
	setup_machine(1, false);
	a = sched_at(0);
	ck_assert(sched_timer_fire(&P[0], MS(30)));
	ck_assert_ptr_ne(sched_at(MS(30)), a);
	ck_assert_int_eq(a->st.ndelayed, 0);
	ck_assert_int_eq(vprof_stub_events[VPE_DELAY_PREEMPT], 0);
}
END_TEST

/* A block (or yield) of the running vCPU cancels the delay at once. */
START_TEST(test_dp_cancelled_by_block)
{
	struct sched_vcpu *a, *b;

	sched_option_set("sched_dp_us", "4000");
	setup_machine(1, false);
	a = sched_at(0);
	b = other(a);
	sched_block(a, MS(1));
	ck_assert_ptr_eq(sched_at(MS(1)), b);
	sched_wake(a, MS(2));
	ck_assert_ptr_eq(sched_at(MS(2)), b);
	ck_assert_int_eq(P[0].dp_until, MS(6));
	sched_block(b, MS(3));                      /* voluntary: the timer stops */
	ck_assert_ptr_eq(sched_at(MS(3)), a);
	ck_assert_int_eq(P[0].hold_until, STIME_MAX);
	ck_assert_int_eq(P[0].dp_until, STIME_MAX);
	ck_assert_int_ne(fake_timer[0], MS(6));
	ck_assert_int_eq(b->st.npreempt, 0);
	/* The tick at 10 ms ends a's BOOST; b's wake then preempts it (delayed
	 * to 15 ms), and a second wake during the hold does not restart it. */
	sched_timer_fire(&P[0], MS(10));
	sched_wake(b, MS(11));
	ck_assert_ptr_eq(sched_at(MS(11)), a);
	ck_assert_int_eq(P[0].dp_until, MS(15));
	ck_assert_int_eq(a->st.ndelayed, 1);
	sched_cpu_resched(0);
	P[0].resched_hard = false;                  /* as a wake's request */
	ck_assert_ptr_eq(sched_at(MS(13)), a);
	ck_assert_int_eq(P[0].dp_until, MS(15));
	ck_assert_int_eq(a->st.ndelayed, 1);
}
END_TEST

/* A reschedule that is not a wake's (cap, co-scheduling signal) ends the
 * delay at once. */
START_TEST(test_dp_hard_request_not_delayed)
{
	struct sched_vcpu *a, *b;

	sched_option_set("sched_dp_us", "4000");
	setup_machine(1, false);
	a = sched_at(0);
	b = other(a);
	sched_block(a, MS(1));
	ck_assert_ptr_eq(sched_at(MS(1)), b);
	sched_wake(a, MS(2));
	ck_assert_ptr_eq(sched_at(MS(2)), b);       /* delayed */
	sched_cpu_resched(0);                       /* e.g. a co-scheduling signal */
	ck_assert_ptr_eq(sched_at(MS(2) + US(10)), a);
	ck_assert_int_eq(b->st.npreempt, 1);
	/* A hard request at the wake itself is not delayed either. */
	sched_block(a, MS(3));
	ck_assert_ptr_eq(sched_at(MS(3)), b);
	sched_cpu_resched(0);
	sched_wake(a, MS(4));
	ck_assert_ptr_eq(sched_at(MS(4)), a);
}
END_TEST

/* A delay never runs past the slice end. */
START_TEST(test_dp_bounded_by_slice)
{
	struct sched_vcpu *a, *b;

	sched_option_set("sched_dp_us", "20000");
	setup_machine(1, false);
	a = sched_at(0);
	b = other(a);
	sched_block(a, MS(1));
	ck_assert_ptr_eq(sched_at(MS(1)), b);       /* slice ends at 31 ms */
	sched_wake(a, MS(25));
	ck_assert_ptr_eq(sched_at(MS(25)), b);
	ck_assert_int_eq(P[0].dp_until, MS(45));
	ck_assert(!sched_timer_fire(&P[0], MS(30)));   /* accounting tick only */
	ck_assert_int_eq(fake_timer[0], MS(31));
	ck_assert(sched_timer_fire(&P[0], MS(31)));
	ck_assert_ptr_eq(sched_at(MS(31)), a);
}
END_TEST

/* DP + SA: the upcall goes out at the decision; the earliest of ack, delay
 * and SA limit ends the hold. */
START_TEST(test_dp_sa_ordering)
{
	struct sched_vcpu *a, *b;

	sched_option_set("sched_dp_us", "2000");
	sched_option_set("sched_sa_limit_us", "5000");
	setup_machine(1, true);
	a = sched_at(0);
	b = other(a);
	sched_sa_register(&V[0], 0xf0);
	sched_sa_register(&V[2], 0xf0);
	sched_block(a, MS(1));
	ck_assert_ptr_eq(sched_at(MS(1)), b);
	sched_wake(a, MS(2));
	ck_assert_ptr_eq(sched_at(MS(2)), b);
	ck_assert_int_eq(fake_injected, 1);         /* upcall at the decision */
	ck_assert_int_eq(fake_page.sa_pending, 1);
	ck_assert_int_eq(b->st.ndelayed, 1);
	ck_assert_int_eq(fake_timer[0], MS(4));     /* delay (2 ms) < SA limit (5 ms) */
	ck_assert(sched_timer_fire(&P[0], MS(4)));
	ck_assert_ptr_eq(sched_at(MS(4)), a);       /* delay ended it */
	ck_assert_int_eq(b->flags & SCHED_VF_SA_PEND, 0);  /* moot, cleared */
	ck_assert_int_eq(b->st.nsa_timeout, 0);
	/* Now the ack comes first. */
	sched_block(a, MS(5));
	ck_assert_ptr_eq(sched_at(MS(5)), b);
	sched_wake(a, MS(6));
	ck_assert_ptr_eq(sched_at(MS(6)), b);
	ck_assert_int_eq(fake_injected, 2);
	ck_assert_int_eq(sched_sa_ack(b, HV_SA_ACK_YIELD, b->sa_seq, MS(6) + US(300)), 0);
	ck_assert(sched_need_resched(&P[0]));
	ck_assert_ptr_eq(sched_at(MS(6) + US(300)), a);
	/* And the SA limit first (delay 8 ms > limit 5 ms). */
	sched_opts.dp_delay = MS(8);
	sched_block(a, MS(7));
	ck_assert_ptr_eq(sched_at(MS(7)), b);
	sched_wake(a, MS(8));
	ck_assert_ptr_eq(sched_at(MS(8)), b);
	ck_assert(!sched_timer_fire(&P[0], MS(10)));   /* the tick */
	ck_assert_int_eq(fake_timer[0], MS(13));
	ck_assert(sched_timer_fire(&P[0], MS(13)));
	ck_assert_ptr_eq(sched_at(MS(13)), a);
	ck_assert_int_eq(b->st.nsa_timeout, 1);
}
END_TEST

/* An SA hold (no DP part) that began before the slice end and outlasts it:
 * the slice end is no deadline for it, the timer goes to the SA limit. The
 * timer used to be re-armed at the slice end, already past, for ever (hvsim
 * balloon-sa-4.wl; schedule.c sched_hold_end()). */
START_TEST(test_sa_hold_outlasts_slice)
{
	struct sched_vcpu *a, *b;

	sched_option_set("sched_dp_us", "0");
	sched_option_set("sched_sa_limit_us", "500");
	setup_machine(1, true);
	a = sched_at(0);
	b = other(a);
	sched_sa_register(&V[0], 0xf0);
	sched_sa_register(&V[2], 0xf0);
	sched_block(a, MS(1));
	ck_assert_ptr_eq(sched_at(MS(1)), b);       /* slice ends at 31 ms */
	if (sched_timer_fire(&P[0], MS(30)))          /* tick and accounting */
		ck_assert_ptr_eq(sched_at(MS(30)), b);
	sched_wake(a, US(30800));
	ck_assert_ptr_eq(sched_at(US(30800)), b);   /* held for the SA ack */
	ck_assert_int_eq(fake_injected, 1);
	ck_assert_int_eq(P[0].slice_end, MS(31));
	ck_assert_int_eq(fake_timer[0], US(31300)); /* the SA limit, not 31 ms */
	ck_assert_int_eq(b->st.nsa_timeout, 0);
	ck_assert(sched_timer_fire(&P[0], US(31300)));
	ck_assert_ptr_eq(sched_at(US(31300)), a);
	ck_assert_int_eq(b->st.nsa_timeout, 1);
	ck_assert_int_gt(fake_timer[0], US(31300));
}
END_TEST

/* Seed 001 §5.2: a fresh slice is drawn only when a new slice starts; a
 * kick inside the slice keeps it, and a cap-cut slice is never lengthened. */
START_TEST(test_ds_draw_points)
{
	struct sched_vcpu *a;
	stime_t until, end;
	uint64_t rng;

	sched_option_set("sched_ds_min_ms", "10");
	sched_option_set("sched_ds_max_ms", "30");
	setup_machine(1, false);
	a = sched_schedule(&P[0], 0, &until);
	ck_assert_int_ge(until, MS(10));
	ck_assert_int_le(until, MS(30));
	end = until;
	rng = P[0].rng;
	/* Kicks inside the slice: same end, no draw. */
	for (int i = 1; i < 5; i++) {
		sched_cpu_resched(0);
		ck_assert_ptr_eq(sched_schedule(&P[0], US(100) * i, &until), a);
		ck_assert_int_eq(until, end);
	}
	ck_assert_uint_eq(P[0].rng, rng);
	/* Slice over: a new draw. */
	sched_timer_fire(&P[0], end);
	sched_schedule(&P[0], end, &until);
	ck_assert_uint_ne(P[0].rng, rng);
}
END_TEST

START_TEST(test_ds_cap_cut_not_lengthened)
{
	struct sched_vm_params prm = { .weight = 256, .cap = 20 };   /* 6 ms per 30 ms */
	stime_t until;

	sched_option_set("sched_ds_min_ms", "10");
	sched_option_set("sched_ds_max_ms", "30");
	sched_platform_set(&fake_plat);
	ck_assert_int_eq(sched_init("credit"), 0);
	ck_assert_int_eq(sched_pcpu_add(&P[0], 0, 0), 0);
	ck_assert_int_eq(sched_vm_add(&VM[0], 0, &prm), 0);
	ck_assert_int_eq(sched_vcpu_add(&V[0], &VM[0], 0, 0), 0);
	sched_vcpu_start(&V[0], 0);
	ck_assert_ptr_eq(sched_schedule(&P[0], 0, &until), &V[0]);
	ck_assert_int_le(until, MS(6));
}
END_TEST

/* Two pCPUs with the same seed draw different sequences; the same seed
 * reproduces them. */
START_TEST(test_ds_seeded_per_pcpu)
{
	uint64_t r0, r1, again;

	sched_option_set("sched_seed", "42");
	sched_platform_set(&fake_plat);
	ck_assert_int_eq(sched_init("credit"), 0);
	sched_pcpu_add(&P[0], 0, 0);
	sched_pcpu_add(&P[1], 1, 0);
	r0 = sched_cpu_random(&P[0]);
	r1 = sched_cpu_random(&P[1]);
	ck_assert_uint_ne(r0, r1);
	sched_init("credit");
	sched_pcpu_add(&P[0], 0, 0);
	again = sched_cpu_random(&P[0]);
	ck_assert_uint_eq(again, r0);
}
END_TEST


/* PLE window: grows (x2, bounded) on exits that find no preempted sibling,
 * shrinks when the directed yield ran one; the target is pulled onto the
 * yielder's pCPU and credit runs it next. Two pCPUs, VM 0 = {V0, V1} and
 * VM 1 = {V2, V3}. */
START_TEST(test_ple_window_and_directed_yield)
{
	struct cpumask m0, m1, both;
	stime_t until;

	ck_assert_int_eq(sched_option_set("ple_window_max", "16384"), 0);
	setup_machine(2, false);
	ck_assert_int_eq(sched_pcpu_add(&P[1], 1, 0), 0);
	ck_assert_int_eq(V[0].ple_window, 4096);
	cpumask_zero(&m0);
	cpumask_set(&m0, 0);
	cpumask_zero(&m1);
	cpumask_set(&m1, 1);
	cpumask_fill(&both, 2);
	/* V0 and V2 share pCPU 0; V1 and V3 pCPU 1 (V1 may go anywhere). */
	sched_vcpu_affinity_set(&V[0], &m0, 0);
	sched_vcpu_affinity_set(&V[2], &m0, 0);
	sched_vcpu_affinity_set(&V[3], &m1, 0);
	sched_vcpu_affinity_set(&V[1], &m1, 0);
	fake_now = 0;
	while (P[0].curr != &V[0])
		sched_schedule(&P[0], 0, &until), sched_vcpu_yield(P[0].curr, NULL, 1, 0);
	while (P[1].curr != &V[3])
		sched_schedule(&P[1], 0, &until), sched_vcpu_yield(P[1].curr, NULL, 1, 0);
	/* V1 never ran as preempted: nobody to help, window grows to the cap. */
	sched_ple_exit(&V[0], MS(1));
	ck_assert_int_eq(V[0].ple_window, 8192);
	sched_schedule(&P[0], MS(1), &until);        /* V2 runs, V0 queued after yield */
	ck_assert_ptr_eq(P[0].curr, &V[2]);
	sched_vcpu_yield(&V[2], NULL, 1, MS(2));
	ck_assert_ptr_eq(sched_schedule(&P[0], MS(2), &until), &V[0]);
	sched_ple_exit(&V[0], MS(3));
	sched_ple_exit(&V[0], MS(3));                /* not running any more: no-op yield */
	ck_assert_int_eq(V[0].ple_window, 16384);    /* capped at ple_window_max */
	ck_assert_ptr_eq(sched_schedule(&P[0], MS(3), &until), &V[2]);
	/* Make V1 a preempted sibling on pCPU 1: it runs there, V3 (BOOST)
	 * preempts it at its slice end. */
	sched_vcpu_affinity_set(&V[1], &both, MS(4));
	sched_vcpu_yield(&V[3], NULL, 1, MS(4));
	ck_assert_ptr_eq(sched_schedule(&P[1], MS(4), &until), &V[1]);
	sched_vcpu_guest_mode(&V[1], true);
	sched_timer_fire(&P[1], until);
	ck_assert_ptr_eq(sched_schedule(&P[1], until, &until), &V[3]);
	ck_assert(V[1].flags & SCHED_VF_PREEMPTED);
	ck_assert_int_eq(V[1].preempted_kernel, 1);
	/* V0 runs again on pCPU 0 and PLE-exits: V1 is pulled over and runs. */
	sched_vcpu_yield(&V[2], NULL, 1, MS(40));
	ck_assert_ptr_eq(sched_schedule(&P[0], MS(40), &until), &V[0]);
	sched_ple_exit(&V[0], MS(41));
	ck_assert_ptr_eq(sched_schedule(&P[0], MS(41), &until), &V[1]);
	ck_assert_int_eq(V[1].pcpu, 0);
	ck_assert_int_eq(V[0].st.nple_directed, 1);
	ck_assert_int_eq(V[0].ple_window, 8192);     /* helped: halved */
	ck_assert_int_eq(V[1].ple_target_at, MS(41));
}
END_TEST

/* ple_directed=off: the same exit is a plain yield. */
START_TEST(test_ple_undirected_and_options)
{
	uint64_t v;

	ck_assert_int_eq(sched_option_set("ple", "off"), 0);
	ck_assert(!sched_ple_enabled());
	ck_assert_int_eq(sched_option_set("ple", "maybe"), -EINVAL);
	ck_assert_int_eq(sched_option_set("ple", "on"), 0);
	ck_assert(sched_ple_enabled());
	ck_assert_int_eq(sched_option_set("ple_directed", "off"), 0);
	ck_assert_int_eq(sched_option_get("ple_directed", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(sched_option_set("ple_window_min", "0"), -ERANGE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched_preempt");
	TCase *tc = tcase_create("preempt");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_dp_wake_told_waker);
	tcase_add_test(tc, test_dp_not_on_slice_expiry);
	tcase_add_test(tc, test_dp_cancelled_by_block);
	tcase_add_test(tc, test_dp_hard_request_not_delayed);
	tcase_add_test(tc, test_dp_bounded_by_slice);
	tcase_add_test(tc, test_dp_sa_ordering);
	tcase_add_test(tc, test_sa_hold_outlasts_slice);
	sched_preempt_adaptive_add(tc);
	tcase_add_test(tc, test_ds_draw_points);
	tcase_add_test(tc, test_ds_cap_cut_not_lengthened);
	tcase_add_test(tc, test_ds_seeded_per_pcpu);
	tcase_add_test(tc, test_ple_window_and_directed_yield);
	tcase_add_test(tc, test_ple_undirected_and_options);
	suite_add_tcase(s, tc);
	return check_run(s);
}
