/* The guest's segment registers as the CPU has them cached (SDM vol. 3
 * §25.4.1), for the segmentation checks of vmx/seg_check.h. */
#include "vmx/seg_check.h"
#include "vmx/vmcs.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"

#define RFLAGS_VM BIT(17)
#define CS_AR_L   BIT(13)

/* The base, limit and access-rights fields of ES, CS, SS, DS, FS, GS are
 * each 2 encodings apart, in the Sreg order (§B.1-B.4). */
void seg_view_read(unsigned seg, struct seg_view *s)
{
	s->seg = (uint8_t)seg;
	if ((vmcs_read64(VMCS_GUEST_EFER) & EFER_LMA) && (vmcs_read32(VMCS_GUEST_CS_AR) & CS_AR_L))
		s->mode = SEG_MODE_64;
	else if (!(vmcs_readnat(VMCS_GUEST_CR0) & CR0_PE) ||
		 (vmcs_readnat(VMCS_GUEST_RFLAGS) & RFLAGS_VM))
		s->mode = SEG_MODE_REAL;
	else
		s->mode = SEG_MODE_PROT;
	s->base = vmcs_vmread(VMCS_GUEST_ES_BASE + 2 * seg);
	s->limit = (uint32_t)vmcs_vmread(VMCS_GUEST_ES_LIMIT + 2 * seg);
	s->ar = (uint32_t)vmcs_vmread(VMCS_GUEST_ES_AR + 2 * seg);
}
