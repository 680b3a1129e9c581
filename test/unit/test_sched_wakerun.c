/* "Wake and run here" (issue 19; core: sched_wake_run, hv/sched/schedule.c
 * sched_switch_woken; credit: csched_wake_local). Each case runs the same
 * history twice from scratch, once with the normal wake (sched_wake, then
 * sched_schedule on every pCPU asked to) and once with sched_wake_run (then
 * sched_wake_run_take, or sched_schedule where a reschedule is pending),
 * at the same instants, and compares what credit decided and accounted:
 * every pCPU's current vCPU, slice end, tick and idle time, the idle mask,
 * every vCPU's state, pCPU, priority, credit, charge start, queue and
 * per-state times and wake-latency samples. A fast path that skipped a
 * higher-priority runnable vCPU, a BOOST/UNDER/OVER rule, a cap park, a steal
 * or a co-scheduling signal makes a case fail. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "sched/credit_priv.h"

#define MS(x) ((stime_t)(x) * 1000000)

static stime_t fnow;
static int fkicks[2];
static stime_t f_now(void *c) { return fnow; }
static void f_timer(void *c, unsigned cpu, stime_t t) { }
static void f_kick(void *c, unsigned cpu) { fkicks[cpu & 1]++; }
static const struct sched_platform fplat = { .now = f_now, .timer_arm = f_timer, .kick = f_kick };

static struct sched_pcpu P[2];
static struct sched_vm VM;
static struct sched_vcpu V[4];

struct vsnap {
	struct sched_vcpu *curr;
	stime_t slice_end, next_tick, idle_time, curr_since;
};
struct csnap {
	uint8_t state, pri, queued;
	unsigned pcpu;
	int64_t credit;
	stime_t start, time[SCHED_NSTATES], wake_lat_sum;
	uint64_t nwake, nwake_lat;
};
struct snap {
	struct vsnap p[2];
	struct csnap v[4];
	uint64_t idlers;
	int woke;
};

static void world(const char *policy, unsigned cap)
{
	struct sched_vm_params prm = { .weight = 256, .cap = cap };
	struct cpumask m;

	memset(P, 0, sizeof(P));
	memset(&VM, 0, sizeof(VM));
	memset(V, 0, sizeof(V));
	fnow = 0;
	sched_options_defaults();
	sched_platform_set(&fplat);
	ck_assert_int_eq(sched_init(policy), 0);
	for (unsigned i = 0; i < 2; i++)
		ck_assert_int_eq(sched_pcpu_add(&P[i], i, 0), 0);
	ck_assert_int_eq(sched_vm_add(&VM, 0, &prm), 0);
	/* V0, V2 on pCPU 0; V1, V3 on pCPU 1. */
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_int_eq(sched_vcpu_add(&V[i], &VM, (uint16_t)i, 0), 0);
		cpumask_zero(&m);
		cpumask_set(&m, i & 1);
		ck_assert_int_eq(sched_vcpu_affinity_set(&V[i], &m, 0), 0);
	}
}

static struct sched_vcpu *sched_at(unsigned cpu, stime_t t)
{
	stime_t until;

	fnow = t;
	return sched_schedule(&P[cpu], t, &until);
}

/* The wake of v at t, then each pCPU acts as the hypervisor's loop does. */
static int wake_and_run(struct sched_vcpu *v, stime_t t, bool fast)
{
	int r;

	fnow = t;
	if (!fast)
		return sched_wake(v, t) ? SCHED_WOKE : SCHED_WOKE_NOT;
	r = sched_wake_run(v, t);
	if (r == SCHED_WOKE_RUN) {
		struct sched_pcpu *p = &P[v->pcpu];

		ck_assert(!sched_need_resched(p));
		ck_assert_ptr_eq(sched_wake_run_take(p), v);
		ck_assert_ptr_null(sched_wake_run_take(p));   /* consumed once */
	}
	return r;
}

