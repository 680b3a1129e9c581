/* The VMCS fields hv/vm needs, by role (issue 11: hv/vmx owns the VMCS; no
 * hv/vm file names a VMCS field or issues VMREAD/VMWRITE). All act on the
 * current VMCS, so on the pCPU running the vCPU. Inline: several sit on
 * every exit and entry (each instruction counts in make bench-exits), and
 * each is the one VMREAD/VMWRITE it replaces (the writers are macros over
 * vmcs_write*, so the compiled code is the same as the direct write). */
#ifndef HV_VMX_VCPU_STATE_H
#define HV_VMX_VCPU_STATE_H
#include "vmx/vmcs.h"

/* ---- the exit (SDM §28.2.1) ---- */
/* Raw exit reason: basic reason in bits 15:0, failure/enclave bits above. */
static inline uint32_t vmx_exit_reason_raw(void) { return vmcs_read32(VMCS_EXIT_REASON); }
static inline uint64_t vmx_exit_qual(void) { return vmcs_readnat(VMCS_EXIT_QUAL); }
static inline uint32_t vmx_exit_insn_len(void) { return vmcs_read32(VMCS_EXIT_INSN_LEN); }
/* Guest-physical address of an EPT violation (§28.2.1 Table 28-7). */
static inline uint64_t vmx_exit_gpa(void) { return vmcs_read64(VMCS_GUEST_PHYS_ADDR); }
/* IDT-vectoring information and error code (§28.2.4). */
static inline uint32_t vmx_idt_vectoring(void) { return vmcs_read32(VMCS_IDT_VECT_INFO); }
static inline uint32_t vmx_idt_vectoring_err(void) { return vmcs_read32(VMCS_IDT_VECT_ERR); }
/* VM-instruction error of the last failed VMLAUNCH/VMRESUME (§31.4). */
static inline uint32_t vmx_insn_error(void) { return vmcs_read32(VMCS_INSN_ERROR); }

/* ---- guest state (§25.4) ---- */
static inline uint64_t vmx_guest_rflags(void) { return vmcs_readnat(VMCS_GUEST_RFLAGS); }
static inline uint64_t vmx_guest_rip(void) { return vmcs_readnat(VMCS_GUEST_RIP); }
static inline uint64_t vmx_guest_rsp(void) { return vmcs_readnat(VMCS_GUEST_RSP); }
#define vmx_guest_rsp_set(rsp) vmcs_writenat(VMCS_GUEST_RSP, (rsp))
/* CS base and access rights (L = bit 13, D/B = bit 14: the code size). */
static inline uint64_t vmx_guest_cs_base(void) { return vmcs_readnat(VMCS_GUEST_CS_BASE); }
static inline uint32_t vmx_guest_cs_ar(void) { return vmcs_read32(VMCS_GUEST_CS_AR); }
#define vmx_guest_rflags_set(fl) vmcs_writenat(VMCS_GUEST_RFLAGS, (fl))
/* Interruptibility state (INTERRUPTIBILITY_*, Table 25-3). */
static inline uint32_t vmx_guest_intr_state(void)
{
	return vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY);
}
#define vmx_guest_intr_state_set(s) vmcs_write32(VMCS_GUEST_INTERRUPTIBILITY, (s))
/* CPL = SS.DPL (§25.4.1). */
static inline unsigned vmx_guest_cpl(void) { return (vmcs_read32(VMCS_GUEST_SS_AR) >> 5) & 3; }
static inline uint64_t vmx_guest_cr0(void) { return vmcs_readnat(VMCS_GUEST_CR0); }
static inline uint64_t vmx_guest_cr3(void) { return vmcs_readnat(VMCS_GUEST_CR3); }
static inline uint64_t vmx_guest_cr4(void) { return vmcs_readnat(VMCS_GUEST_CR4); }
static inline uint64_t vmx_guest_efer(void) { return vmcs_read64(VMCS_GUEST_EFER); }

/* ---- the next entry ---- */
/* Event injection (§26.6): interruption information, error code,
 * instruction length (software interrupts/exceptions). */
#define vmx_entry_event(info) vmcs_write32(VMCS_ENTRY_INTR_INFO, (info))
#define vmx_entry_event_err(err) vmcs_write32(VMCS_ENTRY_EXC_ERR, (err))
#define vmx_entry_insn_len(len) vmcs_write32(VMCS_ENTRY_INSN_LEN, (len))
/* Primary processor-based controls (interrupt/NMI-window exiting, §25.6.2). */
static inline uint32_t vmx_proc_ctls(void) { return vmcs_read32(VMCS_PROC_CTLS); }
#define vmx_proc_ctls_set(c) vmcs_write32(VMCS_PROC_CTLS, (c))
/* VMX-preemption timer value (§26.5.1), in timer ticks. */
#define vmx_preempt_timer_set(ticks) vmcs_write32(VMCS_PREEMPT_TIMER, (ticks))
/* PLE_Window (§25.6.13), cycles. */
#define vmx_ple_window_set(w) vmcs_write32(VMCS_PLE_WINDOW, (w))
static inline uint64_t vmx_tsc_offset(void) { return vmcs_read64(VMCS_TSC_OFFSET); }
#endif
