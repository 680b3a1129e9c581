/* Run-time policy switch (hv/sched/switch.c, issue 16) on the simulator's
 * fake pCPUs and clock: switching under load loses no vCPU, the conformance
 * properties hold one accounting period after the switch, a switch back
 * restores the behaviour, options change with the policy, and requests are
 * validated. Tolerances are those of test_sched_conform.c. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include "sim_fixture.h"
#include "errno.h"

extern unsigned long long vprof_stub_events[VPE_NEVENTS];

/* Request a switch at the current time and run until it is installed
 * (bounded: every pCPU reaches its schedule within a kick latency). */
static void switch_to(const char *policy, const char *opts)
{
	uint64_t n = sched_policy_switches();
	int rc = sched_policy_switch(policy, opts, S.now);

	ck_assert_msg(rc == 0, "switch to %s: %d", policy, rc);
	ck_assert(sched_policy_switching());
	run_to(S.now + SIM_MS(1));
	ck_assert_msg(!sched_policy_switching(), "switch to %s not installed after 1 ms", policy);
	ck_assert_int_eq(sched_policy_switches(), n + 1);
	ck_assert_str_eq(sched_policy_name(), policy);
}

static stime_t running_ns(int i)
{
	struct sched_vcpu_stats st;

	sched_vcpu_stats(&S.vcpu[i].sv, S.now, &st);
	return st.time[SCHED_RUNNING];
}

/* Every vCPU is known to exactly one runqueue state: RUNNING ones are some
 * pCPU's curr (and each curr is RUNNING on that pCPU), per-pCPU RUNNABLE
 * counts match, time accounting adds up to the clock. */
static void check_consistent(void)
{
	unsigned runnable[64] = { 0 };
	int nrunning = 0, ncurr = 0;

	for (int i = 0; i < S.nvcpus; i++) {
		struct sched_vcpu *v = &S.vcpu[i].sv;
		struct sched_vcpu_stats st;
		stime_t sum = 0;

		ck_assert_msg(v->flags & SCHED_VF_ADDED, "vcpu %d lost", i);
		ck_assert_int_lt(v->pcpu, S.npcpus);
		if (v->state == SCHED_RUNNING) {
			nrunning++;
			ck_assert_msg(S.pcpu[v->pcpu].sp.curr == v, "vcpu %d RUNNING, not curr", i);
		}
		if (v->state == SCHED_RUNNABLE)
			runnable[v->pcpu]++;
		sched_vcpu_stats(v, S.now, &st);
		for (int k = 0; k < SCHED_NSTATES; k++)
			sum += st.time[k];
		ck_assert_int_eq(sum, S.now);
	}
	for (int c = 0; c < S.npcpus; c++) {
		struct sched_pcpu *p = &S.pcpu[c].sp;

		ck_assert(!p->sw_quiesced);
		ck_assert_uint_eq(p->nr_runnable, runnable[c]);
		if (p->curr && p->curr->state == SCHED_RUNNING)
			ncurr++;
	}
	ck_assert_int_eq(nrunning, ncurr);
}

/* 7 vCPUs (hogs and blockers) on 2 pCPUs: credit -> pcs -> credit -> rr ->
 * credit, 600 ms each. After each switch every vCPU runs again (at least
 * half its fair share of the window that starts one accounting period after
 * the switch), and the state stays consistent. */
