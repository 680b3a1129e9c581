/* Dedicated mode (seed 001 §2.3): a permitted VM asks for the machine alone
 * for N scheduling epochs. This file keeps the bookkeeping; the scheduler core
 * asks vprof_vcpu_frozen() whom to keep off the run queues and
 * vprof_accounting_suspended() whether to skip credit debiting. ded.lock is a
 * leaf: no other vProfile lock is taken while it is held. */
#include "trace/internal.h"
#include "errno.h"

static struct {
	spinlock_t lock;
	int owner;            /* VM owning the period, or -1 */
	uint16_t vcpu;        /* vCPU that asked (events are charged to it) */
	uint32_t left;        /* epochs remaining */
} ded = { SPINLOCK_INIT, -1, 0, 0 };

static vprof_dedicated_hook_t ded_hook;
static void *ded_hook_ctx;

void vprof_set_dedicated_hook(vprof_dedicated_hook_t fn, void *ctx)
{
	ded_hook_ctx = ctx;
	ded_hook = fn;
}

static void ded_notify(int owner, stime_t now)
{
	if (ded_hook)
		ded_hook(ded_hook_ctx, owner, now);
}

void vp_ded_reset(void)
{
	ded.owner = -1;
	ded.left = 0;
	ded_hook = NULL;
}

/* VM lock held: a profile overlapping a period measures the overlap. */
void vp_ded_attach(struct vp_vm *v, uint16_t vm, stime_t now)
{
	int o = READ_ONCE(ded.owner);

	if (!v->on || o < 0 || v->ded_open)
		return;
	v->ded_open = true;
	v->ded_owner = (o == vm);
	v->ded_since = now;
}

void vp_ded_detach(struct vp_vm *v, stime_t now)
{
	uint64_t d;

	if (!v->ded_open)
		return;
	d = now > v->ded_since ? (uint64_t)(now - v->ded_since) : 0;
	if (v->ded_owner)
		v->ded_ns += d;
	else
		v->frozen_ns += d;
	v->ded_open = false;
}

/* Open or close the overlap on every profiled VM after a transition. */
static void ded_each_vm(bool begin, stime_t now)
{
	for (uint16_t vm = 0; vm < VPROF_MAX_VMS; vm++) {
		struct vp_vm *v = &vp_g.vm[vm];

		spin_lock(&v->lock);
		if (begin)
			vp_ded_attach(v, vm, now);
		else
			vp_ded_detach(v, now);
		spin_unlock(&v->lock);
	}
}

static void ded_finish(unsigned pcpu, uint16_t vm, uint16_t vcpu, stime_t now)
{
	ded_each_vm(false, now);
	vprof_event(pcpu, vm, vcpu, VPE_DEDICATED_END, now, 0);
	ded_notify(-1, now);
}

/* epochs == 0 ends the caller's own period early. */
static int ded_cancel(unsigned pcpu, uint16_t vm, stime_t now)
{
	uint16_t vcpu;

	spin_lock(&ded.lock);
	if (ded.owner != vm) {
		spin_unlock(&ded.lock);
		return ded.owner < 0 ? -EINVAL : -EPERM;
	}
	ded.owner = -1;
	vcpu = ded.vcpu;
	spin_unlock(&ded.lock);
	ded_finish(pcpu, vm, vcpu, now);
	return 0;
}

int vprof_dedicated_request(unsigned pcpu, uint16_t vm, uint16_t vcpu, uint32_t epochs,
			    stime_t now)
{
	struct vp_vm *v = vp_vm_get(vm);
	bool extend;

	if (!v || vcpu >= VPROF_MAX_VCPUS)
		return -EINVAL;
	if (!READ_ONCE(v->may_dedicate))
		return -EPERM;
	if (epochs == 0)
		return ded_cancel(pcpu, vm, now);
	if (epochs > VPROF_DEDICATED_MAX_EPOCHS)
		return -EINVAL;
	spin_lock(&ded.lock);
	if (ded.owner >= 0 && ded.owner != vm) {
		spin_unlock(&ded.lock);
		return -EBUSY;
	}
	extend = ded.owner == vm;   /* asking again restarts the count */
	ded.owner = vm;
	ded.vcpu = vcpu;
	ded.left = epochs;
	spin_unlock(&ded.lock);
	if (!extend) {
		ded_each_vm(true, now);
		vprof_event(pcpu, vm, vcpu, VPE_DEDICATED_BEGIN, now, epochs);
		ded_notify(vm, now);
	}
	return 0;
}

void vprof_dedicated_epoch(unsigned pcpu, stime_t now)
{
	int o;
	uint16_t vcpu;

	spin_lock(&ded.lock);
	o = ded.owner;
	vcpu = ded.vcpu;
	if (o >= 0 && --ded.left == 0)
		ded.owner = -1;
	else
		o = -1;
	spin_unlock(&ded.lock);
	if (o >= 0)
		ded_finish(pcpu, (uint16_t)o, vcpu, now);
}

void vp_ded_vm_end(unsigned pcpu, uint16_t vm, stime_t now)
{
	if (READ_ONCE(ded.owner) == vm)
		ded_cancel(pcpu, vm, now);
}

bool vprof_vcpu_frozen(uint16_t vm)
{
	int o = READ_ONCE(ded.owner);

	return o >= 0 && o != vm;
}

bool vprof_accounting_suspended(void)
{
	return READ_ONCE(ded.owner) >= 0;
}

int vprof_dedicated_owner(void)
{
	return READ_ONCE(ded.owner);
}
