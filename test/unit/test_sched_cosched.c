/* Invariants of the co-scheduling family (issue 12, seed 003, seed 000 §5.1)
 * on the hvsim engine, observed at every context switch (sched_hooks
 * .switched) and every co-scheduling signal (vprof stub observer):
 *  - gang never runs a partial CON VM (beyond the signal latency); credit does;
 *  - pcs runs two CON VMs whole at the same time (disjoint CoCPUs); cs does not;
 *  - pcs signals only pCPUs that hold a vCPU of the VM (its CoCPUs); cs does not;
 *    signals name pCPUs past 64 and are charged to the co-scheduled VM;
 *  - a signal preempts an equal-priority vCPU at once (sibling start edges);
 *  - bcs never switches in a vCPU still at COS, and raises some;
 *  - scatter: a CON VM's vCPUs sit on distinct pCPUs; a CON VM with more
 *    vCPUs than pCPUs finishes under every variant (no hang);
 *  - relaxed co-stops and switches on skew, and finishes;
 *  - a HIT-only system gives exactly credit's report under every variant. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../tools/sim/sim.h"
#include "sched/cosched.h"

static struct sim S;
static const char *const VARIANTS[] = { "gang", "cs", "cds", "pcs", "bcs", "relaxed" };

extern void (*vprof_stub_event_hook)(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_event ev,
				     stime_t now, uint64_t arg);

/* Two 2-vCPU CON VMs (LU-like) and two busy HIT VMs on 4 pCPUs. */
static const char *scenario(const char *policy, char *buf, size_t n)
{
	snprintf(buf, n,
		 "pcpus 4\nseed 1\nduration 60s\npolicy %s\n"
		 "vm con0 vcpus=2 type=con\nvm con1 vcpus=2 type=con\n"
		 "vm hit2 vcpus=2\nvm hit3 vcpus=2\nbarrier b 2\nbarrier c 2\n"
		 "program lu\n loop 300\n  compute 1ms..3ms\n  barrier b spin\n end\nend\n"
		 "program lu1\n loop 300\n  compute 1ms..3ms\n  barrier c spin\n end\nend\n"
		 "thread con0.0-1 lu\nthread con1.0-1 lu1\n"
		 "thread hit2.0-1 intermittent 50\nthread hit3.0-1 intermittent 50\n", policy);
	return buf;
}

static void setup(const char *text)
{
	char err[256];

	memset(&S, 0, sizeof(S));
	ck_assert_msg(sim_parse(&S, text, err, sizeof(err)) == 0, "parse: %s", err);
	ck_assert_int_eq(sim_setup(&S), 0);
}

static bool all_done(void)
{
	for (int i = 0; i < S.nvms; i++)
		if (S.vm[i].measure && S.vm[i].ndone != S.vm[i].nthreads)
			return false;
	return true;
}

/* ---- gang: partial CON VM time ------------------------------------------- */
static stime_t last_t, partial_ns, con_run_ns, allfull_ns;
static bool last_partial, last_allfull;
static int last_running;

static void obs_partial(struct sched_pcpu *p, struct sched_vcpu *prev, struct sched_vcpu *next,
			stime_t now)
{
	bool partial = false, allfull = true;
	int running = 0;

	if (last_partial)
		partial_ns += now - last_t;
	if (last_allfull)
		allfull_ns += now - last_t;
	con_run_ns += (now - last_t) * last_running;
	for (int i = 0; i < S.nvms; i++) {
		int nrun = 0, nready = 0;

		if (S.vm[i].prm.type != SCHED_TYPE_CON)
			continue;
		for (int j = 0; j < S.vm[i].nvcpus; j++) {
			int st = S.vcpu[S.vm[i].first_vcpu + j].sv.state;

			nrun += st == SCHED_RUNNING;
			nready += st == SCHED_RUNNABLE;
		}
		partial |= nrun && nready;
		allfull &= nrun == S.vm[i].nvcpus;
		running += nrun;
	}
	last_partial = partial;
	last_allfull = allfull;
	last_running = running;
	last_t = now;
}

static const struct sched_hooks partial_hooks = { .name = "test-partial",
						  .switched = obs_partial };

