/* Moving one VM between policies at run time (hv/sched/vmpolicy.c, issue 16)
 * on the simulator's fake pCPUs and clock: a move under load loses no vCPU
 * and keeps the VM's accounting, the moved VM behaves like its new policy one
 * accounting period after the move (co-scheduled or not, delayed preemption,
 * differential slices) while the other VMs do not change, moving back
 * restores the behaviour, and requests outside the host's family are
 * refused. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include "sim_fixture.h"
#include "sched/cosched.h"
#include "errno.h"

extern unsigned long long vprof_stub_events[VPE_NEVENTS];

static struct sim_vm *VM(const char *name)
{
	struct sim_vm *vm = sim_vm_find(&S, name);

	ck_assert_ptr_nonnull(vm);
	return vm;
}

/* sched_policy_switch with "vm=ID opts": synchronous, no host switch. */
static void move(const char *vm, const char *policy, const char *opts)
{
	char o[200];
	uint64_t n = sched_policy_switches();
	unsigned long long ev = vprof_stub_events[VPE_SCHED_SWITCH];
	int rc;

	snprintf(o, sizeof(o), "vm=%d %s", (int)(VM(vm) - S.vm), opts ? opts : "");
	rc = sched_policy_switch(policy, o, S.now);
	ck_assert_msg(rc == 0, "move %s to %s (%s): %d", vm, policy, o, rc);
	ck_assert(!sched_policy_switching());
	ck_assert_int_eq(sched_policy_switches(), n);
	ck_assert_uint_eq(vprof_stub_events[VPE_SCHED_SWITCH], ev + 1);
	ck_assert_str_eq(sched_vm_policy_name(&VM(vm)->sv), policy);
}

static struct sched_vcpu_stats stats(int i)
{
	struct sched_vcpu_stats st;

	sched_vcpu_stats(&S.vcpu[i].sv, S.now, &st);
	return st;
}

/* As test_sched_switch: every vCPU in exactly one state, times add up. */
static void check_consistent(void)
{
	unsigned runnable[64] = { 0 };

	for (int i = 0; i < S.nvcpus; i++) {
		struct sched_vcpu *v = &S.vcpu[i].sv;
		struct sched_vcpu_stats st = stats(i);
		stime_t sum = 0;

		ck_assert_msg(v->flags & SCHED_VF_ADDED, "vcpu %d lost", i);
		ck_assert_int_lt(v->pcpu, S.npcpus);
		if (v->state == SCHED_RUNNING)
			ck_assert_msg(S.pcpu[v->pcpu].sp.curr == v, "vcpu %d RUNNING, not curr", i);
		if (v->state == SCHED_RUNNABLE)
			runnable[v->pcpu]++;
		for (int k = 0; k < SCHED_NSTATES; k++)
			sum += st.time[k];
		ck_assert_int_eq(sum, S.now);
	}
	for (int c = 0; c < S.npcpus; c++)
		ck_assert_uint_eq(S.pcpu[c].sp.nr_runnable, runnable[c]);
}

/* Every vCPU gets at least a quarter of an equal share of `win` (the
 * no-starvation bound of test_sched_switch). */
static void check_all_run(stime_t win, const char *what)
{
	stime_t ran[32];

	for (int i = 0; i < S.nvcpus; i++)
		ran[i] = stats(i).time[SCHED_RUNNING];
	run_to(S.now + win);
	check_consistent();
	for (int i = 0; i < S.nvcpus; i++)
		ck_assert_msg(stats(i).time[SCHED_RUNNING] - ran[i] > win * S.npcpus / S.nvcpus / 4,
			      "%s: vcpu %d ran %lld ns of %lld", what, i,
			      (long long)(stats(i).time[SCHED_RUNNING] - ran[i]), (long long)win);
}

/* Host pcs, 7 vCPUs on 2 pCPUs; the CON VM b moves to credit and back. Its
 * credit accounting is the same object before and after each move; it is
 * co-scheduled (operations launched, vCPUs scattered) only while in pcs. */
