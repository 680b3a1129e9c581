/* Page allocator state shared by pmm.c (bitmap, alloc/free) and
 * pmm_range.c (range lists of the build phase); not for other users. */
#ifndef HV_MM_PMM_INTERNAL_H
#define HV_MM_PMM_INTERNAL_H
#include "mm/pmm.h"
#include "spinlock.h"

struct pmm_range { uint64_t start, end; };   /* page frame numbers, [start, end) */
struct pmm_ranges { unsigned n, max; struct pmm_range r[PMM_MAX_RANGES]; };

struct pmm_state {
	struct pmm_ranges usable, reserved, windows;
	uint64_t *map;                 /* bit i: pfn base_pfn + i is not free */
	paddr_t bitmap_pa;
	uint64_t bitmap_bytes;
	uint64_t base_pfn, end_pfn;    /* pfns the bitmap covers */
	uint64_t total, nfree;
	bool ready;
	spinlock_t lock;
};
extern struct pmm_state pmm;

int pmm_ranges_add(struct pmm_ranges *rs, uint64_t start, uint64_t end);
void pmm_ranges_normalize(struct pmm_ranges *rs);   /* sort and merge */
bool pmm_ranges_overlap(const struct pmm_ranges *rs, uint64_t start, uint64_t end);
bool pmm_ranges_cover(const struct pmm_ranges *rs, uint64_t start, uint64_t end);
/* The range functions take the state (pmm.c's `pmm`) as an argument, so
 * that pmm_range.c names nothing of pmm.c (tools/check_layers.py). */
/* Lowest [s, s+n) inside a usable range of p, at or above `from`, clear of
 * reserved ranges; 0 if none. */
uint64_t pmm_ranges_find_free(const struct pmm_state *p, uint64_t from, uint64_t n);
/* May [start, end) ever be handed out (usable, allowed, not reserved)? */
bool pmm_range_allocatable(const struct pmm_state *p, uint64_t start, uint64_t end);
#endif
