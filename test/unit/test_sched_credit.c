/* Credit-specific behaviour (hv/sched/credit.c): rate limit, BOOST only on
 * wake from blocking, the tslice option, run-time weight and cap changes,
 * and the seed 001 §3.2 BOOST effect. Fake platform and hvsim engine. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "errno.h"
#include "../../tools/sim/sim.h"

#define MS(x) ((stime_t)(x) * 1000000)
#define US(x) ((stime_t)(x) * 1000)

static stime_t fnow;
static int fkicks;
static stime_t f_now(void *c) { return fnow; }
static void f_timer(void *c, unsigned cpu, stime_t t) { }
static void f_kick(void *c, unsigned cpu) { fkicks++; }
static const struct sched_platform fplat = { .now = f_now, .timer_arm = f_timer, .kick = f_kick };

static struct sched_pcpu P;
static struct sched_vm VM;
static struct sched_vcpu V[2];
static struct sim S;

static void one_cpu_two_vcpus(void)
{
	sched_options_defaults();
	sched_platform_set(&fplat);
	ck_assert_int_eq(sched_init("credit"), 0);
	ck_assert_int_eq(sched_pcpu_add(&P, 0, 0), 0);
	ck_assert_int_eq(sched_vm_add(&VM, 0, NULL), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(sched_vcpu_add(&V[i], &VM, (uint16_t)i, 0), 0);
		sched_vcpu_start(&V[i], 0);
	}
}

static struct sched_vcpu *at(stime_t t, stime_t *until)
{
	fnow = t;
	return sched_schedule(&P, t, until);
}

/* A BOOSTed waker preempts only after the current vCPU ran ratelimit. */
START_TEST(test_ratelimit)
{
	struct sched_vcpu *a, *b;
	stime_t until;

	one_cpu_two_vcpus();
	a = at(0, &until);
	b = a == &V[0] ? &V[1] : &V[0];
	sched_block(a, MS(5));
	ck_assert_ptr_eq(at(MS(5), &until), b);
	fkicks = 0;
	sched_wake(a, MS(5) + US(300));
	ck_assert_int_eq(fkicks, 1);                     /* tickled: BOOST > UNDER */
	ck_assert_ptr_eq(at(MS(5) + US(300), &until), b);
	ck_assert_int_eq(until, MS(6));                  /* 1 ms after b started */
	ck_assert_ptr_eq(at(MS(6), &until), a);
}
END_TEST

/* Starting a vCPU (OFFLINE -> RUNNABLE) does not BOOST; waking does. */
START_TEST(test_boost_only_on_wake)
{
	struct sched_vcpu *a, *b;
	stime_t until;

	one_cpu_two_vcpus();
	a = at(0, &until);
	b = a == &V[0] ? &V[1] : &V[0];
	sched_vcpu_pause(b, MS(1));
	fkicks = 0;
	sched_vcpu_start(b, MS(3));
	ck_assert_int_eq(fkicks, 0);
	ck_assert_ptr_eq(at(MS(3), &until), a);          /* no preemption */
	ck_assert_ptr_eq(at(MS(30), &until), b);         /* slice end */
	sched_block(b, MS(31));
	ck_assert_ptr_eq(at(MS(31), &until), a);
	sched_wake(b, MS(35));
	ck_assert_int_eq(fkicks, 1);
	ck_assert_ptr_eq(at(MS(35), &until), b);         /* BOOST preempts a */
}
END_TEST

/*
 * Xen credit1's BOOST rules (xen/common/sched_credit.c), which the two-VM
 * balloon XFAIL rests on (docs/sched.md "The two-VM case against Xen's
 * credit1"): csched_vcpu_wake BOOSTs a waking UNDER vCPU, a balloon sleeper
 * too (Xen's unpause is a vcpu_wake), but returns at once for one already
 * on a run queue; __runq_tickle preempts only a lower priority; the tick's
 * demotion (csched_tick -> csched_vcpu_acct) raises no reschedule, so the
 * demoted vCPU keeps the pCPU to its slice end while a BOOSTed waker waits.
 */