START_TEST(test_move_cosched_under_load)
{
	struct sim_vm *b;
	uint64_t ops;

	setup("pcs", "pcpus 2\nduration 20s\nvm a vcpus=3\nvm b vcpus=2 type=con\nvm c vcpus=2\n"
		     "program io\n loop forever\n  compute 1ms..5ms\n  sleep duty=50\n end\nend\n"
		     "thread a.0-2 persistent\nthread b.0-1 persistent\nthread c.0-1 io\n");
	b = VM("b");
	run_to(SIM_MS(600));
	ck_assert_uint_gt(cosched_stats.ops, 10);
	for (int k = 0; k < 2; k++) {
		uint64_t before[2][8];

		for (int j = 0; j < 2; j++)
			memcpy(before[j], S.vcpu[b->first_vcpu + j].sv.priv, sizeof(before[j]));
		move("b", k ? "pcs" : "credit", NULL);
		ck_assert_int_eq(b->sv.params.type, k ? SCHED_TYPE_CON : SCHED_TYPE_HIT);
		/* Credit's part of each vCPU's private area: untouched. */
		for (int j = 0; j < 2; j++)
			ck_assert_msg(!memcmp(before[j], S.vcpu[b->first_vcpu + j].sv.priv,
					      CSCHED_VCPU_BYTES), "move %d: vcpu %d accounting", k, j);
		check_consistent();
		run_to(S.now + sched_sys.acct_ns);
		ops = cosched_stats.ops;
		check_all_run(SIM_MS(600), k ? "back in pcs" : "in credit");
		if (k) {
			ck_assert_uint_gt(cosched_stats.ops - ops, 10);
			ck_assert_uint_ne(S.vcpu[b->first_vcpu].sv.pcpu,
					  S.vcpu[b->first_vcpu + 1].sv.pcpu);   /* scattered */
		} else {
			ck_assert_uint_eq(cosched_stats.ops - ops, 0);   /* plain credit */
		}
	}
	ck_assert_uint_eq(b->sv.pol.nmove, 2);
	sim_free(&S);
}
END_TEST

static uint64_t delayed(struct sim_vm *vm)
{
	uint64_t n = 0;

	for (int j = 0; j < vm->nvcpus; j++)
		n += stats(vm->first_vcpu + j).ndelayed;
	return n;
}

/* Host credit (no DP, no DS); hogs a beside wakers b on 2 pCPUs. a moves to
 * "credit sched_dp_us=5000": its running vCPUs get delayed wake-up
 * preemptions, b's never; moved back, none. */
START_TEST(test_move_dp)
{
	struct sim_vm *a, *b;
	uint64_t da, db;

	setup("credit", "pcpus 2\nduration 20s\nvm a vcpus=2\nvm b vcpus=2\n"
			"program io\n loop forever\n  compute 1ms..5ms\n  sleep duty=50\n end\nend\n"
			"thread a.0-1 persistent\nthread b.0-1 io\n");
	a = VM("a"), b = VM("b");
	run_to(SIM_MS(600));
	ck_assert_uint_eq(delayed(a) + delayed(b), 0);
	move("a", "credit", "sched_dp_us=5000");
	run_to(S.now + sched_sys.acct_ns);
	da = delayed(a), db = delayed(b);
	check_all_run(SIM_MS(600), "a with DP");
	ck_assert_uint_gt(delayed(a) - da, 20);
	ck_assert_uint_eq(delayed(b) - db, 0);
	move("a", "credit", NULL);
	run_to(S.now + sched_sys.acct_ns);
	da = delayed(a);
	check_all_run(SIM_MS(600), "a back to credit");
	ck_assert_uint_eq(delayed(a) - da, 0);
	sim_free(&S);
}
END_TEST

/* The longest remaining slice of a running vCPU of vm, sampled every 100 us
 * over win: at most the slice it was given (a lower bound of the longest). */
static stime_t longest_slice(struct sim_vm *vm, stime_t win)
{
	stime_t end = S.now + win, longest = 0;

	while (S.now < end) {
		run_to(S.now + SIM_US(100));
		for (int c = 0; c < S.npcpus; c++) {
			struct sched_pcpu *p = &S.pcpu[c].sp;

			if (p->curr && p->curr->vm == &vm->sv && p->slice_end != STIME_MAX)
				longest = MAX(longest, p->slice_end - S.now);
		}
	}
	return longest;
}

