/* Building a vCPU's VMCS: controls, host state and initial guest state. */
#ifndef HV_VMX_VMCS_SETUP_H
#define HV_VMX_VMCS_SETUP_H
#include "types.h"
#include "vmx/ept.h"
#include "load/loader.h"

struct vmx_vcpu;

/* vnmi=on|off (on): virtual NMIs with NMI-window exiting where the CPU has
 * both (SDM §25.3). Read by vmcs_setup() and the injection code alike. Open:
 * with them the hostile guest (seed 1) livelocked in NMI-window exits in
 * some builds; without them a 2-VM Linux run lost a timer (docs/interrupts.md). */
extern bool vmx_vnmi;

/* What vmcs_setup() takes from the VM and the vCPU: hv/vm fills it in
 * (issue 11: hv/vmx reads no field of struct vm / struct vcpu here). */
struct vmcs_config {
	const uint8_t *io_bitmap;    /* 8 KiB: bitmaps A and B */
	const uint8_t *msr_bitmap;   /* 4 KiB */
	const struct ept *ept;
	bool ple;                    /* PAUSE-loop exiting wanted */
	uint32_t ple_window;         /* PLE window in cycles; 0: 4096 */
};
/* Allocate, VMCLEAR, VMPTRLD and fill the VMCS of v (on the current pCPU)
 * as cfg says. *vmcs gets the region as soon as it is allocated (also when
 * a later step fails), *ple_window_set the PLE window written (0: no PLE).
 * v is only handed on to apicv_vmcs_setup(). */
int vmcs_setup(struct vmx_vcpu *v, const struct vmcs_config *cfg, paddr_t *vmcs,
	       uint32_t *ple_window_set);
/* Rewrite the per-pCPU host-state fields after a vCPU moved here. */
void vmcs_host_refresh(void);
/* Drop the vCPU's VPID-tagged translations on this pCPU (INVVPID, SDM §31.3). */
void vmx_flush_vpid(void);
/* Drop the translations cached for the EPT tree e on this pCPU (INVEPT). */
void vmx_flush_ept(const struct ept *e);
/* Guest state for an entry described by a loader. */
void vmcs_guest_entry(const struct guest_entry *e);
/* Real-mode state after INIT + SIPI with the given vector (SDM §9.4.4.2 / §11.6.1). */
void vmcs_guest_sipi(uint8_t vector);
/* Write CR0/CR4 as the guest asked, keeping the bits VMX requires (via the read shadows). */
void vmcs_guest_set_cr0(uint64_t val);
void vmcs_guest_set_cr4(uint64_t val);
/* Guest-only host-PMU counting (hv/vm/vcpu_pmu.c) on the current VMCS:
 * RDPMC exiting where the CPU has it; then either the entry/exit "load
 * IA32_PERF_GLOBAL_CTRL" controls with guest value global_ctrl (ctls), or
 * one-entry VM-entry/exit MSR-load lists at entry_load/exit_load (16-byte
 * aligned, SDM §25.7.2, §25.8.2). */
void vmcs_setup_pmu(bool ctls, uint64_t global_ctrl, const void *entry_load,
		    const void *exit_load);
/* CR0/CR4 bits the hypervisor owns (guest/host masks, SDM §25.6.6): the ones
 * VMX operation pins (App. A.7-A.8). Everything else is the guest's. */
#define VMCS_CR0_HOST_OWNED (CR0_NE | CR0_CD | CR0_NW)
#define VMCS_CR4_HOST_OWNED CR4_VMXE
/* CR0/CR4 as the guest reads them: guest-owned bits from the guest-state
 * field, host-owned ones from the read shadow (never the shadow alone). */
uint64_t vmcs_guest_cr0(void);
uint64_t vmcs_guest_cr4(void);
#endif
