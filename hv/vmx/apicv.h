/* APIC virtualization in the VMX core (SDM vol. 3C ch. 30): the vLAPIC's
 * register page is the virtual-APIC page; xAPIC guests get one APIC-access
 * page per VM at 0xFEE00000, x2APIC guests "virtualize x2APIC mode" with the
 * MSR range passed through as the SDM allows; virtual-interrupt delivery with
 * RVI/SVI and the EOI-exit bitmap, or a TPR threshold without it. No posted
 * interrupts: a vCPU on another pCPU gets IRR set in its page and a kick IPI,
 * and the next entry recomputes RVI. Off: every APIC access exits (decoder). */
#ifndef HV_VMX_APICV_H
#define HV_VMX_APICV_H
#include "vm/vm.h"

/* BSP, after VMXON on every CPU, before any VM: settle apicv_vid_gate
 * (auto: the self-test of vid_selftest.c decides; on/off force it). */
void apicv_host_init(void);

/* Boot option apicv= (default on), per-VM module key apicv=, and the CPU's
 * capabilities: does this VM use APIC virtualization? */
bool apicv_vm_enabled(const struct vm *vm);

/* From vmcs_setup (VMCS current): add the APICv controls to proc/proc2 and
 * write the fields of the features present (virtual-APIC page, APIC-access
 * page, TPR threshold, EOI-exit bitmap, guest interrupt status). Maps the
 * VM's APIC-access page in EPT on first use. 0 or -ENOMEM. */
int apicv_vmcs_setup(struct vcpu *v, uint32_t *proc, uint32_t *proc2);

/* Before each VM entry (VMCS current, from inject_events): follow the vLAPIC
 * mode (xAPIC / x2APIC / disabled), then with virtual-interrupt delivery write
 * the guest interrupt status (RVI recomputed from the page: a kick from
 * another pCPU only set IRR) and, when needed, the EOI-exit bitmap; without
 * it, the TPR threshold. Returns true when interrupts from the vLAPIC are
 * delivered by the CPU (the caller must then inject only NMI and ExtINT). */
bool apicv_entry(struct vcpu *v);
/* An event is injected at this entry (its handler starts with IF=0): hide
 * RVI until the interrupt window (issue 17, apicv_calc.h); sets
 * v->vid_window when it did. */
void apicv_hold_rvi(struct vcpu *v);

/* Issue 18: at an exit after which the guest can take an interrupt at once
 * (RFLAGS.IF = 1, no STI/MOV-SS blocking: the caller knows it), release the
 * vector the VID gate held back at the last entry (v->vid_window): RVI/SVI
 * and the EOI-exit bitmap as apicv_entry() would set them, VMCS current.
 * True when done (the interrupt window is then no longer needed); false
 * when nothing was held or the APIC mode changed (take the run loop). */
bool apicv_gate_release(struct vcpu *v);

/* Exit hooks: the EOI-exit bitmap may have to change (level IPI, IOAPIC). */
void apicv_config_changed(struct vcpu *v);
#endif