START_TEST(test_switch_under_load)
{
	static const char *const seq[] = { "pcs", "credit", "rr", "relaxed", "credit" };
	unsigned long long ev0 = vprof_stub_events[VPE_SCHED_SWITCH];

	setup("credit", "pcpus 2\nduration 10s\nvm a vcpus=3\nvm b vcpus=2 type=con\nvm c vcpus=2\n"
			"program io\n loop forever\n  compute 1ms..5ms\n  sleep duty=50\n end\nend\n"
			"thread a.0-2 persistent\nthread b.0-1 persistent\nthread c.0-1 io\n");
	run_to(SIM_MS(600));
	for (size_t k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
		stime_t ran[16], t0;

		switch_to(seq[k], NULL);
		check_consistent();
		run_to(S.now + (sched_sys.acct_ns ? sched_sys.acct_ns : SIM_MS(30)));
		t0 = S.now;
		for (int i = 0; i < S.nvcpus; i++)
			ran[i] = running_ns(i);
		run_to(S.now + SIM_MS(600));
		check_consistent();
		for (int i = 0; i < S.nvcpus; i++) {
			/* hogs: 2 pCPUs / 7 vCPUs; blockers want less. Half of 1/7 of
			 * the window is the no-starvation bound. */
			ck_assert_msg(running_ns(i) - ran[i] > (S.now - t0) * 2 / 7 / 4,
				      "%s: vcpu %d ran %lld ns of %lld", seq[k], i,
				      (long long)(running_ns(i) - ran[i]), (long long)(S.now - t0));
		}
	}
	ck_assert_uint_eq(vprof_stub_events[VPE_SCHED_SWITCH] - ev0, 2 * 5);
	sim_free(&S);
}
END_TEST

static double cpu_between(const char *vm, double *mark)
{
	double now = sim_vm_cpu_ms(&S, sim_vm_find(&S, vm)), d = now - *mark;

	*mark = now;
	return d;
}

/* Weight 512 vs 256 on one pCPU: ratio 2.0 +-10 % under credit, under pcs
 * one accounting period after the switch, lost under rr (no weights: ~1.0),
 * and back under credit after switching back. */
START_TEST(test_switch_weights_restored)
{
	double ma = 0, mb = 0, r;

	setup("credit", "pcpus 1\nduration 20s\nvm a weight=256\nvm b weight=512\n"
			"thread a.0 persistent\nthread b.0 persistent\n");
	run_to(SIM_MS(3000));
	cpu_between("a", &ma), cpu_between("b", &mb);
	switch_to("pcs", NULL);
	run_to(S.now + sched_sys.acct_ns);
	cpu_between("a", &ma), cpu_between("b", &mb);
	run_to(S.now + SIM_MS(3000));
	r = cpu_between("b", &mb) / cpu_between("a", &ma);
	ck_assert_msg(r > 1.8 && r < 2.2, "pcs after the switch: ratio %.3f", r);
	switch_to("rr", NULL);
	run_to(S.now + SIM_MS(3000));
	r = cpu_between("b", &mb) / cpu_between("a", &ma);
	ck_assert_msg(r > 0.9 && r < 1.1, "rr: ratio %.3f (no weights)", r);
	switch_to("credit", NULL);
	run_to(S.now + sched_sys.acct_ns);
	cpu_between("a", &ma), cpu_between("b", &mb);
	run_to(S.now + SIM_MS(3000));
	r = cpu_between("b", &mb) / cpu_between("a", &ma);
	ck_assert_msg(r > 1.8 && r < 2.2, "credit after switching back: ratio %.3f", r);
	sim_free(&S);
}
END_TEST

/* A 30 % cap holds in the window one period after each switch; the io vCPU
 * next to 3 hogs keeps its BOOST latency bound across the switches. */
START_TEST(test_switch_cap_and_boost)
{
	double m = 0, share;

	setup("credit", "pcpus 1\nduration 10s\nvm a cap=30\nthread a.0 persistent\n");
	run_to(SIM_MS(1000));
	switch_to("pcs", NULL);
	run_to(S.now + sched_sys.acct_ns);
	cpu_between("a", &m);
	run_to(S.now + SIM_MS(2000));
	share = cpu_between("a", &m) / 2000.0;
	ck_assert_msg(share > 0.25 && share < 0.33, "pcs: capped share %.3f", share);
	sim_free(&S);

	setup("credit", "pcpus 1\nduration 10s\nvm h vcpus=3\nvm io\n"
			"program io\n loop forever\n  compute 200us\n  sleep 5ms\n end\nend\n"
			"thread h.0-2 persistent\nthread io.0 io\n");
	run_to(SIM_MS(500));
	switch_to("bcs", NULL);
	run_to(S.now + SIM_MS(1000));
	switch_to("credit", NULL);
	run_to(S.now + SIM_MS(1000));
	{
		struct sim_vm *io = sim_vm_find(&S, "io");
		struct sched_vcpu_stats st;

		sched_vcpu_stats(&S.vcpu[io->first_vcpu].sv, S.now, &st);
		ck_assert_uint_gt(st.nwake_lat, 300);
		/* + one slice of the hog preempted by the switch itself at most once:
		 * the bound is the conformance one for every wake. */
		ck_assert_msg(st.wake_lat_max <= sched_opts.ratelimit + SIM_US(200),
			      "max wake latency %lld ns", (long long)st.wake_lat_max);
	}
	sim_free(&S);
}
END_TEST