static double partial_fraction(const char *policy)
{
	char buf[1024];

	setup(scenario(policy, buf, sizeof(buf)));
	last_t = partial_ns = con_run_ns = allfull_ns = 0;
	last_partial = last_allfull = false;
	last_running = 0;
	sched_hooks_set(&partial_hooks);
	sim_run(&S);
	ck_assert_msg(all_done(), "%s: not finished", policy);
	ck_assert(con_run_ns > 0);
	double f = (double)partial_ns / (double)S.now;
	sim_free(&S);
	return f;
}

START_TEST(test_gang_never_partial)
{
	double g = partial_fraction("gang"), c = partial_fraction("credit");

	fprintf(stderr, "partial CON VM time: gang %.5f credit %.5f of the run\n", g, c);
	/* Partial only while signals travel (2 us kick latency) */
	ck_assert_msg(g < 0.002, "gang partial %.4f of the run", g);
	ck_assert_msg(c > 0.05, "credit partial %.4f (the check must be able to fail)", c);
}
END_TEST

/* pcs co-schedules several CON VMs at once on disjoint pCPU sets; cs, one
 * CON VM at a time on every pCPU, (almost) never runs both whole at once. */
START_TEST(test_pcs_several_at_once)
{
	double fp, fc;

	partial_fraction("pcs");
	fp = (double)allfull_ns / (double)con_run_ns;
	partial_fraction("cs");
	fc = (double)allfull_ns / (double)con_run_ns;
	fprintf(stderr, "both CON VMs whole at once: pcs %.4f cs %.4f (per CON vCPU-time)\n", fp, fc);
	ck_assert_msg(fp > 0.02, "pcs ran both CON VMs whole at once %.4f", fp);
	ck_assert_msg(fc < fp / 10, "cs ran both CON VMs whole at once %.4f (pcs %.4f)", fc, fp);
}
END_TEST

/* ---- pcs: signals only CoCPUs --------------------------------------------- */
static unsigned long nsig, nsig_outside;

static void obs_signal(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_event ev, stime_t now,
		       uint64_t arg)
{
	bool holds = false;

	if (ev != VPE_COSCHED_SIGNAL)
		return;
	nsig++;
	/* Charged to a vCPU of the co-scheduled VM, not to VM 0 vCPU 0. */
	ck_assert_msg(vm < S.nvms && vcpu < S.vm[vm].nvcpus &&
		      S.vm[vm].prm.type == SCHED_TYPE_CON, "signal charged to %u.%u", vm, vcpu);
	for (int i = 0; i < S.nvcpus; i++)
		if (S.vcpu[i].sv.vm->id == vm && S.vcpu[i].sv.pcpu == arg)
			holds = true;
	nsig_outside += !holds;
}

static void count_signals(const char *policy)
{
	char buf[1024];

	setup(scenario(policy, buf, sizeof(buf)));
	nsig = nsig_outside = 0;
	vprof_stub_event_hook = obs_signal;
	sim_run(&S);
	vprof_stub_event_hook = NULL;
	ck_assert_msg(all_done(), "%s: not finished", policy);
	sim_free(&S);
}

START_TEST(test_pcs_signals_cocpus_only)
{
	count_signals("pcs");
	fprintf(stderr, "pcs: %lu signals, %lu outside CoCPUs\n", nsig, nsig_outside);
	ck_assert_msg(nsig > 50, "pcs sent %lu signals", nsig);
	ck_assert_msg(nsig_outside == 0, "pcs signalled %lu pCPUs outside CoCPUs", nsig_outside);
	count_signals("cs");   /* global: must hit pCPUs without the VM */
	ck_assert_msg(nsig_outside > 0, "cs signals all pCPUs, saw none outside");
}
END_TEST

/* Masks wider than 64 pCPUs (the old event kept only the low 64 bits): a CON
 * VM pinned to pCPUs 70 and 129 of 130, each beside a HIT hog. pcs signals
 * exactly those two (charged to the CON VM, obs_signal), cs every pCPU up to
 * 129. */
static unsigned long nsig_hi, nsig_top;

static void obs_wide(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_event ev, stime_t now,
		     uint64_t arg)
{
	if (ev != VPE_COSCHED_SIGNAL)
		return;
	obs_signal(pcpu, vm, vcpu, ev, now, arg);
	nsig_hi += arg >= 64;
	nsig_top += arg == 129;
}

