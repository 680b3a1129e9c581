/* test_sched_core, scheduler activations (seed 000 Alg. 1): the upcall, its
 * acknowledgement by sequence number, the timeout, block/yield without an
 * ack, no upcall without a competitor. */
#include "sched_core.h"

START_TEST(test_sa_upcall_ack)
{
	struct sched_vcpu *a;

	setup_machine(1, 2, true);
	a = sched_at(0, 0);
	ck_assert_int_eq(sched_sa_register(a, 7), -EINVAL);
	ck_assert_int_eq(sched_sa_register(a, 0xf0), 0);
	ck_assert_int_eq(fake_timer[0] <= MS(30), 1);
	fake_now = MS(30);
	ck_assert(sched_timer_fire(&P[0], MS(30)));     /* slice over */
	ck_assert_ptr_eq(sched_at(0, MS(30)), a);       /* held: upcall sent */
	ck_assert_int_eq(fake_injected, 1);
	ck_assert_int_eq(fake_vector, 0xf0);
	ck_assert_int_eq(fake_page.sa_pending, 1);
	ck_assert_int_eq(fake_timer[0], MS(30) + sched_opts.sa_limit);
	ck_assert_int_eq(sched_sa_ack(a, HV_SA_ACK_YIELD, 1, MS(30) + US(100)), 0);
	ck_assert_int_eq(fake_page.sa_pending, 0);
	ck_assert(sched_need_resched(&P[0]));
	ck_assert_ptr_ne(sched_at(0, MS(30) + US(100)), a);
	ck_assert_int_eq(a->st.nsa_upcall, 1);
	ck_assert_int_eq(a->st.nsa_timeout, 0);
}
END_TEST

START_TEST(test_sa_timeout)
{
	struct sched_vcpu *a;
	stime_t lim;

	setup_machine(1, 2, true);
	a = sched_at(0, 0);
	sched_sa_register(a, 0xf1);
	sched_timer_fire(&P[0], MS(30));
	ck_assert_ptr_eq(sched_at(0, MS(30)), a);
	lim = MS(30) + sched_opts.sa_limit;
	ck_assert(sched_timer_fire(&P[0], lim));        /* guest never acked */
	ck_assert_ptr_ne(sched_at(0, lim), a);
	ck_assert_int_eq(a->st.nsa_timeout, 1);
	ck_assert_int_eq(a->st.npreempt, 1);
}
END_TEST

/* PV ABI v1: seq numbers, ops, stale and duplicate acks (docs/pv-abi.md). */
START_TEST(test_sa_ack_seq_ops)
{
	unsigned long long ack0 = vprof_stub_events[VPE_SA_ACK];
	unsigned long long stale0 = vprof_stub_events[VPE_SA_STALE];
	struct sched_vcpu *a, *b;
	stime_t t;

	setup_machine(1, 2, true);
	a = sched_at(0, 0);
	b = a == &V[0] ? &V[1] : &V[0];
	ck_assert_int_eq(sched_sa_register(a, 0xf3), 0);
	ck_assert_int_eq(sched_sa_ack(a, HV_SA_ACK_YIELD, 0, US(10)), -ESTALE);  /* none pending */
	ck_assert_int_eq(a->st.nsa_stale, 1);
	ck_assert(sched_timer_fire(&P[0], MS(30)));
	ck_assert_ptr_eq(sched_at(0, MS(30)), a);           /* held: upcall 1 */
	ck_assert_uint_eq(a->sa_seq, 1);
	ck_assert_uint_eq(fake_page.sa_seq, 1);
	ck_assert_uint_eq(fake_page.sa_pending, 1);
	ck_assert_uint_eq(fake_page.reasons, HV_UPCALL_SA); /* set before the inject */
	ck_assert_uint_eq(fake_page.version % 2, 0);        /* seqcount closed */
	ck_assert_int_eq(sched_sa_ack(a, 7, 1, MS(30) + US(5)), -EINVAL);
	ck_assert_int_eq(sched_sa_ack(a, HV_SA_ACK_YIELD, 2, MS(30) + US(10)), -ESTALE);
	ck_assert_int_eq(a->st.nsa_stale, 2);
	ck_assert(a->flags & SCHED_VF_SA_PEND);             /* still waiting */
	ck_assert_ptr_eq(sched_at(0, MS(30) + US(10)), a);
	ck_assert_int_eq(sched_sa_ack(a, HV_SA_ACK_YIELD, 1, MS(30) + US(40)), 0);
	ck_assert_int_eq(a->st.nsa_ack_yield, 1);
	ck_assert_int_eq(fake_page.sa_pending, 0);
	ck_assert(a->flags & SCHED_VF_YIELD);               /* descheduled, runnable */
	ck_assert_ptr_eq(sched_at(0, MS(30) + US(40)), b);
	ck_assert_int_eq(a->state, SCHED_RUNNABLE);
	ck_assert_int_eq(sched_sa_ack(a, HV_SA_ACK_YIELD, 1, MS(30) + US(50)), -ESTALE); /* dup */
	ck_assert_int_eq(a->st.nsa_stale, 3);
	ck_assert_int_eq(vprof_stub_events[VPE_SA_ACK] - ack0, 1);
	ck_assert_int_eq(vprof_stub_events[VPE_SA_STALE] - stale0, 3);

	/* Upcall 2, acked with block and nothing pending: the caller blocks. */
	sched_block(b, MS(31));
	ck_assert_ptr_eq(sched_at(0, MS(31)), a);
	sched_wake(b, MS(32));                              /* BOOST: wants a out */
	ck_assert_ptr_eq(sched_at(0, MS(32)), a);
	ck_assert_uint_eq(fake_page.sa_seq, 2);
	ck_assert_int_eq(sched_sa_ack(a, HV_SA_ACK_BLOCK, 2, MS(32) + US(20)), 1);
	ck_assert_int_eq(a->st.nsa_ack_block, 1);
	sched_block(a, MS(32) + US(20));                    /* what the platform does */
	ck_assert_ptr_eq(sched_at(0, MS(32) + US(20)), b);
	ck_assert_int_eq(a->state, SCHED_BLOCKED);

	/* Upcall 3, block with an interrupt pending: only descheduled. */
	sched_wake(a, MS(33));
	sched_block(b, MS(34));
	ck_assert_ptr_eq(sched_at(0, MS(34)), a);
	sched_timer_fire(&P[0], MS(40));                    /* tick: a's BOOST ends */
	ck_assert_ptr_eq(sched_at(0, MS(40)), a);
	sched_wake(b, MS(41));
	t = MS(41);
	ck_assert_ptr_eq(sched_at(0, t), a);
	ck_assert_uint_eq(fake_page.sa_seq, 3);
	fake_irq = true;
	ck_assert_int_eq(sched_sa_ack(a, HV_SA_ACK_BLOCK, 3, t + US(20)), 0);
	ck_assert_ptr_eq(sched_at(0, t + US(20)), b);
	ck_assert_int_eq(a->state, SCHED_RUNNABLE);
	ck_assert_int_eq(a->st.nsa_ack_block, 2);
	ck_assert_int_eq(a->st.nsa_timeout, 0);
}
END_TEST

