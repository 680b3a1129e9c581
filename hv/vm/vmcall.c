/* The VMCALL exit: a hypercall (hypercall.c's table), which may reach the
 * scheduler, devices and VM stop, so a route of hv/vm (issue 11). */
#include "vm/exit_route.h"
#include "vm/vm.h"
#include "hypercall.h"

enum exit_action exit_vmcall(struct vmx_vcpu *vx, struct exit_info *x)
{
	struct vcpu *v = vcpu_of(vx);
	unsigned cpl = vmx_guest_cpl();

	v->vmx.regs.rax = (uint64_t)hcall_dispatch(v, cpl, v->vmx.regs.rax, v->vmx.regs.rbx,
						   v->vmx.regs.rcx, v->vmx.regs.rdx, v->vmx.regs.rsi);
	exit_skip_insn(x);
	return v->vm->state == VM_RUNNING ? EXIT_RESUME : EXIT_STOPPED;
}
