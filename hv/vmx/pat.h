/* Which IA32_PAT values WRMSR accepts (SDM vol. 3 §11.12.2, "Attempting to
 * write an undefined memory type encoding into the PAT causes a #GP"): each
 * of the 8 entries must be UC (0), WC (1), WT (4), WP (5), WB (6) or UC- (7);
 * 2, 3 and 8-255 are reserved. Pure. */
#ifndef HV_VMX_PAT_H
#define HV_VMX_PAT_H
#include "types.h"

static inline bool pat_write_ok(uint64_t v)
{
	for (unsigned i = 0; i < 8; i++) {
		uint8_t t = (uint8_t)(v >> (8 * i));

		if (t > 7 || t == 2 || t == 3)
			return false;
	}
	return true;
}
#endif
