/* The simulated machine: hv/sched's platform interface on a discrete-event
 * queue, machine setup from a parsed workload, and the event loop. */
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "log.h"

static stime_t plat_now(void *ctx)
{
	return ((struct sim *)ctx)->now;
}

static void plat_timer_arm(void *ctx, unsigned cpu, stime_t t)
{
	struct sim *s = ctx;
	struct sim_pcpu *pc = &s->pcpu[cpu];

	pc->timer_gen++;
	pc->timer_at = t;
	if (t != STIME_MAX)
		simq_push(&s->q, MAX(t, s->now) + s->timer_lat, EV_TIMER, (int)cpu, pc->timer_gen);
}

static void plat_kick(void *ctx, unsigned cpu)
{
	struct sim *s = ctx;

	if (s->pcpu[cpu].kick_pending)
		return;
	s->pcpu[cpu].kick_pending = true;
	simq_push(&s->q, s->now + s->kick_lat, EV_KICK, (int)cpu, 0);
}

uint64_t sim_random(struct sim *s)
{
	uint64_t x = s->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return s->rng = x;
}

static int sim_apply_options(struct sim *s)
{
	sched_options_defaults();
	for (int i = 0; i < s->nopts; i++) {
		char buf[96], *eq;

		snprintf(buf, sizeof(buf), "%s", s->opts[i]);
		eq = strchr(buf, '=');
		if (!eq)
			return -1;
		*eq = 0;
		if (sched_option_set(buf, eq + 1)) {
			fprintf(stderr, "hvsim: bad option %s\n", s->opts[i]);
			return -1;
		}
	}
	return 0;
}

static int sim_setup_vms(struct sim *s)
{
	int nv = 0;

	for (int i = 0; i < s->nvms; i++) {
		s->vm[i].first_vcpu = nv;
		nv += s->vm[i].nvcpus;
		if (sched_vm_add(&s->vm[i].sv, (uint16_t)i, &s->vm[i].prm))
			return -1;
	}
	s->nvcpus = nv;
	s->vcpu = calloc((size_t)nv, sizeof(*s->vcpu));
	for (int i = 0; i < s->nvms; i++)
		for (int j = 0; j < s->vm[i].nvcpus; j++) {
			struct sim_vcpu *v = &s->vcpu[s->vm[i].first_vcpu + j];

			v->idx = s->vm[i].first_vcpu + j;
			v->vm = i;
			v->id = j;
			v->pcpu = -1;
			if (sched_vcpu_add(&v->sv, &s->vm[i].sv, (uint16_t)j, s->t0))
				return -1;
		}
	return 0;
}

/* The `pin` affinities (place = false; also kept per vCPU for placed ones),
 * or each `place`d vCPU's start pCPU as its only one (place = true). */
static int sim_pin(struct sim *s, bool place)
{
	for (int i = 0; i < s->npins; i++)
		for (int j = s->pins[i].lo; j <= s->pins[i].hi; j++) {
			struct sim_vm *vm = &s->vm[s->pins[i].vm];
			struct sim_vcpu *v = &s->vcpu[vm->first_vcpu + j];
			struct cpumask m;

			if ((s->pins[i].clo < 0) != place)
				continue;
			cpumask_zero(&m);
			for (int c = place ? s->pins[i].chi : s->pins[i].clo; c <= s->pins[i].chi; c++)
				cpumask_set(&m, (unsigned)c);
			if (!place)
				v->pin = m;
			if (sched_vcpu_affinity_set(&v->sv, &m, s->t0))
				return -1;
		}
	return 0;
}

