/* A vCPU's setup: the object and its vLAPIC/FPU state (vcpu_create, at VM
 * creation), and at its first load (vcpu_load, vm/vcpu.c) its VMCS built
 * from what its VM and the scheduler say and, for the boot vCPU, the
 * loader's entry state. */
#include "vm/vm.h"
#include "vm/vcpu_setup.h"
#include "vmx/vmcs_setup.h"
#include "vmx/msr_filter.h"
#include "vm/sched_platform.h"
#include "vm/vprof_platform.h"
#include "errno.h"
#include "memory.h"

/* The boot vCPU starts where the loader says, registers included. */
void vcpu_load_entry(struct vcpu *v, const struct guest_entry *e)
{
	vmcs_guest_entry(e);
	v->vmx.regs.rax = e->rax;
	v->vmx.regs.rbx = e->rbx;
	v->vmx.regs.rcx = e->rcx;
	v->vmx.regs.rdx = e->rdx;
	v->vmx.regs.rsi = e->rsi;
	v->vmx.regs.rdi = e->rdi;
	v->vmx.regs.rbp = e->rbp;
}

/* Build v's VMCS from what its VM and the scheduler say (vmx/vmcs_setup.h). */
int vcpu_vmcs_setup(struct vcpu *v)
{
	struct vm *vm = v->vm;
	/* PAUSE-loop exits let a spinning vCPU yield to the sibling it waits
	 * for; a 1-vCPU VM has none, so by default it takes no such exits (as
	 * KVM's kvm_vcpu_on_spin() finds nothing to boost). ple=on forces them
	 * (vProfile's PLE spin detection). */
	struct vmcs_config cfg = {
		.io_bitmap = vm->vmx.io_bitmap,
		.msr_bitmap = vm->vmx.msr_bitmap,
		.ept = &vm->vmx.ept,
		.ple = vm->p.ple_set ? vm->p.ple : sched_ple_enabled() && vm->nr_vcpus > 1,
		.ple_window = v->sv.ple_window,
	};

	return vmcs_setup(&v->vmx, &cfg, &v->vmcs, &v->ple_window_set);
}

int vcpu_create(struct vm *vm, unsigned id)
{
	struct vcpu *v = page_alloc_zeroed((sizeof(struct vcpu) + PAGE_SIZE - 1) / PAGE_SIZE);
	int r;

	if (!v || !(v->vmx.apic_page = page_alloc_zeroed(1)))
		return -ENOMEM;
	v->vm = vm;
	v->vmx.vm = &vm->vmx;
	v->vmx.id = id;
	v->vmcs_cpu = -1;
	v->vmcs_active = -1;
	v->sipi_vector = -1;
	v->vmx.misc_enable = MSR_MISC_ENABLE_RESET;
	v->wait_sipi = id != 0;
	v->vprof_on = vprof_plat_exit_flag(vm->id);
	vm->vcpu[id] = v;
	r = vintc_add_vcpu(&vm->devs.intc, id, &v->vmx.lapic, v->vmx.apic_page);
	return r ? r : fpu_vcpu_init(&v->vmx.fpu);
}
