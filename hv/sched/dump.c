/* sched_dump(): the scheduler's state on the console, for the watchdog and
 * the state-dump key (hv/vm/watchdog.c). It takes no lock: it is called when
 * something is stuck, possibly a pCPU holding a runqueue lock, so it reads
 * racy snapshots (each field once) and must never wait. */
#include "sched/policy.h"
#include "log.h"

static const char *const state_names[SCHED_NSTATES] = {
	[SCHED_RUNNING] = "RUNNING", [SCHED_RUNNABLE] = "RUNNABLE",
	[SCHED_BLOCKED] = "BLOCKED", [SCHED_OFFLINE] = "OFFLINE",
};

const char *sched_state_name(unsigned s)
{
	return s < SCHED_NSTATES && state_names[s] ? state_names[s] : "?";
}

/* Milliseconds from now to t, signed; "never" is printed by the caller. */
static long rel_ms(stime_t t, stime_t now)
{
	return (long)((t - now) / 1000000);
}

/* " name=+12ms", " name=-3ms" or " name=never" into buf (no snprintf: this
 * file also builds in the host simulator, without hv/lib). */
static void dump_time(const char *name, stime_t t, stime_t now, char *buf, size_t n)
{
	char num[24];
	size_t o = 0, k = 0;
	long ms = rel_ms(t, now);
	unsigned long m = ms < 0 ? -(unsigned long)ms : (unsigned long)ms;

	do
		num[k++] = (char)('0' + m % 10);
	while ((m /= 10) && k < sizeof(num));
	buf[o++] = ' ';
	while (*name && o < n - 8)
		buf[o++] = *name++;
	buf[o++] = '=';
	if (t == STIME_MAX) {
		for (const char *w = "never"; *w && o < n - 1; )
			buf[o++] = *w++;
	} else {
		buf[o++] = ms < 0 ? '-' : '+';
		while (k && o < n - 3)
			buf[o++] = num[--k];
		buf[o++] = 'm';
		buf[o++] = 's';
	}
	buf[o] = '\0';
}

static void dump_pcpu(struct sched_pcpu *p, stime_t now)
{
	struct sched_vcpu *c = READ_ONCE(p->curr);
	char sl[32], tk[32], hd[32], tm[32];

	dump_time("slice_end", READ_ONCE(p->slice_end), now, sl, sizeof(sl));
	dump_time("tick", READ_ONCE(p->next_tick), now, tk, sizeof(tk));
	dump_time("hold", READ_ONCE(p->hold_until), now, hd, sizeof(hd));
	dump_time("timer", READ_ONCE(p->timer_at), now, tm, sizeof(tm));
	if (c)
		pr_info("sched: pcpu%u curr=vm%u.v%u for %ldms resched=%d%s%s%s%s "
			"schedule=%lu switch=%lu locked=%d\n", p->id, c->vm->id, c->id,
			rel_ms(now, READ_ONCE(p->curr_since)), READ_ONCE(p->need_resched),
			sl, tk, hd, tm, (unsigned long)p->nschedule, (unsigned long)p->nswitch,
			spin_is_locked(&p->lock));
	else
		pr_info("sched: pcpu%u idle for %ldms resched=%d%s%s schedule=%lu switch=%lu "
			"locked=%d\n", p->id, rel_ms(now, READ_ONCE(p->idle_since)),
			READ_ONCE(p->need_resched), tk, tm, (unsigned long)p->nschedule,
			(unsigned long)p->nswitch, spin_is_locked(&p->lock));
	if (sched_sys.ops && sched_sys.ops->dump)
		sched_sys.ops->dump(p, now);
}

void sched_dump_vcpu(const struct sched_vcpu *v, stime_t now)
{
	unsigned st = READ_ONCE(v->state);

	pr_info("sched: vm%u.v%u %s for %ldms pcpu=%u flags=0x%x preempt=%lu yield=%lu "
		"block=%lu wake=%lu migrate=%lu wake_lat_max=%ldus\n", v->vm->id, v->id,
		sched_state_name(st), rel_ms(now, READ_ONCE(v->state_since)), READ_ONCE(v->pcpu),
		READ_ONCE(v->flags), (unsigned long)v->st.npreempt, (unsigned long)v->st.nyield,
		(unsigned long)v->st.nblock, (unsigned long)v->st.nwake,
		(unsigned long)v->st.nmigrate, (long)(v->st.wake_lat_max / 1000));
}

void sched_dump(stime_t now)
{
	pr_info("sched: policy '%s', %u pCPUs, master pcpu%u, vm list %s\n",
		sched_policy_name(), sched_sys.npcpus, sched_sys.master,
		spin_is_locked(&sched_sys.vm_lock) ? "locked" : "free");
	for (unsigned i = 0; i < SCHED_MAX_PCPUS; i++) {
		struct sched_pcpu *p = READ_ONCE(sched_sys.pcpu[i]);

		if (p)
			dump_pcpu(p, now);
	}
	/* The VM list only grows at boot and shrinks when a VM is removed at
	 * the end: walking it without vm_lock is safe while VMs run. */
	for (struct sched_vm *vm = READ_ONCE(sched_sys.vms); vm; vm = vm->next)
		for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next)
			sched_dump_vcpu(v, now);
}
