/* Multiboot2 boot information parser (Multiboot2 spec 1.0, 3.6). Every read
 * stays inside [mbi, mbi + total_size); a malformed tag is one pr_err line. */
#include "bootinfo.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

#define BOOTINFO_SIZE_MAX  (16u << 20)   /* sanity bound on total_size */

struct walk { const uint8_t *base; uint32_t off; struct boot_info *bi; };

static int bad_tag(const struct walk *w, const struct mb2_tag *t, const char *why)
{
	pr_err("bootinfo: malformed multiboot2 tag type %u (size %u) at offset %u: %s\n",
	       t->type, t->size, w->off, why);
	return -EINVAL;
}

/* A NUL-terminated string filling the rest of a tag after `hdr` bytes. */
static const char *tag_string(const struct mb2_tag *t, uint32_t hdr)
{
	const char *s = (const char *)t + hdr;

	if (t->size <= hdr || strnlen(s, t->size - hdr) == t->size - hdr)
		return NULL;
	return s;
}

static int tag_cmdline(struct walk *w, const struct mb2_tag *t)
{
	const char *s = tag_string(t, 8);

	if (!s)
		return bad_tag(w, t, "string not NUL-terminated inside the tag");
	if (t->type == MB2_TAG_CMDLINE)
		w->bi->cmdline = s;
	else
		w->bi->loader_name = s;
	return 0;
}

static int tag_module(struct walk *w, const struct mb2_tag *t)
{
	const struct mb2_tag_module *m = (const void *)t;
	struct boot_info *bi = w->bi;
	const char *s = tag_string(t, sizeof(*m));

	if (!s)
		return bad_tag(w, t, "module string missing or not NUL-terminated");
	if (m->mod_end < m->mod_start)
		return bad_tag(w, t, "module end below its start");
	if (bi->nr_modules >= BOOTINFO_MODULES_MAX) {
		pr_err("bootinfo: more than %d modules\n", BOOTINFO_MODULES_MAX);
		return -E2BIG;
	}
	bi->modules[bi->nr_modules++] = (struct bootinfo_module){
		.start = m->mod_start, .end = m->mod_end, .string = s };
	return 0;
}

static int tag_meminfo(struct walk *w, const struct mb2_tag *t)
{
	const struct mb2_tag_meminfo *m = (const void *)t;

	if (t->size < sizeof(*m))
		return bad_tag(w, t, "too short for basic memory info");
	w->bi->has_meminfo = true;
	w->bi->mem_lower_kib = m->mem_lower;
	w->bi->mem_upper_kib = m->mem_upper;
	return 0;
}

/* Append a range, merging with the previous one when adjacent and alike. */
static int mmap_add(struct boot_info *bi, uint64_t addr, uint64_t len, uint32_t type)
{
	struct bootinfo_range *prev = bi->nr_mmap ? &bi->mmap[bi->nr_mmap - 1] : NULL;

	if (!len)
		return 0;
	if (addr + len < addr) {
		pr_err("bootinfo: memory map entry 0x%llx+0x%llx wraps around\n",
		       (unsigned long long)addr, (unsigned long long)len);
		return -EINVAL;
	}
	if (prev && prev->type == type && prev->addr + prev->len == addr) {
		prev->len += len;
		return 0;
	}
	if (bi->nr_mmap >= BOOTINFO_MMAP_MAX) {
		pr_err("bootinfo: memory map has more than %d entries\n", BOOTINFO_MMAP_MAX);
		return -E2BIG;
	}
	bi->mmap[bi->nr_mmap++] = (struct bootinfo_range){ addr, len, type };
	return 0;
}

static int tag_mmap(struct walk *w, const struct mb2_tag *t)
{
	const struct mb2_tag_mmap *m = (const void *)t;
	uint32_t n;
	int rc;

	if (t->size < sizeof(*m))
		return bad_tag(w, t, "too short for a memory map");
	if (m->entry_size < sizeof(struct mb2_mmap_entry) || m->entry_size % 8)
		return bad_tag(w, t, "memory map entry_size below 24 or not a multiple of 8");
	if ((t->size - sizeof(*m)) % m->entry_size)
		return bad_tag(w, t, "memory map size not a whole number of entries");
	n = (uint32_t)(t->size - sizeof(*m)) / m->entry_size;
	w->bi->nr_mmap = 0;
	w->bi->mmap_from_efi = false;
	for (uint32_t i = 0; i < n; i++) {
		const struct mb2_mmap_entry *e =
			(const void *)((const uint8_t *)(m + 1) + (size_t)i * m->entry_size);
		rc = mmap_add(w->bi, e->addr, e->len, e->type);
		if (rc)
			return rc;
	}
	return 0;
}

