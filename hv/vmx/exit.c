/* VM-exit dispatch (SDM vol. 3 §28.2 "Recording VM-Exit Information"). Every
 * exit is counted per vCPU; an exit with no handler stops only its VM. */
#include "vmx/exit.h"
#include "vmx/vmcs.h"
#include "vmx/caps.h"
#include "vmx/apicv.h"
#include "vmx/fpu.h"
#include "vmx/vcpu.h"
#include "arch/x86/cpu.h"
#include "log.h"
#include "lib/fmt.h"
#include "vm_status.h"
#include "arch/x86/exc.h"

static const char *reason_name(uint32_t r);

uint64_t guest_gpr_rsp_scratch;   /* guest_gpr(4), vmx/entry.h */

/* Per vCPU: the vCPU may be descheduled before its next entry (injected by
 * vm/vcpu.c inject_events). */
void vcpu_queue_exception(struct vmx_vcpu *v, uint8_t vector, bool has_err, uint32_t err)
{
	v->pending_exc.valid = true;
	v->pending_exc.has_err = has_err;
	v->pending_exc.vector = vector;
	v->pending_exc.err = err;
}

/* On hardware the exit comes before the instruction completes, so its
 * single-step trap is not recorded (KVM queues the #DB itself,
 * kvm_vcpu_do_singlestep); Bochs records it
 * (pending debug 0x4000 after such exits, seen with guest test singlestep),
 * so setting BS again is harmless there. */
__attribute__((noinline)) void exit_single_step(void)
{
	vmcs_writenat(VMCS_GUEST_PENDING_DBG, vmcs_readnat(VMCS_GUEST_PENDING_DBG) | PENDING_DBG_BS);
}

enum exit_action exit_fail(struct vmx_vcpu *v, struct exit_info *x, const char *why)
{
	pr_err("%s: vcpu%u: %s (exit reason %u %s, qualification %#lx); stopping the VM\n",
	       v->vm->name, v->id, why, x->reason, reason_name(x->reason), x->qual);
	vmcs_dump();
	vmx_vm_ops.stop(v, VM_STOP_VMX_FAILED, why);
	return EXIT_STOPPED;
}

enum exit_action exit_unhandled(struct vmx_vcpu *v, struct exit_info *x)
{
	return exit_fail(v, x, "unhandled VM exit");
}

/* Task switch (SDM vol. 3 §26.1.2: it always exits; qualification §28.2.1
 * Table 28-2: bits 15:0 the new TSS selector, 31:30 the source). Hardware
 * task switching is not emulated (no 64-bit OS uses it; 32-bit Linux only
 * for a double fault), so the VM stops, and the line says what the guest
 * did. During event delivery (a task gate in the IDT, SDM §28.2.4) the
 * IDT-vectoring information names the event; nothing is re-injected, since
 * the VM does not run again. */
enum exit_action exit_task_switch(struct vmx_vcpu *v, struct exit_info *x)
{
	static const char *const src[4] = { "CALL", "IRET", "JMP", "a task gate in the IDT" };
	uint32_t vect = vmcs_read32(VMCS_IDT_VECT_INFO);
	char ev[48] = "";

	if (vect & BIT(31))
		fmt_snprintf(ev, sizeof(ev), " while delivering vector %u (type %u)", vect & 0xff,
			     (vect >> 8) & 7);
	pr_err("%s: vcpu%u: task switch by %s to TSS selector %#lx at rip %#lx%s\n",
	       v->vm->name, v->id, src[(x->qual >> 30) & 3], x->qual & 0xffff,
	       vmcs_readnat(VMCS_GUEST_RIP), ev);
	return exit_fail(v, x, vect & BIT(31) ? "task switch during event delivery (not emulated)"
					      : "task switch (not emulated)");
}

enum exit_action exit_nothing(struct vmx_vcpu *v, struct exit_info *x)
{
	/* External interrupts, windows and the preemption timer: the run loop
	 * already does what they ask (host IRQs, injection, timers). */
	return EXIT_RESUME;
}

/* NMI-window exit (SDM §26.7.6): the guest can take an NMI now. Turn the
 * window off; the next entry injects the latched NMI, or asks again if it
 * still cannot (vm/vcpu.c inject_nmi). */
enum exit_action exit_nmi_window(struct vmx_vcpu *v, struct exit_info *x)
{
	v->nmi_window = false;
	vmcs_write32(VMCS_PROC_CTLS, vmcs_read32(VMCS_PROC_CTLS) & ~PROC_NMI_WINDOW);
	return EXIT_RESUME;
}

