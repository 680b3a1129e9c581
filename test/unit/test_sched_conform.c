/* Scheduler conformance suite: every policy registered in section hv_sched
 * runs on the simulator's fake pCPUs and fake clock (tools/sim) and must show
 * the properties its caps flags promise. Tolerances are stated per test. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include "../../tools/sim/sim.h"

HV_SECTION_BOUNDS(const struct sched_policy, sched);

static struct sim S;

/* The preemption mechanisms the whole suite also runs under (issue 13): the
 * policies' promises must hold with them on. Prepended to every scenario. */
static const char *const conform_modes[] = {
	"",
	"option sched_dp_us=2000\n",
	"option sched_dp=adaptive\noption sched_dp_us=1000\n",
	"option sched_ds_min_ms=10\noption sched_ds_max_ms=30\n",
	"ple 100us\noption ple=on\n",
};
static const char *conform_mode = "";

/* Second pass (TCase "conform-con"): every VM is type=con and only the
 * co-scheduling variants run, except where their semantics forbid a
 * property (con_exception). */
static int con_mode;

static bool is_cosched(const struct sched_policy *p)
{
	static const char *const names[] = { "gang", "cs", "cds", "pcs", "bcs", "relaxed" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(p->name, names[i]))
			return true;
	return false;
}

static void con_on(void) { con_mode = 1; }

/* Where a co-scheduling variant's semantics forbid a property with CON VMs
 * (docs/sched.md "Conformance"): the reason, else NULL. */
static const char *con_exception(const struct sched_policy *p, const char *test)
{
	bool global = !strcmp(p->name, "cs") || !strcmp(p->name, "cds");
	bool scatter = strcmp(p->name, "relaxed") != 0;

	if (!con_mode)
		return NULL;
	if (global && (strstr(test, "weight_share_smp") || strstr(test, "work_conserving") ||
		       strstr(test, "cap_multi_vcpu")))
		return "one CON VM co-scheduled at a time on every pCPU (exclusive)";
	if (scatter && strstr(test, "cap_multi_vcpu_hog"))
		return "scatter keeps the capped VM's vCPUs on distinct pCPUs";
	return NULL;
}

/* Parse + run `text` under policy `pol`; fails the test on setup errors. */
static void run(const struct sched_policy *pol, const char *text0)
{
	char err[256], text[4096];

	snprintf(text, sizeof(text), "%s%s", conform_mode, text0);
	ck_assert_msg(sim_parse(&S, text, err, sizeof(err)) == 0, "parse: %s", err);
	for (int i = 0; con_mode && i < S.nvms; i++)
		S.vm[i].prm.type = SCHED_TYPE_CON;
	snprintf(S.policy, sizeof(S.policy), "%s", pol->name);
	ck_assert_int_eq(sim_setup(&S), 0);
	sim_run(&S);
}

static struct sched_vcpu_stats vstats(const char *vm, int id)
{
	struct sim_vm *m = sim_vm_find(&S, vm);
	struct sched_vcpu_stats st;

	ck_assert_ptr_nonnull(m);
	sched_vcpu_stats(&S.vcpu[m->first_vcpu + id].sv, S.now, &st);
	return st;
}

static double cpu_ms(const char *vm)
{
	return sim_vm_cpu_ms(&S, sim_vm_find(&S, vm));
}

#define FOR_EACH_POLICY(p, capbit) \
	for (const struct sched_policy *p = __start_hv_sched; p < __stop_hv_sched; p++) \
		if (!((p)->caps & (capbit)) || (con_mode && !is_cosched(p)) || \
		    con_exception(p, __func__)) continue; else

START_TEST(test_policies_registered)
{
	int n = 0;

	for (const struct sched_policy *p = __start_hv_sched; p < __stop_hv_sched; p++, n++)
		ck_assert_int_eq(sched_policy_check(p), 0);
	ck_assert_int_ge(n, 1);
	ck_assert_ptr_nonnull(sched_policy_find("credit"));
}
END_TEST

