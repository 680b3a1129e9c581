/* sched=auto's per-VM choices (hv/sched/auto.c, issue 16) on the simulator's
 * fake pCPUs and clock: the PMU sample it takes without vProfile (and that
 * no other policy takes), PLE off for a VM nobody's preemption can help,
 * SA for a VM whose guest registered the upcall and that suffers steal,
 * excl balloon sharing for ballooning VMs on a common pCPU. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include "sim_fixture.h"
#include "sched/cosched.h"

extern unsigned long long vprof_stub_events[VPE_NEVENTS];

static struct sim_vm *VM(const char *name)
{
	struct sim_vm *vm = sim_vm_find(&S, name);

	ck_assert_ptr_nonnull(vm);
	return vm;
}

static struct sched_vcpu_stats vstats(struct sim_vm *vm, int j)
{
	struct sched_vcpu_stats st;

	sched_vcpu_stats(&S.vcpu[vm->first_vcpu + j].sv, S.now, &st);
	return st;
}

/* A memory-bound spinning VM on 4 pCPUs beside hogs, a fine-grained
 * blocking 2-vCPU VM (many short runs) and a 1-vCPU hog. */
static const char pmu_wl[] =
	"pcpus 4\nseed 1\nmemory alpha=0.6 free=1\n"
	"vm a vcpus=4\nvm b vcpus=4\nvm f vcpus=2\nvm u vcpus=1\n"
	"barrier x 4\nbarrier y 2\n"
	"program w\n  loop forever\n    compute 5ms mem\n    barrier x spin-block=200us\n  end\nend\n"
	"program fw\n  loop forever\n    compute 50us..150us\n    barrier y block\n    sleep 200us\n"
	"  end\nend\n"
	"thread a.0-3 w\nthread b.0-3 persistent\nthread f.0-1 fw\nthread u.0 persistent\n"
	"pin a.0 0\npin a.1 1\npin a.2 2\npin a.3 3\npin b.0 0\npin b.1 1\npin b.2 2\npin b.3 3\n";

/* Issue 16 (d): the DS signal without vProfile. Under credit nobody asks
 * for PMU figures (the platform reads no counter without a profile); under
 * auto each vCPU of a 2+-vCPU VM is sampled for AUTO_PMU_RUNS (8) runs per
 * accounting period, the 1-vCPU VM only for its first runs, and the
 * memory-bound VM gets DS from that sample alone. */
START_TEST(test_pmu_sample)
{
	setup("credit", pmu_wl);
	ck_assert(!S.trace);
	run_to(SIM_MS(300));
	for (int i = 0; i < S.nvcpus; i++) {
		struct sched_vcpu_stats st;

		sched_vcpu_stats(&S.vcpu[i].sv, S.now, &st);
		ck_assert_uint_eq(S.vcpu[i].sv.pmu_want, 0);
		ck_assert_uint_eq(st.pmu_cycles, 0);
	}
	sim_free(&S);

	setup("auto", pmu_wl);
	run_to(SIM_MS(600));
	ck_assert_int_eq(VM("a")->sv.pol.ds, SCHED_VMPOL_OWN);
	ck_assert_int_eq(VM("b")->sv.pol.ds, SCHED_VMPOL_HOST);
	for (int j = 0; j < 4; j++)
		ck_assert_uint_gt(vstats(VM("a"), j).pmu_cycles, 0);
	/* The fine-grained VM: 8 runs of at most ~150 us per period are
	 * sampled, far less than it ran. */
	for (int j = 0; j < 2; j++) {
		struct sched_vcpu_stats st = vstats(VM("f"), j);
		uint64_t periods = (uint64_t)(S.now / SIM_MS(30)) + 1;

		ck_assert_uint_gt(st.pmu_cycles, 0);
		ck_assert_uint_gt(st.nblock, 2 * 8 * periods);
		ck_assert_msg(st.pmu_cycles * 2 < (uint64_t)st.time[SCHED_RUNNING],
			      "sampled %llu of %lld ns", (unsigned long long)st.pmu_cycles,
			      (long long)st.time[SCHED_RUNNING]);
	}
	/* The 1-vCPU VM: no DS choice for it, so no sample after the first
	 * period (only its first runs, from its insertion). */
	ck_assert_uint_eq(S.vcpu[VM("u")->first_vcpu].sv.pmu_want, 0);
	ck_assert_uint_lt(vstats(VM("u"), 0).pmu_cycles, (uint64_t)SIM_MS(60));
	sim_free(&S);
}
END_TEST