START_TEST(test_boost_rules_as_xen)
{
	struct sched_vcpu *a, *b;
	stime_t until;

	one_cpu_two_vcpus();
	a = at(0, &until);
	b = a == &V[0] ? &V[1] : &V[0];
	sched_block(a, MS(1));
	ck_assert_ptr_eq(at(MS(1), &until), b);
	ck_assert_int_eq(sched_sleep(b, 0, MS(2)), 0);   /* balloon sleep */
	ck_assert_ptr_null(at(MS(2), &until));
	ck_assert(sched_wake(a, MS(3)));
	ck_assert_ptr_eq(at(MS(3), &until), a);          /* BOOST */
	ck_assert(!sched_timer_fire(&P, MS(10)));        /* tick: a demoted, no reschedule */
	fkicks = 0;
	ck_assert(sched_wake(b, MS(12)));                /* the sleeper's interrupt: BOOST */
	ck_assert_int_eq(fkicks, 1);                     /* BOOST > UNDER: tickled */
	ck_assert_ptr_eq(at(MS(12), &until), b);
	/* Both BOOSTed: b (never caught by a tick) and a waking from a sleep. */
	sched_block(b, MS(13));
	ck_assert_ptr_eq(at(MS(13), &until), a);
	ck_assert_int_eq(sched_sleep(a, 0, MS(14)), 0);
	ck_assert_ptr_null(at(MS(14), &until));
	ck_assert(sched_wake(b, MS(15)));
	ck_assert_ptr_eq(at(MS(15), &until), b);         /* still BOOST, slice to 45 ms */
	fkicks = 0;
	ck_assert(sched_wake(a, MS(16)));                /* BOOST */
	ck_assert_int_eq(fkicks, 0);                     /* but BOOST does not preempt BOOST */
	ck_assert(!sched_timer_fire(&P, MS(20)));        /* tick: b demoted, no reschedule */
	ck_assert(!sched_timer_fire(&P, MS(30)));        /* refill: none either */
	ck_assert(!sched_timer_fire(&P, MS(40)));
	ck_assert(sched_timer_fire(&P, MS(45)));         /* b's slice ends */
	ck_assert_ptr_eq(at(MS(45), &until), a);         /* a waited 29 ms */
	/* b, preempted, is RUNNABLE: its interrupt is no wake and no BOOST. */
	fkicks = 0;
	ck_assert(!sched_wake(b, MS(46)));
	ck_assert_int_eq(fkicks, 0);
	ck_assert_ptr_eq(at(MS(46), &until), a);
}
END_TEST

/* Regression (seen in Bochs): four vCPUs of one VM spinning with PAUSE-loop
 * exits on one pCPU. Stale yield flags made the queue return the same
 * yielder for ever while the other three starved. Every vCPU must run. */
START_TEST(test_yield_no_starvation)
{
	static struct sched_vcpu W[4];
	unsigned runs[4] = { 0 };
	struct sched_vcpu *cur;
	stime_t until, t = 0;

	sched_options_defaults();
	sched_platform_set(&fplat);
	ck_assert_int_eq(sched_init("credit"), 0);
	ck_assert_int_eq(sched_pcpu_add(&P, 0, 0), 0);
	ck_assert_int_eq(sched_vm_add(&VM, 0, NULL), 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(sched_vcpu_add(&W[i], &VM, (uint16_t)i, 0), 0);
		sched_vcpu_start(&W[i], 0);
	}
	/* W0 runs; W1..W3 run once and block (W0 yields to let them in). */
	cur = at(t, &until);
	ck_assert_ptr_eq(cur, &W[0]);
	for (int i = 1; i < 4; i++) {
		t += US(100);
		sched_vcpu_yield(cur, NULL, SCHED_YIELD_PLE, t);
		cur = at(t, &until);
		ck_assert_ptr_ne(cur, &W[0]);
		t += US(100);
		sched_block(cur, t);
		cur = at(t, &until);
	}
	/* They wake with credit left: BOOST, above W0 (UNDER). Now everyone
	 * spins: each vCPU yields whenever it runs. */
	for (int i = 1; i < 4; i++)
		sched_wake(&W[i], t);
	for (int i = 0; i < 80; i++) {
		t += US(200);
		cur = at(t, &until);
		runs[cur - W]++;
		sched_vcpu_yield(cur, NULL, SCHED_YIELD_PLE, t);
	}
	/* No tick runs here, so BOOST never ends and W0 (UNDER) rightly waits;
	 * the BOOSTed spinners must all keep running. With stale yield flags
	 * the queue returned W0, the yielder itself, for ever. */
	for (int i = 1; i < 4; i++)
		ck_assert_uint_ge(runs[i], 20);
}
END_TEST

