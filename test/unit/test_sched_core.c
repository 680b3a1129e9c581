/* Unit tests for the scheduler core (hv/sched/core.c, schedule.c, preempt.c,
 * params.c, registry.c) with the credit policy on fake pCPUs and a fake
 * clock: state machine, exact accounting, hooks, options and parameters. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <string.h>
#include "shim.h"
#include "errno.h"
#include "log.h"
#include "sched/policy.h"
#include "sched/option.h"
#include "sched/credit.h"
#include "cmdline.h"
#include "abi.h"

#define MS(x) ((stime_t)(x) * 1000000)
#define US(x) ((stime_t)(x) * 1000)

/* ---- fake platform ---- */
static stime_t fake_now;
static stime_t fake_timer[8];
static int fake_kicks[8];
static int fake_injected, fake_vector;
static struct sched_shared_page fake_page;
static bool fake_irq;   /* platform: "an interrupt is pending" for every vCPU */
extern unsigned long long vprof_stub_events[VPE_NEVENTS];

static stime_t f_now(void *c) { return fake_now; }
static void f_timer(void *c, unsigned cpu, stime_t t) { fake_timer[cpu] = t; }
static void f_kick(void *c, unsigned cpu) { fake_kicks[cpu]++; }
static void f_inject(void *c, struct sched_vcpu *v, uint8_t vec)
{
	fake_injected++;
	fake_vector = vec;
}
static struct sched_shared_page *f_page(void *c, struct sched_vcpu *v) { return &fake_page; }
static bool f_irq(void *c, struct sched_vcpu *v) { return fake_irq; }

static const struct sched_platform fake_plat = {
	.now = f_now, .timer_arm = f_timer, .kick = f_kick, .inject = f_inject,
	.shared_page = f_page, .irq_pending = f_irq,
};

static struct sched_pcpu P[4];
static struct sched_vm VM[2];
static struct sched_vcpu V[4];

/* npcpu pCPUs, one VM with nvcpu vCPUs pinned to pCPU 0, all started. */
static void setup_machine(int npcpu, int nvcpu, bool sa)
{
	struct sched_vm_params prm = { .weight = 256, .sa = sa };
	struct cpumask m;

	fake_now = 0;
	memset(fake_timer, 0, sizeof(fake_timer));
	memset(fake_kicks, 0, sizeof(fake_kicks));
	fake_injected = 0;
	fake_irq = false;
	memset(&fake_page, 0, sizeof(fake_page));
	sched_platform_set(&fake_plat);
	ck_assert_int_eq(sched_init("credit"), 0);
	for (int i = 0; i < npcpu; i++)
		ck_assert_int_eq(sched_pcpu_add(&P[i], (unsigned)i, 0), 0);
	ck_assert_int_eq(sched_vm_add(&VM[0], 0, &prm), 0);
	cpumask_zero(&m);
	cpumask_set(&m, 0);
	for (int i = 0; i < nvcpu; i++) {
		ck_assert_int_eq(sched_vcpu_add(&V[i], &VM[0], (uint16_t)i, 0), 0);
		ck_assert_int_eq(sched_vcpu_affinity_set(&V[i], &m, 0), 0);
		sched_vcpu_start(&V[i], 0);
		ck_assert_int_eq(V[i].state, SCHED_RUNNABLE);
	}
}

static struct sched_vcpu *sched_at(int cpu, stime_t t)
{
	stime_t until;

	fake_now = t;
	return sched_schedule(&P[cpu], t, &until);
}

static stime_t sched_vm_budget_probe(struct sched_vm *vm, stime_t now, stime_t *refill)
{
	return sched_sys.ops->vm_budget(vm, now, refill);
}

static void setup(void)
{
	sched_options_defaults();
	shim_reset_logs();
}

START_TEST(test_init_fallback)
{
	sched_platform_set(&fake_plat);
	ck_assert_int_eq(sched_init("no-such-policy"), 0);
	ck_assert_str_eq(sched_policy_name(), "credit");
	ck_assert_int_ge(shim_log_count[LOG_WARN], 1);
	ck_assert_int_eq(sched_init(NULL), 0);
	ck_assert_str_eq(sched_policy_name(), "credit");
}
END_TEST

static struct sched_vcpu *bad_pick(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now,
				   stime_t *s)
{
	return NULL;
}

START_TEST(test_policy_check)
{
	struct sched_policy o = *sched_policy_find("credit");

	ck_assert_int_eq(sched_policy_check(&o), 0);
	o.pick = NULL;
	ck_assert_int_eq(sched_policy_check(&o), -EINVAL);
	o.pick = bad_pick;
	o.vcpu_priv = sizeof(((struct sched_vcpu *)0)->priv) + 1;
	ck_assert_int_eq(sched_policy_check(&o), -E2BIG);
}
END_TEST

START_TEST(test_state_accounting)
{
	struct sched_vcpu *a, *b;
	struct sched_vcpu_stats st;

	setup_machine(1, 2, false);
	a = sched_at(0, 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->state, SCHED_RUNNING);
	fake_now = MS(5);
	sched_block(a, MS(5));
	ck_assert_int_eq(a->state, SCHED_BLOCKED);
	ck_assert(sched_need_resched(&P[0]));
	b = sched_at(0, MS(5));
	ck_assert_ptr_ne(a, b);
	ck_assert_int_eq(b->state, SCHED_RUNNING);
	fake_now = MS(7);
	ck_assert(sched_wake(a, MS(7)));
	ck_assert(!sched_wake(a, MS(7)));          /* already runnable */
	ck_assert_int_eq(a->state, SCHED_RUNNABLE);
	ck_assert_int_ge(fake_kicks[0], 1);           /* BOOST preempts b */
	ck_assert_ptr_eq(sched_at(0, MS(7) + US(1)), a);
	sched_vcpu_stats(a, MS(10), &st);
	ck_assert_int_eq(st.time[SCHED_RUNNING], MS(5) + MS(3) - US(1));
	ck_assert_int_eq(st.time[SCHED_BLOCKED], MS(2));
	ck_assert_int_eq(st.time[SCHED_RUNNABLE], US(1));
	ck_assert_int_eq(st.wake_lat_max, US(1));
	sched_vcpu_stats(b, MS(10), &st);
	ck_assert_int_eq(st.time[SCHED_RUNNABLE], MS(5) + MS(3) - US(1));
	ck_assert_int_eq(st.npreempt, 1);
	ck_assert_int_eq(st.time[SCHED_RUNNING] + st.time[SCHED_RUNNABLE], MS(10));
	ck_assert_uint_eq(fake_page.steal_ns, (uint64_t)US(1));   /* a wrote last */
}
END_TEST

