/* EPT builder: 4-level tables, 2 MiB leaves where aligned, 4 KiB otherwise
 * (SDM vol. 3 §29.3.2, Tables 29-1..29-6). */
#include "vmx/ept.h"
#include "compiler.h"
#include "errno.h"
#include "log.h"

#define EPT_LEVELS 4

static unsigned idx(gpa_t gpa, int level)   /* level 3 = PML4 ... 0 = PT */
{
	return (unsigned)(gpa >> (12 + 9 * level)) & 511;
}

int ept_init(struct ept *e)
{
	e->pml4 = e->alloc_page(e->ctx);
	if (!e->pml4)
		return -ENOMEM;
	e->pml4_pa = e->virt_to_phys(e->ctx, e->pml4);
	e->pages_used = 1;
	return 0;
}

/* Walk to the table at `level` for gpa, creating intermediate tables. */
static uint64_t *walk_create(struct ept *e, gpa_t gpa, int level)
{
	uint64_t *t = e->pml4;

	for (int l = EPT_LEVELS - 1; l > level; l--) {
		uint64_t *ent = &t[idx(gpa, l)];
		if (*ent & EPT_LARGE)
			return NULL;   /* would split a large page: refuse */
		if (!(*ent & EPT_RWX)) {
			void *n = e->alloc_page(e->ctx);
			if (!n)
				return NULL;
			e->pages_used++;
			/* Non-leaf entries grant everything; leaves restrict (§29.3.3). */
			*ent = e->virt_to_phys(e->ctx, n) | EPT_RWX;
		}
		t = e->phys_to_virt(e->ctx, *ent & EPT_ADDR_MASK);
	}
	return t;
}

int ept_map(struct ept *e, gpa_t gpa, paddr_t hpa, uint64_t size, uint64_t perms)
{
	if (!IS_ALIGNED(gpa | hpa | size, PAGE_SIZE) || !(perms & EPT_RWX))
		return -EINVAL;
	while (size) {
		bool large = IS_ALIGNED(gpa | hpa, MiB(2)) && size >= MiB(2);
		uint64_t *t = walk_create(e, gpa, large ? 1 : 0);
		uint64_t step = large ? MiB(2) : PAGE_SIZE;

		if (!t)
			return -ENOMEM;
		t[idx(gpa, large ? 1 : 0)] = hpa | perms | EPT_MT_WB | (large ? EPT_LARGE : 0);
		large ? e->large_mappings++ : e->small_mappings++;
		gpa += step;
		hpa += step;
		size -= step;
	}
	return 0;
}

int ept_translate(const struct ept *e, gpa_t gpa, paddr_t *hpa, uint64_t *perms)
{
	const uint64_t *t = e->pml4;

	for (int l = EPT_LEVELS - 1; l >= 0; l--) {
		uint64_t ent = t[idx(gpa, l)];
		if (!(ent & EPT_RWX))
			return -ENOENT;
		if (l == 0 || (ent & EPT_LARGE)) {
			uint64_t span = 1ull << (12 + 9 * l);
			*hpa = (ent & EPT_ADDR_MASK & ~(span - 1)) | (gpa & (span - 1));
			*perms = ent & EPT_RWX;
			return 0;
		}
		t = e->phys_to_virt(e->ctx, ent & EPT_ADDR_MASK);
	}
	return -ENOENT;
}

uint64_t ept_pointer(const struct ept *e)
{
	return e->pml4_pa | 6 /* WB */ | ((EPT_LEVELS - 1) << 3);
}
