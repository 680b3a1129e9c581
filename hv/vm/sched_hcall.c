/* Scheduler hypercalls (hv/abi.h HC_SCHED_*): the guest's side of the
 * framework. Yield and block take effect when the exit returns to the run
 * loop (the core has set need_resched / the vCPU is marked halted). */
#include "hypercall.h"
#include "abi.h"
#include "vm/vm.h"
#include "vm/gmem.h"
#include "sched/sched.h"
#include "arch/x86/time.h"
#include "errno.h"
#include "lib/string.h"

static int64_t hc_yield(struct vcpu *v, uint64_t target, uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct sched_vcpu *t = NULL;

	/* -1 means "anyone"; a 32-bit guest's -1 arrives zero-extended. */
	if (target != (uint64_t)-1 && target != 0xffffffffull) {
		if (target >= v->vm->nr_vcpus)
			return -EINVAL;
		t = &v->vm->vcpu[target]->sv;
	}
	sched_vcpu_yield(&v->sv, t, SCHED_YIELD_HYPERCALL, time_now());
	return 0;
}
HCALL_REGISTER(HC_SCHED_YIELD, hc_yield);

/* Block until an interrupt, like HLT but independent of RFLAGS.IF.
 * kicked refuses vcpu_exit_vmcall()'s fast re-entry, so vcpu_run()'s loop
 * sees the halt at this VMCALL. Without it the guest went straight back in
 * and ran on "halted"; its next slow exit blocked it at whatever instruction
 * it had reached by then, typically after it had disarmed the LAPIC timer
 * that was to end the block, so nothing woke it (issue 17). */
static int64_t hc_block(struct vcpu *v, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	v->halt_if = true;   /* any interrupt ends the block */
	WRITE_ONCE(v->halted, true);
	WRITE_ONCE(v->kicked, true);
	return 0;
}
HCALL_REGISTER(HC_SCHED_BLOCK, hc_block);

/* Register v's shared page (PV ABI v1, docs/pv-abi.md): 64-byte aligned,
 * inside guest RAM; the scheduler then writes its fields. */
static int64_t set_shared_page(struct vcpu *v, uint64_t gpa)
{
	if (gpa & 63 || !gpa_to_hva(v->vm, gpa, sizeof(struct sched_shared_page)))
		return -EINVAL;
	v->shared_gpa = gpa;
	sched_shared_page_init(&v->sv, time_now());
	return 0;
}

/* Seed 000 Alg. 1: the guest names the vector of its upcall handler (32..255;
 * 0 disables) and the page where the hypervisor says an upcall is pending
 * (gpa 0 keeps the page already registered). Bits above the vector are
 * HV_SA_REG_* flags (HV_SA_REG_BALLOON: mode upcalls too, seed 004 §5). */
static int64_t hc_sa_register(struct vcpu *v, uint64_t reg, uint64_t gpa, uint64_t a2,
			      uint64_t a3)
{
	uint64_t vector = reg & HV_SA_REG_VECTOR, flags = reg & ~(uint64_t)HV_SA_REG_VECTOR;
	int64_t r;

	if ((vector && vector < 32) || (flags & ~(uint64_t)HV_SA_REG_BALLOON) || (flags && !vector))
		return -EINVAL;
	if (gpa && (r = set_shared_page(v, gpa)))
		return r;
	return sched_sa_register(&v->sv, (uint32_t)reg);
}
HCALL_REGISTER(HC_SCHED_SA_REGISTER, hc_sa_register);

/* PV ABI v1 (docs/pv-abi.md): rbx = HV_SA_ACK_YIELD / HV_SA_ACK_BLOCK, rcx =
 * the sa_seq answered. The scheduler checks the seq and performs a yield; an
 * accepted block with nothing pending blocks here exactly as HC_SCHED_BLOCK. */
static int64_t hc_sa_ack(struct vcpu *v, uint64_t op, uint64_t seq, uint64_t a2, uint64_t a3)
{
	int r;

	if (op > HV_SA_ACK_BLOCK)
		return -EINVAL;
	r = sched_sa_ack(&v->sv, (unsigned)op, (uint32_t)seq, time_now());
	if (r == 1)
		return hc_block(v, 0, 0, 0, 0);
	if (r == 0)
		WRITE_ONCE(v->kicked, true);   /* leave the fast path: the yield is due */
	return r;
}
HCALL_REGISTER(HC_SCHED_SA_ACK, hc_sa_ack);

/* Seed 004's SCHEDOP_sleep: the balloon takes the vCPU offline until an
 * interrupt arrives for it or rbx ns pass (0 = no timeout); returns 1 at once
 * if an interrupt is already pending (cancel-if-pending). Kernel only (not in
 * HC_IS_CPL3_OK). */