/* Weight 512 vs 256 on one pCPU: CPU ratio 2.0 within +-10 %. */
START_TEST(test_weight_share)
{
	FOR_EACH_POLICY(p, SCHED_CAP_WEIGHTS) {
		run(p, "pcpus 1\nduration 6s\nvm a weight=256\nvm b weight=512\n"
		       "thread a.0 persistent\nthread b.0 persistent\n");
		double r = cpu_ms("b") / cpu_ms("a");

		ck_assert_msg(r > 1.8 && r < 2.2, "%s: weight ratio %.3f", p->name, r);
		sim_free(&S);
	}
}
END_TEST

/* Four VMs with weights 1:1:2:4 on 2 pCPUs: each within 15 % of its share. */
START_TEST(test_weight_share_smp)
{
	FOR_EACH_POLICY(p, SCHED_CAP_WEIGHTS) {
		static const char *names[] = { "a", "b", "c", "d" };
		static const double w[] = { 1, 1, 2, 4 };

		run(p, "pcpus 2\nduration 8s\nvm a weight=128\nvm b weight=128\n"
		       "vm c weight=256\nvm d weight=512\n"
		       "thread a.0 persistent\nthread b.0 persistent\n"
		       "thread c.0 persistent\nthread d.0 persistent\n");
		/* d alone may not exceed one pCPU: its fair share is min(1, 2*4/8). */
		for (int i = 0; i < 4; i++) {
			double want = 2.0 * w[i] / 8.0 * 8000.0, got = cpu_ms(names[i]);

			ck_assert_msg(got > want * 0.85 && got < want * 1.15,
				      "%s: vm %s got %.0f ms want %.0f", p->name, names[i], got, want);
		}
		sim_free(&S);
	}
}
END_TEST

/* A 30 % cap on a lone hog: 25-33 % of the pCPU (non-work-conserving). */
START_TEST(test_cap_enforced)
{
	FOR_EACH_POLICY(p, SCHED_CAP_CAPS) {
		run(p, "pcpus 1\nduration 3s\nvm a cap=30\nthread a.0 persistent\n");
		double share = cpu_ms("a") / 3000.0;

		ck_assert_msg(share > 0.25 && share < 0.33, "%s: capped share %.3f", p->name, share);
		sim_free(&S);
	}
}
END_TEST

/* A 2-vCPU VM capped at 50 % next to a hog: the cap is for the whole VM. */
START_TEST(test_cap_multi_vcpu)
{
	FOR_EACH_POLICY(p, SCHED_CAP_CAPS) {
		run(p, "pcpus 2\nduration 3s\nvm a vcpus=2 cap=50\nvm h\n"
		       "thread a.0-1 persistent\nthread h.0 persistent\n");
		double share = cpu_ms("a") / 3000.0;

		ck_assert_msg(share > 0.42 && share < 0.55, "%s: capped share %.3f", p->name, share);
		if (!con_exception(p, "cap_multi_vcpu_hog"))
			ck_assert_msg(cpu_ms("h") > 2800.0, "%s: hog %.0f", p->name, cpu_ms("h"));
		sim_free(&S);
	}
}
END_TEST

/* 7 hogs in 3 VMs on 2 pCPUs: every vCPU gets at least half its fair share. */
START_TEST(test_no_starvation)
{
	FOR_EACH_POLICY(p, 0) {
		run(p, "pcpus 2\nduration 4s\nvm a vcpus=3\nvm b vcpus=2\nvm c vcpus=2\n"
		       "thread a.0-2 persistent\nthread b.0-1 persistent\nthread c.0-1 persistent\n");
		for (int i = 0; i < S.nvcpus; i++) {
			struct sched_vcpu_stats st;

			sched_vcpu_stats(&S.vcpu[i].sv, S.now, &st);
			ck_assert_msg(st.time[SCHED_RUNNING] > SIM_MS(4000) * 2 / 7 / 2,
				      "%s: vcpu %d ran %lld ns", p->name, i,
				      (long long)st.time[SCHED_RUNNING]);
		}
		sim_free(&S);
	}
}
END_TEST

