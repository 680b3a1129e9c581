/* vProfile dedicated mode (seed 001 §2.3): while one VM owns the machine the
 * vCPUs of every other VM are frozen OFFLINE (off the run queues) and thawed
 * to their previous state afterwards; the period counts down in accounting
 * periods. hv/trace is optional, hence the weak references. */
#include "sched/policy.h"

#pragma weak vprof_set_dedicated_hook
#pragma weak vprof_dedicated_epoch

void sched_vcpu_set_state(struct sched_pcpu *p, struct sched_vcpu *v, enum sched_state to,
			  stime_t now);

/* Takes v's runqueue lock. RUNNING/RUNNABLE come back RUNNABLE, BLOCKED
 * comes back BLOCKED unless a wake arrived meanwhile (sched_wake notes it). */
static void sched_vcpu_freeze(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_vcpu_lock(v);

	if (v->state != SCHED_OFFLINE && !(v->flags & SCHED_VF_FROZEN)) {
		v->flags |= SCHED_VF_FROZEN;
		if (v->state != SCHED_BLOCKED) {
			v->flags |= SCHED_VF_THAW_RUN;
			if (!p->sw_quiesced)
				sched_sys.ops->sleep(v, now);
		}
		sched_vcpu_set_state(p, v, SCHED_OFFLINE, now);
		if (p->curr == v)
			sched_cpu_resched(p->id);
	}
	sched_vcpu_unlock(p);
}

static void sched_vcpu_thaw(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_vcpu_lock(v);
	bool run = v->flags & SCHED_VF_THAW_RUN;

	if (!(v->flags & SCHED_VF_FROZEN)) {
		sched_vcpu_unlock(p);
		return;
	}
	v->flags &= (uint8_t)~(SCHED_VF_FROZEN | SCHED_VF_THAW_RUN);
	if (!run) {
		sched_vcpu_set_state(p, v, SCHED_BLOCKED, now);
		sched_vcpu_unlock(p);
		return;
	}
	sched_vcpu_unlock(p);
	sched_vcpu_start(v, now);   /* OFFLINE -> RUNNABLE through the policy */
}

/* owner >= 0: freeze every other VM; owner < 0: thaw all. Takes vm_lock to
 * walk the lists, drops it around each vCPU (vCPU locks come first). */
void sched_dedicated_apply(int owner, stime_t now)
{
	struct sched_vm *vm;

	for (vm = READ_ONCE(sched_sys.vms); vm; vm = READ_ONCE(vm->next))
		for (struct sched_vcpu *v = READ_ONCE(vm->vcpus); v; v = READ_ONCE(v->vm_next)) {
			if (owner >= 0 && vm->id != owner)
				sched_vcpu_freeze(v, now);
			else if (owner < 0)
				sched_vcpu_thaw(v, now);
		}
}

static void sched_dedicated_hook(void *ctx, int owner, stime_t now)
{
	sched_dedicated_apply(owner, now);
}

void sched_dedicated_init(void)
{
	if (vprof_set_dedicated_hook)
		vprof_set_dedicated_hook(sched_dedicated_hook, NULL);
}

/* Master pCPU, once per accounting period, no lock held. */
void sched_dedicated_epoch(unsigned cpu, stime_t now)
{
	if (vprof_dedicated_epoch)
		vprof_dedicated_epoch(cpu, now);
}
