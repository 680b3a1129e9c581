/* vProfile recorder (seed 001 §2): the hooks the scheduler core and the exit
 * dispatcher call, and a VM's configuration. Hot paths take only the VM lock
 * and the pCPU's ring lock and never allocate. The global state is record.c,
 * its setup setup.c, per-VM start/stop profile.c, the read-only views
 * stats.c. */
#include "trace/internal.h"
#include "errno.h"
#include "log.h"

int vprof_vm_config(uint16_t vm, uint16_t nvcpus, bool may_dedicate)
{
	struct vp_vm *v = vp_vm_get(vm);

	if (!v || nvcpus == 0 || nvcpus > VPROF_MAX_VCPUS)
		return trace_error(-EINVAL);
	spin_lock(&v->lock);
	v->configured = true;
	v->nvcpus = MAX(v->nvcpus, nvcpus);
	v->may_dedicate = may_dedicate;
	spin_unlock(&v->lock);
	return 0;
}

void vprof_state(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_state to, stime_t now)
{
	struct vp_acct *a = vp_acct_get(vm, vcpu);
	struct vp_vm *v = vp_vm_get(vm);

	if (!a || (unsigned)to >= VP_NSTATES) {
		vp_bad_id();
		return;
	}
	spin_lock(&v->lock);
	vp_acct_state(a, to, v->on, now);
	a->s.last_pcpu = (uint16_t)pcpu;
	if (vcpu >= v->nvcpus)
		v->nvcpus = (uint16_t)(vcpu + 1);
	if (v->on)
		vp_record(pcpu, vm, vcpu, VPR_STATE, (uint8_t)to, 0, now);
	spin_unlock(&v->lock);
}

/* pCPU idle time (seed 001 Table 1 IDLE), kept per ring since its reset. */
static void vprof_idle(unsigned pcpu, bool begin, stime_t now)
{
	struct vp_ring *r;

	if (pcpu >= vp_g.npcpus) {
		vp_bad_id();
		return;
	}
	r = &vp_g.ring[pcpu];
	spin_lock(&r->lock);
	if (!begin && r->idle && now > r->idle_since)
		r->idle_ns += (uint64_t)(now - r->idle_since);
	r->idle = begin;
	r->idle_since = now;
	spin_unlock(&r->lock);
	if (READ_ONCE(vp_g.nactive))
		vp_record(pcpu, VPROF_VM_NONE, VPROF_VM_NONE, VPR_EVENT,
			  begin ? VPE_IDLE_BEGIN : VPE_IDLE_END, 0, now);
}

void vprof_event(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_event ev, stime_t now,
		 uint64_t arg)
{
	struct vp_acct *a = vp_acct_get(vm, vcpu);
	struct vp_vm *v = vp_vm_get(vm);

	if (ev == VPE_IDLE_BEGIN || ev == VPE_IDLE_END) {
		vprof_idle(pcpu, ev == VPE_IDLE_BEGIN, now);
		return;
	}
	/* pCPU-level events (e.g. a co-scheduling signal): timeline only. */
	if (vm == VPROF_VM_NONE && (int)ev > 0 && (int)ev < VPE_NEVENTS) {
		if (READ_ONCE(vp_g.nactive))
			vp_record(pcpu, vm, VPROF_VM_NONE, VPR_EVENT, (uint8_t)ev, arg, now);
		return;
	}
	if (!a || (int)ev <= 0 || (int)ev >= VPE_NEVENTS) {
		vp_bad_id();
		return;
	}
	spin_lock(&v->lock);
	vp_acct_event(a, ev, arg, v->on, now);
	if (v->on)
		vp_record(pcpu, vm, vcpu, VPR_EVENT, (uint8_t)ev, arg, now);
	if (ev == VPE_PLE)
		vp_spin_ple(pcpu, vm, vcpu, a, v->on, now);
	spin_unlock(&v->lock);
}

void vprof_exit(unsigned pcpu, uint16_t vm, uint16_t vcpu, uint32_t reason, stime_t now)
{
	struct vp_acct *a = vp_acct_get(vm, vcpu);
	struct vp_vm *v = vp_vm_get(vm);

	if (!a) {
		vp_bad_id();
		return;
	}
	spin_lock(&v->lock);
	if (v->on) {
		if (reason < VPROF_EXIT_REASONS)
			a->s.exits[reason]++;
		else
			a->s.exits_other++;
		if (READ_ONCE(vp_g.exit_trace)) {
			a->s.events[VPE_VMEXIT]++;
			vp_record(pcpu, vm, vcpu, VPR_EVENT, VPE_VMEXIT, reason, now);
		}
	}
	spin_unlock(&v->lock);
}

/* Seed 001 §2.2: counters missing from any sample stay absent in the total. */
static void vprof_pmu_fold(unsigned pcpu, uint16_t vm, uint16_t vcpu, struct vp_acct *a,
			   const struct vprof_pmu_sample *s, stime_t now)
{
	a->s.pmu_present = a->s.pmu_samples ? (a->s.pmu_present & s->present) : s->present;
	a->s.pmu_samples++;
	for (unsigned c = 0; c < VPMU_NCOUNTERS; c++) {
		if (!(s->present & BIT(c)))
			continue;
		a->s.pmu[c] += s->delta[c];
		vp_record(pcpu, vm, vcpu, VPR_PMU, (uint8_t)c, s->delta[c], now);
	}
	vp_spin_pmu(pcpu, vm, vcpu, a, s, now);
}

void vprof_pmu_add(unsigned pcpu, uint16_t vm, uint16_t vcpu,
		   const struct vprof_pmu_sample *s, stime_t now)
{
	struct vp_acct *a = vp_acct_get(vm, vcpu);
	struct vp_vm *v = vp_vm_get(vm);

	if (!a || !s) {
		vp_bad_id();
		return;
	}
	spin_lock(&v->lock);
	if (v->on)
		vprof_pmu_fold(pcpu, vm, vcpu, a, s, now);
	spin_unlock(&v->lock);
}
