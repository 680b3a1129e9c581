/* Unit tests for the hvsim simulator (tools/sim): workload parser, guest
 * semantics (barriers, locks, sleeps, spin-then-block, guest scheduler),
 * lock-holder preemption counting and determinism for a seed. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../tools/sim/sim.h"

static struct sim S;

static void run(const char *text)
{
	char err[256];

	ck_assert_msg(sim_parse(&S, text, err, sizeof(err)) == 0, "parse: %s", err);
	ck_assert_int_eq(sim_setup(&S), 0);
	sim_run(&S);
}

static char *report(const char *text, uint64_t seed)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(sim_parse(&S, text, err, sizeof(err)), 0);
	S.seed = seed;
	ck_assert_int_eq(sim_setup(&S), 0);
	sim_run(&S);
	sim_report(&S, f);
	fclose(f);
	sim_free(&S);
	return buf;
}

static int parse_fails(const char *text, const char *want)
{
	char err[256] = "";
	int rc = sim_parse(&S, text, err, sizeof(err));

	ck_assert_msg(strstr(err, want), "error '%s' lacks '%s'", err, want);
	sim_free(&S);
	return rc;
}

START_TEST(test_parse_errors)
{
	ck_assert_int_eq(parse_fails("pcpus 2\nbogus 1\n", "line 2: unknown directive"), -1);
	ck_assert_int_eq(parse_fails("program p\n barrier nob block\nend\n", "undeclared"), -1);
	ck_assert_int_eq(parse_fails("program p\n compute 1ms\n", "not closed"), -1);
	ck_assert_int_eq(parse_fails("vm a vcpus=2\nthread a.0-2 persistent\n", "bad vcpu range"), -1);
	ck_assert_int_eq(parse_fails("program p\n compute 3 parsecs\nend\n", "unknown program"), -1);
	ck_assert_int_eq(parse_fails("program p\n compute 3xs\nend\n", "bad time"), -1);
	ck_assert_int_eq(parse_fails("vm a\nthread a.0 periodic 10ms\n", "unknown program"), -1);
	ck_assert_int_eq(parse_fails("vm a colour=blue\n", "unknown vm key"), -1);
}
END_TEST

START_TEST(test_barrier_block)
{
	run("pcpus 2\nvm a vcpus=2\nbarrier b 2\n"
	    "program p\n loop 10\n  compute 1ms\n  barrier b block\n end\nend\n"
	    "thread a.0-1 p\n");
	ck_assert_int_eq(S.vm[0].ndone, 2);
	/* 10 x 1 ms, plus at most a wake-up IPI (2 us) per barrier. */
	ck_assert_int_ge(S.vm[0].done_at, SIM_MS(10));
	ck_assert_int_le(S.vm[0].done_at, SIM_MS(10) + 10 * SIM_US(3));
	sim_free(&S);
}
END_TEST

START_TEST(test_sleep_and_blocked_time)
{
	struct sched_vcpu_stats st;

	run("pcpus 1\nvm a\nprogram p\n loop 10\n  compute 1ms\n  sleep 9ms\n end\nend\n"
	    "thread a.0 p\n");
	/* Start-up kick plus one wake-up IPI after each of the 10 sleeps. */
	ck_assert_int_eq(S.vm[0].done_at, SIM_MS(100) + 11 * S.kick_lat);
	sched_vcpu_stats(&S.vcpu[0].sv, S.now, &st);
	ck_assert_int_eq(st.time[SCHED_RUNNING], SIM_MS(10));
	ck_assert_int_eq(st.nblock, 11);   /* 10 sleeps, then idle when done */
	sim_free(&S);
}
END_TEST

START_TEST(test_guest_scheduler)
{
	run("pcpus 1\nguest_slice 4ms\nvm a\nprogram p\n compute 10ms\nend\n"
	    "thread a.0 p\nthread a.0 p\n");
	ck_assert_int_eq(S.vm[0].ndone, 2);
	ck_assert_int_eq(S.vm[0].done_at, SIM_MS(20) + S.kick_lat);
	/* Round robin in the guest: the first thread does not finish at 10 ms. */
	ck_assert_int_ne(S.thr[0].state, T_READY);
	sim_free(&S);
}
END_TEST

START_TEST(test_spin_then_block)
{
	run("pcpus 2\nvm a vcpus=2\nbarrier b 2\n"
	    "program fast\n compute 1ms\n barrier b spin-block=2ms\nend\n"
	    "program slow\n compute 6ms\n barrier b block\nend\n"
	    "thread a.0 fast\nthread a.1 slow\n");
	ck_assert_int_eq(S.vcpu[0].spin_time, SIM_MS(2));   /* gave up after 2 ms */
	ck_assert_int_eq(S.vcpu[0].sv.st.nblock, 2);         /* barrier, then done */
	sim_free(&S);
}
END_TEST

START_TEST(test_spin_barrier_counts_spin)
{
	run("pcpus 2\nvm a vcpus=2\nbarrier b 2\n"
	    "program fast\n compute 1ms\n barrier b spin\nend\n"
	    "program slow\n compute 6ms\n barrier b spin\nend\n"
	    "thread a.0 fast\nthread a.1 slow\n");
	ck_assert_int_eq(S.vcpu[0].spin_time, SIM_MS(5));
	ck_assert_int_eq(S.vcpu[1].spin_time, 0);
	sim_free(&S);
}
END_TEST

