/* test_sched_core, the balloon (seed 004): sleep and its cancellation, the
 * work-conserving mode and its upcall, many VMs and vCPUs, the shared page,
 * uncapped VMs. */
#include "sched_core.h"
#include "sched/credit.h"

static stime_t sched_vm_budget_probe(struct sched_vm *vm, stime_t now, stime_t *refill)
{
	return sched_sys.ops->vm_budget(vm, now, refill);
}

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
	ck_assert_uint_eq(fake_page.balloon_guard, 0);
	ck_assert_uint_eq(fake_page.reserved0 | fake_page.reserved[0], 0);
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

/* sched_balloon_guard=25 (preempt.c): an NWC VM running flat out is
 * re-checked at the earliest time its budget can fall below 25% of its time
 * to the refill, marked (page, upcall, VPE_BALLOON_MODE arg 2) while budget
 * is still left, kept so until the refill, and cleared by it. Off (the
 * default), test_balloon_mode shows no such re-check. */
START_TEST(test_balloon_guard)
{
	unsigned long long ev0;
	struct sched_vcpu *a;
	stime_t t, b, want, tg;

	ck_assert_int_ne(sched_option_set("sched_balloon_guard", "95"), 0);
	ck_assert_int_eq(sched_option_set("sched_balloon_guard", "25"), 0);
	setup_machine(1, 1, false);
	sched_vm_param_set(&VM[0], SCHED_PARAM_CAP, 50);
	a = sched_at(0, 0);
	ck_assert_int_eq(sched_sa_register(a, 0xf3 | HV_SA_REG_BALLOON), 0);
	for (t = MS(1); t < MS(30); t += MS(1)) {
		sched_timer_fire(&P[0], t);
		sched_at(0, t);
	}
	sched_timer_fire(&P[0], MS(30));                    /* refill: NWC, no guard yet */
	ck_assert_ptr_eq(sched_at(0, MS(30)), a);
	b = VM[0].credit_left;
	want = MS(30) / 4;
	ck_assert_int_gt(b, want);
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_NWC);
	ck_assert_int_eq(VM[0].balloon_guard, 0);
	ck_assert_uint_eq(fake_page.balloon_guard, 0);
	tg = MS(30) + (b - want) * 100 / 75;
	ck_assert_int_eq(sched_sys.next_balloon, MIN(tg, MS(60) - b));
	ev0 = vprof_stub_events[VPE_BALLOON_MODE];
	fake_page.reasons = 0;
	/* a runs on (the balloon never sleeps): re-checks until the guard. */
	t = MS(30);
	while (!VM[0].balloon_guard && sched_sys.next_balloon < MS(60)) {
		ck_assert_int_gt(sched_sys.next_balloon, t);
		t = sched_sys.next_balloon;
		sched_timer_fire(&P[0], t);
		ck_assert_ptr_eq(sched_at(0, t), a);
	}
	ck_assert_int_eq(VM[0].balloon_guard, 1);
	ck_assert_int_eq(VM[0].balloon_mode, SCHED_BALLOON_NWC);
	ck_assert_int_lt(VM[0].credit_left, (MS(60) - t) / 4);
	ck_assert_int_gt(VM[0].credit_left, 0);             /* before the budget is gone */
	ck_assert_uint_eq(fake_page.balloon_guard, 1);
	ck_assert_uint_eq(fake_page.balloon_mode, HV_BALLOON_NWC);
	ck_assert_uint_eq(fake_page.reasons, HV_UPCALL_BALLOON_MODE);
	ck_assert_int_eq(fake_vector, 0xf3);
	ck_assert_int_eq(vprof_stub_events[VPE_BALLOON_MODE] - ev0, 1);
	ck_assert_int_eq(sched_sys.next_balloon, STIME_MAX);   /* kept to the refill */
	fake_page.reasons = 0;
	ck_assert_int_eq(sched_sleep(a, 0, t), 0);          /* the guest's balloon */
	sched_timer_fire(&P[0], MS(60));                    /* refill: cleared */
	ck_assert_int_eq(VM[0].balloon_guard, 0);
	ck_assert_uint_eq(fake_page.balloon_guard, 0);
	ck_assert_uint_eq(fake_page.reasons, HV_UPCALL_BALLOON_MODE);
	ck_assert_int_eq(vprof_stub_events[VPE_BALLOON_MODE] - ev0, 2);
}
END_TEST

/* Without a competitor there is nothing to announce. */

void sched_core_balloon_add(TCase *tc)
{
	tcase_add_test(tc, test_balloon_sleep);
	tcase_add_test(tc, test_sleep_cancel_timeout);
	tcase_add_test(tc, test_balloon_mode);
	tcase_add_test(tc, test_balloon_share_excl);
	tcase_add_test(tc, test_balloon_share_paper);
	tcase_add_test(tc, test_balloon_upcall_optin);
	tcase_add_test(tc, test_balloon_many_vms);
	tcase_add_test(tc, test_balloon_many_vcpus);
	tcase_add_test(tc, test_shared_page_init);
	tcase_add_test(tc, test_balloon_uncapped_wc);
	tcase_add_test(tc, test_balloon_guard);
}