START_TEST(test_wake_before_switch)
{
	struct sched_vcpu *a;

	setup_machine(1, 1, false);
	a = sched_at(0, 0);
	sched_block(a, MS(1));
	ck_assert(sched_wake(a, MS(1)));
	ck_assert_int_eq(a->state, SCHED_RUNNING);    /* never left the pCPU */
	ck_assert_ptr_eq(sched_at(0, MS(1)), a);
}
END_TEST

START_TEST(test_idle_when_all_blocked)
{
	struct sched_vcpu *a;

	setup_machine(1, 1, false);
	a = sched_at(0, 0);
	sched_block(a, MS(2));
	ck_assert_ptr_null(sched_at(0, MS(2)));
	ck_assert_ptr_null(P[0].curr);
	sched_wake(a, MS(4));
	ck_assert_ptr_eq(sched_at(0, MS(4)), a);
	ck_assert_int_eq(P[0].idle_time, MS(2));
}
END_TEST

START_TEST(test_yield)
{
	struct sched_vcpu *a, *b;

	setup_machine(1, 2, false);
	a = sched_at(0, 0);
	sched_vcpu_yield(a, NULL, SCHED_YIELD_HYPERCALL, MS(2));
	b = sched_at(0, MS(2));
	ck_assert_ptr_ne(a, b);
	ck_assert_int_eq(a->st.nyield, 1);
	ck_assert_int_eq(a->st.npreempt, 0);
	ck_assert_int_eq(a->state, SCHED_RUNNABLE);
}
END_TEST

/* Xen: a yield affects the one scheduling decision that handles it (the
 * flag is cleared before scheduling out); afterwards the yielder is an
 * ordinary queued vCPU that an idle pCPU may take, like any other. */
START_TEST(test_yield_one_decision)
{
	struct sched_vcpu *a, *n, *q;
	struct cpumask both;

	setup_machine(2, 3, false);
	a = sched_at(0, 0);
	sched_vcpu_yield(a, NULL, SCHED_YIELD_HYPERCALL, MS(2));
	n = sched_at(0, MS(2));
	ck_assert_ptr_ne(n, a);                         /* the yield gave the pCPU away */
	ck_assert_int_eq(a->flags & SCHED_VF_YIELD, 0); /* ... and is spent */
	q = &V[0] != a && &V[0] != n ? &V[0] : &V[1] != a && &V[1] != n ? &V[1] : &V[2];
	ck_assert_int_eq(q->state, SCHED_RUNNABLE);
	cpumask_fill(&both, 2);
	/* Control: a queued non-yielder is stolen. */
	ck_assert_int_eq(sched_vcpu_affinity_set(q, &both, MS(4)), 0);
	ck_assert_ptr_eq(sched_at(1, MS(4)), q);
	ck_assert_int_eq(q->pcpu, 1);
	ck_assert_int_ge(q->st.nmigrate, 1);
}
END_TEST

START_TEST(test_balloon_sleep)
{
	struct sched_vcpu *a;

	setup_machine(1, 1, false);
	a = sched_at(0, 0);
	ck_assert(!sched_vcpu_waits_event(a));
	ck_assert_int_eq(sched_sleep(a, 0, MS(1)), 0);
	ck_assert_int_eq(a->state, SCHED_OFFLINE);
	ck_assert(sched_vcpu_waits_event(a));            /* its timers must be polled */
	ck_assert_ptr_null(sched_at(0, MS(1)));
	ck_assert(sched_wake(a, MS(3)));                 /* wake-on-event */
	ck_assert_int_eq(a->state, SCHED_RUNNABLE);
	ck_assert(!sched_vcpu_waits_event(a));
	ck_assert_ptr_eq(sched_at(0, MS(3)), a);
	sched_vcpu_pause(a, MS(4));                     /* admin pause: no wake-on-event */
	ck_assert_int_eq(a->state, SCHED_OFFLINE);
	ck_assert(!sched_vcpu_waits_event(a));
	ck_assert(!sched_wake(a, MS(5)));
	sched_vcpu_start(a, MS(6));
	ck_assert_int_eq(a->state, SCHED_RUNNABLE);
	ck_assert_int_eq(a->st.time[SCHED_OFFLINE], MS(2) + MS(2));
}
END_TEST

