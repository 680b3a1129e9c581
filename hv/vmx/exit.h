/* VM-exit dispatch: a table indexed by basic exit reason (SDM vol. 3 App. C). */
#ifndef HV_VMX_EXIT_H
#define HV_VMX_EXIT_H
#include "compiler.h"
#include "vmx/vmcs.h"
#include "vmx/exit_reasons.h"

/* Handlers get hv/vmx's part of a vCPU (vmx/vcpu.h), embedded in hv/vm's
 * struct vcpu (issue 11). */
struct vmx_vcpu;
struct vmx_vm;
struct guest_regs;

/* What the run loop does after a handler. */
enum exit_action {
	EXIT_RESUME = 0,   /* re-enter the guest */
	EXIT_BLOCK,        /* vCPU halted: wait for an interrupt */
	EXIT_YIELD,        /* give the pCPU to another vCPU */
	EXIT_STOPPED,      /* the VM was stopped */
	/* The handler made the fast re-entry test with interrupts off and it
	 * passed: VMRESUME at once (= VMX_EXIT_REENTER, vm/vcpu_exit.c). */
	EXIT_REENTERED = -2,
};

struct exit_info {
	uint32_t reason;        /* basic reason (bits 15:0) */
	uint64_t qual;
	uint32_t insn_len;
};

typedef enum exit_action (*exit_handler_fn)(struct vmx_vcpu *v, struct exit_info *x);

/* The exit table (SDM vol. 3 App. C) is hv/vm's: it routes every exit,
 * naming hv/vmx's handlers below and its own routes, and is const
 * (vm/exit_table.c, indexed by vm/exit_route.h exit_dispatch()). */

/* What hv/vmx (entry.asm and the exit handlers) asks of hv/vm (issue 11:
 * hv/vmx calls no hv/vm function, so the two folders do not depend on each
 * other both ways). hv/vm registers exactly one, const, with
 * VMX_VM_OPS_REGISTER (vm/exit_route.c): the object sits in section
 * hv_vmx_vm_ops inside the image's read-only data, which the host page
 * tables map read-only (memory.c mm_protect_image), so no write after
 * link time can change where an exit goes. hv/vmx reaches it as
 * `vmx_vm_ops` (linker.ld: the section's start): each call is one
 * indirect CALL (or JMP) through a link-time address, as many instructions as the direct
 * call it replaced (Bochs cycles count instructions). */
struct vmx_vm_ops {
	/* entry.asm, after each VM exit with the guest GPRs saved and
	 * interrupts off (first: entry.asm calls [vmx_vm_ops]):
	 * VMX_EXIT_REENTER or an enum exit_action (vm/vcpu_exit.c
	 * vcpu_exit_handle, vmx/entry.h). */
	int (*exit)(struct guest_regs *regs);
	/* End v's VM (vm_stop) with a VM_STOP_* status (vm_status.h). */
	void (*stop)(struct vmx_vcpu *v, int status, const char *why);
	/* Issue 18: an HLT or interrupt-window exit while the VID gate holds a
	 * vector back (v->vid_window); `act` is what the handler would return
	 * otherwise (vm/vcpu_exit.c vcpu_vid_gate_reenter). */
	enum exit_action (*vid_gate_reenter)(struct vmx_vcpu *v, uint32_t reason,
					     enum exit_action act);
	/* Issue 18: an HLT exit without the VID gate while RVI is deliverable
	 * (apicv_rvi_deliverable): EXIT_REENTERED or EXIT_BLOCK
	 * (vm/vcpu_exit.c vcpu_hlt_deliver_reenter). */
	enum exit_action (*hlt_deliver_reenter)(struct vmx_vcpu *v);
	/* The MSR_H_KVM case of the MSR emulation: 0 or -EINVAL (#GP)
	 * (vm/kvm_pv_vcpu.c kvm_pv_msr). */
	int (*kvm_msr)(struct vmx_vcpu *v, uint32_t msr, bool write, uint64_t *val);
	/* Has the VM of vm ended (vm_stop)? Cold: APICv reuses a dead VM's slot. */
	bool (*vm_dead)(const struct vmx_vm *vm);
};
_Static_assert(offsetof(struct vmx_vm_ops, exit) == 0, "entry.asm calls the first member");
/* hv/vm: `VMX_VM_OPS_REGISTER = { .exit = ..., ... };` once. */
#define VMX_VM_OPS_REGISTER \
	static const struct vmx_vm_ops vmx_vm_ops_registered \
		__attribute__((used, section("hv_vmx_vm_ops"), aligned(8)))
