/* EPT page-table builder (SDM vol. 3 §29.3). Pure C: pages come from an
 * allocator callback, so the host unit tests build real tables. */
#ifndef HV_VMX_EPT_H
#define HV_VMX_EPT_H
#include "types.h"

#define EPT_R        (1ull << 0)
#define EPT_W        (1ull << 1)
#define EPT_X        (1ull << 2)
#define EPT_RWX      (EPT_R | EPT_W | EPT_X)
#define EPT_MT_WB    (6ull << 3)     /* leaf memory type (§29.3.7) */
#define EPT_IPAT     (1ull << 6)
#define EPT_LARGE    (1ull << 7)
#define EPT_ADDR_MASK 0x000ffffffffff000ull

struct ept {
	uint64_t *pml4;
	paddr_t pml4_pa;
	void *(*alloc_page)(void *ctx);          /* zeroed 4 KiB page, or NULL */
	paddr_t (*virt_to_phys)(void *ctx, void *p);
	void *(*phys_to_virt)(void *ctx, paddr_t pa);
	void *ctx;
	uint64_t pages_used;                     /* table pages allocated */
	uint64_t large_mappings, small_mappings;
};

int ept_init(struct ept *e);
/* Map [gpa, gpa+size) to [hpa, ...) with perms (EPT_R/W/X), write-back,
 * using 2 MiB pages wherever both addresses and the size allow. */
int ept_map(struct ept *e, gpa_t gpa, paddr_t hpa, uint64_t size, uint64_t perms);
/* Translate; returns 0 and fills hpa/perms, or -ENOENT when unmapped. */
int ept_translate(const struct ept *e, gpa_t gpa, paddr_t *hpa, uint64_t *perms);
/* EPTP value: WB paging-structure type, 4-level walk (§25.6.11). */
uint64_t ept_pointer(const struct ept *e);
#endif