/* Seed 000 Alg. 1: notify before an involuntary preemption, wait for ack. */
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
START_TEST(test_sleep_cancel_timeout)
{
	struct sched_vcpu *a;
	stime_t steal;

	setup_machine(1, 1, false);
	a = sched_at(0, 0);
	fake_irq = true;
	ck_assert_int_eq(sched_sleep(a, 0, MS(1)), 1);      /* interrupt pending */
	ck_assert_int_eq(a->state, SCHED_RUNNING);
	ck_assert_int_eq(a->st.nsleep_cancel, 1);
	ck_assert(!sched_need_resched(&P[0]));
	fake_irq = false;
	steal = a->st.time[SCHED_RUNNABLE];
	ck_assert_int_eq(sched_sleep(a, MS(2), MS(1)), 0);
	ck_assert_int_eq(a->state, SCHED_OFFLINE);
	ck_assert_ptr_null(sched_at(0, MS(1)));
	ck_assert_int_le(fake_timer[0], MS(3));             /* the timeout is armed */
	ck_assert(!sched_timer_fire(&P[0], MS(2)));         /* not yet */
	ck_assert_int_eq(a->state, SCHED_OFFLINE);
	sched_timer_fire(&P[0], MS(3));
	ck_assert_int_eq(a->state, SCHED_RUNNABLE);         /* timed out */
	ck_assert_ptr_eq(sched_at(0, MS(3)), a);
	ck_assert_int_eq(a->st.time[SCHED_OFFLINE], MS(2));
	ck_assert_int_eq(a->st.time[SCHED_RUNNABLE], steal);   /* no steal */
	ck_assert_uint_eq(fake_page.steal_ns, (uint64_t)steal);
	/* Without a timeout only an event ends it. */
	ck_assert_int_eq(sched_sleep(a, 0, MS(4)), 0);
	ck_assert_ptr_null(sched_at(0, MS(4)));
	sched_timer_fire(&P[0], MS(20));
	ck_assert_int_eq(a->state, SCHED_OFFLINE);
	ck_assert(sched_wake(a, MS(21)));
	ck_assert_int_eq(a->st.nsleep, 2);
	/* HLT is not steal either; preemption is. */
	ck_assert_ptr_eq(sched_at(0, MS(21)), a);
	sched_block(a, MS(22));
	ck_assert_ptr_null(sched_at(0, MS(22)));
	sched_wake(a, MS(30));
	ck_assert_int_eq(a->st.time[SCHED_RUNNABLE], steal);
	ck_assert_ptr_eq(sched_at(0, MS(30)), a);
}
END_TEST

/* Seed 004 §4.3: NWC while the VM could not run flat out until the refill
 * within its budget, WC once it could; mode-change upcall on the SA vector
 * with reason bit 1, every period written into the page. */
START_TEST(test_balloon_mode)
{
	unsigned long long ev0 = vprof_stub_events[VPE_BALLOON_MODE];
	struct sched_vcpu *a;
	stime_t t, refill, b;

	setup_machine(1, 1, false);
	sched_vm_param_set(&VM[0], SCHED_PARAM_CAP, 50);     /* 15 ms of each 30 ms */
	a = sched_at(0, 0);
	ck_assert_int_eq(sched_sa_register(a, 0xf3 | HV_SA_REG_BALLOON), 0);
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_WC);
	/* Run into the cap, sleep through the rest of the period. */
	t = 0;
	while (t < MS(29) && sched_at(0, t) == a) {
		t += MS(1);
		sched_timer_fire(&P[0], t);
	}
	ck_assert_int_eq(sched_sys.next_acct, MS(30));
	sched_timer_fire(&P[0], MS(30));                    /* refill + mode decision */
	b = VM[0].credit_left;
	ck_assert_int_gt(b, 0);
	ck_assert_int_lt(b, MS(30));                        /* capped: cannot run 30 ms */
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_NWC);
	ck_assert_int_eq(fake_page.balloon_mode, HV_BALLOON_NWC);
	ck_assert_int_eq(fake_page.credit_left_ns, b);
	ck_assert_uint_eq(fake_page.reasons & HV_UPCALL_BALLOON_MODE, HV_UPCALL_BALLOON_MODE);
	ck_assert_int_eq(fake_vector, 0xf3);
	ck_assert_int_eq(vprof_stub_events[VPE_BALLOON_MODE] - ev0, 1);
	/* Re-checked when budget == remaining time if it consumes nothing. */
	ck_assert_int_eq(sched_sys.next_balloon, MS(60) - b);
	fake_page.reasons = 0;                              /* the guest's xchg */
	ck_assert_ptr_eq(sched_at(0, MS(30)), a);           /* unparked */
	ck_assert_int_eq(sched_sleep(a, 0, MS(30)), 0);     /* the balloon sleeps */
	ck_assert_int_eq(a->state, SCHED_OFFLINE);
	ck_assert_ptr_null(sched_at(0, MS(30)));
	ck_assert_int_le(fake_timer[0], MS(60) - b);
	ck_assert(sched_vm_budget_probe(&VM[0], MS(60) - b - 1, &refill) == b);
	sched_timer_fire(&P[0], MS(60) - b);
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_WC);
	ck_assert_int_eq(fake_page.balloon_mode, HV_BALLOON_WC);
	ck_assert_uint_eq(fake_page.reasons, HV_UPCALL_BALLOON_MODE);
	ck_assert_int_eq(vprof_stub_events[VPE_BALLOON_MODE] - ev0, 2);
	ck_assert_int_eq(VM[0].nballoon_switch, 2);
	/* Next refill: NWC again (a fresh period, seed 004 Fig. 6 step 1). */
	sched_wake(a, MS(60) - b);
	sched_timer_fire(&P[0], MS(60));
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_NWC);
}
END_TEST

/* sched_balloon_share=excl: two ballooning VMs on one pCPU, both with the
 * budget to be WC: only the first is (the other stays NWC and asleep); the
 * one turning WC leaves its balloon sleep RUNNABLE without BOOST. With the
 * default (paper, seed 004 §4.3) both turn WC and sleepers wake on the
 * upcall's interrupt as usual. */
