/* Unit tests for the scheduler core (hv/sched/core.c, schedule.c, preempt.c,
 * params.c, registry.c) with the credit policy on fake pCPUs and a fake
 * clock: state machine, exact accounting, hooks, options and parameters.
 * The topics are split over sched_core_*.c (sched_core.h says which). */
#include "check_run.h"
#include "sched_core.h"

/* ---- fake platform ---- */
stime_t fake_now;
stime_t fake_timer[8];
int fake_kicks[8];
int fake_injected, fake_vector;
struct sched_shared_page fake_page;
bool fake_irq;   /* platform: "an interrupt is pending" for every vCPU */

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

struct sched_pcpu P[4];
struct sched_vm VM[2];
struct sched_vcpu V[4];

void setup_machine(int npcpu, int nvcpu, bool sa)
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

struct sched_vcpu *sched_at(int cpu, stime_t t)
{
	stime_t until;

	fake_now = t;
	return sched_schedule(&P[cpu], t, &until);
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
	tcase_add_test(tc, test_delayed_preemption);
	tcase_add_test(tc, test_differential_slices);
	tcase_add_test(tc, test_cpumask);
	tcase_add_test(tc, test_dedicated_freeze_thaw);
	tcase_add_test(tc, test_remove_vcpu);
	sched_core_sa_add(tc);
	sched_core_balloon_add(tc);
	sched_core_opts_add(tc);
	suite_add_tcase(s, tc);

	return check_run(s);
}
