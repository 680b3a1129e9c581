/* Page allocator set-up from the boot information in one call. */
#ifndef HV_MM_PMM_BOOT_H
#define HV_MM_PMM_BOOT_H
#include "bootinfo.h"
#include "arch/x86/acpi.h"

struct pmm_boot_args {
	const struct boot_info *bi;            /* memory map, modules, the info itself */
	paddr_t image_start, image_end;        /* __image_start, __image_end */
	const struct platform_info *pi;        /* tables to keep (may be NULL) */
	paddr_t low_start, low_len;            /* RAM below 1 MiB pmm may hand out
	                                        * (e.g. 0x1000+0x9e000 for the AP
	                                        * trampoline); 0 for none */
	paddr_t ram_limit;                     /* ignore RAM at/above this (e.g. the
	                                        * end of the 1:1 map); 0: no limit */
};

/* pmm_reset(), add the map and reservations, pmm_init(). 0 or -errno. */
int pmm_init_from_boot(const struct pmm_boot_args *a);
#endif