static void balloon_share_case(bool excl)
{
	struct sched_vm_params prm = { .weight = 256 };
	struct cpumask m;
	struct sched_vcpu *a = &V[0], *b = &V[1], *x;
	int nwc = 0;

	if (excl)
		ck_assert_int_eq(sched_option_set("sched_balloon_share", "excl"), 0);
	setup_machine(1, 1, false);
	ck_assert_int_eq(sched_vm_add(&VM[1], 1, &prm), 0);
	ck_assert_int_eq(sched_vcpu_add(b, &VM[1], 0, 0), 0);
	cpumask_zero(&m);
	cpumask_set(&m, 0);
	ck_assert_int_eq(sched_vcpu_affinity_set(b, &m, 0), 0);
	sched_vcpu_start(b, 0);
	ck_assert_int_eq(sched_sa_register(a, 0xf3 | HV_SA_REG_BALLOON), 0);
	ck_assert_int_eq(sched_sa_register(b, 0xf3 | HV_SA_REG_BALLOON), 0);
	/* Each runs 1 ms and goes to its balloon sleep. */
	x = sched_at(0, 0);
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(sched_sleep(x, 0, MS(1)), 0);
	x = sched_at(0, MS(1));
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(sched_sleep(x, 0, MS(2)), 0);
	ck_assert_ptr_null(sched_at(0, MS(2)));
	/* Refill: credit 14 ms + share 15 ms < 30 ms left: both NWC; the
	 * upcall's interrupt is the platform's to deliver (not here). */
	sched_timer_fire(&P[0], MS(30));
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_NWC);
	ck_assert_int_eq(VM[1].balloon_mode, SCHED_BALLOON_NWC);
	ck_assert_int_eq(a->state, SCHED_OFFLINE);
	ck_assert_int_eq(b->state, SCHED_OFFLINE);
	/* Both could be WC from refill - 29 ms on. */
	ck_assert_int_eq(sched_sys.next_balloon, MS(31));
	sched_timer_fire(&P[0], MS(31));
	nwc = (VM[0].balloon_mode == SCHED_BALLOON_WC) + (VM[1].balloon_mode == SCHED_BALLOON_WC);
	if (!excl) {
		ck_assert_int_eq(nwc, 2);
		ck_assert_int_eq(a->state, SCHED_OFFLINE);   /* woken by the interrupt later */
		ck_assert_int_eq(b->state, SCHED_OFFLINE);
		return;
	}
	ck_assert_int_eq(nwc, 1);
	x = VM[0].balloon_mode == SCHED_BALLOON_WC ? a : b;
	ck_assert_int_eq(x->state, SCHED_RUNNABLE);        /* quiet wake */
	ck_assert_int_eq(csched_vcpu_pri(x), CPRI_UNDER);   /* not BOOST */
	ck_assert_int_eq((x == a ? b : a)->state, SCHED_OFFLINE);
	ck_assert_int_eq(sched_sys.next_balloon, STIME_MAX);   /* the other waits for the refill */
	/* The next period decides afresh: both could be WC again, one is. */
	sched_timer_fire(&P[0], MS(60));
	nwc = (VM[0].balloon_mode == SCHED_BALLOON_WC) + (VM[1].balloon_mode == SCHED_BALLOON_WC);
	ck_assert_int_eq(nwc, 1);
}

START_TEST(test_balloon_share_excl)
{
	balloon_share_case(true);
}
END_TEST

START_TEST(test_balloon_share_paper)
{
	balloon_share_case(false);
}
END_TEST

/* The mode upcall is opt-in (HV_SA_REG_BALLOON): a vCPU registered for SA
 * only (an IRS guest) still sees the mode in its page but gets no upcall,
 * and its VM no mid-period re-check timer; bad registrations are refused. */
START_TEST(test_balloon_upcall_optin)
{
	unsigned long long ev0 = vprof_stub_events[VPE_BALLOON_MODE];
	struct sched_vcpu *a;
	stime_t t;

	setup_machine(1, 1, false);
	sched_vm_param_set(&VM[0], SCHED_PARAM_CAP, 50);
	a = sched_at(0, 0);
	ck_assert_int_eq(sched_sa_register(a, 0x10 | HV_SA_REG_BALLOON), -EINVAL);
	ck_assert_int_eq(sched_sa_register(a, HV_SA_REG_BALLOON), -EINVAL);    /* no vector */
	ck_assert_int_eq(sched_sa_register(a, 0xf3 | 1u << 9), -EINVAL);       /* unknown flag */
	ck_assert_int_eq(sched_sa_register(a, 0xf3 | HV_SA_REG_BALLOON), 0);
	ck_assert_int_eq(a->balloon_sub, 1);
	ck_assert_int_eq(sched_sa_register(a, 0xf3), 0);   /* each registration sets the flags */
	ck_assert_int_eq(a->balloon_sub, 0);
	ck_assert_int_eq(a->sa_vector, 0xf3);
	for (t = 0; t < MS(29) && sched_at(0, t) == a;) {
		t += MS(1);
		sched_timer_fire(&P[0], t);
	}
	sched_timer_fire(&P[0], MS(30));
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_NWC);
	ck_assert_int_eq(fake_page.balloon_mode, HV_BALLOON_NWC);   /* still written */
	ck_assert_int_eq(fake_injected, 0);
	ck_assert_uint_eq(fake_page.reasons & HV_UPCALL_BALLOON_MODE, 0);
	ck_assert_int_eq(sched_sys.next_balloon, STIME_MAX);       /* no re-check */
	ck_assert_int_eq(vprof_stub_events[VPE_BALLOON_MODE] - ev0, 1);   /* still traced */
	/* Subscribing later: the next change is announced. */
	ck_assert_int_eq(sched_sa_register(a, 0xf3 | HV_SA_REG_BALLOON), 0);
	sched_timer_fire(&P[0], MS(60));
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_NWC);
	t = sched_sys.next_balloon;
	ck_assert_int_gt(t, MS(60));                               /* re-check armed */
	ck_assert_int_lt(t, MS(90));
	ck_assert_ptr_eq(sched_at(0, MS(60)), a);
	ck_assert_int_eq(sched_sleep(a, 0, MS(60)), 0);
	sched_timer_fire(&P[0], t);
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_WC);
	ck_assert_int_eq(VM[0].nballoon_switch, 2);
	ck_assert_int_ge(fake_injected, 1);
	ck_assert_int_eq(fake_vector, 0xf3);
	ck_assert_uint_eq(fake_page.reasons & HV_UPCALL_BALLOON_MODE, HV_UPCALL_BALLOON_MODE);
	/* Vector 0 drops the subscription with the vector. */
	ck_assert_int_eq(sched_sa_register(a, 0), 0);
	ck_assert_int_eq(a->balloon_sub, 0);
}
END_TEST

