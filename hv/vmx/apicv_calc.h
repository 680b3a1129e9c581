/* APIC virtualization, the pure part: what the VMX layer derives from the
 * virtual-APIC page (guest interrupt status, TPR threshold, EOI-exit bitmap)
 * and the x2APIC MSR pass-through. No privileged instruction: host-testable.
 * References: Intel SDM vol. 3C ch. 30 "APIC Virtualization and Virtual Interrupts". */
#ifndef HV_VMX_APICV_CALC_H
#define HV_VMX_APICV_CALC_H
#include "compiler.h"

/* Highest vector set in a 256-bit page register at byte offset `base` (eight
 * 32-bit words 16 bytes apart, SDM §30.1.1), 0 when none. Inline: it runs
 * before every VM entry, mostly on empty registers, so the words are ORed in
 * straight-line code first (Bochs counts every instruction). */
static inline int apicv_calc_vec_highest(const uint32_t *page, unsigned base)
{
	const volatile uint32_t *r = page + base / 4;
	uint32_t w[8] = { r[0], r[4], r[8], r[12], r[16], r[20], r[24], r[28] };

	if (!(w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]))
		return 0;
	for (int i = 7; i > 0; i--)
		if (w[i])
			return i * 32 + 31 - __builtin_clz(w[i]);
	return 31 - __builtin_clz(w[0]);
}

/* Guest interrupt status (SDM §30.1.1 / §25.4.2): SVI << 8 | RVI, where RVI is
 * the highest VIRR vector and SVI the highest VISR vector (0 when none). */
static inline uint16_t apicv_calc_intr_status(const uint32_t *page)
{
	return (uint16_t)(apicv_calc_vec_highest(page, 0x100) << 8 |
			  apicv_calc_vec_highest(page, 0x200));
}

/* Issue 17: Bochs 2.7 delivers a pending virtual interrupt into the guest
 * even with the guest's RFLAGS.IF = 0 when a host interrupt arrives: its
 * handleAsyncEvent() takes the external-interrupt branch (unmasked in VMX
 * non-root operation with external-interrupt exiting) and
 * InterruptAcknowledge() then delivers the virtual interrupt if it is merely
 * pending (is_pending), instead of the VM exit (SDM §30.2.1 delivers a
 * virtual interrupt only with RFLAGS.IF = 1 and no STI/MOV-SS blocking). A
 * Linux guest then took its timer interrupt inside a runqueue-locked,
 * interrupts-off region and deadlocked on the lock it held (kvm_wait()
 * with IF=0, docs/interrupts.md). So the CPU is never left holding a virtual
 * interrupt it cannot deliver at once:
 *  - RVI is cleared at entry when the guest cannot take the vector now
 *    (can_intr false: IF = 0 or an STI/MOV-SS shadow; *window: ask for an
 *    interrupt-window exit) or its priority class is not above PPR's (the
 *    EOIs of the in-service vectors exit, `extra`, so a lower PPR is seen);
 *  - when it can be delivered but more vectors wait, every pending and
 *    in-service vector's EOI exits, so the next one is never exposed by an
 *    EOI inside the handler (interrupts off there).
 * st is apicv_calc_intr_status(page). Returns the guest interrupt status to
 * enter with (SVI << 8 | RVI). */
uint16_t apicv_calc_gated_status(const uint32_t *page, uint16_t st, bool can_intr, bool *window,
				 uint64_t extra[4]);

/* TPR threshold when the TPR shadow is used without virtual-interrupt delivery
 * (SDM §30.1.2): the class of the highest pending vector if VTPR masks it, so
 * that lowering VTPR below it exits; 0 otherwise. Never above VTPR[7:4]
 * (entry check of SDM §26.2.1.1). */
uint8_t apicv_calc_tpr_threshold(const uint32_t *page);

/* EOI-exit bitmap (SDM §30.1.4): vectors accepted as level-triggered (TMR)
 * plus the vectors of level-triggered fixed/lowest-priority IOAPIC entries,
 * whose EOI must reach the IOAPIC (remote IRR). */
/* The two halves of apicv_calc_eoi_bitmap: level-triggered IOAPIC vectors
 * (cached by apicv.c until an RTE changes), then TMR | those. */
void apicv_calc_level_vectors(const uint64_t *rte, unsigned nr_rte, uint64_t out[4]);
void apicv_calc_eoi_from_level(const uint32_t *page, const uint64_t level[4], uint64_t out[4]);
void apicv_calc_eoi_bitmap(const uint32_t *page, const uint64_t *rte, unsigned nr_rte,
			   uint64_t out[4]);

/* An x2APIC MSR bitmap from the base one (SDM §30.5, §25.6.9): reads of the
 * registers the CPU virtualizes from the page pass through when APIC-register
 * virtualization is on (never the current count, 0x839); writes of TPR, and
 * with virtual-interrupt delivery EOI and (self_ipi) SELF IPI, pass through.
 * A virtualized SELF IPI written with IF=0 leaves a virtual interrupt
 * pending that Bochs may deliver at once (issue 17): apicv_vid_gate traps it. */
void apicv_calc_x2apic_bitmap(uint8_t bitmap[4096], bool reg_virt, bool vid, bool self_ipi);
/* Does the bitmap intercept `msr` (read or write)? For tests and asserts. */
bool apicv_calc_msr_intercepted(const uint8_t bitmap[4096], uint32_t msr, bool write);
#endif
