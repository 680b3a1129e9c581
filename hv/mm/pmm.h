/* Physical page allocator: a bitmap over the RAM the boot loader reported,
 * minus every range the caller reserves; contiguous, aligned, bounded
 * allocations (AP trampoline below 1 MiB, guest RAM in 2 MiB-aligned blocks). */
#ifndef HV_MM_PMM_H
#define HV_MM_PMM_H
#include "compiler.h"

#define PMM_MAX_RANGES   128           /* usable and reserved ranges, each */
#define PMM_MAX_WINDOWS  8             /* allowed windows below 1 MiB */
#define PMM_LOW_END      MiB(1)        /* reserved unless a window allows it */
#define PMM_MAX_PHYS     (1ULL << 52)  /* architectural MAXPHYADDR limit */

/* Build phase, before pmm_init(): */
void pmm_reset(void);
/* RAM (memory map type 1); rounded inward to pages. */
int pmm_add_usable(paddr_t base, uint64_t len);
/* Never hand out [base, base+len) (rounded outward). Allowed after
 * pmm_init() as well: free pages in it become used for good. */
int pmm_add_reserved(paddr_t base, uint64_t len);
/* Allow usable RAM in [base, base+len) below 1 MiB (e.g. the AP trampoline). */
int pmm_allow_low(paddr_t base, uint64_t len);
/*
 * Build the bitmap. storage/size: memory for it (reserved here), or 0 to let
 * pmm pick and reserve the lowest fitting usable range above 1 MiB.
 * Returns 0, -ENOMEM (no usable RAM / no room for the bitmap) or -EINVAL.
 */
int pmm_init(paddr_t storage, uint64_t size);
/* Bitmap bytes pmm_init() will need for the ranges added so far. */
uint64_t pmm_bitmap_bytes(void);

/*
 * n contiguous pages aligned to `align` bytes (a power of two >= 4 KiB, or 0
 * for 4 KiB) ending at or below `limit` (0: no limit). Returns the physical
 * address, or 0 when nothing fits (page 0 is never handed out). Searches top
 * down so low memory stays free for whoever needs it. Thread-safe.
 */
paddr_t pmm_alloc_pages(uint64_t n, uint64_t align, paddr_t limit);
static inline paddr_t pmm_alloc_page(void) { return pmm_alloc_pages(1, 0, 0); }
/* Free what pmm_alloc_pages returned (any sub-range of it works too).
 * Freeing pages that are not allocated or never allocatable is refused
 * with -EINVAL and logged. */
int pmm_free_pages(paddr_t pa, uint64_t n);

struct pmm_stats {
	uint64_t total_pages;     /* allocatable pages after reservations */
	uint64_t free_pages;
	paddr_t lo, hi;           /* physical span the bitmap covers */
	paddr_t bitmap_pa;
	uint64_t bitmap_bytes;
};
void pmm_stats_get(struct pmm_stats *st);
void pmm_print(void);

/* Physical-to-virtual for the bitmap storage; identity in the hypervisor,
 * tests point it at host memory. */
extern void *(*pmm_phys_to_virt)(paddr_t pa, uint64_t len);
#endif
