/* VM-exit dispatch: a table indexed by basic exit reason (SDM vol. 3 App. C). */
#ifndef HV_VMX_EXIT_H
#define HV_VMX_EXIT_H
#include "vm/vcpu.h"
#include "vmx/vmcs.h"

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

typedef enum exit_action (*exit_handler_fn)(struct vcpu *v, struct exit_info *x);

/* Handler per basic reason; exit_unhandled for the reasons without one. */
extern const exit_handler_fn exit_handlers[EXIT_REASON_MAX];
/* exit_dispatch() for a raw reason with any bit above the basic reason set
 * (VM-entry failure, enclave mode, ...) or out of range: stops the VM or
 * dispatches like exit_dispatch(). */
enum exit_action exit_dispatch_slow(struct vcpu *v, uint32_t raw_reason);
/* vm/vprof_glue.c: the exit while v's VM is profiled. */
void vprof_glue_exit(struct vcpu *v, uint32_t reason);

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
		vprof_glue_exit(v, x.reason);
	v->exits[x.reason]++;
	x.qual = vmcs_readnat(VMCS_EXIT_QUAL);
	x.insn_len = vmcs_read32(VMCS_EXIT_INSN_LEN);
	return exit_handlers[x.reason](v, &x);
}

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
void vcpu_queue_exception(struct vcpu *v, uint8_t vector, bool has_err, uint32_t err);
/* vm/vcpu_exit.c, issue 18: an HLT or interrupt-window exit while the VID
 * gate holds a vector back (v->vid_window); `act` is what the handler
 * would return otherwise. */
enum exit_action vcpu_vid_gate_reenter(struct vcpu *v, uint32_t reason, enum exit_action act);
/* vm/vcpu_exit.c, issue 18: an HLT exit without the VID gate while RVI is
 * deliverable (apicv_rvi_deliverable): EXIT_REENTERED or EXIT_BLOCK. */
enum exit_action vcpu_hlt_deliver_reenter(struct vcpu *v);
/* End the VM with a VMCS dump: for unhandled or malformed exits. */
enum exit_action exit_fail(struct vcpu *v, struct exit_info *x, const char *why);

/* Handlers living in other files. */
enum exit_action exit_io(struct vcpu *v, struct exit_info *x);       /* vm/io.c */
enum exit_action exit_ept_violation(struct vcpu *v, struct exit_info *x);
enum exit_action exit_apic_access(struct vcpu *v, struct exit_info *x);
enum exit_action exit_rdmsr(struct vcpu *v, struct exit_info *x);
enum exit_action exit_wrmsr(struct vcpu *v, struct exit_info *x);
enum exit_action exit_vmcall(struct vcpu *v, struct exit_info *x);
enum exit_action exit_cpuid(struct vcpu *v, struct exit_info *x);
enum exit_action exit_cr_access(struct vcpu *v, struct exit_info *x);
enum exit_action exit_rdpmc(struct vcpu *v, struct exit_info *x);   /* vm/pmu_glue.c */
#endif
