/* The guest-physical layout every VM sees (a PC like QEMU's "pc"): its e820
 * map and the bookkeeping loaders use to place images without overlaps. */
#include "load/mb1.h"
#include "errno.h"
#include "log.h"

static unsigned e820_add(struct e820_entry *out, unsigned n, unsigned max,
			 uint64_t addr, uint64_t size, uint32_t type)
{
	if (size == 0 || n >= max)
		return n;
	out[n].addr = addr;
	out[n].size = size;
	out[n].type = type;
	return n + 1;
}

/* RAM below 640 KiB (less the EBDA), the BIOS area reserved (ACPI tables live
 * there), RAM from 1 MiB, LAPIC/IOAPIC pages reserved. RAM is capped at
 * GUEST_MAX_RAM: the rest of the 4 GiB window is the MMIO hole. Entries past
 * max are dropped; 6 always suffice. */
unsigned guest_e820(uint64_t ram_size, struct e820_entry *out, unsigned max)
{
	uint64_t ram = MIN(ram_size, GUEST_MAX_RAM);
	unsigned n = 0;

	if (ram_size > GUEST_MAX_RAM)
		pr_warn("load: guest RAM capped at %llu MiB (below the MMIO hole)\n",
			(unsigned long long)(GUEST_MAX_RAM >> 20));
	n = e820_add(out, n, max, 0, MIN(ram, GUEST_LOWMEM_END), E820_RAM);
	if (ram > GUEST_LOWMEM_END)
		n = e820_add(out, n, max, GUEST_LOWMEM_END, 0xa0000 - GUEST_LOWMEM_END,
			     E820_RESERVED);
	n = e820_add(out, n, max, GUEST_BIOS_START, GUEST_BIOS_END - GUEST_BIOS_START,
		     E820_RESERVED);
	if (ram > GUEST_HIGHMEM_START)
		n = e820_add(out, n, max, GUEST_HIGHMEM_START, ram - GUEST_HIGHMEM_START,
			     E820_RAM);
	n = e820_add(out, n, max, GUEST_IOAPIC_BASE, PAGE_SIZE, E820_RESERVED);
	n = e820_add(out, n, max, GUEST_LAPIC_BASE, PAGE_SIZE, E820_RESERVED);
	return n;
}

/* True if [start, end) is inside one of the two RAM windows. */
static bool range_in_ram(const struct guest_ram *ram, uint64_t start, uint64_t end)
{
	uint64_t top = MIN(ram->size, GUEST_MAX_RAM);

	if (end <= start)
		return false;
	if (end <= MIN(top, GUEST_LOWMEM_END))
		return true;
	return start >= GUEST_HIGHMEM_START && end <= top;
}

static bool range_is_free(const struct load_used *used, uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < used->n; i++)
		if (start < used->r[i].end && used->r[i].start < end)
			return false;
	return true;
}

int load_range_claim(const struct guest_ram *ram, struct load_used *used,
		     uint64_t gpa, uint64_t len, const char *what)
{
	uint64_t end = gpa + len;

	if (len == 0)
		return 0;
	if (end < gpa || !range_in_ram(ram, gpa, end)) {
		pr_err("load: %s at 0x%llx-0x%llx is outside guest RAM (%llu KiB) "
		       "or overlaps the BIOS area 0x%llx-0x%llx\n", what,
		       (unsigned long long)gpa, (unsigned long long)end,
		       (unsigned long long)(ram->size >> 10),
		       (unsigned long long)GUEST_LOWMEM_END,
		       (unsigned long long)GUEST_HIGHMEM_START);
		return -ERANGE;
	}
	if (used->n >= LOAD_MAX_USED) {
		pr_err("load: %s: more than %u ranges to place\n", what, LOAD_MAX_USED);
		return -ENOSPC;
	}
	used->r[used->n].start = gpa;
	used->r[used->n].end = end;
	used->n++;
	return 0;
}

static bool range_try(const struct guest_ram *ram, const struct load_used *used,
		      uint64_t cand, uint64_t len, uint64_t *best)
{
	if (cand + len < cand || !range_in_ram(ram, cand, cand + len) ||
	    !range_is_free(used, cand, cand + len))
		return false;
	if (cand < *best)
		*best = cand;
	return true;
}

/* Candidates are min, 1 MiB and the end of every used range: the lowest fit
 * among them is the lowest fit overall. */
int load_range_find(const struct guest_ram *ram, const struct load_used *used,
		    uint64_t len, uint64_t align, uint64_t min, uint64_t *gpa)
{
	uint64_t best = UINT64_MAX;

	range_try(ram, used, ALIGN_UP(min, align), len, &best);
	if (GUEST_HIGHMEM_START >= min)
		range_try(ram, used, GUEST_HIGHMEM_START, len, &best);
	for (unsigned i = 0; i < used->n; i++)
		if (used->r[i].end >= min)
			range_try(ram, used, ALIGN_UP(used->r[i].end, align), len, &best);
	if (best == UINT64_MAX) {
		pr_err("load: no free guest RAM for %llu bytes\n", (unsigned long long)len);
		return -ENOMEM;
	}
	*gpa = best;
	return 0;
}
