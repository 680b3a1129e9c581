/* The exit path's routing on hv/vm's side (issue 11): hv/vmx decodes an exit
 * and handles what is only the CPU's (vmx/exit.c); hv/vm counts the exit,
 * dispatches it through its const exit table (vm/exit_table.c) and owns
 * the routes that reach devices, the scheduler and VM stop (vm/io.c,
 * vm/mmio.c, vm/vcpu_pmu.c, vm/vmcall.c, vm/apic_exit.c). The calls go from
 * hv/vm down to hv/vmx; hv/vmx reaches hv/vm only through the const
 * struct vmx_vm_ops hv/vm registers (vm/exit_route.c, vmx/exit.h). */
#ifndef HV_VM_EXIT_ROUTE_H
#define HV_VM_EXIT_ROUTE_H
#include "vm/vcpu.h"
#include "vmx/exit.h"
#include "vmx/vcpu_state.h"

/* Handler per basic reason (vm/exit_table.c): hv/vmx's, hv/vm's routes,
 * exit_unhandled for the reasons without one. Const: read-only memory. */
extern const exit_handler_fn exit_handlers[EXIT_REASON_MAX];

/* BSP, before any vCPU runs (vm_create_all): exactly one vmx_vm_ops is
 * registered, and a write to it or to the exit table faults (panics
 * otherwise). */
void vm_exit_routes_check(void);

/* exit_dispatch() for a raw reason with any bit above the basic reason set
 * (VM-entry failure, enclave mode, ...) or out of range: stops the VM or
 * dispatches like exit_dispatch(). */
enum exit_action exit_dispatch_slow(struct vcpu *v, uint32_t raw_reason);
/* vm/vprof_platform.c: the exit while v's VM is profiled. */
void vprof_plat_exit(struct vcpu *v, uint32_t reason);
/* vm/vcpu_exit.c, issue 18: an HLT or interrupt-window exit while the VID
 * gate holds a vector back (v->vid_window); `act` is what the handler
 * would return otherwise. Reached from vmx/exit.c through vmx_vm_ops. */
enum exit_action vcpu_vid_gate_reenter(struct vmx_vcpu *v, uint32_t reason, enum exit_action act);
enum exit_action vcpu_hlt_deliver_reenter(struct vmx_vcpu *v);

/* vm/vcpu_exit.c: entry.asm's call after each exit (vmx_vm_ops.exit). */
int vcpu_exit_handle(struct guest_regs *regs);

/* Routes: hv/vm's handlers in hv/vmx's table. They get hv/vmx's part of
 * the vCPU (vcpu_of() gives the vCPU: no instruction, it is at offset 0). */
enum exit_action exit_io(struct vmx_vcpu *v, struct exit_info *x);       /* vm/io.c */
enum exit_action exit_rdpmc(struct vmx_vcpu *v, struct exit_info *x);    /* vm/vcpu_pmu.c */
enum exit_action exit_ept_violation(struct vmx_vcpu *v, struct exit_info *x);   /* vm/mmio.c */
enum exit_action exit_apic_access(struct vmx_vcpu *v, struct exit_info *x);     /* vm/mmio.c */
enum exit_action exit_vmcall(struct vmx_vcpu *v, struct exit_info *x);      /* vm/vmcall.c */
enum exit_action exit_eoi_induced(struct vmx_vcpu *v, struct exit_info *x); /* vm/apic_exit.c */
enum exit_action exit_apic_write(struct vmx_vcpu *v, struct exit_info *x);  /* vm/apic_exit.c */

/* Count the exit (per vCPU, per reason, and in vProfile when v's VM is
 * profiled: one flag read otherwise) and call its handler. Inline: it sits
 * on every exit, and each instruction counts in the exit-cost figures. */
static inline enum exit_action exit_dispatch(struct vcpu *v, uint32_t raw_reason)
{
	struct exit_info x;

	if (unlikely(raw_reason >= EXIT_REASON_MAX))
		return exit_dispatch_slow(v, raw_reason);
	x.reason = raw_reason;
	v->exits_total++;
	if (unlikely(flag_once(v->vprof_on)))
		vprof_plat_exit(v, x.reason);
	v->exits[x.reason]++;
	x.qual = vmx_exit_qual();
	x.insn_len = vmx_exit_insn_len();
	return exit_handlers[x.reason](&v->vmx, &x);
}
#endif