int sim_setup(struct sim *s)
{
	s->rng = s->seed * 0x9e3779b97f4a7c15ULL | 1;
	s->now = s->t0;
	s->duration += s->t0;
	s->plat = (struct sched_platform){ .ctx = s, .now = plat_now, .timer_arm = plat_timer_arm,
					   .kick = plat_kick, .inject = pv_inject,
					   .shared_page = pv_shared_page, .irq_pending = pv_irq_pending };
	sched_platform_set(&s->plat);
	if (sim_apply_options(s) || sched_init(s->policy))
		return -1;
	s->pcpu = calloc((size_t)s->npcpus, sizeof(*s->pcpu));
	for (int i = 0; i < s->npcpus; i++) {
		s->pcpu[i].running = -1;
		s->pcpu[i].last = -1;
		s->pcpu[i].timer_at = STIME_MAX;
		/* Added acct_offset before t=0: the accounting period runs from
		 * then (the first pCPU's add), idle time and the rest from 0. */
		if (sched_pcpu_add(&s->pcpu[i].sp, (unsigned)i, s->t0 - s->acct_off))
			return -1;
		s->pcpu[i].sp.idle_since = s->t0;
	}
	if (sim_setup_vms(s))
		return -1;
	for (int i = 0; i < s->nthr; i++) {
		struct sim_thread *t = &s->thr[i];

		t->prog = &s->prog[(intptr_t)t->prog];
		t->vcpu += s->vm[t->vm].first_vcpu;
	}
	if (sim_pin(s, false))
		return -1;
	guest_add_balloons(s);
	guest_start(s);
	for (int i = 0; i < s->nvms; i++)
		if (s->vm[i].gbal) {
			simq_push(&s->q, s->t0 + s->gbal_period, EV_GBAL, 0, 0);
			break;
		}
	/* A placed vCPU starts with its pCPU as its only one, then gets the
	 * affinity it has in the workload back. */
	if (sim_pin(s, true))
		return -1;
	for (int i = 0; i < s->nvcpus; i++)
		sched_vcpu_start(&s->vcpu[i].sv, s->t0);
	for (int i = 0; i < s->npins; i++)
		for (int j = s->pins[i].lo; j <= s->pins[i].hi && s->pins[i].clo < 0; j++) {
			struct sim_vcpu *v = &s->vcpu[s->vm[s->pins[i].vm].first_vcpu + j];
			struct cpumask all;

			cpumask_fill(&all, SCHED_MAX_PCPUS);
			if (sched_vcpu_affinity_set(&v->sv, cpumask_empty(&v->pin) ? &all : &v->pin,
						    s->t0))
				return -1;
		}
	s->all_done = true;
	for (int i = 0; i < s->nvms; i++)
		if (s->vm[i].measure && s->vm[i].nthreads)
			s->all_done = false;
	if (s->all_done)
		s->all_done = false, s->end = s->duration;   /* run for the duration */
	return 0;
}

/* Run the scheduler on pCPU i and switch guest contexts accordingly. */
void engine_resched(struct sim *s, int i)
{
	struct sim_pcpu *pc = &s->pcpu[i];
	struct sim_vcpu *pv = pc->running >= 0 ? &s->vcpu[pc->running] : NULL, *nv;
	uint64_t npre = pv ? pv->sv.st.npreempt : 0;
	struct sched_vcpu *n;
	stime_t until;

	if (pv)
		guest_sync(s, pv);
	n = sched_schedule(&pc->sp, s->now, &until);
	nv = n ? container_of(n, struct sim_vcpu, sv) : NULL;
	if (nv != pv) {
		if (pv) {
			pv->pcpu = -1;
			pv->trace_spin = false;   /* RUNNING ended: so did spinning */
			pv->gen++;
			guest_descheduled(s, pv, pv->sv.st.npreempt != npre);
			if (pv->pmu_run)
				sched_vcpu_pmu_run_done(&pv->sv);   /* auto's sampled run */
		}
		if (nv) {
			ASSERT(nv->pcpu < 0);
			nv->pcpu = i;
			nv->run_since = s->now;
			/* The PMU glue reads the counters around this run for
			 * sched=auto when it asks (no vProfile, hv/vm/vcpu_pmu.c). */
			nv->pmu_run = sched_vcpu_pmu_wanted(&nv->sv);
			if (s->cache_refill && pc->last != nv->idx)
				nv->cold_left = s->cache_refill;   /* cold caches */
			pc->last = nv->idx;
			guest_resumed(s, nv);
		}
		pc->running = nv ? nv->idx : -1;
	}
	if (nv)
		guest_plan(s, nv);
}

