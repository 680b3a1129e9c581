/* Boot-time glue: feed the page allocator from the multiboot2 memory map and
 * reserve everything the boot still needs (image, boot information, modules,
 * ACPI/MP tables the platform scan read). */
#include "mm/pmm_boot.h"
#include "mm/pmm.h"
#include "log.h"

/* Every map entry: type 1 is RAM, anything else is a reservation that wins
 * over any overlapping RAM entry. */
static int add_map(const struct boot_info *bi, paddr_t limit)
{
	uint64_t dropped = 0;
	int rc = 0;

	for (unsigned i = 0; i < bi->nr_mmap && !rc; i++) {
		const struct bootinfo_range *r = &bi->mmap[i];
		uint64_t len = r->len;
		if (r->type != MB2_MMAP_AVAILABLE) {
			rc = pmm_add_reserved(r->addr, r->len);
			continue;
		}
		if (limit && r->addr + len > limit) {
			len = r->addr < limit ? limit - r->addr : 0;
			dropped += r->len - len;
		}
		if (len)
			pmm_add_usable(r->addr, len);   /* a full table only loses RAM */
	}
	if (dropped)
		pr_warn("pmm: %llu MiB of RAM at or above 0x%llx left unused\n",
			(unsigned long long)(dropped >> 20), (unsigned long long)limit);
	return rc;
}

static int add_boot_reservations(const struct pmm_boot_args *a)
{
	const struct boot_info *bi = a->bi;
	int rc;

	rc = pmm_add_reserved(a->image_start, a->image_end - a->image_start);
	rc = rc ? rc : pmm_add_reserved(bi->mbi, bi->total_size);
	for (unsigned i = 0; i < bi->nr_modules && !rc; i++)
		rc = pmm_add_reserved(bi->modules[i].start,
				      bi->modules[i].end - bi->modules[i].start);
	for (unsigned i = 0; a->pi && i < a->pi->nr_tables && !rc; i++)
		rc = pmm_add_reserved(a->pi->tables[i].addr, a->pi->tables[i].len);
	return rc;
}

int pmm_init_from_boot(const struct pmm_boot_args *a)
{
	int rc;

	pmm_reset();
	rc = add_map(a->bi, a->ram_limit);
	rc = rc ? rc : add_boot_reservations(a);
	if (!rc && a->low_len)
		rc = pmm_allow_low(a->low_start, a->low_len);
	rc = rc ? rc : pmm_init(0, 0);
	if (rc)
		pr_err("pmm: initialisation from the boot memory map failed (%d)\n", rc);
	return rc;
}
