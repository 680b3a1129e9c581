/* Internal interface between acpi_tables.c and mptable.c: a bump allocator
 * over a piece of the 0xE0000-0xFFFFF area. */
#ifndef HV_DEV_ACPI_BUILD_H
#define HV_DEV_ACPI_BUILD_H
#include "dev/acpi_tables.h"

#define MP_AREA_OFFSET 0x10000u   /* MP tables at guest-physical 0xF0000 */

struct acpi_area {
	uint8_t *base;
	size_t size, used;
	uint64_t gpa_base;   /* guest-physical address of base */
};

void *acpi_area_alloc(struct acpi_area *a, size_t len, size_t align);
uint64_t acpi_area_gpa(const struct acpi_area *a, const void *p);
int mptable_build(struct acpi_area *a, const struct acpi_tables_cfg *cfg,
		  struct acpi_tables_info *info);
#endif