static void settle(stime_t t)
{
	for (unsigned c = 0; c < 2; c++)
		if (sched_need_resched(&P[c]) || !P[c].curr)
			sched_at(c, t);
}

static void take(struct snap *s, int woke)
{
	memset(s, 0, sizeof(*s));
	for (unsigned c = 0; c < 2; c++) {
		s->p[c].curr = P[c].curr;
		s->p[c].slice_end = P[c].slice_end;
		s->p[c].next_tick = P[c].next_tick;
		s->p[c].idle_time = P[c].idle_time;
		s->p[c].curr_since = P[c].curr ? P[c].curr_since : 0;
	}
	for (unsigned i = 0; i < 4; i++) {
		struct csched_vcpu *cv = (void *)V[i].priv;

		s->v[i].state = V[i].state;
		s->v[i].pcpu = V[i].pcpu;
		s->v[i].pri = cv->pri;
		s->v[i].queued = cv->queued;
		s->v[i].credit = cv->credit;
		s->v[i].start = cv->start;
		memcpy(s->v[i].time, V[i].st.time, sizeof(s->v[i].time));
		s->v[i].wake_lat_sum = V[i].st.wake_lat_sum;
		s->v[i].nwake = V[i].st.nwake;
		s->v[i].nwake_lat = V[i].st.nwake_lat;
	}
	s->idlers = csched_prv.idlers.w[0];
	s->woke = woke;
}

static void assert_same(const struct snap *a, const struct snap *b)
{
	for (unsigned c = 0; c < 2; c++) {
		ck_assert_ptr_eq(a->p[c].curr, b->p[c].curr);
		ck_assert_int_eq(a->p[c].slice_end, b->p[c].slice_end);
		ck_assert_int_eq(a->p[c].next_tick, b->p[c].next_tick);
		ck_assert_int_eq(a->p[c].idle_time, b->p[c].idle_time);
		ck_assert_int_eq(a->p[c].curr_since, b->p[c].curr_since);
	}
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_int_eq(a->v[i].state, b->v[i].state);
		ck_assert_int_eq(a->v[i].pcpu, b->v[i].pcpu);
		ck_assert_int_eq(a->v[i].pri, b->v[i].pri);
		ck_assert_int_eq(a->v[i].queued, b->v[i].queued);
		ck_assert_int_eq(a->v[i].credit, b->v[i].credit);
		ck_assert_int_eq(a->v[i].start, b->v[i].start);
		for (unsigned k = 0; k < SCHED_NSTATES; k++)
			ck_assert_int_eq(a->v[i].time[k], b->v[i].time[k]);
		ck_assert_int_eq(a->v[i].wake_lat_sum, b->v[i].wake_lat_sum);
		ck_assert_int_eq(a->v[i].nwake, b->v[i].nwake);
		ck_assert_int_eq(a->v[i].nwake_lat, b->v[i].nwake_lat);
	}
	ck_assert_uint_eq(a->idlers, b->idlers);
}

/* A case: build the history up to the wake (fresh world each time). */
typedef void (*history_fn)(void);

/* Runs the case both ways; returns sched_wake_run's answer. */
static int run_case(const char *policy, unsigned cap, history_fn h, unsigned vi)
{
	struct snap a, b;
	int r;

	for (int fast = 0; fast < 2; fast++) {
		world(policy, cap);
		h();
		r = wake_and_run(&V[vi], MS(7), fast);
		settle(MS(7));
		/* and a little later: the slice and the charge go on alike */
		settle(MS(8));
		take(fast ? &b : &a, r);
	}
	ck_assert_int_ne(a.woke, SCHED_WOKE_NOT);
	assert_same(&a, &b);
	return b.woke;
}

