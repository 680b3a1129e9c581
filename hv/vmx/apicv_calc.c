/* APIC virtualization, the pure part (see apicv_calc.h): derived state of the
 * virtual-APIC page and the x2APIC MSR bitmap. SDM vol. 3C ch. 30. */
#include "vmx/apicv_calc.h"

#define PAGE_TMR 0x180u
#define PAGE_IRR 0x200u   /* as in apicv_calc_intr_status() */
#define PAGE_TPR 0x080u

#define RTE_LEVEL_BIT  (1ull << 15)
#define RTE_DM(r)      (((r) >> 8) & 7)

#define PAGE_ISR 0x100u

static void reg_or(const uint32_t *page, unsigned base, uint64_t out[4])
{
	for (unsigned i = 0; i < 8; i++)
		out[i / 2] |= (uint64_t)READ_ONCE(page[(base + i * 0x10) / 4]) << (32 * (i % 2));
}

/* Another IRR vector than rvi? (No popcount: it is a libgcc call here, and
 * this runs before every entry with a vector pending.) Straight-line, the
 * eight words as four quadwords with rvi's bit masked out of its own:
 * the loop with a per-word test was ~100 of the VID gate's ~180 cycles on
 * every entry with a vector (issue 18, make bench-exits HLT-timer row). */
static bool irr_other(const uint32_t *page, unsigned rvi)
{
	const volatile uint32_t *r = page + PAGE_IRR / 4;
	uint64_t bit = 1ull << (rvi % 64);
	unsigned q = rvi / 64;
	uint64_t q0 = r[0] | (uint64_t)r[4] << 32, q1 = r[8] | (uint64_t)r[12] << 32;
	uint64_t q2 = r[16] | (uint64_t)r[20] << 32, q3 = r[24] | (uint64_t)r[28] << 32;

	q0 &= q == 0 ? ~bit : ~0ull;
	q1 &= q == 1 ? ~bit : ~0ull;
	q2 &= q == 2 ? ~bit : ~0ull;
	q3 &= q == 3 ? ~bit : ~0ull;
	return (q0 | q1 | q2 | q3) != 0;
}

uint16_t apicv_calc_gated_status(const uint32_t *page, uint16_t st, bool can_intr, bool *window,
				 uint64_t extra[4])
{
	unsigned rvi = st & 0xff, svi = st >> 8;
	unsigned tpr = READ_ONCE(page[PAGE_TPR / 4]) & 0xff;

	extra[0] = extra[1] = extra[2] = extra[3] = 0;
	*window = false;
	if (!rvi)
		return st;
	if (!can_intr || (rvi >> 4) <= MAX(tpr >> 4, svi >> 4)) {
		if (!can_intr)
			*window = true;
		else
			reg_or(page, PAGE_ISR, extra);
		return (uint16_t)(st & 0xff00);
	}
	if (irr_other(page, rvi)) {
		reg_or(page, PAGE_IRR, extra);
		reg_or(page, PAGE_ISR, extra);
	}
	return st;
}

uint8_t apicv_calc_tpr_threshold(const uint32_t *page)
{
	unsigned irr_class = (unsigned)apicv_calc_vec_highest(page, PAGE_IRR) >> 4;
	unsigned tpr_class = (READ_ONCE(page[PAGE_TPR / 4]) >> 4) & 0xf;

	return irr_class && irr_class <= tpr_class ? (uint8_t)irr_class : 0;
}

/* Vectors of level-triggered fixed/lowest-priority IOAPIC entries: their
 * EOI must reach the IOAPIC (remote IRR). */
void apicv_calc_level_vectors(const uint64_t *rte, unsigned nr_rte, uint64_t out[4])
{
	out[0] = out[1] = out[2] = out[3] = 0;
	for (unsigned p = 0; p < nr_rte; p++) {
		uint64_t r = READ_ONCE(rte[p]);
		uint8_t vec = (uint8_t)r;

		if ((r & RTE_LEVEL_BIT) && RTE_DM(r) <= 1 && vec >= 16)
			out[vec / 64] |= 1ull << (vec % 64);
	}
}

void apicv_calc_eoi_from_level(const uint32_t *page, const uint64_t level[4], uint64_t out[4])
{
	for (unsigned w = 0; w < 4; w++)
		out[w] = ((uint64_t)READ_ONCE(page[(PAGE_TMR + 32 * w) / 4]) |
			  (uint64_t)READ_ONCE(page[(PAGE_TMR + 32 * w + 16) / 4]) << 32) | level[w];
}

void apicv_calc_eoi_bitmap(const uint32_t *page, const uint64_t *rte, unsigned nr_rte,
			   uint64_t out[4])
{
	uint64_t level[4];

	apicv_calc_level_vectors(rte, nr_rte, level);
	apicv_calc_eoi_from_level(page, level, out);
}

/* MSR bitmap layout (SDM §25.6.9): read-low at 0, write-low at 2048, one bit
 * per MSR 0..0x1fff. */
static void msr_pass(uint8_t *bitmap, uint32_t msr, bool write)
{
	unsigned off = (write ? 2048u : 0u) + msr / 8;

	bitmap[off] &= (uint8_t)~(1u << (msr % 8));
}

bool apicv_calc_msr_intercepted(const uint8_t bitmap[4096], uint32_t msr, bool write)
{
	unsigned off = (write ? 2048u : 0u) + (msr & 0x1fff) / 8;

	if (msr > 0x1fff)
		return true;   /* only the low range matters here */
	return (bitmap[off] >> (msr % 8)) & 1;
}

/* x2APIC registers the CPU reads from the virtual-APIC page with APIC-register
 * virtualization (SDM §30.5): ID, version, TPR, PPR, LDR, SVR, ISR, TMR, IRR,
 * ESR, ICR, the LVTs without CMCI, initial count, divide configuration. */
static bool x2apic_read_virtualized(uint32_t msr)
{
	switch (msr) {
	case 0x802: case 0x803: case 0x808: case 0x80a: case 0x80d: case 0x80f:
	case 0x828: case 0x830: case 0x838: case 0x83e:
		return true;
	default:
		return (msr >= 0x810 && msr <= 0x827) || (msr >= 0x832 && msr <= 0x837);
	}
}

void apicv_calc_x2apic_bitmap(uint8_t bitmap[4096], bool reg_virt, bool vid, bool self_ipi)
{
	for (uint32_t m = 0x800; m <= 0x8ff; m++)
		if (reg_virt && x2apic_read_virtualized(m))
			msr_pass(bitmap, m, false);
	msr_pass(bitmap, 0x808, true);            /* TPR virtualization (§30.1.2) */
	if (vid) {
		msr_pass(bitmap, 0x80b, true);    /* EOI virtualization (§30.1.4) */
		if (self_ipi)
			msr_pass(bitmap, 0x83f, true);   /* self-IPI virtualization (§30.1.5) */
	}
}