/* The section's bounds (linker.ld); one object between them, checked at
 * link time (linker.ld ASSERT) and at boot (vm/exit_route.c). linker.ld
 * defines vmx_vm_ops as the section's start: no object defines it, so
 * hv/vmx names no hv/vm symbol (tools/check_layers.py). */
extern const struct vmx_vm_ops __start_hv_vmx_vm_ops[], __stop_hv_vmx_vm_ops[];
extern const struct vmx_vm_ops vmx_vm_ops;

/* Advance the guest RIP past the exiting instruction. Skipping an
 * instruction ends STI/MOV-SS blocking (§25.4.2). */
#define GUEST_RFLAGS_TF   BIT(8)
#define PENDING_DBG_BS    BIT(14)   /* single-step trap pending (SDM §25.4.2 Table 25-4) */
/* The guest single-steps an instruction the hypervisor emulated: the CPU
 * never completed it, so queue the trap it would have taken as a pending
 * debug exception, which VM entry delivers before the next guest
 * instruction (SDM §27.7.3). */
void exit_single_step(void);
static inline void exit_skip_insn(struct exit_info *x)
{
	uint32_t intr;

	vmcs_writenat(VMCS_GUEST_RIP, vmcs_readnat(VMCS_GUEST_RIP) + x->insn_len);
	intr = vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY);
	if (unlikely(intr & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOVSS)))
		vmcs_write32(VMCS_GUEST_INTERRUPTIBILITY,
			     intr & ~(INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOVSS));
	if (unlikely(vmcs_readnat(VMCS_GUEST_RFLAGS) & GUEST_RFLAGS_TF))
		exit_single_step();
}
/* The guest runs 64-bit code (CS.L; VM entry allows L only with IA-32e
 * mode, SDM §27.3.1.2): hypercalls then take 64-bit arguments. */
static inline bool exit_guest_64bit(void)
{
	return vmcs_read32(VMCS_GUEST_CS_AR) & BIT(13);
}
/* Queue an exception for the next entry (with error code when has_err). */
void vcpu_queue_exception(struct vmx_vcpu *v, uint8_t vector, bool has_err, uint32_t err);
/* End the VM with a VMCS dump: for unhandled or malformed exits. */
enum exit_action exit_fail(struct vmx_vcpu *v, struct exit_info *x, const char *why);

/* hv/vmx's handlers, named by hv/vm's const exit table (vm/exit_table.c). */
#define EXIT_HANDLER(name) enum exit_action name(struct vmx_vcpu *v, struct exit_info *x)
/* vmx/exit.c: exits that are the CPU's only. */
EXIT_HANDLER(exit_unhandled);
EXIT_HANDLER(exit_nothing);
EXIT_HANDLER(exit_triple_fault);
EXIT_HANDLER(exit_task_switch);
EXIT_HANDLER(exit_intr_window);
EXIT_HANDLER(exit_nmi_window);
EXIT_HANDLER(exit_hlt);
EXIT_HANDLER(exit_inject_ud);
EXIT_HANDLER(exit_invalid_state);
EXIT_HANDLER(exit_pause);
EXIT_HANDLER(exit_wbinvd);
EXIT_HANDLER(exit_xsetbv);
/* vmx/exit_misc.c: CPUID, MSRs, CR access. */
EXIT_HANDLER(exit_rdmsr);
EXIT_HANDLER(exit_wrmsr);
EXIT_HANDLER(exit_cpuid);
EXIT_HANDLER(exit_cr_access);
#undef EXIT_HANDLER
#endif