/* The budget's count-down (sched.h). */
START_TEST(test_pmu_budget)
{
	struct sched_vcpu v;

	memset(&v, 0, sizeof(v));
	ck_assert(!sched_vcpu_pmu_wanted(&v));
	sched_vcpu_pmu_run_done(&v);
	ck_assert_uint_eq(v.pmu_want, 0);
	v.pmu_want = 2;
	ck_assert(sched_vcpu_pmu_wanted(&v));
	sched_vcpu_pmu_run_done(&v);
	ck_assert(sched_vcpu_pmu_wanted(&v));
	sched_vcpu_pmu_run_done(&v);
	ck_assert(!sched_vcpu_pmu_wanted(&v));
}
END_TEST

/* The PLE choice (seed 002 §4). par: 4 vCPUs on 4 pCPUs with a kernel
 * spinlock; uni: 1 vCPU alone on pCPU 4, two guest threads on one lock;
 * late: a hog on pCPU 0 that sleeps 400 ms first. Neither spinner is
 * over-subscribed until the hog wakes: PLE off for both after 3 periods
 * (their windows at the VMCS maximum); then par.0 is preempted and par's
 * PLE is back on at once with the adaptive window, while uni (no sibling
 * to help) stays off. */
static const char ple_wl[] =
	"pcpus 5\nseed 4\nple 50us\n"
	"vm par vcpus=4\nvm uni vcpus=1\nvm late vcpus=1\nlock L\nlock M\n"
	"program w\n  loop forever\n    compute 2ms..6ms\n    lock L spin\n    compute 300us\n"
	"    unlock L\n  end\nend\n"
	"program u\n  loop forever\n    compute 2ms..4ms\n    lock M spin\n    compute 1ms\n"
	"    unlock M\n  end\nend\n"
	"program h\n  sleep 400ms\n  loop forever\n    compute 10ms\n  end\nend\n"
	"thread par.0-3 w\nthread uni.0 u\nthread uni.0 u\nthread late.0 h\n"
	"pin par.0 0\npin par.1 1\npin par.2 2\npin par.3 3\npin uni.0 4\npin late.0 0\n";

START_TEST(test_ple_choice)
{
	unsigned long long ev = vprof_stub_events[VPE_AUTO_DECISION];
	struct sim_vm *par, *uni;

	setup("auto", ple_wl);
	par = VM("par");
	uni = VM("uni");
	run_to(SIM_MS(350));
	ck_assert_uint_eq(par->sv.pol.ple_off, 1);
	ck_assert_uint_eq(uni->sv.pol.ple_off, 1);
	ck_assert_uint_ge(vprof_stub_events[VPE_AUTO_DECISION], ev + 2);
	for (int j = 0; j < 4; j++)
		ck_assert_uint_eq(S.vcpu[par->first_vcpu + j].sv.ple_window, SCHED_PLE_WINDOW_OFF);
	ck_assert_uint_eq(S.vcpu[uni->first_vcpu].sv.ple_window, SCHED_PLE_WINDOW_OFF);
	ck_assert_int_eq(par->sv.params.type, SCHED_TYPE_HIT);
	run_to(SIM_MS(600));
	ck_assert_uint_gt(vstats(par, 0).npreempt, 0);
	ck_assert_uint_eq(par->sv.pol.ple_off, 0);
	for (int j = 0; j < 4; j++)
		ck_assert_uint_le(S.vcpu[par->first_vcpu + j].sv.ple_window,
				  (uint32_t)sched_opts.ple_window_max);
	ck_assert_uint_eq(uni->sv.pol.ple_off, 1);
	/* A host switch gives every VM the host's PLE back. */
	ck_assert_int_eq(sched_policy_switch("credit", "", S.now), 0);
	run_to(S.now + SIM_MS(100));
	ck_assert_str_eq(sched_policy_name(), "credit");
	ck_assert_uint_eq(uni->sv.pol.ple_off, 0);
	ck_assert_uint_le(S.vcpu[uni->first_vcpu].sv.ple_window, (uint32_t)sched_opts.ple_window_max);
	sim_free(&S);
}
END_TEST