/* V0 and V1 run on pCPUs 0 and 1, V2 and V3 stay OFFLINE; V0 blocks at 5 ms. */
static void h_alone(void)
{
	sched_vcpu_start(&V[0], 0);
	sched_vcpu_start(&V[1], 0);
	ck_assert_ptr_eq(sched_at(0, 0), &V[0]);
	ck_assert_ptr_eq(sched_at(1, 0), &V[1]);
	sched_block(&V[0], MS(5));
	ck_assert_ptr_null(sched_at(0, MS(5)));
}

/* The idle pCPU's only vCPU wakes: it runs at once, BOOSTed, as credit's
 * wake and pick would have it. */
START_TEST(test_alone_runs_here)
{
	ck_assert_int_eq(run_case("credit", 0, h_alone, 0), SCHED_WOKE_RUN);
	ck_assert_ptr_eq(P[0].curr, &V[0]);
	ck_assert_int_eq(((struct csched_vcpu *)V[0].priv)->pri, CPRI_BOOST);
	ck_assert_int_eq(P[0].nwake_run, 1);
}
END_TEST

/* ... and a schedule before the loop took it treats it as prev. */
START_TEST(test_schedule_clears_take)
{
	int k;

	world("credit", 0);
	h_alone();
	k = fkicks[0];
	ck_assert_int_eq(sched_wake_run(&V[0], MS(7)), SCHED_WOKE_RUN);
	ck_assert_int_eq(fkicks[0], k + 1);   /* its loop is told */
	ck_assert_ptr_eq(sched_at(0, MS(7)), &V[0]);
	ck_assert_ptr_null(sched_wake_run_take(&P[0]));
}
END_TEST

/* Another vCPU was woken on pCPU 0 first (BOOST, queued, pCPU 0 tickled but
 * not scheduled yet): V0 must queue behind it. */
static void h_queued_first(void)
{
	h_alone();
	sched_vcpu_start(&V[2], MS(5));
	ck_assert_ptr_eq(sched_at(0, MS(5)), &V[2]);
	sched_block(&V[2], MS(6));
	ck_assert_ptr_null(sched_at(0, MS(6)));
	sched_wake(&V[2], MS(6) + 1);      /* queued BOOST, pCPU 0 kicked */
}

START_TEST(test_queued_vcpu_first)
{
	ck_assert_int_eq(run_case("credit", 0, h_queued_first, 0), SCHED_WOKE);
	ck_assert_ptr_eq(P[0].curr, &V[2]);
}
END_TEST

/* The same with the reschedule request already gone (a request consumed by
 * a racing kick): credit's own test (its runqueue is not empty) refuses. */
static void h_queued_no_resched(void)
{
	h_queued_first();
	P[0].need_resched = false;
	P[0].resched_hard = false;
}

START_TEST(test_queued_vcpu_policy_refuses)
{
	ck_assert_int_eq(run_case("credit", 0, h_queued_no_resched, 0), SCHED_WOKE);
	ck_assert_ptr_eq(P[0].curr, &V[2]);
}
END_TEST

/* V0 woke OVER (the refill demoted it while it blocked) and pCPU 1 queues
 * an UNDER vCPU that may run on pCPU 0: credit's pick steals that one
 * (csched_load_balance) and V0 waits. */
static void h_over_peer_under(void)
{
	h_alone();
	sched_vcpu_start(&V[3], MS(5));   /* queued UNDER behind V1 on pCPU 1 */
	cpumask_set(&V[3].affinity, 0);   /* and allowed on pCPU 0 */
	csched_vcpu_set_pri(&V[0], CPRI_OVER);
	ck_assert(!sched_need_resched(&P[0]));   /* pCPU 0 idles on */
}

START_TEST(test_over_lets_peer_work_be_stolen)
{
	ck_assert_int_eq(run_case("credit", 0, h_over_peer_under, 0), SCHED_WOKE);
	ck_assert_ptr_eq(P[0].curr, &V[3]);
}
END_TEST

/* OVER with nothing to steal: the normal path runs it OVER; the fast path
 * leaves OVER to it (no BOOST, same result). */
static void h_over_alone(void)
{
	h_alone();
	csched_vcpu_set_pri(&V[0], CPRI_OVER);
}

