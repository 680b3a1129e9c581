/* Exception classes (SDM vol. 3 §6.5 Table 6-1, §6.13) for events the
 * hypervisor injects. Pure: host unit tests include it. */
#ifndef HV_VMX_EXC_CLASS_H
#define HV_VMX_EXC_CLASS_H
#include "compiler.h"
#include "arch/x86/exc.h"

/* Traps: #DB (as KVM: its instruction-breakpoint faults never come from the
 * hypervisor), #BP, #OF; aborts: #DF, #MC; NMI (2) is an interrupt. Every
 * other vector below 32, reserved ones included, is a fault. */
#define EXC_NOT_FAULT (BIT(X86_EXC_DB) | BIT(X86_EXC_NMI) | BIT(X86_EXC_BP) | BIT(X86_EXC_OF) | \
		       BIT(X86_EXC_DF) | BIT(X86_EXC_MC))

static inline bool exc_is_fault(unsigned vector)
{
	return vector < 32 && !((EXC_NOT_FAULT >> vector) & 1);
}

/* A fault-class exception pushes RFLAGS with RF=1 (SDM §6.13 / §18.3.1.1:
 * every fault except an instruction breakpoint), so that the handler's IRET
 * does not re-trigger an instruction breakpoint at the faulting address. VM
 * entry delivers an injected event with the RFLAGS of the guest-state area
 * and does not set RF itself (SDM §27.6.1.2, "The value pushed for the RF
 * flag is not modified based on the type of event being delivered"), so the
 * hypervisor sets it in the guest's RFLAGS before the entry, as KVM does. */
#define RFLAGS_RF BIT(16)
static inline uint64_t exc_inject_rflags(uint64_t rflags, unsigned vector)
{
	return exc_is_fault(vector) ? rflags | RFLAGS_RF : rflags;
}
#endif