START_TEST(test_signal_wide_masks)
{
	static const char *const pols[] = { "pcs", "cs" };

	for (size_t k = 0; k < 2; k++) {
		char buf[1024];

		snprintf(buf, sizeof(buf),
			 "pcpus 130\nseed 4\nduration 2s\npolicy %s\nvm c vcpus=2 type=con\n"
			 "vm h vcpus=2\nthread c.0-1 persistent\nthread h.0-1 persistent\n"
			 "pin c.0 70\npin c.1 129\npin h.0 70\npin h.1 129\n", pols[k]);
		setup(buf);
		nsig = nsig_outside = nsig_hi = nsig_top = 0;
		vprof_stub_event_hook = obs_wide;
		sim_run(&S);
		vprof_stub_event_hook = NULL;
		fprintf(stderr, "%s on 130 pCPUs: %lu signals, %lu to pCPU >= 64, %lu to 129, "
			"%lu outside CoCPUs\n", pols[k], nsig, nsig_hi, nsig_top, nsig_outside);
		ck_assert_msg(nsig > 10 && nsig_top > 5, "%s: %lu signals, %lu to pCPU 129", pols[k],
			      nsig, nsig_top);
		if (k == 0)
			ck_assert_msg(nsig_hi == nsig && nsig_outside == 0,
				      "pcs: %lu of %lu signals to pCPUs >= 64, %lu outside", nsig_hi,
				      nsig, nsig_outside);
		else
			ck_assert_msg(nsig_outside > nsig / 2, "cs: %lu of %lu outside", nsig_outside,
				      nsig);
		sim_free(&S);
	}
}
END_TEST

/* A co-scheduling signal really preempts: credit keeps an equal-priority
 * current vCPU to its slice end, so a signalled pCPU running a HIT hog of the
 * same priority would start the sibling up to a slice (30 ms) late. c.0
 * alone on pCPU 0 wakes every 3 ms (off the slice grid) and launches; c.1 and
 * a HIT hog share pCPU 1 (both UNDER, pinned). Every signal that finds the
 * hog running must see c.1 switched in within 100 us (signal latency 2 us). */
static stime_t sig_pending[2], sig_lat_max;
static unsigned long sig_preempts;

static void obs_pre_signal(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_event ev,
			   stime_t now, uint64_t arg)
{
	struct sched_pcpu *p = sched_pcpu_get((unsigned)arg);

	if (ev == VPE_COSCHED_SIGNAL && arg < 2 && p->curr && p->curr->vm->id != vm &&
	    !sig_pending[arg])
		sig_pending[arg] = now;
}

static void obs_pre_switch(struct sched_pcpu *p, struct sched_vcpu *prev, struct sched_vcpu *next,
			   stime_t now)
{
	if (p->id < 2 && sig_pending[p->id] && next && next->vm->params.type == SCHED_TYPE_CON) {
		sig_lat_max = MAX(sig_lat_max, now - sig_pending[p->id]);
		sig_preempts++;
		sig_pending[p->id] = 0;
	}
}

static const struct sched_hooks pre_hooks = { .name = "test-pre", .switched = obs_pre_switch };

START_TEST(test_signal_preempts)
{
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "pcpus 2\nseed 6\nduration 3s\npolicy pcs\nvm c vcpus=2 type=con\nvm h vcpus=1\n"
		 "program io\n loop forever\n  compute 300us\n  sleep 2700us\n end\nend\n"
		 "thread c.0 io\nthread c.1 persistent\nthread h.0 persistent\n"
		 "pin c.0 0\npin c.1 1\npin h.0 1\n");
	setup(buf);
	memset(sig_pending, 0, sizeof(sig_pending));
	sig_lat_max = 0;
	sig_preempts = 0;
	vprof_stub_event_hook = obs_pre_signal;
	sched_hooks_set(&pre_hooks);
	sim_run(&S);
	vprof_stub_event_hook = NULL;
	fprintf(stderr, "pcs: %lu signals preempted a HIT hog, max %lld ns to the switch\n",
		sig_preempts, (long long)sig_lat_max);
	ck_assert_msg(sig_preempts > 20, "only %lu signals found the hog running", sig_preempts);
	ck_assert_msg(sig_lat_max <= SIM_US(100), "a signalled pCPU switched %lld ns late",
		      (long long)sig_lat_max);
	ck_assert_msg(!sig_pending[1] || S.now - sig_pending[1] <= SIM_US(100),
		      "a signal still unanswered at the end");
	sim_free(&S);
}
END_TEST