static int64_t hc_sleep(struct vcpu *v, uint64_t timeout, uint64_t a1, uint64_t a2, uint64_t a3)
{
	int r = sched_sleep(&v->sv, timeout > (uint64_t)INT64_MAX ? 0 : (stime_t)timeout, time_now());

	if (r == 0)
		WRITE_ONCE(v->kicked, true);   /* no fast re-entry: it sleeps now */
	return r;
}
HCALL_REGISTER(HC_SCHED_SLEEP, hc_sleep);

static int64_t hc_shared_page(struct vcpu *v, uint64_t gpa, uint64_t a1, uint64_t a2, uint64_t a3)
{
	return set_shared_page(v, gpa);
}
HCALL_REGISTER(HC_SCHED_SHARED_PAGE, hc_shared_page);

static struct vm *vm_by_id(uint64_t id)
{
	for (unsigned i = 0; i < nr_vms; i++)
		if (vms[i]->id == id)
			return vms[i];
	return NULL;
}

/* Privileged (module string priv=on): read or change another VM's
 * scheduling parameters at run time. */
static int64_t hc_get_param(struct vcpu *v, uint64_t vmid, uint64_t which, uint64_t a2,
			    uint64_t a3)
{
	struct vm *vm = vm_by_id(vmid);
	uint64_t val;
	int r;

	if (!v->vm->p.priv)
		return -EPERM;
	if (!vm || which >= SCHED_PARAM_NPARAMS)
		return -EINVAL;
	r = sched_vm_param_get(&vm->sv, (enum sched_param)which, &val);
	return r ? r : (int64_t)val;
}
HCALL_REGISTER(HC_SCHED_GET_PARAM, hc_get_param);

static int64_t hc_set_param(struct vcpu *v, uint64_t vmid, uint64_t which, uint64_t val,
			    uint64_t a3)
{
	struct vm *vm = vm_by_id(vmid);

	if (!v->vm->p.priv)
		return -EPERM;
	if (!vm || which >= SCHED_PARAM_NPARAMS)
		return -EINVAL;
	return sched_vm_param_set(&vm->sv, (enum sched_param)which, val);
}
HCALL_REGISTER(HC_SCHED_SET_PARAM, hc_set_param);

/* Run-time policy switch of the whole host (hv/sched/switch.c): privileged
 * (module string priv=on), like the parameter calls; CPL3 allowed so the
 * control VM's tools (hvctl) can use it. rbx/rcx: the request string. */
static int64_t hc_switch(struct vcpu *v, uint64_t gva, uint64_t len, uint64_t a2, uint64_t a3)
{
	char buf[256], *opts;

	if (!v->vm->p.priv)
		return -EPERM;
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	/* One copy; the guest may change its string meanwhile. */
	if (guest_read_linear(v, gva, buf, len))
		return -EFAULT;
	buf[len] = '\0';
	buf[strnlen(buf, len)] = '\0';
	for (opts = buf; *opts && *opts != ' '; opts++)
		;
	if (*opts)
		*opts++ = '\0';
	return sched_policy_switch(buf, opts, time_now());
}
HCALL_REGISTER(HC_SCHED_SWITCH, hc_switch);

/* Any VM: which policy runs (rbx = -1), or the name of policy rbx. */
static int64_t hc_policy(struct vcpu *v, uint64_t which, uint64_t a1, uint64_t a2, uint64_t a3)
{
	const char *name;
	uint64_t packed = 0;
	size_t n;

	if (which == (uint64_t)-1 || which == 0xffffffffull) {
		int i = sched_policy_index(sched_policy_name());

		return (i < 0 ? 0xff : i) | (sched_policy_switching() ? HC_SCHED_POLICY_SWITCHING : 0) |
		       (int64_t)((sched_policy_switches() & 0xffffffffull) << 16);
	}
	if ((which & ~0xffffull) == HC_SCHED_POLICY_VM) {
		/* One VM's policy (hv/sched/vmpolicy.c). */
		struct sched_vm *vm = sched_vm_find((unsigned)(which & 0xffff));
		int i;

		if (!vm)
			return -ENOENT;
		i = sched_policy_index(sched_vm_policy_name(vm));
		return (i < 0 ? 0xff : i) |
		       (vm->pol.idx1 || vm->pol.dp || vm->pol.ds ? HC_SCHED_POLICY_OWN : 0) |
		       (int64_t)((vm->pol.nmove & 0xffffffffull) << 16);
	}
	if (which > 255 || !(name = sched_policy_by_index((unsigned)which)))
		return -ENOENT;
	n = strlen(name);
	if (n > 7)
		return -E2BIG;
	for (size_t i = 0; i < n; i++)
		packed |= (uint64_t)(uint8_t)name[i] << (8 * i);
	return (int64_t)packed;
}
HCALL_REGISTER(HC_SCHED_POLICY, hc_policy);
