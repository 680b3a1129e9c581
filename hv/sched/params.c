/* Scheduler parameters: per-VM / per-vCPU parameters changed at run time.
 * (Global options: options.c and the SCHED_OPT_* registrations.) */
#include "sched/policy.h"
#include "log.h"
#include "errno.h"
#include "lib/string.h"

/* Privileged hypercall. Takes the policy's locks through vm_adjust. */
int sched_vm_param_set(struct sched_vm *vm, enum sched_param which, uint64_t val)
{
	struct sched_vm_params np = vm->params;

	switch (which) {
	case SCHED_PARAM_WEIGHT:
		if (!val || val > 65535)
			return trace_error(-EINVAL);
		np.weight = (uint32_t)val;
		break;
	case SCHED_PARAM_CAP:
		if (val > 100ULL * SCHED_MAX_PCPUS)
			return trace_error(-EINVAL);
		np.cap = (uint32_t)val;
		break;
	case SCHED_PARAM_TYPE:
		if (val > SCHED_TYPE_CON)
			return trace_error(-EINVAL);
		np.type = (uint8_t)val;
		break;
	case SCHED_PARAM_SA:
		np.sa = val != 0;
		break;
	default:
		return trace_error(-EINVAL);
	}
	if (READ_ONCE(sched_sys.switching))
		return -EBUSY;   /* run-time policy switch under way (switch.c) */
	vm->params = np;
	if (sched_sys.ops->vm_adjust)
		sched_sys.ops->vm_adjust(vm);
	return 0;
}

int sched_vm_param_get(const struct sched_vm *vm, enum sched_param which, uint64_t *val)
{
	switch (which) {
	case SCHED_PARAM_WEIGHT: *val = vm->params.weight; return 0;
	case SCHED_PARAM_CAP:    *val = vm->params.cap; return 0;
	case SCHED_PARAM_TYPE:   *val = vm->params.type; return 0;
	case SCHED_PARAM_SA:     *val = vm->params.sa; return 0;
	default:                 return trace_error(-EINVAL);
	}
}

/* Wider affinity: idle pCPUs newly allowed look for work (steal). */
static void sched_affinity_tickle(const struct cpumask *ok)
{
	unsigned c;

	for_each_cpu(c, ok)
		if (!READ_ONCE(sched_sys.pcpu[c]->curr))
			sched_cpu_resched(c);
}

/* Takes v's runqueue lock. A running or queued vCPU that loses its pCPU is
 * paused and restarted so the policy places it again. */
int sched_vcpu_affinity_set(struct sched_vcpu *v, const struct cpumask *m, stime_t now)
{
	struct cpumask ok;
	struct sched_pcpu *p;
	bool move;

	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		ok.w[i] = m->w[i] & sched_sys.online.w[i];
	if (cpumask_empty(&ok))
		return trace_error(-EINVAL);
	if (READ_ONCE(sched_sys.switching))
		return -EBUSY;
	p = sched_vcpu_lock(v);
	v->affinity = *m;
	if (v->state == SCHED_RUNNABLE)
		sched_affinity_tickle(&ok);
	move = !cpumask_test(m, v->pcpu);
	if (move && v->state == SCHED_RUNNING)
		sched_cpu_resched(v->pcpu);
	if (move && v->state == SCHED_RUNNABLE && p->curr != v) {
		sched_sys.ops->sleep(v, now);
		sched_vcpu_unlock(p);
		/* Re-place: unqueued RUNNABLE vCPUs are moved only by their owner. */
		p = sched_pcpu_get(cpumask_next_and(&ok, NULL, 0));
		sched_lock_pair(sched_pcpu_get(v->pcpu), p);
		{
			struct sched_pcpu *old = sched_pcpu_get(v->pcpu);
			sched_vcpu_migrate(v, p->id, now);
			sched_sys.ops->wake(v, now);
			sched_unlock_pair(old, p);
		}
		return 0;
	}
	sched_vcpu_unlock(p);
	return 0;
}