/* Differential slices for one VM: a's slices are within [2, 3] ms while it
 * has them, credit's 30 ms before and after; b keeps credit's. */
START_TEST(test_move_ds)
{
	struct sim_vm *a, *b;
	stime_t la, lb;

	setup("credit", "pcpus 2\nduration 20s\nvm a vcpus=2\nvm b vcpus=2\n"
			"thread a.0-1 persistent\nthread b.0-1 persistent\n");
	a = VM("a"), b = VM("b");
	run_to(SIM_MS(300));
	la = longest_slice(a, SIM_MS(300));
	ck_assert_msg(la > SIM_MS(20), "credit: a's slice %lld", (long long)la);
	move("a", "credit", "sched_ds_min_ms=2 sched_ds_max_ms=3");
	run_to(S.now + sched_sys.acct_ns);
	la = longest_slice(a, SIM_MS(600));
	lb = longest_slice(b, SIM_MS(600));
	ck_assert_msg(la <= SIM_MS(3) && la >= SIM_MS(1), "a with DS: longest slice %lld",
		      (long long)la);
	ck_assert_msg(lb > SIM_MS(20), "b: longest slice %lld", (long long)lb);
	check_all_run(SIM_MS(300), "a with DS");
	move("a", "credit", NULL);
	run_to(S.now + sched_sys.acct_ns);
	la = longest_slice(a, SIM_MS(600));
	ck_assert_msg(la > SIM_MS(20), "a back: longest slice %lld", (long long)la);
	sim_free(&S);
}
END_TEST

/* Refusals leave everything as it was; a host switch puts every VM back on
 * the host's policy with its original type; auto leaves a pinned VM alone. */
START_TEST(test_move_errors_and_host_switch)
{
	struct sim_vm *b;

	setup("pcs", "pcpus 2\nduration 20s\nvm a vcpus=2\nvm b vcpus=2 type=con\n"
		     "thread a.0-1 persistent\nthread b.0-1 persistent\n");
	b = VM("b");
	run_to(SIM_MS(100));
	ck_assert_int_eq(sched_policy_switch("rr", "vm=1", S.now), -ENOTSUP);
	ck_assert_int_eq(sched_policy_switch("pcs", "vm=9", S.now), -ENOENT);
	ck_assert_int_eq(sched_policy_switch("pcs", "vm=x", S.now), -EINVAL);
	ck_assert_int_eq(sched_policy_switch("credit", "vm=1 sched_credit_tslice_ms=10", S.now),
			 -EINVAL);
	ck_assert_int_eq(sched_policy_switch("credit", "vm=1 sched_dp=adaptive", S.now), -ENOTSUP);
	ck_assert_int_eq(sched_policy_switch("credit", "vm=1 sched_ds_min_ms=5", S.now), -ERANGE);
	ck_assert_int_eq(b->sv.params.type, SCHED_TYPE_CON);
	ck_assert_int_eq(b->sv.pol.nmove, 0);
	ck_assert_ptr_null(sched_sys.hooks);
	move("b", "credit", "sched_dp_us=2000");
	ck_assert_ptr_nonnull(sched_sys.hooks);
	/* A host switch: b back to the host's policy, type CON again, host hooks. */
	ck_assert_int_eq(sched_policy_switch("auto", NULL, S.now), 0);
	ck_assert_int_eq(sched_policy_switch("pcs", "vm=1", S.now), -EBUSY);
	run_to(S.now + SIM_MS(1));
	ck_assert(!sched_policy_switching());
	ck_assert_str_eq(sched_vm_policy_name(&b->sv), "auto");
	ck_assert_int_eq(b->sv.params.type, SCHED_TYPE_CON);
	ck_assert_int_eq(b->sv.pol.dp, SCHED_VMPOL_HOST);
	ck_assert_ptr_null(sched_sys.hooks);
	/* Under auto: pinned CON by a move to pcs, pinned HIT by a move to
	 * credit, however much (or little) it spins; back on auto, the type
	 * declared at creation (CON) is the user's and stays although these
	 * hogs make no PLE exit (seed 003 §V-B; auto only takes back a CON it
	 * chose itself). */
	move("b", "pcs", NULL);
	run_to(S.now + 10 * sched_sys.acct_ns);
	ck_assert_int_eq(b->sv.params.type, SCHED_TYPE_CON);
	move("b", "credit", NULL);
	run_to(S.now + 10 * sched_sys.acct_ns);
	ck_assert_int_eq(b->sv.params.type, SCHED_TYPE_HIT);
	move("b", "auto", NULL);
	run_to(S.now + 10 * sched_sys.acct_ns);
	ck_assert_int_eq(b->sv.params.type, SCHED_TYPE_CON);   /* the user's, kept */
	check_consistent();
	sim_free(&S);
}
END_TEST