static int tag_efi_mmap(struct walk *w, const struct mb2_tag *t)
{
	const struct mb2_tag_efi_mmap *m = (const void *)t;
	struct boot_info *bi = w->bi;

	if (t->size < sizeof(*m))
		return bad_tag(w, t, "too short for an EFI memory map");
	if (m->desc_size < sizeof(struct efi_mem_desc) || m->desc_size % 8)
		return bad_tag(w, t, "EFI descriptor size below 40 or not a multiple of 8");
	bi->has_efi_mmap = true;
	bi->efi_mmap = m + 1;
	bi->efi_desc_size = m->desc_size;
	bi->efi_desc_version = m->desc_version;
	bi->nr_efi_desc = (uint32_t)(t->size - sizeof(*m)) / m->desc_size;
	return 0;
}

static int tag_rsdp(struct walk *w, const struct mb2_tag *t)
{
	uint32_t len = t->type == MB2_TAG_ACPI_NEW ? 36 : 20;

	if (t->size < 8 + len)
		return bad_tag(w, t, "too short for an ACPI RSDP");
	if (w->bi->rsdp_len == 36 && t->type == MB2_TAG_ACPI_OLD)
		return 0;    /* the ACPI 2.0 copy wins whatever the order */
	memcpy(w->bi->rsdp, (const uint8_t *)t + 8, len);
	w->bi->rsdp_len = (uint8_t)len;
	return 0;
}

static int tag_misc(struct walk *w, const struct mb2_tag *t)
{
	switch (t->type) {
	case MB2_TAG_EFI64:
		if (t->size < sizeof(struct mb2_tag_ptr64))
			return bad_tag(w, t, "too short for the EFI64 system table pointer");
		w->bi->efi_system_table = ((const struct mb2_tag_ptr64 *)t)->pointer;
		return 0;
	case MB2_TAG_LOAD_BASE_ADDR:
		if (t->size < sizeof(struct mb2_tag_load_base))
			return bad_tag(w, t, "too short for the load base address");
		w->bi->load_base = ((const struct mb2_tag_load_base *)t)->load_base_addr;
		return 0;
	case MB2_TAG_EFI_BS:
		w->bi->efi_boot_services = true;
		return 0;
	default:
		return 0;   /* tags we do not use */
	}
}

static int tag_handle(struct walk *w, const struct mb2_tag *t)
{
	switch (t->type) {
	case MB2_TAG_CMDLINE:
	case MB2_TAG_BOOTLOADER_NAME: return tag_cmdline(w, t);
	case MB2_TAG_MODULE:          return tag_module(w, t);
	case MB2_TAG_BASIC_MEMINFO:   return tag_meminfo(w, t);
	case MB2_TAG_MMAP:            return tag_mmap(w, t);
	case MB2_TAG_EFI_MMAP:        return tag_efi_mmap(w, t);
	case MB2_TAG_ACPI_OLD:
	case MB2_TAG_ACPI_NEW:        return tag_rsdp(w, t);
	default:                      return tag_misc(w, t);
	}
}

/* Walk the tags; the end tag must come before total_size runs out. */
static int tags_walk(struct walk *w, uint32_t total)
{
	int rc;

	for (w->off = sizeof(struct mb2_info_header); w->off + 8 <= total;) {
		const struct mb2_tag *t = (const void *)(w->base + w->off);
		if (t->size < 8)
			return bad_tag(w, t, "size below 8");
		if (t->size > total - w->off)
			return bad_tag(w, t, "runs past total_size");
		if (t->type == MB2_TAG_END)
			return t->size == 8 ? 0 : bad_tag(w, t, "end tag size is not 8");
		rc = tag_handle(w, t);
		if (rc)
			return rc;
		w->off += ALIGN_UP(t->size, (uint32_t)MB2_TAG_ALIGN);
	}
	pr_err("bootinfo: no multiboot2 end tag within total_size %u\n", total);
	return -EINVAL;
}

