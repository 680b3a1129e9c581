/* Word-at-a-time bit operations over a uint64_t array (bit set = page used),
 * sized for the page allocator's scans of millions of pages. */
#ifndef HV_MM_BITMAP_H
#define HV_MM_BITMAP_H
#include "compiler.h"

#define BITMAP_WORD_BITS 64

static inline bool bitmap_test(const uint64_t *map, uint64_t i)
{
	return (map[i / 64] >> (i % 64)) & 1;
}

/* Mask of bits [lo, hi) within one word, 0 <= lo < hi <= 64. */
static inline uint64_t bitmap_word_mask(unsigned lo, unsigned hi)
{
	uint64_t upper = hi == 64 ? ~0ULL : (1ULL << hi) - 1;
	return upper & ~((1ULL << lo) - 1);
}

/* Set (val true) or clear bits [start, end); returns how many changed. */
static inline uint64_t bitmap_assign(uint64_t *map, uint64_t start, uint64_t end, bool val)
{
	uint64_t changed = 0;

	while (start < end) {
		uint64_t w = start / 64;
		unsigned lo = (unsigned)(start % 64);
		unsigned hi = (unsigned)MIN(64, end - w * 64);
		uint64_t m = bitmap_word_mask(lo, hi);
		uint64_t old = map[w];

		map[w] = val ? old | m : old & ~m;
		changed += (uint64_t)__builtin_popcountll((old ^ map[w]) & m);
		start = w * 64 + hi;
	}
	return changed;
}

/* Highest bit in [start, end) equal to `val`, or -1. */
static inline int64_t bitmap_find_last(const uint64_t *map, uint64_t start, uint64_t end,
				       bool val)
{
	while (end > start) {
		uint64_t w = (end - 1) / 64;
		unsigned lo = start > w * 64 ? (unsigned)(start - w * 64) : 0;
		unsigned hi = (unsigned)(end - w * 64);
		uint64_t bits = (val ? map[w] : ~map[w]) & bitmap_word_mask(lo, hi);

		if (bits)
			return (int64_t)(w * 64 + 63 - (unsigned)__builtin_clzll(bits));
		end = w * 64 + lo;
	}
	return -1;
}

/* Number of set bits in [start, end). */
static inline uint64_t bitmap_count(const uint64_t *map, uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	while (start < end) {
		uint64_t w = start / 64;
		unsigned lo = (unsigned)(start % 64);
		unsigned hi = (unsigned)MIN(64, end - w * 64);

		n += (uint64_t)__builtin_popcountll(map[w] & bitmap_word_mask(lo, hi));
		start = w * 64 + hi;
	}
	return n;
}
#endif
