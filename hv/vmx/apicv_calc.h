/* APIC virtualization, the pure part: what the VMX layer derives from the
 * virtual-APIC page (guest interrupt status, TPR threshold, EOI-exit bitmap)
 * and the x2APIC MSR pass-through. No privileged instruction: host-testable.
 * References: Intel SDM vol. 3C ch. 30 "APIC Virtualization and Virtual Interrupts". */
#ifndef HV_VMX_APICV_CALC_H
#define HV_VMX_APICV_CALC_H
#include "compiler.h"

/* Guest interrupt status (SDM §30.1.1 / §25.4.2): SVI << 8 | RVI, where RVI is
 * the highest VIRR vector and SVI the highest VISR vector (0 when none). */
uint16_t apicv_calc_intr_status(const uint32_t *page);

/* TPR threshold when the TPR shadow is used without virtual-interrupt delivery
 * (SDM §30.1.2): the class of the highest pending vector if VTPR masks it, so
 * that lowering VTPR below it exits; 0 otherwise. Never above VTPR[7:4]
 * (entry check of SDM §26.2.1.1). */
uint8_t apicv_calc_tpr_threshold(const uint32_t *page);

/* EOI-exit bitmap (SDM §30.1.4): vectors accepted as level-triggered (TMR)
 * plus the vectors of level-triggered fixed/lowest-priority IOAPIC entries,
 * whose EOI must reach the IOAPIC (remote IRR). */
void apicv_calc_eoi_bitmap(const uint32_t *page, const uint64_t *rte, unsigned nr_rte,
			   uint64_t out[4]);

/* An x2APIC MSR bitmap from the base one (SDM §30.5, §25.6.9): reads of the
 * registers the CPU virtualizes from the page pass through when APIC-register
 * virtualization is on (never the current count, 0x839); writes of TPR, and
 * with virtual-interrupt delivery EOI and SELF IPI, pass through. */
void apicv_calc_x2apic_bitmap(uint8_t bitmap[4096], bool reg_virt, bool vid);
/* Does the bitmap intercept `msr` (read or write)? For tests and asserts. */
bool apicv_calc_msr_intercepted(const uint8_t bitmap[4096], uint32_t msr, bool write);
#endif