/* `ple T`: a vCPU spinning at a barrier exits (yields) every T of spinning
 * at the default window (here held fixed by ple_window_max); with nothing
 * else to run it keeps spinning until released. */
START_TEST(test_ple_exits)
{
	run("pcpus 2\nple 100us\noption ple_window_max=4096\nvm a vcpus=2\nbarrier b 2\n"
	    "program fast\n compute 1ms\n barrier b spin\nend\n"
	    "program slow\n compute 6ms\n barrier b spin\nend\n"
	    "thread a.0 fast\nthread a.1 slow\n");
	ck_assert_int_eq(S.vcpu[0].spin_time, SIM_MS(5));
	ck_assert_int_ge(S.vcpu[0].sv.st.nyield, 49);
	ck_assert_int_le(S.vcpu[0].sv.st.nyield, 50);
	ck_assert_int_eq(S.vcpu[1].sv.st.nyield, 0);
	sim_free(&S);
}
END_TEST

/* The adaptive window (hv/sched/ple.c): no preempted sibling to help, so
 * each exit doubles the window: 100, 200, then 400 us (x4: ple_window_max). */
START_TEST(test_ple_window_grows)
{
	run("pcpus 2\nple 100us\nvm a vcpus=2\nbarrier b 2\n"
	    "program fast\n compute 1ms\n barrier b spin\nend\n"
	    "program slow\n compute 6ms\n barrier b spin\nend\n"
	    "thread a.0 fast\nthread a.1 slow\n");
	ck_assert_int_eq(S.vcpu[0].spin_time, SIM_MS(5));
	/* exits at 0.1, 0.3, 0.7, 1.1, ... 4.7 ms of its 5 ms spin */
	ck_assert_int_eq(S.vcpu[0].sv.st.nyield, 13);
	ck_assert_int_eq(S.vcpu[0].sv.ple_window, 16384);
	sim_free(&S);
}
END_TEST

/* One pCPU, two vCPUs contending for a spinlock held across slice ends:
 * the holder gets preempted with the lock held and the waiter spins. */
START_TEST(test_lock_holder_preemption)
{
	run("pcpus 1\nvm a vcpus=2\nlock L\n"
	    "program p\n loop 40\n  lock L spin\n  compute 7ms\n  unlock L\n  compute 1ms\n end\nend\n"
	    "thread a.0-1 p\n");
	ck_assert_int_eq(S.vm[0].ndone, 2);
	ck_assert_int_gt(S.vcpu[0].lhp + S.vcpu[1].lhp, 0);
	ck_assert_int_gt(S.vcpu[0].spin_time + S.vcpu[1].spin_time, 0);
	ck_assert_int_eq(S.lock[0].holder, -1);
	ck_assert_int_eq(S.lock[0].acquires, 80);
	sim_free(&S);
}
END_TEST

START_TEST(test_yield_op)
{
	run("pcpus 1\nvm a vcpus=2\nprogram p\n loop 5\n  compute 1ms\n  yield\n end\nend\n"
	    "thread a.0-1 p\n");
	ck_assert_int_eq(S.vcpu[0].sv.st.nyield + S.vcpu[1].sv.st.nyield, 10);
	ck_assert_int_eq(S.vm[0].done_at, SIM_MS(10) + S.kick_lat);
	sim_free(&S);
}
END_TEST

START_TEST(test_deterministic)
{
	static const char *wl = "pcpus 2\nduration 2s\nvm a vcpus=2\nvm b vcpus=2\n"
				"thread a.0-1 intermittent 50\nthread b.0-1 intermittent 30\n";
	char *r1 = report(wl, 5), *r2 = report(wl, 5), *r3 = report(wl, 6);

	ck_assert_str_eq(r1, r2);
	ck_assert_str_ne(r1, r3);
	free(r1);
	free(r2);
	free(r3);
}
END_TEST

/* Periodic 10 ms on / 10 ms off alone: 50 % of a pCPU. */
START_TEST(test_periodic_duty)
{
	run("pcpus 1\nduration 1s\nvm a\nthread a.0 periodic 10ms 10ms\n");
	ck_assert(sim_vm_cpu_ms(&S, &S.vm[0]) > 495 && sim_vm_cpu_ms(&S, &S.vm[0]) < 505);
	sim_free(&S);
}
END_TEST

/* Intermittent at 30 %: random 1-40 ms bursts, 30 % demand overall. */
START_TEST(test_intermittent_duty)
{
	run("pcpus 1\nduration 20s\nvm a\nthread a.0 intermittent 30\n");
	double share = sim_vm_cpu_ms(&S, &S.vm[0]) / 20000.0;

	ck_assert_msg(share > 0.27 && share < 0.33, "share %.3f", share);
	sim_free(&S);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched_sim");
	TCase *tc = tcase_create("sim");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_barrier_block);
	tcase_add_test(tc, test_sleep_and_blocked_time);
	tcase_add_test(tc, test_guest_scheduler);
	tcase_add_test(tc, test_spin_then_block);
	tcase_add_test(tc, test_spin_barrier_counts_spin);
	tcase_add_test(tc, test_lock_holder_preemption);
	tcase_add_test(tc, test_ple_exits);
	tcase_add_test(tc, test_ple_window_grows);
	tcase_add_test(tc, test_yield_op);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_periodic_duty);
	tcase_add_test(tc, test_intermittent_duty);
	suite_add_tcase(s, tc);

	return check_run(s);
}