/* The SA choice (seed 000, docs/pv-abi.md). sa (its guest registered the
 * upcall vector, created sa=off) shares pCPU 0 with a hog that stops after
 * 100 ms of CPU: auto gives it SA and takes it back 10 quiet periods after
 * the hog stopped; van (no receiver; both vCPUs on pCPU 2: steal) never
 * gets it; usr (created sa=on, both vCPUs on pCPU 3) is not auto's. */
static const char sa_wl[] =
	"pcpus 4\nseed 2\n"
	"vm sa vcpus=2 irs=on sa=off\nvm van vcpus=2 gbal=on\nvm usr vcpus=2 irs=on\n"
	"vm hog vcpus=2\nbarrier a 2\nbarrier b 2\nbarrier c 2\n"
	"program pa\n  loop forever\n    compute 5ms..10ms\n    barrier a block\n  end\nend\n"
	"program pb\n  loop forever\n    compute 5ms..10ms\n    barrier b block\n  end\nend\n"
	"program pc\n  loop forever\n    compute 5ms..10ms\n    barrier c block\n  end\nend\n"
	"program h\n  loop 10\n    compute 10ms\n  end\nend\n"
	"program z\n  loop forever\n    sleep 100ms\n  end\nend\n"
	"thread sa.0-1 pa\nthread van.0-1 pb\nthread usr.0-1 pc\nthread hog.0 h\nthread hog.1 z\n"
	"pin sa.0 0\npin sa.1 1\npin van.0 2\npin van.1 2\npin usr.0 3\npin usr.1 3\n"
	"pin hog.0 0\npin hog.1 3\n";

START_TEST(test_sa_choice)
{
	setup("auto", sa_wl);
	run_to(SIM_MS(150));
	ck_assert(VM("sa")->sv.params.sa);
	ck_assert_uint_eq(VM("sa")->sv.pol.sa_auto, 1);
	ck_assert(!VM("van")->sv.params.sa);
	ck_assert(VM("usr")->sv.params.sa);
	ck_assert_uint_eq(VM("usr")->sv.pol.sa_auto, 0);
	run_to(SIM_MS(500));
	ck_assert_uint_eq(vstats(VM("van"), 0).nsa_upcall, 0);
	/* The hog's 100 ms are done; 10 quiet periods later SA is off. */
	run_to(SIM_MS(1000));
	ck_assert(!VM("sa")->sv.params.sa);
	ck_assert_uint_eq(VM("sa")->sv.pol.sa_auto, 0);
	ck_assert(VM("usr")->sv.params.sa);
	sim_free(&S);
	/* A host switch takes back the SA auto gave. */
	setup("auto", sa_wl);
	run_to(SIM_MS(150));
	ck_assert(VM("sa")->sv.params.sa);
	ck_assert_int_eq(sched_policy_switch("credit", "", S.now), 0);
	run_to(S.now + SIM_MS(100));
	ck_assert(!VM("sa")->sv.params.sa);
	ck_assert(VM("usr")->sv.params.sa);
	sim_free(&S);
}
END_TEST

/* The balloon sharing choice (seed 004 §4.3): two VMs running the static
 * balloon on one pCPU get sched_balloon_share=excl from auto, given back
 * (paper) when the host leaves auto; one ballooning VM alone never does. */
static const char bal_wl[] =
	"pcpus 1\nseed 1\nvm a vcpus=1 balloon=static\nvm b vcpus=1 balloon=static\n"
	"program lp\n  loop forever\n    iowait 1ms\n    compute 50us\n  end\nend\n"
	"thread a.0 lp io\nthread b.0 lp io\nthread a.0 persistent\nthread b.0 persistent\n";

