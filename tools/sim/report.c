/* hvsim output: one `key=value` line per VM and per vCPU (parsed by
 * test/sim/check.py), plus a header line for the run. */
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "sched/cosched.h"

#define NS2MS(x) ((double)(x) / 1e6)

struct sim_vm *sim_vm_find(struct sim *s, const char *name)
{
	for (int i = 0; i < s->nvms; i++)
		if (!strcmp(s->vm[i].name, name))
			return &s->vm[i];
	return NULL;
}

static void vcpu_stats(struct sim *s, struct sim_vcpu *v, struct sched_vcpu_stats *st)
{
	sched_vcpu_stats(&v->sv, s->now, st);
}

double sim_vm_cpu_ms(struct sim *s, struct sim_vm *vm)
{
	double sum = 0;

	for (int j = 0; j < vm->nvcpus; j++) {
		struct sched_vcpu_stats st;

		vcpu_stats(s, &s->vcpu[vm->first_vcpu + j], &st);
		sum += NS2MS(st.time[SCHED_RUNNING]);
	}
	return sum;
}

static void report_vcpu(struct sim *s, FILE *f, struct sim_vcpu *v, struct sched_vcpu_stats *st)
{
	fprintf(f, "vcpu vm=%s id=%d running_ms=%.3f runnable_ms=%.3f blocked_ms=%.3f "
		"offline_ms=%.3f spin_ms=%.3f preempt=%llu yields=%llu block=%llu wake=%llu "
		"migrate=%llu lhp=%llu lwp=%llu wake_lat_max_us=%.1f wake_lat_avg_us=%.1f "
		"delayed=%llu dp_delay_us=%.1f yield_to=%llu ple_window=%u sa_ack_block=%llu "
		"hcalls=%llu\n",
		s->vm[v->vm].name, v->id, NS2MS(st->time[SCHED_RUNNING]),
		NS2MS(st->time[SCHED_RUNNABLE]), NS2MS(st->time[SCHED_BLOCKED]),
		NS2MS(st->time[SCHED_OFFLINE]), NS2MS(v->spin_time),
		(unsigned long long)st->npreempt, (unsigned long long)st->nyield,
		(unsigned long long)st->nblock, (unsigned long long)st->nwake,
		(unsigned long long)st->nmigrate, (unsigned long long)v->lhp,
		(unsigned long long)v->lwp, (double)st->wake_lat_max / 1e3,
		st->nwake_lat ? (double)st->wake_lat_sum / (double)st->nwake_lat / 1e3 : 0.0,
		(unsigned long long)st->ndelayed, (double)v->sv.dp_delay / 1e3,
		(unsigned long long)st->nple_directed, v->sv.ple_window,
		(unsigned long long)v->sa_ack_block,
		(unsigned long long)(v->nsleep + v->nsleep_cancel + v->sa_stale));
}

