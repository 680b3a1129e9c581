/* VM entry/exit stub (hv/vmx/entry.asm) and the C side of its exit path. */
#ifndef HV_VMX_ENTRY_H
#define HV_VMX_ENTRY_H
#include "compiler.h"

struct guest_regs;

#define VMX_ENTER_FAILED (-1)   /* VMLAUNCH/VMRESUME failed: see VMCS_INSN_ERROR */
#define VMX_EXIT_REENTER (-2)   /* vcpu_exit_handle(): VMRESUME at once */

/* Interrupts off. Enters the guest and returns the enum exit_action of the
 * first exit that vcpu_exit_handle() does not re-enter from, or
 * VMX_ENTER_FAILED. */
int vmx_enter(struct guest_regs *regs, int launched);
/* entry.asm, after each VM exit with the guest GPRs saved and interrupts
 * off: handle the exit; VMX_EXIT_REENTER or an enum exit_action. hv/vm's
 * vcpu_exit_handle (vm/vcpu_exit.c), set by vm_exit_routes_init() before
 * any vCPU runs: entry.asm calls through it (one CALL, as the direct call
 * it replaced; hv/vmx names no hv/vm symbol, issue 11). */
extern int (*vmx_exit_handler)(struct guest_regs *regs);
#endif
