/* Page allocator build phase: the usable, reserved and low-window range
 * lists, kept as page frame numbers, and the questions asked of them. */
#include "mm/pmm_internal.h"
#include "errno.h"
#include "log.h"

int pmm_ranges_add(struct pmm_ranges *rs, uint64_t start, uint64_t end)
{
	if (start >= end)
		return 0;
	if (rs->n >= rs->max)
		return -ENOSPC;
	rs->r[rs->n++] = (struct pmm_range){ start, end };
	return 0;
}

void pmm_ranges_normalize(struct pmm_ranges *rs)
{
	unsigned i, j, out = 0;

	for (i = 1; i < rs->n; i++)          /* insertion sort: n is small */
		for (j = i; j > 0 && rs->r[j].start < rs->r[j - 1].start; j--) {
			struct pmm_range t = rs->r[j];
			rs->r[j] = rs->r[j - 1];
			rs->r[j - 1] = t;
		}
	for (i = 0; i < rs->n; i++) {
		if (out && rs->r[i].start <= rs->r[out - 1].end)
			rs->r[out - 1].end = MAX(rs->r[out - 1].end, rs->r[i].end);
		else
			rs->r[out++] = rs->r[i];
	}
	rs->n = out;
}

bool pmm_ranges_overlap(const struct pmm_ranges *rs, uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < rs->n; i++)
		if (rs->r[i].start < end && start < rs->r[i].end)
			return true;
	return false;
}

/* Needs normalized ranges: then a covered interval sits in one range. */
bool pmm_ranges_cover(const struct pmm_ranges *rs, uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < rs->n; i++)
		if (rs->r[i].start <= start && end <= rs->r[i].end)
			return true;
	return false;
}

/* First reserved range overlapping [s, e), or NULL. */
static const struct pmm_range *reserved_hit(const struct pmm_state *p, uint64_t s, uint64_t e)
{
	for (unsigned i = 0; i < p->reserved.n; i++)
		if (p->reserved.r[i].start < e && s < p->reserved.r[i].end)
			return &p->reserved.r[i];
	return NULL;
}

uint64_t pmm_ranges_find_free(const struct pmm_state *p, uint64_t from, uint64_t n)
{
	for (unsigned i = 0; i < p->usable.n; i++) {
		const struct pmm_range *u = &p->usable.r[i];
		uint64_t s = MAX(u->start, from);

		while (s + n <= u->end) {
			const struct pmm_range *hit = reserved_hit(p, s, s + n);
			if (!hit)
				return s;
			s = hit->end;
		}
	}
	return 0;
}

bool pmm_range_allocatable(const struct pmm_state *p, uint64_t start, uint64_t end)
{
	uint64_t low_end = PMM_LOW_END >> PAGE_SHIFT;

	if (start == 0 || end <= start || start < p->base_pfn || end > p->end_pfn)
		return false;
	if (!pmm_ranges_cover(&p->usable, start, end))
		return false;
	if (start < low_end && !pmm_ranges_cover(&p->windows, start, MIN(end, low_end)))
		return false;
	return !pmm_ranges_overlap(&p->reserved, start, end);
}