static uint64_t share_opt(void)
{
	uint64_t v = 99;

	ck_assert_int_eq(sched_option_get("sched_balloon_share", &v), 0);
	return v;
}

START_TEST(test_balloon_choice)
{
	unsigned long long ev;

	setup("auto", bal_wl);
	ck_assert_uint_eq(share_opt(), 0);
	ev = vprof_stub_events[VPE_AUTO_DECISION];
	run_to(SIM_MS(200));
	ck_assert_uint_eq(share_opt(), 1);
	ck_assert_uint_ge(vprof_stub_events[VPE_AUTO_DECISION], ev + 2);
	ck_assert_int_eq(sched_policy_switch("credit", "", S.now), 0);
	run_to(S.now + SIM_MS(100));
	ck_assert_str_eq(sched_policy_name(), "credit");
	ck_assert_uint_eq(share_opt(), 0);
	sim_free(&S);
	/* One ballooning VM beside a plain one: nothing to share. */
	setup("auto", "pcpus 1\nseed 1\nvm a vcpus=1 cap=50 balloon=static\nvm b vcpus=1\n"
		      "program lp\n  loop forever\n    iowait 1ms\n    compute 50us\n  end\nend\n"
		      "thread a.0 lp io\nthread a.0 persistent\nthread b.0 persistent\n");
	run_to(SIM_MS(300));
	ck_assert_uint_eq(share_opt(), 0);
	ck_assert_uint_gt(S.vm[0].sv.nballoon_switch, 0);   /* SWC modes as under credit */
	sim_free(&S);
}
END_TEST

/* Sibling skew (seed 000 §5.1's progress spread) in the CON choice. lock:
 * 4 vCPUs on 4 pCPUs of their own contend for one kernel spinlock: well
 * over AUTO_CON_RATE PLE exits per running s, but no sibling ever waits
 * RUNNABLE (skew 0): auto holds it HIT (a decision in the trail) and, as
 * nobody is preempted, turns its PLE off. The same program beside 4 hogs
 * on the same 4 pCPUs: siblings desynchronise (skew), auto turns it CON.
 * Ignoring skew makes the first VM CON (its rate alone asks for it). */
static const char skew_wl[] =
	"pcpus 5\nseed 3\nple 50us\nvm par vcpus=4\nvm uni vcpus=1\nlock L\n"
	"program w\n  loop forever\n    compute 400us..800us\n    lock L spin\n    compute 250us\n"
	"    unlock L\n  end\nend\n"
	"thread par.0-3 w\nthread uni.0 persistent\n"
	"pin par.0 0\npin par.1 1\npin par.2 2\npin par.3 3\npin uni.0 4\n";
static const char skew_over_wl[] =
	"pcpus 4\nseed 3\nple 50us\nvm par vcpus=4\nvm hog vcpus=4\nlock L\n"
	"program w\n  loop forever\n    compute 400us..800us\n    lock L spin\n    compute 250us\n"
	"    unlock L\n  end\nend\n"
	"thread par.0-3 w\nthread hog.0-3 persistent\n";

START_TEST(test_skew_choice)
{
	unsigned long long ev = vprof_stub_events[VPE_AUTO_DECISION];
	struct sched_vcpu_stats st;
	uint64_t yields = 0;
	stime_t run = 0;
	bool held = false;

	setup("auto", skew_wl);
	run_to(SIM_MS(60));
	/* The first period: rate enough for CON, no skew, held. */
	for (int j = 0; j < 4; j++) {
		st = vstats(VM("par"), j);
		yields += st.nyield;
		run += st.time[SCHED_RUNNING];
	}
	ck_assert_uint_ge(yields * 1000000000ull / (uint64_t)run, 200);
	ck_assert_uint_lt(sched_auto_vm_skew(&VM("par")->sv, &held), 50);
	ck_assert(held);
	ck_assert_uint_ge(vprof_stub_events[VPE_AUTO_DECISION], ev + 1);
	ck_assert_int_eq(VM("par")->sv.params.type, SCHED_TYPE_HIT);
	run_to(SIM_MS(400));
	ck_assert_int_eq(VM("par")->sv.params.type, SCHED_TYPE_HIT);
	ck_assert_uint_eq(VM("par")->sv.pol.ple_off, 1);
	sim_free(&S);

	setup("auto", skew_over_wl);
	run_to(SIM_MS(200));
	ck_assert_int_eq(VM("par")->sv.params.type, SCHED_TYPE_CON);
	ck_assert_int_eq(VM("hog")->sv.params.type, SCHED_TYPE_HIT);
	sim_free(&S);
}
END_TEST