static void sim_run_text(const char *text)
{
	char err[256];

	ck_assert_msg(sim_parse(&S, text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(sim_setup(&S), 0);
	sim_run(&S);
}

static uint64_t preempts(void)
{
	uint64_t n = 0;

	for (int i = 0; i < S.nvcpus; i++)
		n += S.vcpu[i].sv.st.npreempt;
	return n;
}

/* sched_credit_tslice_ms sets how often two hogs alternate. */
START_TEST(test_tslice_option)
{
	sim_run_text("pcpus 1\nduration 3s\nvm a\nvm b\nthread a.0 persistent\n"
		     "thread b.0 persistent\n");
	ck_assert_msg(preempts() >= 95 && preempts() <= 105, "30 ms: %llu",
		      (unsigned long long)preempts());
	sim_free(&S);
	sim_run_text("pcpus 1\nduration 3s\noption sched_credit_tslice_ms=10\nvm a\nvm b\n"
		     "thread a.0 persistent\nthread b.0 persistent\n");
	ck_assert_msg(preempts() >= 285 && preempts() <= 305, "10 ms: %llu",
		      (unsigned long long)preempts());
	sim_free(&S);
}
END_TEST

/* Weight raised to 3x at run time: the next 6 s split 3:1 within 15 %. */
START_TEST(test_weight_runtime)
{
	double a0, b0, r;

	sim_run_text("pcpus 1\nduration 2s\nvm a\nvm b\nthread a.0 persistent\n"
		     "thread b.0 persistent\n");
	a0 = sim_vm_cpu_ms(&S, &S.vm[0]);
	b0 = sim_vm_cpu_ms(&S, &S.vm[1]);
	ck_assert_int_eq(sched_vm_param_set(&S.vm[1].sv, SCHED_PARAM_WEIGHT, 768), 0);
	S.duration = SIM_MS(8000);
	sim_run(&S);
	r = (sim_vm_cpu_ms(&S, &S.vm[1]) - b0) / (sim_vm_cpu_ms(&S, &S.vm[0]) - a0);
	ck_assert_msg(r > 2.55 && r < 3.45, "ratio %.3f", r);
	sim_free(&S);
}
END_TEST

/* Cap 20 % then removed at run time: the hog gets the whole pCPU back. */
START_TEST(test_cap_runtime)
{
	double c0;

	sim_run_text("pcpus 1\nduration 2s\nvm a cap=20\nthread a.0 persistent\n");
	c0 = sim_vm_cpu_ms(&S, &S.vm[0]);
	ck_assert_msg(c0 > 350 && c0 < 450, "capped %.0f ms of 2000", c0);
	ck_assert_int_eq(sched_vm_param_set(&S.vm[0].sv, SCHED_PARAM_CAP, 0), 0);
	S.duration = SIM_MS(4000);
	sim_run(&S);
	ck_assert_msg(sim_vm_cpu_ms(&S, &S.vm[0]) - c0 > 1950, "uncapped %.0f",
		      sim_vm_cpu_ms(&S, &S.vm[0]) - c0);
	sim_free(&S);
}
END_TEST

/* Seed 001 §3.2: a thread that blocks every 5 ms (finer than the slice)
 * and shares pCPU 0 with a loop gets most of it; every 60 ms: about half. */
START_TEST(test_fine_grain_boost_effect)
{
	static const char *fmt = "pcpus 4\nvm par vcpus=4\nvm hog\nbarrier b 4\n"
		"program w\n loop %d\n  compute %dms\n  barrier b block\n end\nend\n"
		"thread par.0-3 w\nthread hog.0 persistent\n"
		"pin par.0 0\npin par.1 1\npin par.2 2\npin par.3 3\npin hog.0 0\n";
	char text[512];
	double fine, coarse;

	snprintf(text, sizeof(text), fmt, 200, 5);
	sim_run_text(text);
	fine = (double)S.vcpu[0].sv.st.time[SCHED_RUNNING] / (double)S.now;
	sim_free(&S);
	snprintf(text, sizeof(text), fmt, 20, 60);
	sim_run_text(text);
	coarse = (double)S.vcpu[0].sv.st.time[SCHED_RUNNING] / (double)S.now;
	sim_free(&S);
	ck_assert_msg(fine > 0.7, "fine-grained share of pCPU 0: %.3f", fine);
	ck_assert_msg(coarse > 0.4 && coarse < 0.6, "coarse-grained share: %.3f", coarse);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched_credit");
	TCase *tc = tcase_create("credit");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ratelimit);
	tcase_add_test(tc, test_yield_no_starvation);
	tcase_add_test(tc, test_boost_only_on_wake);
	tcase_add_test(tc, test_boost_rules_as_xen);
	tcase_add_test(tc, test_tslice_option);
	tcase_add_test(tc, test_weight_runtime);
	tcase_add_test(tc, test_cap_runtime);
	tcase_add_test(tc, test_fine_grain_boost_effect);
	suite_add_tcase(s, tc);

	return check_run(s);
}
