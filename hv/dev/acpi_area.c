/* The guest-memory area the firmware tables are built in (dev/acpi_build.h),
 * shared by the ACPI and MP table builders; its own file so that neither
 * builder depends on the other. */
#include "dev/acpi_build.h"
#include "compiler.h"

/* Bump allocator over the area; returns a zeroed pointer or NULL. */
void *acpi_area_alloc(struct acpi_area *a, size_t len, size_t align)
{
	size_t off = ALIGN_UP(a->used, align);

	if (off > a->size || len > a->size - off)
		return NULL;
	a->used = off + len;
	return a->base + off;
}

uint64_t acpi_area_gpa(const struct acpi_area *a, const void *p)
{
	return a->gpa_base + (uint64_t)((const uint8_t *)p - a->base);
}