/* Cap pressure (seed 004 §4.3/§4.5): a 1-vCPU VM capped at 50 running the
 * dynamic balloon, latprobe and a hog, reaches its cap before the refill:
 * auto sets sched_balloon_guard=25 (a decision in the trail), and a host
 * switch takes it back. The same VM uncapped beside a plain hog VM (no cap
 * to reach) gets no guard, nor a capped VM that never reaches its cap. */
static const char cap_wl[] =
	"pcpus 1\nseed 1\nvm a vcpus=1 cap=50 balloon=dynamic\n"
	"program lp\n  loop forever\n    iowait 1ms\n    compute 50us\n  end\nend\n"
	"thread a.0 lp io\nthread a.0 persistent\n";

static uint64_t guard_opt(void)
{
	uint64_t v = 99;

	ck_assert_int_eq(sched_option_get("sched_balloon_guard", &v), 0);
	return v;
}

START_TEST(test_cap_guard)
{
	unsigned long long ev;

	setup("auto", cap_wl);
	ck_assert_uint_eq(guard_opt(), 0);
	ev = vprof_stub_events[VPE_AUTO_DECISION];
	run_to(SIM_MS(200));
	ck_assert_uint_eq(guard_opt(), 25);
	ck_assert(sched_auto_guard_on());
	ck_assert_uint_ge(vprof_stub_events[VPE_AUTO_DECISION], ev + 1);
	/* Kept while the guard trips (it keeps the VM from being parked). */
	run_to(SIM_MS(800));
	ck_assert_uint_eq(guard_opt(), 25);
	ck_assert_int_eq(sched_policy_switch("credit", "", S.now), 0);
	run_to(S.now + SIM_MS(100));
	ck_assert_uint_eq(guard_opt(), 0);
	sim_free(&S);

	setup("auto", "pcpus 1\nseed 1\nvm a vcpus=1 balloon=dynamic\nvm b vcpus=1\n"
		      "program lp\n  loop forever\n    iowait 1ms\n    compute 50us\n  end\nend\n"
		      "thread a.0 lp io\nthread a.0 persistent\nthread b.0 persistent\n");
	run_to(SIM_MS(400));
	ck_assert_uint_eq(guard_opt(), 0);
	ck_assert_uint_gt(S.vm[0].sv.nballoon_switch, 0);
	sim_free(&S);

	/* Capped at 90 with only latprobe (5 % of a pCPU): never parked. */
	setup("auto", "pcpus 1\nseed 1\nvm a vcpus=1 cap=90 balloon=dynamic\n"
		      "program lp\n  loop forever\n    iowait 1ms\n    compute 50us\n  end\nend\n"
		      "thread a.0 lp io\n");
	run_to(SIM_MS(400));
	ck_assert_uint_eq(guard_opt(), 0);
	sim_free(&S);
}
END_TEST

static Suite *auto_suite(void)
{
	Suite *s = suite_create("auto");
	TCase *tc = tcase_create("auto");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pmu_budget);
	tcase_add_test(tc, test_pmu_sample);
	tcase_add_test(tc, test_ple_choice);
	tcase_add_test(tc, test_sa_choice);
	tcase_add_test(tc, test_balloon_choice);
	tcase_add_test(tc, test_skew_choice);
	tcase_add_test(tc, test_cap_guard);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(auto_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