/* No silent limit on VMs or vCPUs (the scans used to stop at 64): the mode
 * is decided, written and announced for every one of 70 VMs and of 70
 * vCPUs of one VM, and 70 balloon sleeps past their timeout all end in one
 * scan. */
#define MANY 70
static struct sched_vm many_vm[MANY];
static struct sched_vcpu many_v[MANY];

START_TEST(test_balloon_many_vms)
{
	struct sched_vm_params prm = { .weight = 256 };
	unsigned long long ev0 = vprof_stub_events[VPE_BALLOON_MODE];

	setup_machine(1, 0, false);
	for (int i = 0; i < MANY; i++) {
		ck_assert_int_eq(sched_vm_add(&many_vm[i], (uint16_t)(10 + i), &prm), 0);
		ck_assert_int_eq(sched_vm_param_set(&many_vm[i], SCHED_PARAM_CAP, 1), 0);
		ck_assert_int_eq(sched_vcpu_add(&many_v[i], &many_vm[i], 0, 0), 0);
		sched_vcpu_start(&many_v[i], 0);
		ck_assert_int_eq(sched_sa_register(&many_v[i], 0xf3 | HV_SA_REG_BALLOON), 0);
	}
	/* Capped at 1%: none can run flat out for a period. */
	for (stime_t t = MS(1); t <= MS(30); t += MS(1)) {
		sched_at(0, t);
		sched_timer_fire(&P[0], t);
	}
	for (int i = 0; i < MANY; i++)
		ck_assert_int_eq(many_vm[i].balloon_mode, SCHED_BALLOON_NWC);
	ck_assert_int_eq(fake_injected, MANY);
	ck_assert_int_eq(vprof_stub_events[VPE_BALLOON_MODE] - ev0, MANY);
}
END_TEST

START_TEST(test_balloon_many_vcpus)
{
	struct cpumask m;
	stime_t t = MS(1);
	int n = 0;

	setup_machine(2, 0, false);
	cpumask_zero(&m);
	cpumask_set(&m, 0);
	for (int i = 0; i < MANY; i++) {
		ck_assert_int_eq(sched_vcpu_add(&many_v[i], &VM[0], (uint16_t)i, 0), 0);
		ck_assert_int_eq(sched_vcpu_affinity_set(&many_v[i], &m, 0), 0);
		sched_vcpu_start(&many_v[i], 0);
		ck_assert_int_eq(sched_sa_register(&many_v[i], 0xf3 | HV_SA_REG_BALLOON), 0);
	}
	/* Every vCPU balloon-sleeps with a 5 ms timeout, in turn on pCPU 0. */
	for (struct sched_vcpu *v; (v = sched_at(0, t)); t += US(10)) {
		ck_assert_int_eq(sched_sleep(v, MS(5), t), 0);
		n++;
	}
	ck_assert_int_eq(n, MANY);
	ck_assert_int_le(fake_timer[0], MS(6));
	sched_timer_fire(&P[0], MS(6) + US(10) * MANY);   /* all timeouts passed */
	for (int i = 0; i < MANY; i++)
		ck_assert_int_eq(many_v[i].state, SCHED_RUNNABLE);
	/* The refill: 70 vCPUs pinned to one of two pCPUs are one pCPU's worth
	 * (n = min(vCPUs, pCPUs they may use)), WC; cap it at 10% -> NWC, the
	 * change announced to all 70. */
	sched_vm_param_set(&VM[0], SCHED_PARAM_CAP, 10);
	for (t = MS(7); t <= MS(30); t += MS(1)) {
		sched_at(0, t);
		sched_timer_fire(&P[0], t);
	}
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_NWC);
	ck_assert_int_eq(fake_injected, MANY);
}
END_TEST

/* Registration writes every hypervisor field of the ABI v1 page; the
 * constants are the contract's (docs/pv-abi.md). */
START_TEST(test_shared_page_init)
{
	struct sched_vcpu *a;

	ck_assert_int_eq(sched_option_set("sched_sa_limit_us", "750"), 0);
	setup_machine(1, 1, true);
	a = sched_at(0, 0);
	memset(&fake_page, 0xa5, sizeof(fake_page));
	fake_page.version = 4;
	a->sa_seq = 9;
	sched_shared_page_init(a, MS(1));
	ck_assert_uint_eq(fake_page.abi_version, 1);
	ck_assert_uint_eq(fake_page.sa_grace_us, 750);
	ck_assert_uint_eq(fake_page.sa_seq, 9);
	ck_assert_uint_eq(fake_page.sa_pending, 0);
	ck_assert_uint_eq(fake_page.preempted, 0);
	ck_assert_uint_eq(fake_page.balloon_mode, HV_BALLOON_WC);
	ck_assert_uint_eq(fake_page.reserved[0] | fake_page.reserved[1], 0);
	ck_assert_uint_eq(fake_page.reasons, 0xa5a5a5a5u);   /* the guest's field: untouched */
	ck_assert_uint_eq(fake_page.version % 2, 0);
	ck_assert_uint_gt(fake_page.version, 4);
	/* PV ABI v1 numbers (never renumbered). */
	ck_assert_uint_eq(HC_SCHED_SA_ACK, 0x48560012u);
	ck_assert_uint_eq(HC_SCHED_SA_REGISTER, 0x48560013u);
	ck_assert_uint_eq(HC_SCHED_SLEEP, 0x48560014u);
	ck_assert_uint_eq(HC_SCHED_SHARED_PAGE, 0x48560017u);
	ck_assert_uint_eq(HV_SA_ACK_YIELD, 0);
	ck_assert_uint_eq(HV_SA_ACK_BLOCK, 1);
	ck_assert_uint_eq(HV_UPCALL_SA | HV_UPCALL_BALLOON_MODE << 8, 0x201);
	ck_assert_uint_eq(HV_PV_F_SHARED_PAGE | HV_PV_F_SA << 4 | HV_PV_F_BALLOON << 8, 0x421);
	ck_assert_uint_eq(HV_PV_F_BALLOON_OPTIN, 8);          /* additive: bit 3 */
	ck_assert_uint_eq(HV_SA_REG_BALLOON, 0x100);
	ck_assert_int_eq(-ESTALE, -116);
}
END_TEST

