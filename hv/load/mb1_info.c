/* Multiboot 1 boot information block (spec 3.3): memory sizes, the e820 map
 * as mmap, command line, boot loader name and the initrd as module 0, plus
 * the flat GDT the kernel is entered with. The
 * block goes in the lowest free RAM at or above 4 KiB (page 0 stays free for
 * a real-mode IVT or a SIPI-vector-0 trampoline), never over the kernel. */
#include "load/mb1.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

#define MB1_INFO_MIN_GPA   0x1000u
#define MB1_MAX_E820       8
#define MB1_MAX_CMDLINE    4096u
#define MB1_MOD_STRING     "initrd"

/* The GDT the kernel finds at entry: null, flat 32-bit code at MB1_ENTRY_CS,
 * flat data at MB1_ENTRY_DS (the layout of QEMU's multiboot option ROM; the
 * spec (3.2) leaves GDTR undefined, but kernels reload their segment registers
 * from it before their own LGDT). Accessed bits preset: never written back. */
static const uint64_t mb1_gdt[3] = {
	0,
	0x00cf9b000000ffffull,   /* base 0, limit 4 GiB, 32-bit, execute/read */
	0x00cf93000000ffffull,   /* base 0, limit 4 GiB, read/write */
};
_Static_assert(MB1_ENTRY_CS == 8 && MB1_ENTRY_DS == 16, "mb1_gdt layout");

struct info_plan {
	struct e820_entry e820[MB1_MAX_E820];
	unsigned n_e820;
	size_t cmd_len, total;
	uint64_t mod_gpa;
};

static void *gpa_ptr(const struct guest_ram *ram, uint64_t gpa)
{
	return ram->base + gpa;
}

static int mb1_module_place(const struct guest_ram *ram, const struct guest_image *img,
			    struct load_used *used, struct info_plan *p)
{
	int rc;

	if (!img->initrd || !img->initrd_size)
		return 0;
	rc = load_range_find(ram, used, img->initrd_size, PAGE_SIZE, GUEST_HIGHMEM_START,
			     &p->mod_gpa);
	if (!rc)
		rc = load_range_claim(ram, used, p->mod_gpa, img->initrd_size, "mb1 module");
	if (rc)
		return rc;
	memcpy(gpa_ptr(ram, p->mod_gpa), img->initrd, img->initrd_size);
	return 0;
}

/* Copy a string into the block; returns its guest-physical address. */
static uint32_t info_put_str(const struct guest_ram *ram, uint64_t *at, const char *s, size_t n)
{
	uint32_t gpa = (uint32_t)*at;

	memcpy(gpa_ptr(ram, *at), s, n);
	((char *)gpa_ptr(ram, *at))[n] = '\0';
	*at += n + 1;
	return gpa;
}

static void info_put_mmap(const struct guest_ram *ram, struct mb1_info *mi,
			  const struct info_plan *p, uint64_t *at)
{
	mi->flags |= MB1_INFO_MMAP;
	mi->mmap_addr = (uint32_t)*at;
	mi->mmap_length = p->n_e820 * sizeof(struct mb1_mmap_entry);
	for (unsigned i = 0; i < p->n_e820; i++) {
		struct mb1_mmap_entry e = { sizeof(e) - 4, p->e820[i].addr,
					    p->e820[i].size, p->e820[i].type };

		memcpy(gpa_ptr(ram, *at), &e, sizeof(e));
		*at += sizeof(e);
	}
}

/* The module array goes right after the mmap (4-byte aligned, like every
 * structure of the block); its string goes with the other strings. */
static void info_put_module(const struct guest_ram *ram, const struct guest_image *img,
			    struct mb1_info *mi, const struct info_plan *p, uint64_t *at,
			    uint64_t *str_at)
{
	struct mb1_module m = { (uint32_t)p->mod_gpa,
				(uint32_t)(p->mod_gpa + img->initrd_size), 0, 0 };

	m.string = info_put_str(ram, str_at, MB1_MOD_STRING, sizeof(MB1_MOD_STRING) - 1);
	memcpy(gpa_ptr(ram, *at), &m, sizeof(m));
	mi->flags |= MB1_INFO_MODS;
	mi->mods_count = 1;
	mi->mods_addr = (uint32_t)*at;
	*at += sizeof(m);
}

static void mb1_info_fill(const struct guest_ram *ram, const struct guest_image *img,
			  const struct info_plan *p, uint64_t base)
{
	uint64_t top = MIN(ram->size, GUEST_MAX_RAM), at = base + sizeof(struct mb1_info);
	struct mb1_info mi = { .flags = MB1_INFO_MEM | MB1_INFO_LOADER | MB1_INFO_CMDLINE };

	mi.mem_lower = (uint32_t)(MIN(top, GUEST_LOWMEM_END) >> 10);
	mi.mem_upper = top > GUEST_HIGHMEM_START ? (uint32_t)((top - GUEST_HIGHMEM_START) >> 10) : 0;
	uint64_t str_at = at + p->n_e820 * sizeof(struct mb1_mmap_entry) +
			  sizeof(struct mb1_module);

	info_put_mmap(ram, &mi, p, &at);
	if (p->mod_gpa)
		info_put_module(ram, img, &mi, p, &at, &str_at);
	mi.cmdline = info_put_str(ram, &str_at, img->cmdline ? img->cmdline : "", p->cmd_len);
	mi.boot_loader_name = info_put_str(ram, &str_at, MB1_LOADER_NAME,
					   sizeof(MB1_LOADER_NAME) - 1);
	memcpy(gpa_ptr(ram, base), &mi, sizeof(mi));
}

int mb1_info_build(const struct guest_ram *ram, const struct guest_image *img,
		   struct load_used *used, uint32_t *info_gpa, uint32_t *gdt_gpa)
{
	struct info_plan p = { 0 };
	uint64_t base;
	int rc;

	p.cmd_len = img->cmdline ? strnlen(img->cmdline, MB1_MAX_CMDLINE + 1) : 0;
	if (p.cmd_len > MB1_MAX_CMDLINE) {
		pr_err("load: mb1: command line longer than %u bytes\n", MB1_MAX_CMDLINE);
		return -E2BIG;
	}
	rc = mb1_module_place(ram, img, used, &p);
	if (rc)
		return rc;
	p.n_e820 = guest_e820(ram->size, p.e820, MB1_MAX_E820);
	p.total = sizeof(struct mb1_info) + p.n_e820 * sizeof(struct mb1_mmap_entry) +
		  p.cmd_len + 1 + sizeof(MB1_LOADER_NAME) +
		  sizeof(struct mb1_module) + sizeof(MB1_MOD_STRING);
	/* The entry GDT goes right after the block, in the same claimed range. */
	p.total = ALIGN_UP(p.total, 8) + sizeof(mb1_gdt);
	rc = load_range_find(ram, used, p.total, 16, MB1_INFO_MIN_GPA, &base);
	if (!rc)
		rc = load_range_claim(ram, used, base, p.total, "mb1 info block");
	if (rc)
		return rc;
	mb1_info_fill(ram, img, &p, base);
	*info_gpa = (uint32_t)base;
	*gdt_gpa = (uint32_t)(base + p.total - sizeof(mb1_gdt));
	memcpy(gpa_ptr(ram, *gdt_gpa), mb1_gdt, sizeof(mb1_gdt));
	return 0;
}