static void report_vm(struct sim *s, FILE *f, struct sim_vm *vm)
{
	uint64_t pre = 0, yld = 0, lhp = 0, pmu = 0;
	double spin = 0, runnable = 0, cpu = sim_vm_cpu_ms(s, vm);

	for (int j = 0; j < vm->nvcpus; j++) {
		struct sim_vcpu *v = &s->vcpu[vm->first_vcpu + j];
		struct sched_vcpu_stats st;

		vcpu_stats(s, v, &st);
		pre += st.npreempt;
		yld += st.nyield;
		lhp += v->lhp;
		spin += NS2MS(v->spin_time);
		runnable += NS2MS(st.time[SCHED_RUNNABLE]);
		pmu += st.pmu_cycles;
	}
	fprintf(f, "vm name=%s vcpus=%d weight=%u cap=%u done=%d completion_ms=%.3f cpu_ms=%.3f "
		"share=%.4f runnable_ms=%.3f spin_ms=%.3f preempt=%llu yields=%llu lhp=%llu work_ms=%.3f",
		vm->name, vm->nvcpus, vm->prm.weight, vm->prm.cap,
		vm->nthreads && vm->ndone == vm->nthreads, vm->done_at ? NS2MS(vm->done_at - s->t0) : -1.0,
		cpu, s->end > s->t0 ? cpu / (NS2MS(s->end - s->t0) * s->npcpus) : 0.0, runnable, spin,
		(unsigned long long)pre, (unsigned long long)yld, (unsigned long long)lhp,
		NS2MS(vm->work));
	/* A VM moved at run time (hv/sched/vmpolicy.c): its policy now. */
	if (vm->sv.pol.nmove)
		fprintf(f, " policy=%s moves=%llu dp_us=%lld ds_ms=%lld-%lld",
			sched_vm_policy_name(&vm->sv), (unsigned long long)vm->sv.pol.nmove,
			vm->sv.pol.dp == SCHED_VMPOL_OWN ? (long long)(vm->sv.pol.dp_delay / 1000) : -1,
			vm->sv.pol.ds == SCHED_VMPOL_OWN ? (long long)(vm->sv.pol.ds_min / 1000000) : -1,
			vm->sv.pol.ds == SCHED_VMPOL_OWN ? (long long)(vm->sv.pol.ds_max / 1000000) : -1);
	/* sched=auto's choices for the VM at the end (hv/sched/auto.c) and the
	 * PMU time the scheduler was given (1 GHz model: cycles / 1e6 = ms). */
	if (!strcmp(sched_policy_name(), "auto")) {
		bool held;
		unsigned skew = sched_auto_vm_skew(&vm->sv, &held);

		fprintf(f, " auto_con=%d auto_ds=%d auto_dp_us=%lld auto_ple_off=%d auto_sa=%d "
			"pmu_ms=%.3f auto_skew=%u auto_con_held=%d auto_guard=%d",
			vm->sv.params.type == SCHED_TYPE_CON, vm->sv.pol.ds == SCHED_VMPOL_OWN,
			vm->sv.pol.dp == SCHED_VMPOL_OWN ? (long long)(vm->sv.pol.dp_delay / 1000) : 0,
			vm->sv.pol.ple_off, vm->sv.pol.sa_auto, (double)pmu / 1e6, skew, held,
			sched_auto_guard_on());
	}
	fputc('\n', f);
}

static int cmp_stime(const void *a, const void *b)
{
	stime_t x = *(const stime_t *)a, y = *(const stime_t *)b;

	return x < y ? -1 : x > y;
}

/* The guest model's figures for a VM (docs/sched.md "Guest model"): guest
 * migrations, the SA receiver (upcalls taken, acks by op, injection-to-ack
 * in guest time, migrations), the balloon, and the I/O threads' wake-up
 * latencies (p50/p99/max) and throughput. One `guest` line per VM. */
static void report_guest(struct sim *s, FILE *f, struct sim_vm *vm)
{
	uint64_t hnd = 0, ay = 0, ab = 0, mig = 0, nomove = 0, stale = 0, nsl = 0, ncan = 0, tmo = 0;
	uint64_t pulled = 0;
	stime_t lsum = 0, lmax = 0, bsleep = 0, *lat = NULL;
	size_t n = 0;
	double p50 = 0, p99 = 0, pmax = 0, secs = NS2MS(s->end - MIN(s->warmup, s->end)) / 1e3;
	uint64_t io = 0;

	for (int j = 0; j < vm->nvcpus; j++) {
		struct sim_vcpu *v = &s->vcpu[vm->first_vcpu + j];
		struct sched_vcpu_stats st;

		vcpu_stats(s, v, &st);
		tmo += st.nsa_timeout;
		hnd += v->sa_handled;
		ay += v->sa_ack_yield;
		ab += v->sa_ack_block;
		mig += v->sa_migrate;
		nomove += v->sa_nomove;
		pulled += v->sa_pullback;
		stale += v->sa_stale;
		lsum += v->sa_lat_sum;
		lmax = MAX(lmax, v->sa_lat_max);
		nsl += v->nsleep;
		ncan += v->nsleep_cancel;
		bsleep += v->bal_sleep_ns + (v->balloon_asleep ? s->end - v->sleep_since : 0);
	}
	for (int i = 0; i < s->nthr; i++)
		if (&s->vm[s->thr[i].vm] == vm && s->thr[i].cls == TC_IO) {
			lat = realloc(lat, (n + s->thr[i].nio_lat + 1) * sizeof(*lat));
			memcpy(lat + n, s->thr[i].io_lat, s->thr[i].nio_lat * sizeof(*lat));
			n += s->thr[i].nio_lat;
			io += s->thr[i].io_done;
		}
	if (n) {
		qsort(lat, n, sizeof(*lat), cmp_stime);
		p50 = (double)lat[(n - 1) / 2] / 1e3;
		p99 = (double)lat[(size_t)((double)(n - 1) * 0.99)] / 1e3;
		pmax = (double)lat[n - 1] / 1e3;
	}
	free(lat);
	fprintf(f, "guest vm=%s gmigrate=%llu sa_taken=%llu sa_ack_yield=%llu sa_ack_block=%llu "
		"sa_stale=%llu sa_timeout=%llu sa_migrate=%llu sa_nomove=%llu sa_pullback=%llu "
		"ack_lat_avg_us=%.2f ack_lat_max_us=%.2f "
		"io_n=%llu io_per_s=%.1f io_p50_us=%.1f io_p99_us=%.1f io_max_us=%.1f "
		"compute_ms=%.3f io_cpu_ms=%.3f balloon_sleep_ms=%.3f sleeps=%llu sleep_cancel=%llu "
		"mode_upcalls=%llu\n",
		vm->name, (unsigned long long)vm->gmigrate, (unsigned long long)hnd,
		(unsigned long long)ay, (unsigned long long)ab, (unsigned long long)stale,
		(unsigned long long)tmo, (unsigned long long)mig, (unsigned long long)nomove,
		(unsigned long long)pulled,
		ay + ab ? (double)lsum / (double)(ay + ab) / 1e3 : 0.0, (double)lmax / 1e3,
		(unsigned long long)io, secs > 0 ? (double)io / secs : 0.0, p50, p99, pmax,
		NS2MS(vm->thr_cpu[TC_NORMAL]), NS2MS(vm->thr_cpu[TC_IO]), NS2MS(bsleep),
		(unsigned long long)nsl, (unsigned long long)ncan,
		(unsigned long long)vm->nmode_switch);
}

