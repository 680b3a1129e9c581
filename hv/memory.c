/* Host memory bring-up: the page allocator gets usable RAM below the end of
 * the 1:1 map, minus the image, the boot information, the modules (guest
 * images are used in place), the firmware's ACPI tables, every non-RAM range
 * of the memory map, and the first MiB except a window for the AP trampoline. */
#include "memory.h"
#include "platform.h"
#include "mm/pmm.h"
#include "mm/pmm_boot.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

extern char __image_start[], __image_end[];

/* Conventional memory a PC leaves free below the EBDA. */
#define LOW_WINDOW_START 0x1000
#define LOW_WINDOW_END   0x80000

int mm_init(const struct boot_info *bi)
{
	struct pmm_boot_args a = {
		.bi = bi,
		.image_start = (paddr_t)__image_start,
		.image_end = (paddr_t)__image_end,
		.pi = &host_platform,
		.low_start = LOW_WINDOW_START,
		.low_len = LOW_WINDOW_END - LOW_WINDOW_START,
		.ram_limit = HV_DIRECT_MAP_END,
	};

	if (bootinfo_ram_bytes(bi) > HV_DIRECT_MAP_END)
		pr_warn("mm: RAM above 4 GiB is not used (the 1:1 map ends at 4 GiB)\n");
	if (pmm_init_from_boot(&a)) {
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
