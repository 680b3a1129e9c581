/* VM-exit dispatch: a table indexed by basic exit reason (SDM vol. 3 App. C). */
#ifndef HV_VMX_EXIT_H
#define HV_VMX_EXIT_H
#include "vm/vcpu.h"

/* What the run loop does after a handler. */
enum exit_action {
	EXIT_RESUME = 0,   /* re-enter the guest */
	EXIT_BLOCK,        /* vCPU halted: wait for an interrupt */
	EXIT_YIELD,        /* give the pCPU to another vCPU */
	EXIT_STOPPED,      /* the VM was stopped */
};

struct exit_info {
	uint32_t reason;        /* basic reason (bits 15:0) */
	uint64_t qual;
	uint32_t insn_len;
};

typedef enum exit_action (*exit_handler_fn)(struct vcpu *v, struct exit_info *x);

enum exit_action exit_dispatch(struct vcpu *v, uint32_t raw_reason);
/* Advance the guest RIP past the exiting instruction. */
void exit_skip_insn(struct exit_info *x);
/* Queue an exception for the next entry (with error code when has_err). */
void vcpu_queue_exception(struct vcpu *v, uint8_t vector, bool has_err, uint32_t err);
/* End the VM with a VMCS dump: for unhandled or malformed exits. */
enum exit_action exit_fail(struct vcpu *v, struct exit_info *x, const char *why);

/* Handlers living in other files. */
enum exit_action exit_io(struct vcpu *v, struct exit_info *x);
enum exit_action exit_ept_violation(struct vcpu *v, struct exit_info *x);
enum exit_action exit_apic_access(struct vcpu *v, struct exit_info *x);
enum exit_action exit_rdmsr(struct vcpu *v, struct exit_info *x);
enum exit_action exit_wrmsr(struct vcpu *v, struct exit_info *x);
enum exit_action exit_vmcall(struct vcpu *v, struct exit_info *x);
enum exit_action exit_cpuid(struct vcpu *v, struct exit_info *x);
enum exit_action exit_cr_access(struct vcpu *v, struct exit_info *x);
enum exit_action exit_rdpmc(struct vcpu *v, struct exit_info *x);   /* vm/pmu_glue.c */
#endif