void sim_report(struct sim *s, FILE *f)
{
	double idle = 0;

	for (int i = 0; i < s->npcpus; i++) {
		struct sched_pcpu *p = &s->pcpu[i].sp;

		idle += NS2MS(p->idle_time + (p->curr ? 0 : s->end - p->idle_since));
	}
	fprintf(f, "run policy=%s pcpus=%d seed=%llu end_ms=%.3f events=%llu idle_ms=%.3f "
		"swc_idle_ms=%.3f",
		sched_policy_name(), s->npcpus, (unsigned long long)s->seed, NS2MS(s->end - s->t0),
		(unsigned long long)s->nevents, idle, NS2MS(s->swc_idle));
	if (s->mem_alpha_milli) {   /* memory model: bursts together, per burst time */
		guest_mem_account(s);
		fprintf(f, " mem_overlap=%.3f", s->mem_int1 > 0 ? s->mem_int2 / s->mem_int1 : 0.0);
	}
	fputc('\n', f);
	for (int i = 0; i < s->nsw; i++)   /* run-time policy switches */
		fprintf(f, "switch n=%d at_ms=%.3f policy=%s rc=%d installed_ms=%.3f\n", i,
			NS2MS(s->sw[i].at), s->sw[i].policy, s->sw[i].rc,
			s->sw[i].installed < 0 ? -1.0 : NS2MS(s->sw[i].installed));
	{
		/* Co-scheduling metrics (seed 003 §VI): operations per second,
		 * scheduling fragments (context switches), launch-to-sibling-start
		 * time edges. Zero under non-co-scheduling policies. */
		const struct cosched_stats *c = &cosched_stats;
		uint64_t sw = 0;

		for (int i = 0; i < s->npcpus; i++)
			sw += s->pcpu[i].sp.nswitch;
		fprintf(f, "cosched ops=%llu ops_per_s=%.1f signals=%llu refused=%llu codesched=%llu "
			"switches=%llu switches_per_s=%.1f edges=%llu edge_le_1ms_pct=%.2f "
			"edge_le_100us_pct=%.2f edge_max_us=%.1f\n",
			(unsigned long long)c->ops, s->end ? (double)c->ops / (NS2MS(s->end) / 1e3) : 0.0,
			(unsigned long long)c->signals, (unsigned long long)c->refused,
			(unsigned long long)c->codesched, (unsigned long long)sw,
			s->end ? (double)sw / (NS2MS(s->end) / 1e3) : 0.0, (unsigned long long)c->nedge,
			(double)cosched_edge_ppm_le(1000000) / 1e4,
			(double)cosched_edge_ppm_le(100000) / 1e4, (double)c->edge_max / 1e3);
	}
	for (int i = 0; i < s->nvms; i++)
		report_vm(s, f, &s->vm[i]);
	for (int i = 0; i < s->nvms; i++)
		report_guest(s, f, &s->vm[i]);
	for (int i = 0; i < s->nvcpus; i++) {
		struct sched_vcpu_stats st;

		vcpu_stats(s, &s->vcpu[i], &st);
		report_vcpu(s, f, &s->vcpu[i], &st);
	}
}