/* An uncapped VM alone on its pCPU never leaves WC. */
START_TEST(test_balloon_uncapped_wc)
{
	struct sched_vcpu *a;

	setup_machine(1, 1, false);
	a = sched_at(0, 0);
	sched_sa_register(a, 0xf3);
	for (stime_t t = MS(10); t <= MS(120); t += MS(10)) {
		sched_timer_fire(&P[0], t);
		sched_at(0, t);
	}
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_WC);
	ck_assert_int_eq(VM[0].nballoon_switch, 0);
	ck_assert_int_eq(fake_injected, 0);
	ck_assert_int_ge(fake_page.credit_left_ns, MS(30));
}
END_TEST

/* Without a competitor there is nothing to announce. */
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
START_TEST(test_delayed_preemption)
{
	struct sched_vcpu *a, *b;

	ck_assert_int_eq(sched_option_set("sched_dp_us", "2000"), 0);
	setup_machine(1, 2, false);
	a = sched_at(0, 0);
	b = a == &V[0] ? &V[1] : &V[0];
	ck_assert_ptr_eq(sched_at(0, MS(5)), a);
	sched_block(a, MS(5));                          /* b runs */
	ck_assert_ptr_eq(sched_at(0, MS(5)), b);
	sched_wake(a, MS(8));                           /* BOOST wants b out */
	ck_assert_ptr_eq(sched_at(0, MS(8)), b);        /* delayed */
	ck_assert_int_eq(b->st.ndelayed, 1);
	ck_assert_int_eq(fake_timer[0], MS(10));
	ck_assert(sched_timer_fire(&P[0], MS(10)));
	ck_assert_ptr_eq(sched_at(0, MS(10)), a);
}
END_TEST

/* Seed 001 §5.2 differential slices: random in [min, max], not constant. */
START_TEST(test_differential_slices)
{
	stime_t lo = STIME_MAX, hi = 0, t = 0, until;

	ck_assert_int_eq(sched_option_set("sched_ds_min_ms", "10"), 0);
	ck_assert_int_eq(sched_option_set("sched_ds_max_ms", "30"), 0);
	setup_machine(1, 2, false);
	for (int i = 0; i < 50; i++) {
		struct sched_vcpu *v = sched_schedule(&P[0], t, &until);

		ck_assert_ptr_nonnull(v);
		lo = MIN(lo, until - t);
		hi = MAX(hi, until - t);
		t = until;
		sched_timer_fire(&P[0], t);
	}
	ck_assert_int_ge(lo, MS(10));
	ck_assert_int_le(hi, MS(30));
	ck_assert_int_gt(hi - lo, MS(5));
}
END_TEST

START_TEST(test_options)
{
	ck_assert_int_eq(sched_option_set("sched_credit_tslice_ms", "5"), 0);
	ck_assert_int_eq(sched_opts.credit_tslice, MS(5));
	ck_assert_int_eq(sched_option_set("sched_credit_tick_ms", "0"), -ERANGE);
	ck_assert_int_eq(sched_option_set("sched_credit_tslice_ms", "abc"), -EINVAL);
	ck_assert_int_eq(sched_option_set("sched_ratelimit_us", "0x10"), 0);
	ck_assert_int_eq(sched_opts.ratelimit, US(16));
	ck_assert_int_eq(sched_option_set("nope", "1"), -ENOENT);
	setup_machine(1, 1, false);
	sched_at(0, 0);
	ck_assert_int_eq(P[0].slice_end, MS(5));        /* the option took effect */
}
END_TEST

/* An option registered in this file alone (sched/option.h): one registration
 * gives the parser, the default and the command-line key. */
static stime_t test_local_opt;
SCHED_OPT_INT(sched_test_local_us, test_local_opt, SCHED_US(1), SCHED_US(5), SCHED_MS(2),
	      SCHED_US(250), "unit-test option, us (250)");

/* Every failure names the option and what it accepts. */
START_TEST(test_option_messages)
{
	uint64_t v;

	shim_reset_logs();
	ck_assert_int_eq(sched_option_set("sched_bogus_us", "1"), -ENOENT);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "unknown option 'sched_bogus_us'"));
	ck_assert_int_eq(sched_option_set("sched_credit_tick_ms", "0"), -ERANGE);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "out of range: '0' for sched_credit_tick_ms=: "
					     "expected an integer in [1, 100] ms"));
	ck_assert_int_eq(sched_option_set("sched_ratelimit_us", "12x"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "bad value '12x' for sched_ratelimit_us=: "
					     "expected an integer in [0, 500000] us"));
	ck_assert_int_eq(sched_option_set("sched_dp", "sometimes"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "expected one of off|fixed|adaptive"));
	ck_assert_int_eq(sched_option_set("ple", "1"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "for ple=: expected on|off"));
	ck_assert_int_eq(sched_option_set("sched_seed", ""), -EINVAL);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "expected an unsigned integer"));
	ck_assert_int_eq(shim_log_count[LOG_WARN], 6);
	/* The failed sets kept the defaults. */
	ck_assert_int_eq(sched_option_get("sched_credit_tick_ms", &v), 0);
	ck_assert_uint_eq(v, 10);
	ck_assert_int_eq(sched_option_get("ple", &v), 0);
	ck_assert_uint_eq(v, 1);

	/* The test-local registration: default, range, command line. */
	ck_assert_int_eq(test_local_opt, US(250));
	ck_assert_int_eq(sched_option_set("sched_test_local_us", "4"), -ERANGE);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "[5, 2000] us"));
	ck_assert_int_eq(cmdline_parse("sched_test_local_us=40"), 0);
	ck_assert_int_eq(test_local_opt, US(40));
	sched_options_defaults();
	ck_assert_int_eq(test_local_opt, US(250));
}
END_TEST

