/* hv/vm's side of the exit path (issue 11; vm/exit_route.h): the hooks
 * hv/vmx calls, registered const (vmx_vm_ops), their boot check, and the
 * slow dispatch of malformed exit reasons. The exit table is
 * vm/exit_table.c. */
#include "vm/exit_route.h"
#include "vm/vm.h"
#include "vmx/entry.h"
#include "vm/kvm_pv_vcpu.h"
#include "vm_status.h"
#include "log.h"
#include "arch/x86/extable.h"

static void route_stop(struct vmx_vcpu *vx, int status, const char *why)
{
	vm_stop(vcpu_of(vx)->vm, status, why);
}

static bool route_vm_dead(const struct vmx_vm *x)
{
	return READ_ONCE(container_of(x, struct vm, vmx)->state) == VM_DEAD;
}

VMX_VM_OPS_REGISTER = {
	.exit = vcpu_exit_handle,
	.stop = route_stop,
	.vid_gate_reenter = vcpu_vid_gate_reenter,
	.hlt_deliver_reenter = vcpu_hlt_deliver_reenter,
	.kvm_msr = kvm_pv_msr,
	.vm_dead = route_vm_dead,
};

/* Boot self-check: one vmx_vm_ops; it and the exit table are read-only
 * (memory.c maps the image's read-only data so: a write faults). The probe
 * is checked against a writable word first, so a probe that cannot tell
 * fails too. */
void vm_exit_routes_check(void)
{
	static uint8_t writable;
	bool probe_ok = !write_faults(&writable);

	if (__stop_hv_vmx_vm_ops - __start_hv_vmx_vm_ops != 1)
		panic("vmx_vm_ops: %ld registered, want 1", (long)(__stop_hv_vmx_vm_ops -
								  __start_hv_vmx_vm_ops));
	if (!probe_ok || !write_faults((volatile uint8_t *)&exit_handlers[EXIT_REASON_IO]) ||
	    !write_faults((volatile uint8_t *)&vmx_vm_ops.exit))
		panic("exit table or vmx_vm_ops writable after init (write probe %s)",
		      probe_ok ? "ok" : "broken");
	pr_info("vm: exit table and vmx_vm_ops read-only (a write faults): ok\n");
}

enum exit_action exit_dispatch_slow(struct vcpu *v, uint32_t raw)
{
	struct exit_info x = { .reason = raw & 0xffff };

	v->exits_total++;
	if (unlikely(READ_ONCE(*v->vprof_on)))
		vprof_plat_exit(v, x.reason);
	x.qual = vmx_exit_qual();
	if (x.reason >= EXIT_REASON_MAX)
		return exit_fail(&v->vmx, &x, "exit reason out of range");
	v->exits[x.reason]++;
	if (raw & EXIT_REASON_FAILED_ENTRY)
		return exit_fail(&v->vmx, &x, "VM entry failed");
	x.insn_len = vmx_exit_insn_len();
	return exit_handlers[x.reason](&v->vmx, &x);
}
