/* Which XCR0 values a guest's XSETBV may load (SDM vol. 1 §13.3, vol. 2
 * XSETBV): pure, so the hypervisor never executes an XSETBV that #GPs. */
#ifndef HV_VMX_XCR0_H
#define HV_VMX_XCR0_H
#include "compiler.h"

#define XCR0_X87      BIT(0)
#define XCR0_SSE      BIT(1)
#define XCR0_AVX      BIT(2)
#define XCR0_BNDREGS  BIT(3)
#define XCR0_BNDCSR   BIT(4)
#define XCR0_AVX512   (BIT(5) | BIT(6) | BIT(7))   /* opmask, ZMM_Hi256, Hi16_ZMM */
#define XCR0_XTILECFG  BIT(17)
#define XCR0_XTILEDATA BIT(18)

/* x87 set; only supported bits; AVX needs SSE; MPX's two bits together;
 * AVX-512's three bits together and only with AVX; AMX's two together. */
static inline bool xcr0_valid(uint64_t v, uint64_t supported)
{
	uint64_t z = v & XCR0_AVX512, mpx = v & (XCR0_BNDREGS | XCR0_BNDCSR);
	uint64_t amx = v & (XCR0_XTILECFG | XCR0_XTILEDATA);

	if (!(v & XCR0_X87) || (v & ~supported))
		return false;
	if ((v & XCR0_AVX) && !(v & XCR0_SSE))
		return false;
	if (mpx && mpx != (XCR0_BNDREGS | XCR0_BNDCSR))
		return false;
	if (z && (z != XCR0_AVX512 || !(v & XCR0_AVX)))
		return false;
	return !amx || amx == (XCR0_XTILECFG | XCR0_XTILEDATA);
}
/* The compacted format (SDM vol. 1 §13.4.3): the legacy region and the
 * header fill bytes 0-575, and the first extended component the image holds
 * starts at 576; with XCOMP_BV = AVX only, the AVX component (the upper
 * halves of YMM0-15) fills 576-831. Bochs 2.7's XSAVEC/XSAVES write the
 * extended components at offsets 160 bytes too low (its loop starts from
 * the SSE area at 160 and adds the SSE length: AVX lands at 416, across the
 * header) while its XRSTOR/XRSTORS read them at the SDM's offsets, so every
 * extended register a guest kernel saves with XSAVEC comes back wrong (the
 * two-VM segfault, docs/sched.md). `img`: what XSAVEC wrote with RFBM = x87
 * | SSE | AVX after the AVX component was loaded from `ymm_hi` (256 bytes,
 * no zero byte); true when the AVX data sit at 576 and XSTATE_BV says so. */
#define XSAVEC_AVX_OFF 576u
static inline bool xsavec_layout_ok(const uint8_t *img, const uint8_t *ymm_hi)
{
	uint64_t xstate_bv = 0;

	for (unsigned i = 0; i < 8; i++)
		xstate_bv |= (uint64_t)img[512 + i] << (8 * i);
	if (!(xstate_bv & XCR0_AVX))
		return false;
	for (unsigned i = 0; i < 256; i++)
		if (img[XSAVEC_AVX_OFF + i] != ymm_hi[i])
			return false;
	return true;
}
#endif