/* sched=auto's seed 001 choices (hv/sched/auto.c) through the same per-VM
 * variants: DS for the memory-bound spinning VM only (not for the same
 * program CPU-bound, nor for the hogs), DP for the VM whose blocking
 * barriers are cut by the other VM's wake-ups; each in the decision trail. */
static const char *const seed001_wl =
	"pcpus 2\nduration 20s\nseed 1\n%s"
	"vm a vcpus=2\nvm b vcpus=2\nbarrier x 2\nbarrier y 2\n"
	"program w\n loop forever\n  compute %s\n  barrier x %s\n end\nend\n"
	"program v\n loop forever\n  compute 1ms..3ms\n  barrier y block\n end\nend\n"
	"thread a.0-1 w\nthread b.0-1 %s\npin a.0 0\npin a.1 1\npin b.0 0\npin b.1 1\n";

START_TEST(test_auto_seed001)
{
	char wl[1024];
	unsigned long long ev = vprof_stub_events[VPE_AUTO_DECISION];
	uint64_t d;

	/* Memory-bound spinning VM beside hogs: DS for it alone. */
	snprintf(wl, sizeof(wl), seed001_wl, "memory alpha=0.6 free=1\n", "5ms mem",
		 "spin-block=200us", "persistent");
	setup("auto", wl);
	run_to(SIM_MS(300));
	ck_assert_int_eq(VM("a")->sv.pol.ds, SCHED_VMPOL_OWN);
	ck_assert_int_eq(VM("a")->sv.pol.ds_max, SIM_MS(30));
	ck_assert_int_eq(VM("b")->sv.pol.ds, SCHED_VMPOL_HOST);
	ck_assert_uint_gt(vprof_stub_events[VPE_AUTO_DECISION], ev);
	sim_free(&S);
	/* The same program CPU-bound: no DS. */
	snprintf(wl, sizeof(wl), seed001_wl, "", "5ms", "spin-block=200us", "persistent");
	setup("auto", wl);
	run_to(SIM_MS(300));
	ck_assert_int_eq(VM("a")->sv.pol.ds, SCHED_VMPOL_HOST);
	sim_free(&S);
	/* Blocking barriers beside a fine-grained blocking VM: DP for a. */
	snprintf(wl, sizeof(wl), seed001_wl, "", "4ms..6ms", "block", "v");
	setup("auto", wl);
	run_to(SIM_MS(300));
	ck_assert_int_eq(VM("a")->sv.pol.dp, SCHED_VMPOL_OWN);
	ck_assert_msg(VM("a")->sv.pol.dp_delay >= SIM_MS(1) && VM("a")->sv.pol.dp_delay <= SIM_MS(10),
		      "delay %lld", (long long)VM("a")->sv.pol.dp_delay);
	d = delayed(VM("a"));
	run_to(S.now + SIM_MS(300));
	ck_assert_uint_gt(delayed(VM("a")) - d, 10);
	ck_assert(!sched_vmpol_pinned(&VM("a")->sv));
	/* A move by hand takes the VM from auto: its own DP is gone for good. */
	move("a", "auto", "sched_dp=off");
	run_to(S.now + SIM_MS(300));
	ck_assert_int_eq(VM("a")->sv.pol.dp, SCHED_VMPOL_OFF);
	sim_free(&S);
}
END_TEST

static Suite *vmpol_suite(void)
{
	Suite *s = suite_create("vm_policy");
	TCase *tc = tcase_create("move");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_move_cosched_under_load);
	tcase_add_test(tc, test_move_dp);
	tcase_add_test(tc, test_move_ds);
	tcase_add_test(tc, test_move_errors_and_host_switch);
	tcase_add_test(tc, test_auto_seed001);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(vmpol_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