/* A vCPU that blocks or yields with an upcall pending answers it: cleared, no
 * ack needed, and no spurious timeout at the old deadline. */
START_TEST(test_sa_block_yield_without_ack)
{
	struct sched_vcpu *a, *b;
	stime_t lim;

	setup_machine(1, 2, true);
	a = sched_at(0, 0);
	b = a == &V[0] ? &V[1] : &V[0];
	sched_sa_register(a, 0xf3);
	sched_timer_fire(&P[0], MS(30));
	ck_assert_ptr_eq(sched_at(0, MS(30)), a);
	lim = MS(30) + sched_opts.sa_limit;
	sched_block(a, MS(30) + US(50));                    /* no ack */
	ck_assert_int_eq(a->flags & SCHED_VF_SA_PEND, 0);
	ck_assert_int_eq(fake_page.sa_pending, 0);
	ck_assert_int_eq(a->st.nsa_moot, 1);
	ck_assert_ptr_eq(sched_at(0, MS(30) + US(50)), b);
	sched_wake(a, MS(30) + US(60));
	sched_block(b, MS(30) + US(70));
	ck_assert_ptr_eq(sched_at(0, MS(30) + US(70)), a);
	sched_timer_fire(&P[0], lim);                       /* the old deadline */
	ck_assert_int_eq(a->st.nsa_timeout, 0);
	ck_assert_ptr_eq(sched_at(0, lim), a);
	sched_timer_fire(&P[0], MS(40));                    /* tick: a's BOOST ends */
	ck_assert_ptr_eq(sched_at(0, MS(40)), a);
	ck_assert_int_eq(a->st.nsa_timeout, 0);
	lim = MS(40) + US(500);
	/* Yield without ack (next upcall). */
	sched_wake(b, lim + US(10));
	ck_assert_ptr_eq(sched_at(0, lim + US(10)), a);
	ck_assert_uint_eq(a->sa_seq, 2);
	sched_vcpu_yield(a, NULL, SCHED_YIELD_HYPERCALL, lim + US(20));
	ck_assert_int_eq(a->flags & SCHED_VF_SA_PEND, 0);
	ck_assert_int_eq(a->st.nsa_moot, 2);
	ck_assert_ptr_eq(sched_at(0, lim + US(20)), b);
	ck_assert_int_eq(sched_sa_ack(a, HV_SA_ACK_YIELD, 2, lim + US(30)), -ESTALE);
	ck_assert_int_eq(a->st.nsa_timeout, 0);
	ck_assert_int_eq(a->st.nsa_upcall, 2);
}
END_TEST

/* Seed 004 §5 cancel-if-pending, the sleep timeout, and steal time: a
 * balloon sleep is not steal. */
START_TEST(test_sa_no_competitor)
{
	struct sched_vcpu *a;

	setup_machine(1, 1, true);
	a = sched_at(0, 0);
	sched_sa_register(a, 0xf0);
	sched_timer_fire(&P[0], MS(30));
	ck_assert_ptr_eq(sched_at(0, MS(30)), a);
	ck_assert_int_eq(fake_injected, 0);
}
END_TEST

/* Seed 001 §5.1 fixed delayed preemption through the built-in hook. */

void sched_core_sa_add(TCase *tc)
{
	tcase_add_test(tc, test_sa_upcall_ack);
	tcase_add_test(tc, test_sa_timeout);
	tcase_add_test(tc, test_sa_ack_seq_ops);
	tcase_add_test(tc, test_sa_block_yield_without_ack);
	tcase_add_test(tc, test_sa_no_competitor);
}