static void sim_dispatch(struct sim *s, const struct sim_event *e)
{
	struct sim_pcpu *pc;

	switch (e->kind) {
	case EV_TIMER:
		pc = &s->pcpu[e->idx];
		if (e->gen != pc->timer_gen)
			return;
		pc->timer_at = STIME_MAX;
		if (sched_timer_fire(&pc->sp, s->now))
			engine_resched(s, e->idx);
		return;
	case EV_KICK:
		pc = &s->pcpu[e->idx];
		pc->kick_pending = false;
		if (sched_kicked(&pc->sp, s->now))
			engine_resched(s, e->idx);
		return;
	case EV_GUEST:
		if (e->gen == s->vcpu[e->idx].gen && s->vcpu[e->idx].pcpu >= 0)
			guest_event(s, &s->vcpu[e->idx]);
		return;
	case EV_IRQ:
		guest_irq(s, &s->vcpu[e->idx]);
		return;
	case EV_GBAL:
		guest_balance_tick(s);
		return;
	case EV_THREAD_WAKE:
		if (e->gen == s->thr[e->idx].wake_gen)
			guest_thread_wake(s, &s->thr[e->idx]);
		return;
	}
}

/* Policy switches due before the next event (hv/sched/switch.c): request
 * at their time; note when the last one requested was installed. */
static void sim_switches(struct sim *s)
{
	stime_t next = s->q.n ? s->q.h[0].t : STIME_MAX;

	if (s->sw_next > 0 && s->sw[s->sw_next - 1].installed < 0 && !sched_policy_switching() &&
	    s->sw[s->sw_next - 1].rc == 0)
		s->sw[s->sw_next - 1].installed = s->now;
	while (s->sw_next < s->nsw && s->sw[s->sw_next].at <= MIN(next, s->duration) &&
	       !sched_policy_switching()) {
		struct sim_switch *w = &s->sw[s->sw_next++];

		if (w->at > s->now)
			s->now = w->at;
		w->rc = sched_policy_switch(w->policy, w->opts, s->now);
	}
}

/* Events at one simulated instant beyond which time is stuck: a livelock
 * (e.g. a timer re-armed at a time already past) fails the run instead of
 * hanging it. No scenario comes near it (70 VMs' refill: a few hundred). */
#define SIM_SAME_T_MAX 1000000u

void sim_run(struct sim *s)
{
	struct sim_event e;
	stime_t last = -1;
	unsigned same = 0;

	while (!s->all_done) {
		if (s->nsw)
			sim_switches(s);
		/* Leave later events queued: sim_run may be resumed with a new
		 * duration (run-time parameter changes in tests). */
		if (s->q.n && s->q.h[0].t > s->duration) {
			s->now = s->duration;
			break;
		}
		if (!simq_pop(&s->q, &e))
			break;
		if (e.t > s->now && guest_swc_idle(s))
			s->swc_idle += e.t - s->now;
		same = e.t == last ? same + 1 : 0;
		last = e.t;
		if (same > SIM_SAME_T_MAX) {
			fprintf(stderr, "hvsim: livelock: over %u events at t=%lld ns (last kind %d, index %d)\n",
				SIM_SAME_T_MAX, (long long)e.t, (int)e.kind, (int)e.idx);
			exit(3);
		}
		s->now = e.t;
		s->nevents++;
		sim_dispatch(s, &e);
		guest_mem_update(s);
	}
	if (!s->all_done)
		s->now = s->duration;   /* also when nothing was left to happen */
	s->end = s->now;
	for (int i = 0; i < s->nvcpus; i++)
		if (s->vcpu[i].pcpu >= 0)
			guest_sync(s, &s->vcpu[i]);
}
