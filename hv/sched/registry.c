/* Policy registry (linker section hv_sched, as Xen's REGISTER_SCHEDULER),
 * mandatory-op checks, the platform pointer and the vProfile glue. */
#include "sched/policy.h"
#include "log.h"
#include "errno.h"
#include "lib/string.h"
#include "abi.h"

HV_SECTION_BOUNDS(const struct sched_policy, sched);

static const struct sched_platform *sched_plat;

void sched_platform_set(const struct sched_platform *plat)
{
	sched_plat = plat;
}

const struct sched_platform *sched_platform_get(void)
{
	return sched_plat;
}

const struct sched_policy *sched_policy_find(const char *name)
{
	const struct sched_policy *p;

	if (!name || !__start_hv_sched)
		return NULL;
	for (p = __start_hv_sched; p < __stop_hv_sched; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

void sched_policy_list(void)
{
	const struct sched_policy *p;

	if (!__start_hv_sched)
		return;
	for (p = __start_hv_sched; p < __stop_hv_sched; p++)
		pr_info("sched: available policy '%s': %s\n", p->name, p->desc ? p->desc : "");
}

/* Mandatory ops present and private data fits the embedded areas. */
int sched_policy_check(const struct sched_policy *o)
{
	if (!o->name || !o->init || !o->vcpu_insert || !o->vcpu_remove || !o->wake ||
	    !o->sleep || !o->pick) {
		pr_err("sched: policy '%s' lacks a mandatory op\n", o->name ? o->name : "?");
		return trace_error(-EINVAL);
	}
	if (o->vcpu_priv > sizeof(((struct sched_vcpu *)0)->priv) ||
	    o->vm_priv > sizeof(((struct sched_vm *)0)->priv) ||
	    o->pcpu_priv > sizeof(((struct sched_pcpu *)0)->priv)) {
		pr_err("sched: policy '%s' private data too large\n", o->name);
		return trace_error(-E2BIG);
	}
	return 0;
}

/* hv/trace may not be linked (image without vProfile): weak references. */
#pragma weak vprof_state
#pragma weak vprof_event

void sched_trace_state(struct sched_pcpu *p, struct sched_vcpu *v, stime_t now)
{
	if (vprof_state)
		vprof_state(p ? p->id : v->pcpu, v->vm->id, v->id, (enum vp_state)v->state, now);
}

void sched_trace_event(unsigned cpu, struct sched_vcpu *v, enum vp_event ev, stime_t now,
		       uint64_t arg)
{
	if (vprof_event)
		vprof_event(cpu, v ? v->vm->id : 0, v ? v->id : 0, ev, now, arg);
}

struct sched_shared_page *sched_vcpu_shared(struct sched_vcpu *v)
{
	return sched_plat && sched_plat->shared_page ?
		sched_plat->shared_page(sched_plat->ctx, v) : NULL;
}

/* Seqcount around hypervisor writes to the shared page (docs/pv-abi.md:
 * `version` is odd while the page is being updated). */
void sched_shared_begin(struct sched_shared_page *sp)
{
	WRITE_ONCE(sp->version, sp->version + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void sched_shared_end(struct sched_shared_page *sp)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	WRITE_ONCE(sp->version, sp->version + 1);
}

/* A page was (re)registered: write every hypervisor-owned field of ABI v1
 * (docs/pv-abi.md). `reasons` belongs to the guest between upcalls and is
 * left alone. Takes v's runqueue lock. */
void sched_shared_page_init(struct sched_vcpu *v, stime_t now)
{
	struct sched_pcpu *p = sched_vcpu_lock(v);
	struct sched_shared_page *sp = sched_vcpu_shared(v);

	if (sp) {
		sched_shared_begin(sp);
		sp->version |= 1;   /* a fresh page may start even */
		sp->preempted = v->state == SCHED_RUNNABLE && (v->flags & SCHED_VF_PREEMPTED);
		sp->balloon_mode = v->vm->balloon_mode;
		sp->sa_pending = !!(v->flags & SCHED_VF_SA_PEND);
		sp->steal_ns = (uint64_t)v->st.time[SCHED_RUNNABLE];
		sp->credit_left_ns = v->vm->credit_left;
		sp->sa_seq = v->sa_seq;
		sp->abi_version = HV_PV_ABI_VERSION;
		sp->sa_grace_us = (uint32_t)(sched_opts.sa_limit / 1000);
		sp->balloon_guard = v->vm->balloon_guard;
		sp->reserved0 = 0;
		sp->reserved[0] = 0;
		sched_shared_end(sp);
	}
	sched_vcpu_unlock(p);
}

bool sched_vcpu_irq_pending(struct sched_vcpu *v)
{
	return sched_plat && sched_plat->irq_pending && sched_plat->irq_pending(sched_plat->ctx, v);
}

void sched_vcpu_inject(struct sched_vcpu *v, uint8_t vector)
{
	if (sched_plat && sched_plat->inject)
		sched_plat->inject(sched_plat->ctx, v, vector);
}
