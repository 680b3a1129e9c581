/* APIC virtualization in the VMX core (SDM vol. 3C ch. 30): the vLAPIC's
 * register page is the virtual-APIC page; xAPIC guests get one APIC-access
 * page per VM at 0xFEE00000, x2APIC guests "virtualize x2APIC mode" with the
 * MSR range passed through as the SDM allows; virtual-interrupt delivery with
 * RVI/SVI and the EOI-exit bitmap, or a TPR threshold without it. No posted
 * interrupts: a vCPU on another pCPU gets IRR set in its page and a kick IPI,
 * and the next entry recomputes RVI. Off: every APIC access exits (decoder). */
#ifndef HV_VMX_APICV_H
#define HV_VMX_APICV_H
#include "vmx/vmcs.h"
#include "dev/vlapic.h"

/* hv/vmx's part of a vCPU and of a VM (vmx/vcpu.h). */
struct vmx_vcpu;
struct vmx_vm;

/* BSP, after VMXON on every CPU, before any VM: settle apicv_vid_gate
 * (auto: the self-test of vid_selftest.c decides; on/off force it). */
void apicv_host_init(void);

/* Boot option apicv= (default on), per-VM module key apicv=, and the CPU's
 * capabilities: does this VM use APIC virtualization? */
bool apicv_vm_enabled(const struct vmx_vm *vm);

/* From vmcs_setup (VMCS current): add the APICv controls to proc/proc2 and
 * write the fields of the features present (virtual-APIC page, APIC-access
 * page, TPR threshold, EOI-exit bitmap, guest interrupt status). Maps the
 * VM's APIC-access page in EPT on first use. 0 or -ENOMEM. */
int apicv_vmcs_setup(struct vmx_vcpu *v, uint32_t *proc, uint32_t *proc2);

/* Before each VM entry (VMCS current, from inject_events): follow the vLAPIC
 * mode (xAPIC / x2APIC / disabled), then with virtual-interrupt delivery write
 * the guest interrupt status (RVI recomputed from the page: a kick from
 * another pCPU only set IRR) and, when needed, the EOI-exit bitmap; without
 * it, the TPR threshold. Returns true when interrupts from the vLAPIC are
 * delivered by the CPU (the caller must then inject only NMI and ExtINT). */
bool apicv_entry(struct vmx_vcpu *v);
/* An event is injected at this entry (its handler starts with IF=0): hide
 * RVI until the interrupt window (issue 17, apicv_calc.h); sets
 * v->vid_window when it did. */
void apicv_hold_rvi(struct vmx_vcpu *v);

/* Issue 18: at an exit after which the guest can take an interrupt at once
 * (RFLAGS.IF = 1, no STI/MOV-SS blocking: the caller knows it), release the
 * vector the VID gate held back at the last entry (v->vid_window): RVI/SVI
 * and the EOI-exit bitmap as apicv_entry() would set them, VMCS current.
 * Returns the RVI entered when done (the interrupt window is then no
 * longer needed): nonzero when the entry delivers it, 0 when TPR or an
 * in-service vector masks it (SDM §30.1.3, §30.2.1; then held for the
 * in-service vectors' EOI exits, apicv_calc.h). -1 when nothing was held or
 * the APIC mode changed (take the run loop). */
int apicv_gate_release(struct vmx_vcpu *v);

/* Issue 18, without the VID gate (v->vid_ungated), VMCS current. RVI's
 * priority class (bits 7:4 of the guest interrupt status, SDM §25.4.2):
 * 0 when no virtual interrupt is pending (the blocking HLT's case: one
 * VMREAD and a test). RVI is the CPU's own since the last slow entry wrote
 * it from the page; an IRR bit set since by another pCPU came with a kick,
 * which the caller's fast re-entry test sees. */
static inline unsigned apicv_rvi_class(void)
{
	return vmcs_read16(VMCS_GUEST_INTR_STATUS) & 0xf0u;
}
/* Would the CPU deliver a virtual interrupt at the next VM entry, the guest
 * having RFLAGS.IF = 1 and no STI/MOV-SS blocking (the caller checks those)?
 * VM entry loads RVI and SVI from the guest interrupt status, performs PPR
 * virtualization (VPPR = VTPR if VTPR[7:4] >= SVI[7:4], else SVI[7:4]:0;
 * SDM §30.1.3) and evaluates pending virtual interrupts (§27.3.2.5): one is
 * delivered when RVI[7:4] > VPPR[7:4] (§30.2.1). So: RVI's class above
 * both SVI's and VTPR's. apic_page: where the vCPU keeps its virtual-APIC
 * page (VTPR), read only when RVI passes SVI (as it was when this took the
 * vCPU: the VMREAD's memory clobber would otherwise pin the load before it,
 * two instructions more on the HLT exit that blocks). */
static inline bool apicv_rvi_deliverable(void *const *apic_page)
{
	uint16_t st = vmcs_read16(VMCS_GUEST_INTR_STATUS);
	unsigned rvi_class = st & 0xf0;

	return rvi_class > ((st >> 8) & 0xf0u) &&
	       rvi_class > (((const volatile uint8_t *)*apic_page)[APIC_TPR] & 0xf0u);
}

/* Exit hooks: the EOI-exit bitmap may have to change (level IPI, IOAPIC). */
void apicv_config_changed(struct vmx_vcpu *v);
#endif
