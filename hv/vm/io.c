/* Port I/O routing that the VMX exit decoder (vmx/exit_io.c) leaves to the
 * VM layer (issue 11: hv/vmx decodes, hv/vm routes): which pCPU must look
 * again after an access moved a device deadline or the 8259's output.
 * Declared in vmx/exit.h, next to the other hooks hv/vmx calls. */
#include "vmx/exit.h"
#include "vm/vm.h"
#include "vm/sched_glue.h"
#include "arch/x86/time.h"

/* After an access that may move a device deadline or the 8259's output: if
 * a deadline now comes before the one the preemption timer was armed for,
 * or the 8259 asks for vCPU 0, the run loop must look before the next entry
 * (vm/vcpu_exit.c); a fast re-entry would keep the stale timer. */
void vm_io_retimed(struct vcpu *v)
{
	stime_t dl = vm_devs_next_deadline(v->vm, v->id);

	if ((dl < STIME_NEVER && time_ns_to_tsc(dl) < v->fast_deadline_tsc) ||
	    (v->id == 0 && vpic_output(&v->vm->devs.intc.pic)))
		WRITE_ONCE(v->kicked, true);
}

/* Platform devices (PIT, RTC, PM timer) are advanced on vCPU 0's pCPU
 * (vm_devs_advance): when another vCPU's access brings their deadline
 * forward, vCPU 0's pCPU must look again at once (idle: leave its halt;
 * running vCPU 0: exit and re-arm), not at its next unrelated wake-up. */
void vm_io_pio_ap_platform(struct vcpu *v, uint16_t port, unsigned size, bool in, uint32_t *val)
{
	struct vm *vm = v->vm;
	stime_t before, after;

	spin_lock(&vm->lock);
	before = pcdev_next_deadline(&vm->devs.pc);
	vm_devs_pio(&vm->devs, port, size, !in, val);
	after = pcdev_next_deadline(&vm->devs.pc);
	spin_unlock(&vm->lock);
	if (after < before)
		sched_glue_repoll(vm->vcpu[0]);
}
