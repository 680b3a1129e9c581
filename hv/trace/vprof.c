/* vProfile recorder (seed 001 §2): the hooks the scheduler core and the exit
 * dispatcher call, per-VM start/stop and the read-only views. Hot paths take
 * only the VM lock and the pCPU's ring lock and never allocate. */
#include "trace/internal.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

struct vp_global vp_g;

static void vp_bad_id(void)
{
	__atomic_fetch_add(&vp_g.bad_ids, 1, __ATOMIC_RELAXED);
}

struct vp_vm *vp_vm_get(uint16_t vm)
{
	return vm < VPROF_MAX_VMS ? &vp_g.vm[vm] : NULL;
}

struct vp_acct *vp_acct_get(uint16_t vm, uint16_t vcpu)
{
	if (vm >= VPROF_MAX_VMS || vcpu >= VPROF_MAX_VCPUS)
		return NULL;
	return &vp_g.vm[vm].vcpu[vcpu];
}

void vp_record(unsigned pcpu, uint16_t vm, uint16_t vcpu, uint8_t kind, uint8_t code,
	       uint64_t arg, stime_t now)
{
	struct vp_rec r = { .t = now, .arg = arg, .vm = vm, .vcpu = vcpu,
			    .kind = kind, .code = code, .pcpu = (uint16_t)pcpu };

	if (pcpu >= vp_g.npcpus) {
		vp_bad_id();
		return;
	}
	vp_ring_put(&vp_g.ring[pcpu], &r);
}

size_t vprof_mem_size(unsigned npcpus, size_t recs_per_pcpu)
{
	return (size_t)npcpus * recs_per_pcpu * sizeof(struct vp_rec);
}

int vprof_init(unsigned npcpus, void *mem, size_t len)
{
	size_t per;

	if (npcpus == 0 || npcpus > VPROF_MAX_PCPUS || !mem || !IS_ALIGNED((uintptr_t)mem, 8))
		return trace_error(-EINVAL);
	per = len / npcpus / sizeof(struct vp_rec);
	if (per == 0)
		return trace_error(-EINVAL);
	if (per > UINT32_MAX)
		per = UINT32_MAX;
	memset(&vp_g, 0, sizeof(vp_g));
	vp_ded_reset();
	vp_spin_reset();
	vp_g.npcpus = npcpus;
	for (unsigned v = 0; v < VPROF_MAX_VMS; v++)
		for (unsigned c = 0; c < VPROF_MAX_VCPUS; c++)
			vp_g.vm[v].vcpu[c].s.state = VP_OFFLINE;   /* until the core says */
	for (unsigned i = 0; i < npcpus; i++)
		vp_ring_init(&vp_g.ring[i], (struct vp_rec *)mem + i * per, (uint32_t)per);
	return 0;
}

void vprof_set_sink(vprof_sink_t sink, void *ctx)
{
	vp_g.sink_ctx = ctx;
	vp_g.sink = sink;
}

void vprof_set_exit_trace(bool on)
{
	WRITE_ONCE(vp_g.exit_trace, on);
}

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

uint64_t vprof_bad_ids(void)
{
	return __atomic_load_n(&vp_g.bad_ids, __ATOMIC_RELAXED);
}
