/* The exit table (SDM vol. 3 App. C "VMX Basic Exit Reasons"): one handler
 * per basic reason, indexed by exit_dispatch() (vm/exit_route.h) on every
 * exit. hv/vmx's handlers are in vmx/exit.c (CPU-only exits) and
 * vmx/exit_misc.c (CPUID, MSRs, CR access); hv/vm's routes reach devices,
 * guest memory, hypercalls, the scheduler or VM stop (vm/io.c, vm/mmio.c,
 * vm/vcpu_pmu.c, vm/vmcall.c, vm/apic_exit.c). hv/vm's because it names
 * both (hv/vm calls hv/vmx, never the reverse); const, so it sits in the
 * image's read-only data, write-protected in the host page tables
 * (memory.c mm_protect_image; the check: vm/exit_route.c). */
#include "vm/exit_route.h"

/* Every slot holds a handler (no NULL test on the hot path): the range
 * default first, then the real ones override it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
const exit_handler_fn exit_handlers[EXIT_REASON_MAX] = {
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
	/* hv/vm's routes */
	[EXIT_REASON_IO] = exit_io,
	[EXIT_REASON_EPT_VIOLATION] = exit_ept_violation,
	[EXIT_REASON_APIC_ACCESS] = exit_apic_access,
	[EXIT_REASON_RDPMC] = exit_rdpmc,   /* RDPMC exits only with a host PMU in use */
	[EXIT_REASON_VMCALL] = exit_vmcall,
	[EXIT_REASON_EOI_INDUCED] = exit_eoi_induced,
	[EXIT_REASON_APIC_WRITE] = exit_apic_write,
};
#pragma GCC diagnostic pop
