/* The paravirtual ABI v1 (docs/pv-abi.md, /tmp contract "PVABI") as the
 * simulated guest sees it: the per-vCPU shared page, the upcall vector and
 * the three hypercalls the guest model makes (SA register, SA ack, balloon
 * sleep). Every call from tools/sim's guest model into hv/sched for the SA
 * upcall (seed 000 Alg. 1-2) and the CPU balloon (seed 004 §4.3) goes
 * through this file, so a change of hv/sched's entry points is one edit
 * here and nowhere else. */
#include <stdlib.h>
#include "sim.h"
#include "log.h"
#include "errno.h"
#include "abi.h"

#define ESTALE_RC (-116)   /* -ESTALE, the contract's stale-ack result */

static struct sim_vcpu *sim_v(struct sched_vcpu *sv)
{
	return container_of(sv, struct sim_vcpu, sv);
}

/* platform.h shared_page: every simulated vCPU has registered its page. */
struct sched_shared_page *pv_shared_page(void *ctx, struct sched_vcpu *sv)
{
	return &sim_v(sv)->shp;
}

/* platform.h inject: the vector becomes pending in the vCPU's virtual LAPIC.
 * Called with runqueue locks held, so the guest takes it from an event at
 * the same instant (EV_IRQ -> guest_irq), never synchronously. */
void pv_inject(void *ctx, struct sched_vcpu *sv, uint8_t vector)
{
	struct sim *s = ctx;
	struct sim_vcpu *v = sim_v(sv);

	if (vector != SIM_UPCALL_VECTOR)
		return;
	if (!v->irq_pending) {
		struct sched_vcpu_stats st;

		sched_vcpu_stats(&v->sv, s->now, &st);
		v->sa_inj_run = st.time[SCHED_RUNNING];
	}
	v->irq_pending = true;
	simq_push(&s->q, s->now, EV_IRQ, v->idx, 0);
}

/* platform.h irq_pending: an injected vector the guest has not taken yet
 * (cancel-if-pending of the balloon sleep, the SA block ack). */
bool pv_irq_pending(void *ctx, struct sched_vcpu *sv)
{
	return READ_ONCE(sim_v(sv)->irq_pending);
}

/* HC_SCHED_SHARED_PAGE + HC_SCHED_SA_REGISTER at guest boot (Linux's
 * kvm_guest_init allocates HYPERVISOR_CALLBACK_VECTOR): VMs whose guest runs
 * the IRS receiver or the balloon. */
void pv_register(struct sim *s, struct sim_vcpu *v)
{
	struct sim_vm *vm = &s->vm[v->vm];

	if (!vm->irs && !vm->balloon)
		return;
	sched_shared_page_init(&v->sv, s->now);
	/* Only the balloon subscribes to mode-change upcalls (docs/pv-abi.md). */
	sched_sa_register(&v->sv, SIM_UPCALL_VECTOR | (vm->balloon ? HV_SA_REG_BALLOON : 0));
}

/* The receiver's xchg(&reasons, 0). */
uint32_t pv_take_reasons(struct sim_vcpu *v)
{
	return __atomic_exchange_n(&v->shp.reasons, 0, __ATOMIC_SEQ_CST);
}

uint32_t pv_sa_seq(const struct sim_vcpu *v)
{
	return READ_ONCE(v->shp.sa_seq);
}

/*
 * HC_SCHED_SA_ACK op, seq (seed 000 Alg. 1 line 15) and the deschedule the
 * ack stands for: yield leaves v RUNNABLE; block makes it BLOCKED as HLT
 * would when no interrupt is pending (hv/sched returns 1: the platform, here
 * the guest model, performs the HLT). Returns 0, or -ESTALE when the upcall
 * is no longer pending (the guest then carries on as if never notified).
 * The caller reschedules.
 */
int pv_sa_ack(struct sim *s, struct sim_vcpu *v, int op, uint32_t seq)
{
	int rc = sched_sa_ack(&v->sv, (unsigned)op, seq, s->now);

	if (rc < 0)
		return rc;
	if (rc == 1)
		sched_block(&v->sv, s->now);
	return 0;
}

/*
 * HC_SCHED_SLEEP (seed 004 §5): 1 at once if an interrupt is pending for v
 * (cancel-if-pending), else v sleeps OFFLINE until an interrupt for it or
 * `timeout` ns (0 = none) and 0 is returned. The caller reschedules.
 */
int pv_sleep(struct sim *s, struct sim_vcpu *v, stime_t timeout)
{
	return sched_sleep(&v->sv, timeout, s->now);
}

/* vcpu_is_preempted() / steal time as the guest reads them. */
bool pv_preempted(const struct sim_vcpu *v)
{
	return READ_ONCE(v->shp.preempted) != 0;
}

/* The page's sa_pending: an SA upcall awaits this vCPU's ack, i.e. the
 * hypervisor is about to preempt it (the migrator's "about to be preempted"). */
bool pv_sa_pending(const struct sim_vcpu *v)
{
	return READ_ONCE(v->shp.sa_pending) != 0;
}

uint32_t pv_balloon_mode(const struct sim_vcpu *v)
{
	return READ_ONCE(v->shp.balloon_mode);
}

/* The page's balloon_guard (sched_balloon_guard): NWC and short of budget. */
bool pv_balloon_guard(const struct sim_vcpu *v)
{
	return READ_ONCE(v->shp.balloon_guard) != 0;
}