/* Every registration: a sane range holding its default, a name hv/cmdline
 * knows, and set(get()) keeps the value. The defaults are the documented ones. */
START_TEST(test_option_registry)
{
	static const struct { const char *name; uint64_t def; } want[] = {
		{ "sched_credit_tslice_ms", 30 }, { "sched_credit_tick_ms", 10 },
		{ "sched_ratelimit_us", 1000 }, { "sched_sa_limit_us", 500 },
		{ "sched_dp_us", 0 }, { "sched_dp", 0 }, { "sched_dp_min_us", 0 },
		{ "sched_dp_max_us", 20000 }, { "sched_ds_min_ms", 0 }, { "sched_ds_max_ms", 0 },
		{ "sched_seed", 1 }, { "sched_relaxed_skew_us", 3000 },
		{ "sched_relaxed_costop", 1 }, { "ple", 1 }, { "ple_directed", 1 },
		{ "ple_window", 4096 }, { "ple_window_min", 1024 }, { "ple_window_max", 16384 },
		{ "ple_recent_us", 1000 }, { "sched_balloon_share", 0 },
	};
	const struct sched_opt *o;
	unsigned n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		uint64_t v = 99999;

		ck_assert_msg(sched_option_get(want[i].name, &v) == 0, "%s", want[i].name);
		ck_assert_msg(v == want[i].def, "%s default %llu", want[i].name,
			      (unsigned long long)v);
	}
	for (unsigned i = 0; (o = sched_option_at(i)); i++, n++) {
		char buf[32];
		uint64_t v;

		ck_assert_ptr_nonnull(cmdline_find(o->name));
		if (o->kind == SCHED_OPT_K_INT) {
			ck_assert_int_gt(o->unit, 0);
			ck_assert_msg(o->min <= o->def && o->def <= o->max, "%s", o->name);
		}
		ck_assert_int_eq(sched_option_get(o->name, &v), 0);
		if (o->kind == SCHED_OPT_K_ENUM)
			snprintf(buf, sizeof(buf), "%s", o->names[v]);
		else if (o->kind == SCHED_OPT_K_OFF)
			snprintf(buf, sizeof(buf), "%s", v ? "on" : "off");
		else
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
		ck_assert_msg(sched_option_set(o->name, buf) == 0, "%s=%s", o->name, buf);
	}
	ck_assert_uint_eq(n, ARRAY_SIZE(want) + 1);   /* + sched_test_local_us */
	ck_assert_ptr_null(sched_option_at(n));
}
END_TEST

