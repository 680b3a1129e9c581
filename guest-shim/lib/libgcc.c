/* 64-bit division helpers the 32-bit build needs (libgcc for -m32 is not
 * installed): restoring shift-subtract division. */
#include <stdint.h>

#ifndef __x86_64__
uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem)
{
	uint64_t q = 0, r = 0;

	if (d == 0) {
		if (rem)
			*rem = 0;
		return UINT64_MAX;
	}
	for (int i = 63; i >= 0; i--) {
		uint64_t carry = r >> 63;      /* r may need 65 bits for huge d */

		r = (r << 1) | ((n >> i) & 1);
		if (carry || r >= d) {
			r -= d;
			q |= 1ULL << i;
		}
	}
	if (rem)
		*rem = r;
	return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d)
{
	return __udivmoddi4(n, d, 0);
}

uint64_t __umoddi3(uint64_t n, uint64_t d)
{
	uint64_t r;

	__udivmoddi4(n, d, &r);
	return r;
}

static uint64_t mag(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

int64_t __divdi3(int64_t n, int64_t d)
{
	uint64_t q = __udivmoddi4(mag(n), mag(d), 0);

	return (n < 0) != (d < 0) ? -(int64_t)q : (int64_t)q;
}

int64_t __moddi3(int64_t n, int64_t d)
{
	uint64_t r;

	__udivmoddi4(mag(n), mag(d), &r);
	return n < 0 ? -(int64_t)r : (int64_t)r;
}
#endif
