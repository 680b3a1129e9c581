/* How a VM ended: the status vm_stop() records, the end-of-run summary
 * prints ("ended status=N reason=...") and the tests read. A core header:
 * device models, hv/vm and hv/vmx all stop VMs. */
#ifndef HV_VM_STATUS_H
#define HV_VM_STATUS_H

#define VM_STOP_POWEROFF     0       /* ACPI S5 (PM1a_CNT SLP_EN) */
#define VM_STOP_DEBUGEXIT_OK 1       /* isa-debug-exit with 0: (0 << 1) | 1, QEMU's convention */
/* isa-debug-exit with v: (v << 1) | 1 (dev/debugexit.h), odd values 3..511. */
#define VM_STOP_BAD_GPA      124     /* access outside RAM and devices (at or above 4 GiB) */
#define VM_STOP_TRIPLE_FAULT 125     /* triple fault (or shutdown) */
#define VM_STOP_VMX_FAILED   126     /* VMCS load or VM entry failed, exit not handled */
#define VM_STOP_SCHED_BROKEN 127     /* about to enter a vCPU the scheduler does not run here */
#define VM_STOP_RESET        0x100   /* guest-requested reset (0xCF9, 0x64, FADT reset) */
#endif