/* Credits are carried within the credit family: right after the install
 * the new policy reports what the old one handed over. */
START_TEST(test_switch_carries_credit)
{
	setup("credit", "pcpus 2\nduration 5s\nvm a vcpus=3 weight=512\nvm b vcpus=2\n"
			"thread a.0-2 persistent\nthread b.0-1 persistent\n");
	run_to(SIM_MS(515));   /* mid-period: credits are not all equal */
	switch_to("pcs", NULL);
	for (int i = 0; i < S.nvcpus; i++) {
		struct sched_vcpu *v = &S.vcpu[i].sv;
		struct sched_carry now = { 0 };

		ck_assert(v->carry.valid);
		sched_sys.ops->vcpu_carry_out(v, &now);
		/* It may have been charged since the install (1 ms ran). */
		ck_assert_msg(now.credit <= v->carry.credit &&
			      now.credit >= v->carry.credit - SIM_MS(1) - 1,
			      "vcpu %d: carried %lld, now %lld", i, (long long)v->carry.credit,
			      (long long)now.credit);
	}
	sim_free(&S);
}
END_TEST

/* Options change with the policy (same policy, new tslice), bad requests
 * are refused before anything happens, a second request waits. */
START_TEST(test_switch_options_and_errors)
{
	setup("credit", "pcpus 2\nduration 5s\nvm a vcpus=3\nthread a.0-2 persistent\n");
	run_to(SIM_MS(100));
	ck_assert_int_eq(sched_policy_switch("nosuch", NULL, S.now), -ENOENT);
	ck_assert_int_eq(sched_policy_switch("pcs", "sched_credit_tslice_ms=0", S.now), -ERANGE);
	ck_assert_int_eq(sched_policy_switch("pcs", "nosuch_opt=1", S.now), -EINVAL);
	ck_assert_int_eq(sched_policy_switch("pcs", "sched_credit_tslice_ms", S.now), -EINVAL);
	ck_assert(!sched_policy_switching());
	ck_assert_int_eq(sched_opts.credit_tslice, SIM_MS(30));
	ck_assert_int_eq(sched_policy_switch("credit", "sched_credit_tslice_ms=10 sched_ratelimit_us=500",
					     S.now), 0);
	ck_assert_int_eq(sched_policy_switch("pcs", NULL, S.now), -EBUSY);
	ck_assert_int_eq(sched_opts.credit_tslice, SIM_MS(30));   /* staged, not yet in force */
	run_to(S.now + SIM_MS(1));
	ck_assert(!sched_policy_switching());
	ck_assert_int_eq(sched_opts.credit_tslice, SIM_MS(10));
	ck_assert_int_eq(sched_opts.ratelimit, SIM_US(500));
	ck_assert_int_eq(sched_sys.acct_ns, SIM_MS(10));
	run_to(S.now + SIM_MS(500));
	check_consistent();
	ck_assert_int_eq(sched_policy_index("credit") >= 0, 1);
	ck_assert_str_eq(sched_policy_by_index((unsigned)sched_policy_index("pcs")), "pcs");
	sim_free(&S);
}
END_TEST

static Suite *switch_suite(void)
{
	Suite *s = suite_create("sched_switch");
	TCase *tc = tcase_create("switch");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_switch_under_load);
	tcase_add_test(tc, test_switch_weights_restored);
	tcase_add_test(tc, test_switch_cap_and_boost);
	tcase_add_test(tc, test_switch_carries_credit);
	tcase_add_test(tc, test_switch_options_and_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(switch_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
