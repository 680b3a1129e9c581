/* hvsim output: one `key=value` line per VM and per vCPU (parsed by
 * test/sim/check.py), plus a header line for the run. */
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
		"delayed=%llu dp_delay_us=%.1f yield_to=%llu ple_window=%u\n",
		s->vm[v->vm].name, v->id, NS2MS(st->time[SCHED_RUNNING]),
		NS2MS(st->time[SCHED_RUNNABLE]), NS2MS(st->time[SCHED_BLOCKED]),
		NS2MS(st->time[SCHED_OFFLINE]), NS2MS(v->spin_time),
		(unsigned long long)st->npreempt, (unsigned long long)st->nyield,
		(unsigned long long)st->nblock, (unsigned long long)st->nwake,
		(unsigned long long)st->nmigrate, (unsigned long long)v->lhp,
		(unsigned long long)v->lwp, (double)st->wake_lat_max / 1e3,
		st->nwake_lat ? (double)st->wake_lat_sum / (double)st->nwake_lat / 1e3 : 0.0,
		(unsigned long long)st->ndelayed, (double)v->sv.dp_delay / 1e3,
		(unsigned long long)st->nple_directed, v->sv.ple_window);
}

static void report_vm(struct sim *s, FILE *f, struct sim_vm *vm)
{
	uint64_t pre = 0, yld = 0, lhp = 0;
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
	}
	fprintf(f, "vm name=%s vcpus=%d weight=%u cap=%u done=%d completion_ms=%.3f cpu_ms=%.3f "
		"share=%.4f runnable_ms=%.3f spin_ms=%.3f preempt=%llu yields=%llu lhp=%llu\n",
		vm->name, vm->nvcpus, vm->prm.weight, vm->prm.cap,
		vm->nthreads && vm->ndone == vm->nthreads, vm->done_at ? NS2MS(vm->done_at) : -1.0,
		cpu, s->end ? cpu / (NS2MS(s->end) * s->npcpus) : 0.0, runnable, spin,
		(unsigned long long)pre, (unsigned long long)yld, (unsigned long long)lhp);
}

void sim_report(struct sim *s, FILE *f)
{
	double idle = 0;

	for (int i = 0; i < s->npcpus; i++) {
		struct sched_pcpu *p = &s->pcpu[i].sp;

		idle += NS2MS(p->idle_time + (p->curr ? 0 : s->end - p->idle_since));
	}
	fprintf(f, "run policy=%s pcpus=%d seed=%llu end_ms=%.3f events=%llu idle_ms=%.3f\n",
		sched_policy_name(), s->npcpus, (unsigned long long)s->seed, NS2MS(s->end),
		(unsigned long long)s->nevents, idle);
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
	for (int i = 0; i < s->nvcpus; i++) {
		struct sched_vcpu_stats st;

		vcpu_stats(s, &s->vcpu[i], &st);
		report_vcpu(s, f, &s->vcpu[i], &st);
	}
}