/* More runnable vCPUs than pCPUs (hogs plus blockers): pCPUs never idle
 * while something is runnable -> total idle below 0.5 %. */
START_TEST(test_work_conserving)
{
	FOR_EACH_POLICY(p, SCHED_CAP_WORKCONS) {
		run(p, "pcpus 4\nduration 3s\nvm h vcpus=5\nvm io vcpus=2\n"
		       "program io\n loop forever\n  compute 2ms\n  sleep 3ms\n end\nend\n"
		       "thread h.0-4 persistent\nthread io.0-1 io\n");
		double idle = 0;

		for (int i = 0; i < S.npcpus; i++) {
			struct sched_pcpu *pc = &S.pcpu[i].sp;

			idle += (double)(pc->idle_time + (pc->curr ? 0 : S.end - pc->idle_since));
		}
		ck_assert_msg(idle < 0.005 * 4 * 3e9, "%s: idle %.0f ns", p->name, idle);
		sim_free(&S);
	}
}
END_TEST

/* A vCPU that computes 0.2 ms every 5 ms next to 3 hogs on one pCPU is run
 * within ratelimit + 0.2 ms of every wake (BOOST), plus the delayed-
 * preemption delay when DP is on (its purpose: the waker waits). */
START_TEST(test_boost_latency)
{
	FOR_EACH_POLICY(p, SCHED_CAP_BOOST) {
		run(p, "pcpus 1\nduration 3s\nvm h vcpus=3\nvm io\n"
		       "program io\n loop forever\n  compute 200us\n  sleep 5ms\n end\nend\n"
		       "thread h.0-2 persistent\nthread io.0 io\n");
		struct sched_vcpu_stats st = vstats("io", 0);

		ck_assert_msg(st.nwake_lat > 400, "%s: %llu wakes", p->name,
			      (unsigned long long)st.nwake_lat);
		stime_t dp = sched_opts.dp_mode == SCHED_DP_FIXED ? sched_opts.dp_delay :
			     sched_opts.dp_mode == SCHED_DP_ADAPTIVE ? sched_opts.dp_max : 0;

		ck_assert_msg(st.wake_lat_max <= MAX(sched_opts.ratelimit, dp) + SIM_US(200),
			      "%s: max wake latency %lld ns", p->name, (long long)st.wake_lat_max);
		sim_free(&S);
	}
}
END_TEST

/* 8 hogs created on pCPU 0 only, then allowed everywhere: balancing spreads
 * them so each gets 4/8 of a pCPU within 20 %. */
START_TEST(test_load_balance)
{
	FOR_EACH_POLICY(p, SCHED_CAP_BALANCE) {
		run(p, "pcpus 4\nduration 4s\nvm a vcpus=8\nthread a.0-7 persistent\n");
		for (int i = 0; i < 8; i++) {
			struct sched_vcpu_stats st = vstats("a", i);
			double share = (double)st.time[SCHED_RUNNING] / 4e9;

			ck_assert_msg(share > 0.4 && share < 0.6, "%s: vcpu %d share %.3f",
				      p->name, i, share);
		}
		sim_free(&S);
	}
}
END_TEST

/* Pinned to pCPU 0 at creation, then unpinned at run time: the others pick
 * them up (work stealing / placement). */
