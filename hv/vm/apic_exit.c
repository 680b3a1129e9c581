/* The vLAPIC's exits that reach the VM's interrupt controller (issue 11:
 * hv/vmx handles the CPU's side): EOI-induced and APIC-write exits, routes
 * in hv/vmx's exit table (vm/exit_route.c). */
#include "vm/exit_route.h"
#include "vm/vm.h"
#include "vmx/apicv.h"
#include "arch/x86/exc.h"

/* EOI-induced exit (SDM §30.1.4): the EOI of a vector in the EOI-exit
 * bitmap; the vLAPIC broadcasts it to the IOAPIC. */
enum exit_action exit_eoi_induced(struct vmx_vcpu *vx, struct exit_info *x)
{
	struct vcpu *v = vcpu_of(vx);

	vintc_eoi_exit(&v->vm->devs.intc, v->vmx.id, (uint8_t)x->qual);
	return EXIT_RESUME;
}

/* APIC-write exit (SDM §30.4.3.3): the CPU stored the value in the
 * virtual-APIC page; the vLAPIC performs the side effects (ICR, LVT, ...).
 * A level-triggered IPI or LVT may change the EOI-exit bitmap. */
enum exit_action exit_apic_write(struct vmx_vcpu *vx, struct exit_info *x)
{
	struct vcpu *v = vcpu_of(vx);

	apicv_config_changed(vx);
	if (vintc_apic_write_exit(&v->vm->devs.intc, v->vmx.id, (unsigned)(x->qual & 0xfff)))
		vcpu_queue_exception(vx, X86_EXC_GP, true, 0);
	return EXIT_RESUME;
}