enum exit_action exit_hlt(struct vmx_vcpu *v, struct exit_info *x)
{
	exit_skip_insn(x);
	if (unlikely(v->vid_window))   /* the VID gate holds a vector: vm/vcpu_exit.c */
		return vmx_vm_ops.vid_gate_reenter(v, EXIT_REASON_HLT, EXIT_BLOCK);
	/* No gate: a virtual interrupt the entry would deliver ends the HLT
	 * at once (`sti; hlt` with a vector pending; vm/vcpu_exit.c). RVI is
	 * tested first, so an HLT that blocks pays one VMREAD and a test. */
	if (v->vid_ungated && apicv_rvi_class())
		return vmx_vm_ops.hlt_deliver_reenter(v);
	return EXIT_BLOCK;
}

/* Interrupt-window exit (SDM §26.7.5): the guest has IF = 1 and no STI or
 * MOV-SS blocking. The run loop injects what waited for it; a vector the
 * VID gate held back is released without the loop (vm/vcpu_exit.c). */
enum exit_action exit_intr_window(struct vmx_vcpu *v, struct exit_info *x)
{
	if (unlikely(v->vid_window))
		return vmx_vm_ops.vid_gate_reenter(v, EXIT_REASON_INTERRUPT_WINDOW, EXIT_RESUME);
	return EXIT_RESUME;
}

enum exit_action exit_pause(struct vmx_vcpu *v, struct exit_info *x)
{
	/* PAUSE-loop exit (§25.6.13): the guest spins; let others run. */
	v->ple_exits++;
	return EXIT_YIELD;
}

enum exit_action exit_triple_fault(struct vmx_vcpu *v, struct exit_info *x)
{
	pr_err("%s: vcpu%u: triple fault at rip %#lx\n", v->vm->name, v->id,
	       vmcs_readnat(VMCS_GUEST_RIP));
	vmx_vm_ops.stop(v, VM_STOP_TRIPLE_FAULT, "triple-fault");
	return EXIT_STOPPED;
}

enum exit_action exit_invalid_state(struct vmx_vcpu *v, struct exit_info *x)
{
	return exit_fail(v, x, "VM entry failed: invalid guest state");
}

enum exit_action exit_xsetbv(struct vmx_vcpu *v, struct exit_info *x)
{
	uint64_t val = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;

	if (fpu_guest_xsetbv(&v->fpu, v->vm->cpuid.xcr0, (uint32_t)v->regs.rcx, val)) {
		vcpu_queue_exception(v, X86_EXC_GP, true, 0);
		return EXIT_RESUME;
	}
	exit_skip_insn(x);
	return EXIT_RESUME;
}

enum exit_action exit_inject_ud(struct vmx_vcpu *v, struct exit_info *x)
{
	/* VMX instructions, MONITOR/MWAIT, ...: the guest sees no such feature. */
	vcpu_queue_exception(v, X86_EXC_UD, false, 0);
	return EXIT_RESUME;
}

/* WBINVD, and INVD (which always exits, SDM vol. 3 §26.1.2): the guest's
 * RAM is ordinary write-back memory, so there is nothing to write back for
 * it; INVD must not really discard caches that hold the hypervisor's and
 * other VMs' dirty lines, so it is done as WBINVD (as KVM does). */
enum exit_action exit_wbinvd(struct vmx_vcpu *v, struct exit_info *x)
{
	exit_skip_insn(x);
	return EXIT_RESUME;
}

static const char *reason_name(uint32_t r)
{
	static const char *const names[EXIT_REASON_MAX] = {
		[0] = "exception/NMI", [1] = "external interrupt", [2] = "triple fault",
		[3] = "INIT", [4] = "SIPI", [7] = "interrupt window", [9] = "task switch",
		[10] = "CPUID", [12] = "HLT", [13] = "INVD", [18] = "VMCALL", [28] = "CR access",
		[29] = "DR access", [30] = "I/O", [31] = "RDMSR", [32] = "WRMSR",
		[33] = "invalid guest state", [34] = "MSR loading", [40] = "PAUSE",
		[43] = "TPR below threshold", [44] = "APIC access", [45] = "EOI induced",
		[48] = "EPT violation", [49] = "EPT misconfiguration",
		[52] = "preemption timer", [55] = "XSETBV", [56] = "APIC write",
	};
	return r < EXIT_REASON_MAX && names[r] ? names[r] : "?";
}
