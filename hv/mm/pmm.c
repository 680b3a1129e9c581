/* Physical page allocator: one bit per page frame over the span of usable
 * RAM; allocation scans top down a word at a time and skips whole used runs,
 * so a 256 MiB, 2 MiB-aligned block costs a few thousand word reads. */
#include "mm/pmm_internal.h"
#include "mm/bitmap.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

struct pmm_state pmm;

static void *identity_map(paddr_t pa, uint64_t len)
{
	return (void *)(uintptr_t)pa;
}
void *(*pmm_phys_to_virt)(paddr_t pa, uint64_t len) = identity_map;

void pmm_reset(void)
{
	memset(&pmm, 0, sizeof(pmm));
	pmm.usable.max = PMM_MAX_RANGES;
	pmm.reserved.max = PMM_MAX_RANGES;
	pmm.windows.max = PMM_MAX_WINDOWS;
}

/* [base, base+len) in pfns, inward (usable) or outward (reserved). */
static void pfn_span(paddr_t base, uint64_t len, bool outward, uint64_t *s, uint64_t *e)
{
	uint64_t end = base + len < base ? UINT64_MAX : base + len;

	end = MIN(end, PMM_MAX_PHYS);
	base = MIN(base, PMM_MAX_PHYS);
	*s = (outward ? base : base + PAGE_SIZE - 1) >> PAGE_SHIFT;
	*e = (outward ? end + PAGE_SIZE - 1 : end) >> PAGE_SHIFT;
}

int pmm_add_usable(paddr_t base, uint64_t len)
{
	uint64_t s, e;

	pfn_span(base, len, false, &s, &e);
	if (pmm.ready || pmm_ranges_add(&pmm.usable, s, e)) {
		pr_warn("pmm: usable range 0x%llx+0x%llx ignored (%s)\n", (unsigned long long)base,
			(unsigned long long)len, pmm.ready ? "after init" : "table full");
		return -ENOSPC;
	}
	return 0;
}

int pmm_allow_low(paddr_t base, uint64_t len)
{
	uint64_t s, e;

	pfn_span(base, len, false, &s, &e);
	if (pmm.ready || pmm_ranges_add(&pmm.windows, s, e)) {
		pr_err("pmm: low window 0x%llx+0x%llx refused\n", (unsigned long long)base,
		       (unsigned long long)len);
		return -ENOSPC;
	}
	return 0;
}

/* Mark pfns [s, e) used (clipped to the bitmap); returns pages newly taken. */
static uint64_t map_take(uint64_t s, uint64_t e)
{
	s = MAX(s, pmm.base_pfn);
	e = MIN(e, pmm.end_pfn);
	if (s >= e)
		return 0;
	return bitmap_assign(pmm.map, s - pmm.base_pfn, e - pmm.base_pfn, true);
}

static void map_give(uint64_t s, uint64_t e)
{
	s = MAX(s, pmm.base_pfn);
	e = MIN(e, pmm.end_pfn);
	if (s < e)
		bitmap_assign(pmm.map, s - pmm.base_pfn, e - pmm.base_pfn, false);
}

int pmm_add_reserved(paddr_t base, uint64_t len)
{
	uint64_t s, e, taken;

	pfn_span(base, len, true, &s, &e);
	spin_lock(&pmm.lock);
	if (pmm_ranges_add(&pmm.reserved, s, e)) {
		spin_unlock(&pmm.lock);
		pr_err("pmm: too many reserved ranges; cannot reserve 0x%llx+0x%llx\n",
		       (unsigned long long)base, (unsigned long long)len);
		return -ENOSPC;
	}
	if (pmm.ready) {
		taken = map_take(s, e);
		pmm.nfree -= taken;
		pmm.total -= taken;
	}
	spin_unlock(&pmm.lock);
	return 0;
}

uint64_t pmm_bitmap_bytes(void)
{
	struct pmm_ranges u = pmm.usable;
	uint64_t base, end;

	if (!u.n)
		return 0;
	pmm_ranges_normalize(&u);
	base = ALIGN_DOWN(u.r[0].start, 64);
	end = u.r[u.n - 1].end;
	return ALIGN_UP((end - base + 63) / 64 * 8, PAGE_SIZE);
}

/* Where the bitmap lives: the caller's storage or the lowest fit above 1 MiB. */
static int bitmap_place(paddr_t storage, uint64_t size, uint64_t bytes)
{
	uint64_t pfn;

	if (storage) {
		if (size < bytes) {
			pr_err("pmm: bitmap storage of %llu bytes, need %llu\n",
			       (unsigned long long)size, (unsigned long long)bytes);
			return -EINVAL;
		}
		pmm.bitmap_pa = storage;
	} else {
		pfn = pmm_ranges_find_free(&pmm, PMM_LOW_END >> PAGE_SHIFT, bytes >> PAGE_SHIFT);
		if (!pfn) {
			pr_err("pmm: no free usable range of %llu bytes for the bitmap\n",
			       (unsigned long long)bytes);
			return -ENOMEM;
		}
		pmm.bitmap_pa = pfn << PAGE_SHIFT;
	}
	pmm.bitmap_bytes = bytes;
	pmm.map = pmm_phys_to_virt(pmm.bitmap_pa, bytes);
	return pmm.map ? pmm_add_reserved(pmm.bitmap_pa, bytes) : -EFAULT;
}

/* Free = usable, at or above 1 MiB or inside an allowed window, not reserved. */
static void bitmap_fill(void)
{
	uint64_t low_end = PMM_LOW_END >> PAGE_SHIFT;

	memset(pmm.map, 0xff, pmm.bitmap_bytes);
	for (unsigned i = 0; i < pmm.usable.n; i++) {
		const struct pmm_range *u = &pmm.usable.r[i];
		map_give(MAX(u->start, low_end), u->end);
		for (unsigned j = 0; j < pmm.windows.n; j++) {
			const struct pmm_range *w = &pmm.windows.r[j];
			map_give(MAX(u->start, w->start), MIN(MIN(u->end, w->end), low_end));
		}
	}
	for (unsigned i = 0; i < pmm.reserved.n; i++)
		map_take(pmm.reserved.r[i].start, pmm.reserved.r[i].end);
	map_take(0, 1);   /* page 0 means "no page" */
}

int pmm_init(paddr_t storage, uint64_t size)
{
	int rc;

	if (pmm.ready)
		return -EINVAL;
	if (!pmm.usable.n) {
		pr_err("pmm: no usable RAM in the memory map\n");
		return -ENOMEM;
	}
	pmm_ranges_normalize(&pmm.usable);
	pmm_ranges_normalize(&pmm.windows);
	pmm.base_pfn = ALIGN_DOWN(pmm.usable.r[0].start, 64);
	pmm.end_pfn = pmm.usable.r[pmm.usable.n - 1].end;
	rc = bitmap_place(storage, size, pmm_bitmap_bytes());
	if (rc)
		return rc;
	pmm_ranges_normalize(&pmm.reserved);
	bitmap_fill();
	pmm.total = pmm.nfree = (pmm.end_pfn - pmm.base_pfn) -
		bitmap_count(pmm.map, 0, pmm.end_pfn - pmm.base_pfn);
	pmm.ready = true;
	return 0;
}