START_TEST(test_over_alone)
{
	ck_assert_int_eq(run_case("credit", 0, h_over_alone, 0), SCHED_WOKE);
	ck_assert_ptr_eq(P[0].curr, &V[0]);
	ck_assert_int_eq(((struct csched_vcpu *)V[0].priv)->pri, CPRI_OVER);
}
END_TEST

/* The VM is capped out while V0 blocks: it is parked, not run, not BOOSTed. */
static void h_cap_parked(void)
{
	h_alone();
	WRITE_ONCE(((struct csched_vm *)VM.priv)->parked, 1);
}

START_TEST(test_cap_park)
{
	ck_assert_int_eq(run_case("credit", 50, h_cap_parked, 0), SCHED_WOKE);
	ck_assert_ptr_null(P[0].curr);
	ck_assert_int_eq(((struct csched_vcpu *)V[0].priv)->queued, 2);
}
END_TEST

/* A capped VM with budget left: runs here, with pick's cap-cut slice. */
START_TEST(test_cap_budget_left)
{
	ck_assert_int_eq(run_case("credit", 50, h_alone, 0), SCHED_WOKE_RUN);
}
END_TEST

/* A co-scheduling signal raised to pCPU 0 before the wake (seed 003 Alg. 1
 * cpu_raise): its pick must run, so the wake takes the normal path and the
 * request is still there for sched_schedule. */
static void h_cosched_signal(void)
{
	struct cpumask m;

	h_alone();
	cpumask_zero(&m);
	cpumask_set(&m, 0);
	sched_cosched_signal(1, &V[1], &m, MS(6));
}

START_TEST(test_cosched_signal_pending)
{
	world("credit", 0);
	h_cosched_signal();
	fnow = MS(7);
	ck_assert_int_eq(sched_wake_run(&V[0], MS(7)), SCHED_WOKE);
	ck_assert(sched_need_resched(&P[0]));
	ck_assert_ptr_null(P[0].curr);
	ck_assert_int_eq(run_case("credit", 0, h_cosched_signal, 0), SCHED_WOKE);
}
END_TEST

/* Co-scheduling variants pick through their hooks: never the fast path. */
START_TEST(test_variants_keep_normal_path)
{
	static const char *const pol[] = { "gang", "cs", "pcs", "bcs", "cds", "relaxed", "rr" };

	for (unsigned i = 0; i < sizeof(pol) / sizeof(pol[0]); i++) {
		world(pol[i], 0);
		ck_assert_str_eq(sched_policy_name(), pol[i]);
		h_alone();
		ck_assert_int_eq(sched_wake_run(&V[0], MS(7)), SCHED_WOKE);
		ck_assert_int_eq(P[0].nwake_run, 0);
	}
}
END_TEST

/* A pCPU running something is never "idle for it". */
START_TEST(test_busy_pcpu)
{
	world("credit", 0);
	h_alone();
	sched_vcpu_start(&V[2], MS(5));
	ck_assert_ptr_eq(sched_at(0, MS(5)), &V[2]);
	ck_assert_int_eq(sched_wake_run(&V[0], MS(7)), SCHED_WOKE);
	ck_assert_ptr_eq(P[0].curr, &V[2]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sched_wakerun");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_alone_runs_here);
	tcase_add_test(tc, test_schedule_clears_take);
	tcase_add_test(tc, test_queued_vcpu_first);
	tcase_add_test(tc, test_queued_vcpu_policy_refuses);
	tcase_add_test(tc, test_over_lets_peer_work_be_stolen);
	tcase_add_test(tc, test_over_alone);
	tcase_add_test(tc, test_cap_park);
	tcase_add_test(tc, test_cap_budget_left);
	tcase_add_test(tc, test_cosched_signal_pending);
	tcase_add_test(tc, test_variants_keep_normal_path);
	tcase_add_test(tc, test_busy_pcpu);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
