/* Host memory bring-up: feeds the page allocator from the boot memory map. */
#ifndef HV_MEMORY_H
#define HV_MEMORY_H
#include "bootinfo.h"

/* RAM the hypervisor uses ends here: the boot page tables map 0..4 GiB.
 * (Mapping more means extending the 1:1 map; see docs/boot.md.) */
#define HV_DIRECT_MAP_END GiB(4)

int mm_init(const struct boot_info *bi);
/* Zeroed pages, or NULL. */
void *page_alloc_zeroed(unsigned n);
#endif
