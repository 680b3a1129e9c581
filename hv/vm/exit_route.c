/* hv/vm's side of the exit table (issue 11; vm/exit_route.h): the routes it
 * registers in hv/vmx, the hooks hv/vmx's handlers call, and the slow
 * dispatch of malformed exit reasons. */
#include "vm/exit_route.h"
#include "vm/vm.h"
#include "vmx/entry.h"
#include "vmx/kvm_pv.h"
#include "vm_status.h"

static void route_stop(struct vmx_vcpu *vx, int status, const char *why)
{
	vm_stop(vcpu_of(vx)->vm, status, why);
}

static bool route_vm_dead(const struct vmx_vm *x)
{
	return READ_ONCE(container_of(x, struct vm, vmx)->state) == VM_DEAD;
}

void vm_exit_routes_init(void)
{
	vmx_exit_route(EXIT_REASON_IO, exit_io);
	vmx_exit_route(EXIT_REASON_EPT_VIOLATION, exit_ept_violation);
	vmx_exit_route(EXIT_REASON_APIC_ACCESS, exit_apic_access);
	vmx_exit_route(EXIT_REASON_RDPMC, exit_rdpmc);   /* only with a host PMU in use */
	vmx_exit_route(EXIT_REASON_VMCALL, exit_vmcall);
	vmx_exit_route(EXIT_REASON_EOI_INDUCED, exit_eoi_induced);
	vmx_exit_route(EXIT_REASON_APIC_WRITE, exit_apic_write);
	vmx_vm_ops.stop = route_stop;
	vmx_vm_ops.vid_gate_reenter = vcpu_vid_gate_reenter;
	vmx_vm_ops.hlt_deliver_reenter = vcpu_hlt_deliver_reenter;
	vmx_vm_ops.kvm_msr = kvm_pv_msr;
	vmx_vm_ops.vm_dead = route_vm_dead;
	vmx_exit_handler = vcpu_exit_handle;
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