/* The options reach sched_opts through the hv/cmdline registry. */
START_TEST(test_cmdline_registry)
{
	char buf[32];

	ck_assert_int_eq(cmdline_parse("sched=credit sched_credit_tslice_ms=7 "
				       "sched_ratelimit_us=0x20"), 0);
	ck_assert_str_eq(sched_opt_policy, "credit");
	ck_assert_int_eq(sched_opts.credit_tslice, MS(7));
	ck_assert_int_eq(sched_opts.ratelimit, US(32));
	cmdline_opt_format(cmdline_find("sched_credit_tslice_ms"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "7");
	ck_assert_int_eq(cmdline_parse("sched_credit_tick_ms=0"), -EINVAL);
	ck_assert_int_eq(sched_opts.credit_tick, MS(10));   /* default kept */
}
END_TEST

START_TEST(test_vm_params)
{
	uint64_t v;

	setup_machine(1, 1, false);
	ck_assert_int_eq(sched_vm_param_set(&VM[0], SCHED_PARAM_WEIGHT, 0), -EINVAL);
	ck_assert_int_eq(sched_vm_param_set(&VM[0], SCHED_PARAM_WEIGHT, 512), 0);
	ck_assert_int_eq(sched_vm_param_get(&VM[0], SCHED_PARAM_WEIGHT, &v), 0);
	ck_assert_uint_eq(v, 512);
	ck_assert_int_eq(sched_vm_param_set(&VM[0], SCHED_PARAM_TYPE, 2), -EINVAL);
	ck_assert_int_eq(sched_vm_param_set(&VM[0], SCHED_PARAM_TYPE, SCHED_TYPE_CON), 0);
	ck_assert_int_eq(sched_vm_param_set(&VM[0], SCHED_PARAM_CAP, 50), 0);
	ck_assert_int_eq(sched_vm_param_get(&VM[0], SCHED_PARAM_CAP, &v), 0);
	ck_assert_uint_eq(v, 50);
	ck_assert_int_eq(sched_vm_param_get(&VM[0], SCHED_PARAM_NPARAMS, &v), -EINVAL);
	{
		struct sched_vm bad;
		struct sched_vm_params p = { .weight = 0 };

		ck_assert_int_eq(sched_vm_add(&bad, 9, &p), -EINVAL);
	}
}
END_TEST

START_TEST(test_vm_budget)
{
	const struct sched_policy *o = sched_policy_find("credit");
	stime_t refill;

	setup_machine(1, 1, false);
	sched_vm_param_set(&VM[0], SCHED_PARAM_CAP, 50);
	ck_assert_ptr_nonnull(o->vm_budget);
	sched_at(0, 0);
	ck_assert_int_le(o->vm_budget(&VM[0], 0, &refill), MS(15));
	ck_assert_int_eq(refill, sched_sys.next_acct);
}
END_TEST

/* Seed 004 §4.3 asks what may still be debited: a running vCPU's time since
 * its last burn (no tick, no switch yet) counts as spent; a vCPU that is not
 * running adds nothing. */
START_TEST(test_vm_budget_running)
{
	const struct sched_policy *o = sched_policy_find("credit");
	struct sched_vcpu *a;
	stime_t refill, b0, b1, b2;

	setup_machine(1, 1, false);
	a = sched_at(0, 0);
	ck_assert_ptr_nonnull(a);
	sched_timer_fire(&P[0], MS(30));                    /* a refill: fair */
	a = sched_at(0, MS(30));
	ck_assert_ptr_nonnull(a);
	b0 = o->vm_budget(&VM[0], MS(30), &refill);
	ck_assert_int_gt(b0, MS(4));
	b1 = o->vm_budget(&VM[0], MS(34), &refill);        /* 4 ms run, not yet charged */
	ck_assert_int_eq(b1, b0 - MS(4));
	sched_block(a, MS(34));                             /* charged at the switch */
	b2 = o->vm_budget(&VM[0], MS(36), &refill);        /* blocked: nothing more */
	ck_assert_int_eq(b2, b1);
}
END_TEST

START_TEST(test_cpumask)
{
	struct cpumask m;

	cpumask_fill(&m, 70);
	ck_assert_uint_eq(cpumask_weight(&m), 70);
	ck_assert(cpumask_test(&m, 69));
	ck_assert(!cpumask_test(&m, 70));
	cpumask_zero(&m);
	ck_assert(cpumask_empty(&m));
	cpumask_set(&m, 3);
	cpumask_set(&m, 200);
	ck_assert_uint_eq(cpumask_next_and(&m, NULL, 4), 200);
	ck_assert_uint_eq(cpumask_next_and_wrap(&m, NULL, 201), 3);
	ck_assert_uint_eq(cpumask_next_and(&m, NULL, 201), SCHED_MAX_PCPUS);
	cpumask_clear(&m, 3);
	ck_assert_uint_eq(cpumask_next_and_wrap(&m, NULL, 0), 200);
}
END_TEST

/* Seed 001 §2.3 dedicated mode: other VMs frozen OFFLINE, then restored. */
START_TEST(test_dedicated_freeze_thaw)
{
	struct sched_vm_params prm = { .weight = 256 };
	struct sched_vcpu *a, *b;

	setup_machine(1, 2, false);
	ck_assert_int_eq(sched_vm_add(&VM[1], 1, &prm), 0);
	ck_assert_int_eq(sched_vcpu_add(&V[2], &VM[1], 0, 0), 0);
	sched_vcpu_start(&V[2], 0);
	a = sched_at(0, 0);
	ck_assert_ptr_eq(a->vm, &VM[0]);
	b = a == &V[0] ? &V[1] : &V[0];
	sched_block(a, MS(2));
	sched_dedicated_apply(1, MS(2));                /* VM 1 owns the machine */
	ck_assert_int_eq(a->state, SCHED_OFFLINE);
	ck_assert_int_eq(b->state, SCHED_OFFLINE);
	ck_assert_int_eq(V[2].state, SCHED_RUNNABLE);
	ck_assert(!sched_wake(a, MS(3)));               /* noted, not run */
	ck_assert_ptr_eq(sched_at(0, MS(3)), &V[2]);
	ck_assert_ptr_eq(sched_at(0, MS(40)), &V[2]);   /* nobody else may run */
	sched_dedicated_apply(-1, MS(50));
	ck_assert_int_eq(a->state, SCHED_RUNNABLE);     /* woken while frozen */
	ck_assert_int_eq(b->state, SCHED_RUNNABLE);
	ck_assert_int_eq(a->st.time[SCHED_OFFLINE], MS(48));
	ck_assert_int_eq(b->st.time[SCHED_OFFLINE], MS(48));
}
END_TEST

START_TEST(test_remove_vcpu)
{
	struct sched_vcpu *a;

	setup_machine(1, 2, false);
	a = sched_at(0, 0);
	sched_vcpu_remove(a, MS(2));
	ck_assert_int_eq(VM[0].nvcpus, 1);
	ck_assert_ptr_ne(sched_at(0, MS(2)), a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched_core");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_init_fallback);
	tcase_add_test(tc, test_policy_check);
	tcase_add_test(tc, test_state_accounting);
	tcase_add_test(tc, test_wake_before_switch);
	tcase_add_test(tc, test_idle_when_all_blocked);
	tcase_add_test(tc, test_yield);
	tcase_add_test(tc, test_yield_one_decision);
	tcase_add_test(tc, test_balloon_sleep);
	tcase_add_test(tc, test_sa_upcall_ack);
	tcase_add_test(tc, test_sa_timeout);
	tcase_add_test(tc, test_sa_no_competitor);
	tcase_add_test(tc, test_sa_ack_seq_ops);
	tcase_add_test(tc, test_sa_block_yield_without_ack);
	tcase_add_test(tc, test_sleep_cancel_timeout);
	tcase_add_test(tc, test_balloon_mode);
	tcase_add_test(tc, test_balloon_share_excl);
	tcase_add_test(tc, test_balloon_share_paper);
	tcase_add_test(tc, test_balloon_uncapped_wc);
	tcase_add_test(tc, test_balloon_upcall_optin);
	tcase_add_test(tc, test_balloon_many_vms);
	tcase_add_test(tc, test_balloon_many_vcpus);
	tcase_add_test(tc, test_shared_page_init);
	tcase_add_test(tc, test_delayed_preemption);
	tcase_add_test(tc, test_differential_slices);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_option_messages);
	tcase_add_test(tc, test_option_registry);
	tcase_add_test(tc, test_cmdline_registry);
	tcase_add_test(tc, test_vm_params);
	tcase_add_test(tc, test_vm_budget);
	tcase_add_test(tc, test_vm_budget_running);
	tcase_add_test(tc, test_cpumask);
	tcase_add_test(tc, test_dedicated_freeze_thaw);
	tcase_add_test(tc, test_remove_vcpu);
	suite_add_tcase(s, tc);

	return check_run(s);
}