/* ---- bcs: no vCPU at COS after it ran -------------------------------------- */
static unsigned long ncos_in, nswitch_in;

static void obs_cos(struct sched_pcpu *p, struct sched_vcpu *prev, struct sched_vcpu *next,
		    stime_t now)
{
	if (!next)
		return;
	nswitch_in++;
	ncos_in += csched_vcpu_pri(next) == CPRI_COS;
}

static const struct sched_hooks cos_hooks = { .name = "test-cos", .switched = obs_cos };

START_TEST(test_bcs_cos_falls_back)
{
	char buf[1024];

	setup(scenario("bcs", buf, sizeof(buf)));
	ncos_in = nswitch_in = 0;
	sched_hooks_set(&cos_hooks);
	sim_run(&S);
	ck_assert(all_done());
	ck_assert_msg(cosched_stats.ops > 50 && cosched_stats.nedge > 20, "bcs ops %llu edges %llu",
		      (unsigned long long)cosched_stats.ops, (unsigned long long)cosched_stats.nedge);
	ck_assert_msg(nswitch_in > 100 && ncos_in == 0, "%lu of %lu switched in at COS", ncos_in,
		      nswitch_in);
	for (int i = 0; i < S.nvcpus; i++)
		if (S.vcpu[i].sv.state == SCHED_RUNNING)
			ck_assert_int_ne(csched_vcpu_pri(&S.vcpu[i].sv), CPRI_COS);
	sim_free(&S);
}
END_TEST

/* ---- scatter and overcommit ------------------------------------------------ */
START_TEST(test_scatter_and_overcommit)
{
	char buf[1024];

	for (size_t k = 0; k < sizeof(VARIANTS) / sizeof(VARIANTS[0]); k++) {
		if (strcmp(VARIANTS[k], "relaxed")) {   /* relaxed does not scatter */
			setup(scenario(VARIANTS[k], buf, sizeof(buf)));
			for (int v = 0; v < 2; v++) {
				struct sim_vm *vm = &S.vm[v];

				ck_assert_uint_ne(S.vcpu[vm->first_vcpu].sv.pcpu,
						  S.vcpu[vm->first_vcpu + 1].sv.pcpu);
			}
			ck_assert_uint_ne(S.vcpu[0].sv.pcpu, S.vcpu[2].sv.pcpu);   /* CON spread */
			sim_free(&S);
		}
		snprintf(buf, sizeof(buf),
			 "pcpus 2\nseed 2\nduration 30s\npolicy %s\nvm big vcpus=3 type=con\n"
			 "vm h vcpus=1\nbarrier b 3\nprogram w\n loop 100\n  compute 2ms\n"
			 "  barrier b spin-block=200us\n end\nend\nthread big.0-2 w\n"
			 "thread h.0 intermittent 40\n", VARIANTS[k]);
		setup(buf);
		sim_run(&S);
		ck_assert_msg(all_done(), "%s: overcommitted CON VM did not finish", VARIANTS[k]);
		sim_free(&S);
	}
}
END_TEST

