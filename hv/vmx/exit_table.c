/* The exit table (SDM vol. 3 App. C "VMX Basic Exit Reasons"): one handler
 * per basic reason. hv/vmx's handlers are in exit.c (CPU-only exits) and
 * exit_misc.c (CPUID, MSRs, CR access); hv/vm adds its routes (port I/O,
 * MMIO, RDPMC, VMCALL, EOI-induced and APIC-write exits) with
 * vmx_exit_route() at init (vm/exit_route.c). Apart
 * from the handlers so that the handler files do not depend on each other
 * both ways (tools/check_layers.py). */
#include "vmx/exit.h"

/* Every slot holds a handler (no NULL test on the hot path): the range
 * default first, then the real ones override it; hv/vm adds its routes
 * with vmx_exit_route() at init. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
exit_handler_fn exit_handlers[EXIT_REASON_MAX] = {
	[0 ... EXIT_REASON_MAX - 1] = exit_unhandled,
	[EXIT_REASON_EXTERNAL_INTERRUPT] = exit_nothing,
	[EXIT_REASON_TRIPLE_FAULT] = exit_triple_fault,
	[EXIT_REASON_TASK_SWITCH] = exit_task_switch,
	[EXIT_REASON_INTERRUPT_WINDOW] = exit_intr_window,
	[EXIT_REASON_NMI_WINDOW] = exit_nmi_window,
	[EXIT_REASON_CPUID] = exit_cpuid,
	[EXIT_REASON_HLT] = exit_hlt,
	[EXIT_REASON_VMCLEAR] = exit_inject_ud,
	[EXIT_REASON_VMLAUNCH] = exit_inject_ud,
	[EXIT_REASON_VMPTRLD] = exit_inject_ud,
	[EXIT_REASON_VMPTRST] = exit_inject_ud,
	[EXIT_REASON_VMREAD] = exit_inject_ud,
	[EXIT_REASON_VMRESUME] = exit_inject_ud,
	[EXIT_REASON_VMWRITE] = exit_inject_ud,
	[EXIT_REASON_VMXOFF] = exit_inject_ud,
	[EXIT_REASON_VMXON] = exit_inject_ud,
	[EXIT_REASON_INVEPT] = exit_inject_ud,
	[EXIT_REASON_INVVPID] = exit_inject_ud,
	[EXIT_REASON_MWAIT] = exit_inject_ud,
	[EXIT_REASON_MONITOR] = exit_inject_ud,
	[EXIT_REASON_CR_ACCESS] = exit_cr_access,
	[EXIT_REASON_RDMSR] = exit_rdmsr,
	[EXIT_REASON_WRMSR] = exit_wrmsr,
	[EXIT_REASON_INVALID_GUEST_STATE] = exit_invalid_state,
	[EXIT_REASON_PAUSE] = exit_pause,
	[EXIT_REASON_TPR_BELOW_THRESHOLD] = exit_nothing,   /* re-evaluated before entry */
	[EXIT_REASON_PREEMPTION_TIMER] = exit_nothing,
	[EXIT_REASON_WBINVD] = exit_wbinvd,
	[EXIT_REASON_INVD] = exit_wbinvd,
	[EXIT_REASON_XSETBV] = exit_xsetbv,
};
#pragma GCC diagnostic pop

void vmx_exit_route(uint32_t reason, exit_handler_fn fn)
{
	if (reason < EXIT_REASON_MAX)
		exit_handlers[reason] = fn;
}
