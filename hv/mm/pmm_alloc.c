/* Page allocator hot paths: allocate (top down, aligned, bounded), free with
 * checks, statistics. All under pmm.lock. */
#include "mm/pmm_internal.h"
#include "mm/bitmap.h"
#include "errno.h"
#include "log.h"

/* Highest block [cand, cand+n) of free pfns with cand
 * aligned to ap and cand+n <= hi; 0 if none. A used page at `last` rules out
 * every start in (last-n, cand], and so does the whole used run below it. */
static uint64_t block_find(uint64_t n, uint64_t ap, uint64_t hi)
{
	uint64_t base = pmm.base_pfn, cand;
	int64_t last, below;

	if (hi < base + n)
		return 0;
	cand = ALIGN_DOWN(hi - n, ap);
	while (cand >= base && cand > 0) {
		last = bitmap_find_last(pmm.map, cand - base, cand - base + n, true);
		if (last < 0)
			return cand;
		below = bitmap_find_last(pmm.map, 0, (uint64_t)last, false);
		if (below < 0 || base + (uint64_t)below + 1 < n)
			return 0;
		cand = ALIGN_DOWN(base + (uint64_t)below + 1 - n, ap);
	}
	return 0;
}

paddr_t pmm_alloc_pages(uint64_t n, uint64_t align, paddr_t limit)
{
	uint64_t ap = align > PAGE_SIZE ? align >> PAGE_SHIFT : 1;
	uint64_t hi, pfn;

	if (!pmm.ready || !n || (ap & (ap - 1)))
		return 0;
	hi = limit ? MIN(pmm.end_pfn, limit >> PAGE_SHIFT) : pmm.end_pfn;
	spin_lock(&pmm.lock);
	pfn = block_find(n, ap, hi);
	if (pfn) {
		bitmap_assign(pmm.map, pfn - pmm.base_pfn, pfn - pmm.base_pfn + n, true);
		pmm.nfree -= n;
	}
	spin_unlock(&pmm.lock);
	return pfn << PAGE_SHIFT;
}

int pmm_free_pages(paddr_t pa, uint64_t n)
{
	uint64_t s = pa >> PAGE_SHIFT, e = s + n;
	int rc = -EINVAL;

	spin_lock(&pmm.lock);
	if (pmm.ready && IS_ALIGNED(pa, PAGE_SIZE) && n && e > s && pmm_range_allocatable(&pmm, s, e)) {
		rc = -EBUSY;
		if (bitmap_count(pmm.map, s - pmm.base_pfn, e - pmm.base_pfn) == n) {
			bitmap_assign(pmm.map, s - pmm.base_pfn, e - pmm.base_pfn, false);
			pmm.nfree += n;
			rc = 0;
		}
	}
	spin_unlock(&pmm.lock);
	if (rc == -EINVAL)
		pr_err("pmm: refusing to free 0x%llx+%llu pages: not allocatable memory\n",
		       (unsigned long long)pa, (unsigned long long)n);
	else if (rc)
		pr_err("pmm: double free of 0x%llx+%llu pages (some are already free)\n",
		       (unsigned long long)pa, (unsigned long long)n);
	return rc ? -EINVAL : 0;
}

void pmm_stats_get(struct pmm_stats *st)
{
	spin_lock(&pmm.lock);
	*st = (struct pmm_stats){
		.total_pages = pmm.total, .free_pages = pmm.nfree,
		.lo = pmm.base_pfn << PAGE_SHIFT, .hi = pmm.end_pfn << PAGE_SHIFT,
		.bitmap_pa = pmm.bitmap_pa, .bitmap_bytes = pmm.bitmap_bytes,
	};
	spin_unlock(&pmm.lock);
}

void pmm_print(void)
{
	struct pmm_stats st;

	pmm_stats_get(&st);
	pr_info("pmm: %llu MiB allocatable, %llu MiB free, span 0x%llx-0x%llx, "
		"bitmap %llu KiB at 0x%llx\n",
		(unsigned long long)(st.total_pages >> 8), (unsigned long long)(st.free_pages >> 8),
		(unsigned long long)st.lo, (unsigned long long)st.hi,
		(unsigned long long)(st.bitmap_bytes >> 10), (unsigned long long)st.bitmap_pa);
}
