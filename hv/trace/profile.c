/* Per-VM profile windows (seed 001 §2: vprofile_start / vprofile_stop).
 * Start and stop are serialised by dump_lock because a stop writes the dump.
 * The read-only statistics views are in stats.c. */
#include "trace/internal.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

/* Start a fresh trace when no other profile is using the rings. */
static void profile_rings_reset(stime_t now)
{
	for (unsigned i = 0; i < vp_g.npcpus; i++)
		vp_ring_reset(&vp_g.ring[i], now);
}

/* Snapshot of every vCPU's current state so the timeline has a start. */
static void profile_snapshot(struct vp_vm *v, uint16_t vm, stime_t now)
{
	for (uint16_t i = 0; i < v->nvcpus; i++) {
		struct vp_acct *a = &v->vcpu[i];

		vp_acct_reset(a, now);
		if (a->s.last_pcpu < vp_g.npcpus)
			vp_record(a->s.last_pcpu, vm, i, VPR_STATE, a->s.state, 1, now);
	}
}

static int profile_start_locked(unsigned pcpu, uint16_t vm, struct vp_vm *v, stime_t now)
{
	if (v->on)
		return -EBUSY;
	if (READ_ONCE(vp_g.nactive) == 0)
		profile_rings_reset(now);
	v->on = true;
	v->t_start = now;
	v->t_stop = now;
	v->ded_ns = v->frozen_ns = 0;
	v->ded_open = false;
	profile_snapshot(v, vm, now);
	vp_ded_attach(v, vm, now);
	vp_record(pcpu, vm, 0, VPR_EVENT, VPE_PROFILE_START, 0, now);
	v->vcpu[0].s.events[VPE_PROFILE_START]++;
	__atomic_fetch_add(&vp_g.nactive, 1, __ATOMIC_RELAXED);
	return 0;
}

int vprof_vm_start(unsigned pcpu, uint16_t vm, stime_t now)
{
	struct vp_vm *v = vp_vm_get(vm);
	int ret;

	if (!v)
		return trace_error(-EINVAL);
	spin_lock(&vp_g.dump_lock);
	spin_lock(&v->lock);
	ret = profile_start_locked(pcpu, vm, v, now);
	spin_unlock(&v->lock);
	spin_unlock(&vp_g.dump_lock);
	return ret;
}

static int profile_stop_locked(unsigned pcpu, uint16_t vm, struct vp_vm *v, stime_t now)
{
	if (!v->on)
		return -EINVAL;
	vp_record(pcpu, vm, 0, VPR_EVENT, VPE_PROFILE_STOP, 0, now);
	v->vcpu[0].s.events[VPE_PROFILE_STOP]++;
	for (uint16_t i = 0; i < v->nvcpus; i++)
		vp_acct_close(&v->vcpu[i], now);
	vp_ded_detach(v, now);
	v->on = false;
	v->t_stop = now;
	__atomic_fetch_sub(&vp_g.nactive, 1, __ATOMIC_RELAXED);
	return 0;
}

int vprof_vm_stop(unsigned pcpu, uint16_t vm, stime_t now, enum vp_dump_reason why)
{
	struct vp_vm *v = vp_vm_get(vm);
	int ret;

	if (!v)
		return trace_error(-EINVAL);
	spin_lock(&vp_g.dump_lock);
	spin_lock(&v->lock);
	ret = profile_stop_locked(pcpu, vm, v, now);
	spin_unlock(&v->lock);
	if (ret == 0 && vp_dump_vm(vm, why, now) < 0)
		pr_warn("vprof: vm %u stopped but not dumped\n", vm);
	spin_unlock(&vp_g.dump_lock);
	return ret;
}

bool vprof_vm_profiling(uint16_t vm)
{
	struct vp_vm *v = vp_vm_get(vm);

	return v && READ_ONCE(v->on);
}

const volatile bool *vprof_vm_profiling_flag(uint16_t vm)
{
	struct vp_vm *v = vp_vm_get(vm);

	return v ? &v->on : NULL;
}

void vprof_shutdown(unsigned pcpu, stime_t now)
{
	for (uint16_t vm = 0; vm < VPROF_MAX_VMS; vm++)
		if (vprof_vm_profiling(vm))
			vprof_vm_stop(pcpu, vm, now, VPD_SHUTDOWN);
}

int vprof_dump_all(enum vp_dump_reason why, stime_t now)
{
	int n = 0;

	spin_lock(&vp_g.dump_lock);
	for (uint16_t vm = 0; vm < VPROF_MAX_VMS; vm++)
		if (vprof_vm_profiling(vm) && vp_dump_vm(vm, why, now) >= 0)
			n++;
	spin_unlock(&vp_g.dump_lock);
	return n;
}

void vprof_vm_end(unsigned pcpu, uint16_t vm, stime_t now)
{
	vp_ded_vm_end(pcpu, vm, now);
	if (vprof_vm_profiling(vm))
		vprof_vm_stop(pcpu, vm, now, VPD_VM_END);
}