/* UEFI type -> multiboot2 type once boot services have exited. */
static uint32_t efi_type_to_mb2(uint32_t type, bool boot_services)
{
	switch (type) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_CONVENTIONAL_MEMORY:
		return MB2_MMAP_AVAILABLE;
	case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA:
		return boot_services ? MB2_MMAP_RESERVED : MB2_MMAP_AVAILABLE;
	case EFI_UNUSABLE:      return MB2_MMAP_BADRAM;
	case EFI_ACPI_RECLAIM:  return MB2_MMAP_ACPI_RECLAIMABLE;
	case EFI_ACPI_NVS:      return MB2_MMAP_NVS;
	default:                return MB2_MMAP_RESERVED;
	}
}

/* Without tag 6, build the memory map from the EFI descriptors. */
static int mmap_from_efi(struct boot_info *bi)
{
	const uint8_t *p = bi->efi_mmap;
	int rc;

	bi->nr_mmap = 0;
	bi->mmap_from_efi = true;
	for (uint32_t i = 0; i < bi->nr_efi_desc; i++, p += bi->efi_desc_size) {
		const struct efi_mem_desc *d = (const void *)p;
		if (d->num_pages > (UINT64_MAX >> PAGE_SHIFT)) {
			pr_err("bootinfo: EFI descriptor %u has %llu pages\n", i,
			       (unsigned long long)d->num_pages);
			return -EINVAL;
		}
		rc = mmap_add(bi, d->phys_start, d->num_pages << PAGE_SHIFT,
			      efi_type_to_mb2(d->type, bi->efi_boot_services));
		if (rc)
			return rc;
	}
	return 0;
}

int bootinfo_parse(uint32_t magic, const void *mbi, struct boot_info *bi)
{
	const struct mb2_info_header *h = mbi;
	struct walk w = { .base = mbi, .bi = bi };
	int rc;

	memset(bi, 0, sizeof(*bi));
	bi->cmdline = "";
	bi->loader_name = "";
	if (magic != MB2_BOOTLOADER_MAGIC) {
		pr_err("bootinfo: boot loader magic 0x%x is not multiboot2's 0x%x\n", magic,
		       MB2_BOOTLOADER_MAGIC);
		return -EINVAL;
	}
	if (!mbi || !IS_ALIGNED((uintptr_t)mbi, MB2_TAG_ALIGN)) {
		pr_err("bootinfo: boot information pointer %p is NULL or misaligned\n", mbi);
		return -EFAULT;
	}
	if (h->total_size < 16 || h->total_size > BOOTINFO_SIZE_MAX) {
		pr_err("bootinfo: total_size %u out of range [16, %u]\n", h->total_size,
		       BOOTINFO_SIZE_MAX);
		return -EINVAL;
	}
	bi->mbi = (paddr_t)(uintptr_t)mbi;
	bi->total_size = h->total_size;
	rc = tags_walk(&w, h->total_size);
	if (!rc && !bi->nr_mmap && bi->has_efi_mmap)
		rc = mmap_from_efi(bi);
	if (!rc && !bi->nr_mmap)
		pr_warn("bootinfo: no memory map from the boot loader\n");
	return rc;
}

uint64_t bootinfo_ram_bytes(const struct boot_info *bi)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < bi->nr_mmap; i++)
		if (bi->mmap[i].type == MB2_MMAP_AVAILABLE)
			sum += bi->mmap[i].len;
	return sum;
}

void bootinfo_print(const struct boot_info *bi)
{
	pr_info("boot: loader \"%s\", info %u bytes at 0x%llx, %llu MiB RAM\n", bi->loader_name,
		bi->total_size, (unsigned long long)bi->mbi,
		(unsigned long long)(bootinfo_ram_bytes(bi) >> 20));
	pr_info("boot: cmdline \"%s\"\n", bi->cmdline);
	for (unsigned i = 0; i < bi->nr_mmap; i++)
		pr_info("  mem %016llx-%016llx type %u\n", (unsigned long long)bi->mmap[i].addr,
			(unsigned long long)(bi->mmap[i].addr + bi->mmap[i].len - 1),
			bi->mmap[i].type);
	for (unsigned i = 0; i < bi->nr_modules; i++)
		pr_info("  module %u: 0x%llx-0x%llx \"%s\"\n", i,
			(unsigned long long)bi->modules[i].start,
			(unsigned long long)bi->modules[i].end, bi->modules[i].string);
	if (bi->rsdp_len)
		pr_info("  ACPI RSDP copied from the %s tag\n", bi->rsdp_len == 36 ? "new" : "old");
}