START_TEST(test_balance_after_unpin)
{
	FOR_EACH_POLICY(p, SCHED_CAP_BALANCE) {
		struct cpumask all;
		char err[256];
		struct sched_vcpu_stats st;

		ck_assert_int_eq(sim_parse(&S, "pcpus 4\nduration 2s\nvm a vcpus=4\n"
					   "thread a.0-3 persistent\npin a.0-3 0\n", err,
					   sizeof(err)), 0);
		snprintf(S.policy, sizeof(S.policy), "%s", p->name);
		ck_assert_int_eq(sim_setup(&S), 0);
		S.duration = SIM_MS(1000);
		sim_run(&S);
		for (int i = 0; i < 4; i++) {
			sched_vcpu_stats(&S.vcpu[i].sv, S.now, &st);
			ck_assert_int_lt(st.time[SCHED_RUNNING], SIM_MS(400));
		}
		cpumask_fill(&all, 4);
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(sched_vcpu_affinity_set(&S.vcpu[i].sv, &all, S.now), 0);
		S.duration = SIM_MS(3000);
		sim_run(&S);
		for (int i = 0; i < 4; i++) {
			sched_vcpu_stats(&S.vcpu[i].sv, S.now, &st);
			ck_assert_msg(st.time[SCHED_RUNNING] > SIM_MS(1900), "%s: vcpu %d ran %lld",
				      p->name, i, (long long)st.time[SCHED_RUNNING]);
		}
		sim_free(&S);
	}
}
END_TEST

/* Accounting is exact whatever the policy: states sum to elapsed time. */
START_TEST(test_accounting_exact)
{
	FOR_EACH_POLICY(p, 0) {
		run(p, "pcpus 2\nduration 2s\nvm a vcpus=3\nvm b vcpus=2\n"
		       "program io\n loop forever\n  compute 1ms..7ms\n  sleep duty=40\n end\nend\n"
		       "thread a.0-2 io\nthread b.0-1 persistent\n");
		for (int i = 0; i < S.nvcpus; i++) {
			struct sched_vcpu_stats st;
			stime_t sum = 0;

			sched_vcpu_stats(&S.vcpu[i].sv, S.now, &st);
			for (int k = 0; k < SCHED_NSTATES; k++)
				sum += st.time[k];
			ck_assert_int_eq(sum, S.now);
		}
		sim_free(&S);
	}
}
END_TEST

static Suite *conform_suite(void)
{
	Suite *s = suite_create("sched_conform");
	TCase *tc = tcase_create("policies");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_policies_registered);
	tcase_add_test(tc, test_weight_share);
	tcase_add_test(tc, test_weight_share_smp);
	tcase_add_test(tc, test_cap_enforced);
	tcase_add_test(tc, test_cap_multi_vcpu);
	tcase_add_test(tc, test_no_starvation);
	tcase_add_test(tc, test_work_conserving);
	tcase_add_test(tc, test_boost_latency);
	tcase_add_test(tc, test_load_balance);
	tcase_add_test(tc, test_balance_after_unpin);
	tcase_add_test(tc, test_accounting_exact);
	suite_add_tcase(s, tc);
	/* Same properties with every VM type=con, for the co-scheduling variants. */
	tc = tcase_create("conform-con");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, con_on, NULL);
	tcase_add_test(tc, test_weight_share);
	tcase_add_test(tc, test_weight_share_smp);
	tcase_add_test(tc, test_cap_enforced);
	tcase_add_test(tc, test_cap_multi_vcpu);
	tcase_add_test(tc, test_no_starvation);
	tcase_add_test(tc, test_work_conserving);
	tcase_add_test(tc, test_boost_latency);
	tcase_add_test(tc, test_load_balance);
	tcase_add_test(tc, test_balance_after_unpin);
	tcase_add_test(tc, test_accounting_exact);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	int failed = 0;

	for (size_t m = 0; m < sizeof(conform_modes) / sizeof(conform_modes[0]); m++) {
		conform_mode = conform_modes[m];
		printf("conformance with: %s", *conform_mode ? conform_mode : "(defaults)\n");
		fflush(stdout);
		failed |= check_run(conform_suite());
	}
	return failed;
}
