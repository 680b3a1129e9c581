/* Host memory bring-up: feeds the page allocator from the boot memory map. */
#ifndef HV_MEMORY_H
#define HV_MEMORY_H
#include "bootinfo.h"

/* The boot page tables map 0..4 GiB; mm_init() extends the 1:1 map over
 * the RAM above (up to 512 GiB). The hypervisor's own pages stay below
 * HV_LOW_MAP_END (32-bit trampoline CR3, no surprises); guest RAM, the bulk,
 * may come from anywhere below hv_direct_map_end. */
#define HV_LOW_MAP_END GiB(4)
#define HV_MAP_MAX     GiB(512)   /* what PML4[0]'s PDPT can map */
extern paddr_t hv_direct_map_end;
#define HV_DIRECT_MAP_END hv_direct_map_end

int mm_init(const struct boot_info *bi);
/* Zeroed pages, or NULL. */
void *page_alloc_zeroed(unsigned n);
#endif
