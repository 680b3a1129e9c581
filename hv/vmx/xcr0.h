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
#endif