/* A VM turned CON at run time (HC_SCHED_SET_PARAM) is scattered. */
START_TEST(test_scatter_at_run_time)
{
	static const char *const pols[] = { "credit", "pcs", "bcs", "gang" };

	for (size_t k = 0; k < 4; k++) {
		char buf[1024];
		struct cpumask all;
		struct sched_vcpu *a0, *a1;

		snprintf(buf, sizeof(buf),
			 "pcpus 4\nseed 3\nduration 1s\npolicy %s\nvm a vcpus=2\nvm h vcpus=2\n"
			 "barrier b 2\nprogram lu\n loop 600\n  compute 1ms..3ms\n  barrier b spin\n"
			 " end\nend\nthread a.0-1 lu\nthread h.0-1 intermittent 50\npin a.0-1 1\n",
			 pols[k]);
		setup(buf);
		sim_run(&S);
		a0 = &S.vcpu[S.vm[0].first_vcpu].sv;
		a1 = &S.vcpu[S.vm[0].first_vcpu + 1].sv;
		ck_assert_uint_eq(a0->pcpu, a1->pcpu);        /* stacked by the pin */
		cpumask_fill(&all, 4);
		ck_assert_int_eq(sched_vcpu_affinity_set(a0, &all, S.now), 0);
		ck_assert_int_eq(sched_vcpu_affinity_set(a1, &all, S.now), 0);
		ck_assert_int_eq(sched_vm_param_set(&S.vm[0].sv, SCHED_PARAM_TYPE, SCHED_TYPE_CON), 0);
		S.vm[0].prm.type = SCHED_TYPE_CON;
		/* Moved by the type change itself, not by later stealing (credit). */
		ck_assert_msg(k == 0 ? a0->pcpu == a1->pcpu : a0->pcpu != a1->pcpu,
			      "%s: right after type=con a.0 on %u, a.1 on %u", pols[k], a0->pcpu,
			      a1->pcpu);
		S.duration = S.now + 200 * 1000000LL;
		sim_run(&S);
		ck_assert_msg(a0->pcpu != a1->pcpu, "%s: CON VM still stacked on pCPU %u", pols[k],
			      a0->pcpu);
		S.duration = 60000 * 1000000LL;
		sim_run(&S);
		ck_assert_msg(all_done(), "%s: did not finish", pols[k]);
		sim_free(&S);
	}
}
END_TEST

/* ---- relaxed ---------------------------------------------------------------- */
START_TEST(test_relaxed_costops)
{
	char buf[1024];

	setup(scenario("relaxed", buf, sizeof(buf)));
	sim_run(&S);
	ck_assert(all_done());
	ck_assert_msg(cosched_stats.ops > 0 && cosched_stats.codesched > 0,
		      "relaxed: %llu switches, %llu co-stops", (unsigned long long)cosched_stats.ops,
		      (unsigned long long)cosched_stats.codesched);
	sim_free(&S);
	{
		char buf2[1100];

		snprintf(buf2, sizeof(buf2), "option sched_relaxed_costop=0\n%s",
			 scenario("relaxed", buf, sizeof(buf)));
		setup(buf2);
	}
	sim_run(&S);
	ck_assert(all_done());
	ck_assert_msg(cosched_stats.codesched == 0, "co-stop off, %llu co-stops",
		      (unsigned long long)cosched_stats.codesched);
	sim_free(&S);
	sched_options_defaults();
}
END_TEST

/* ---- HIT-only = credit -------------------------------------------------------- */
static char *report(const char *text)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	setup(text);
	sim_run(&S);
	sim_report(&S, f);
	fclose(f);
	sim_free(&S);
	/* Drop the run and cosched lines (policy name). */
	return strstr(out, "\nvm ") ? memmove(out, strstr(out, "\nvm "), strlen(strstr(out, "\nvm ")) + 1) : out;
}

START_TEST(test_hit_only_is_credit)
{
	const char *fmt = "pcpus 4\nseed 5\nduration 5s\npolicy %s\nvm a vcpus=4\nvm b vcpus=4\n"
			  "barrier x 4\nprogram w\n loop 200\n  compute 1ms..4ms\n  barrier x spin\n"
			  " end\nend\nthread a.0-3 w\nthread b.0-3 intermittent 60\n";
	char buf[512], *base;

	snprintf(buf, sizeof(buf), fmt, "credit");
	base = report(buf);
	for (size_t k = 0; k < sizeof(VARIANTS) / sizeof(VARIANTS[0]); k++) {
		char *r;

		snprintf(buf, sizeof(buf), fmt, VARIANTS[k]);
		r = report(buf);
		ck_assert_msg(!strcmp(r, base), "%s differs from credit on HIT-only", VARIANTS[k]);
		free(r);
	}
	free(base);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched_cosched");
	TCase *tc = tcase_create("cosched");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_gang_never_partial);
	tcase_add_test(tc, test_pcs_several_at_once);
	tcase_add_test(tc, test_pcs_signals_cocpus_only);
	tcase_add_test(tc, test_signal_wide_masks);
	tcase_add_test(tc, test_signal_preempts);
	tcase_add_test(tc, test_bcs_cos_falls_back);
	tcase_add_test(tc, test_scatter_and_overcommit);
	tcase_add_test(tc, test_scatter_at_run_time);
	tcase_add_test(tc, test_relaxed_costops);
	tcase_add_test(tc, test_hit_only_is_credit);
	suite_add_tcase(s, tc);
	return check_run(s);
}
