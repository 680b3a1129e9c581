/* Feed the page allocator: usable RAM from the memory map, minus the image,
 * the boot information, the modules (guest images, used in place) and the
 * first MiB except a window for the AP trampoline. */
#include "memory.h"
#include "mm/pmm.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

extern char __image_start[], __image_end[];

/* Conventional memory a PC leaves free below the EBDA: the AP trampoline
 * page comes from here. */
#define LOW_WINDOW_START 0x1000
#define LOW_WINDOW_END   0x80000

int mm_init(const struct boot_info *bi)
{
	uint64_t dropped = 0;

	pmm_reset();
	for (unsigned i = 0; i < bi->nr_mmap; i++) {
		const struct bootinfo_range *r = &bi->mmap[i];
		uint64_t end = r->addr + r->len;

		if (r->type != MB2_MMAP_AVAILABLE)
			continue;
		if (end > HV_DIRECT_MAP_END) {
			dropped += end - MAX(r->addr, HV_DIRECT_MAP_END);
			end = HV_DIRECT_MAP_END;
		}
		if (r->addr < end)
			pmm_add_usable(r->addr, end - r->addr);
	}
	if (dropped)
		pr_warn("mm: %lu MiB of RAM above 4 GiB is not used (1:1 map ends at 4 GiB)\n",
			dropped >> 20);
	pmm_add_reserved((paddr_t)__image_start, (uint64_t)(__image_end - __image_start));
	pmm_add_reserved(bi->mbi, bi->total_size);
	for (unsigned i = 0; i < bi->nr_modules; i++)
		pmm_add_reserved(bi->modules[i].start, bi->modules[i].end - bi->modules[i].start);
	pmm_allow_low(LOW_WINDOW_START, LOW_WINDOW_END - LOW_WINDOW_START);
	if (pmm_init(0, 0)) {
		pr_err("mm: cannot build the page allocator (no usable RAM in the memory map?)\n");
		return -ENOMEM;
	}
	pmm_print();
	return 0;
}

void *page_alloc_zeroed(unsigned n)
{
	paddr_t pa = pmm_alloc_pages(n, 0, HV_DIRECT_MAP_END);

	if (!pa)
		return NULL;
	memset((void *)(uintptr_t)pa, 0, (size_t)n * PAGE_SIZE);
	return (void *)(uintptr_t)pa;
}
