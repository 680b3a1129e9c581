/* VM entry/exit stub (hv/vmx/entry.asm) and the C side of its exit path. */
#ifndef HV_VMX_ENTRY_H
#define HV_VMX_ENTRY_H
#include "compiler.h"

/* Guest GPRs not held in the VMCS; layout shared with hv/vmx/entry.asm. */
struct guest_regs {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t cr2;
};
_Static_assert(offsetof(struct guest_regs, rdi) == 40, "entry.asm GR_RDI");
_Static_assert(offsetof(struct guest_regs, r15) == 112, "entry.asm GR_R15");

/* Pointer to a GPR saved by entry.asm, by x86 register number. RSP is not
 * among them (it is guest state in the VMCS, SDM §25.4.1): its slot is a
 * scratch word, so callers that may see RSP read or write VMCS_GUEST_RSP
 * themselves (vm/mmio.c, vmx/exit_misc.c). A table of offsets: this runs on
 * every MMIO exit (static here so that a constant index folds). */
#define GUEST_GPR_OFF(r) (uint8_t)offsetof(struct guest_regs, r)
static const uint8_t guest_gpr_offset[16] = {
	GUEST_GPR_OFF(rax), GUEST_GPR_OFF(rcx), GUEST_GPR_OFF(rdx), GUEST_GPR_OFF(rbx), 0,
	GUEST_GPR_OFF(rbp), GUEST_GPR_OFF(rsi), GUEST_GPR_OFF(rdi), GUEST_GPR_OFF(r8),
	GUEST_GPR_OFF(r9), GUEST_GPR_OFF(r10), GUEST_GPR_OFF(r11), GUEST_GPR_OFF(r12),
	GUEST_GPR_OFF(r13), GUEST_GPR_OFF(r14), GUEST_GPR_OFF(r15),
};
#undef GUEST_GPR_OFF
extern uint64_t guest_gpr_rsp_scratch;
static inline uint64_t *guest_gpr(struct guest_regs *r, unsigned idx)
{
	if ((idx & 15) == 4)
		return &guest_gpr_rsp_scratch;
	return (uint64_t *)((char *)r + guest_gpr_offset[idx & 15]);
}

#define VMX_ENTER_FAILED (-1)   /* VMLAUNCH/VMRESUME failed: see VMCS_INSN_ERROR */
#define VMX_EXIT_REENTER (-2)   /* vcpu_exit_handle(): VMRESUME at once */

/* Interrupts off. Enters the guest and returns the enum exit_action of the
 * first exit that vcpu_exit_handle() does not re-enter from, or
 * VMX_ENTER_FAILED. */
int vmx_enter(struct guest_regs *regs, int launched);
/* After each VM exit entry.asm calls hv/vm's handler through the first
 * member of the const struct vmx_vm_ops hv/vm registers (vmx/exit.h
 * `exit`: vm/vcpu_exit.c vcpu_exit_handle): one CALL, as the direct call
 * it replaced; hv/vmx names no hv/vm symbol (issue 11). */
#endif
