/* Linux bzImage loader: the 64-bit boot protocol of Documentation/x86/boot.rst
 * (Linux 6.1, §"64-bit Boot Protocol"): zero page with the image's setup
 * header, e820, command line and initrd, then a long-mode entry at
 * load address + 0x200 with identity paging, a flat GDT and %rsi = zero page. */
#include "load/loader.h"
#include "compiler.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

/* Offsets in the image and in struct boot_params (the setup header sits at
 * 0x1f1 in both): arch/x86/include/uapi/asm/bootparam.h, zero-page.rst. */
#define BP_ACPI_RSDP        0x070
#define BP_EXT_RAMDISK_IMG  0x0c0
#define BP_EXT_RAMDISK_SIZE 0x0c4
#define BP_EXT_CMDLINE      0x0c8
#define BP_E820_ENTRIES     0x1e8
#define BP_SENTINEL         0x1ef
#define HDR_START           0x1f1
#define HDR_SETUP_SECTS     0x1f1
#define HDR_BOOT_FLAG       0x1fe
#define HDR_JUMP            0x200
#define HDR_MAGIC           0x202
#define HDR_VERSION         0x206
#define HDR_TYPE_OF_LOADER  0x210
#define HDR_LOADFLAGS       0x211
#define HDR_RAMDISK_IMAGE   0x218
#define HDR_RAMDISK_SIZE    0x21c
#define HDR_CMD_LINE_PTR    0x228
#define HDR_INITRD_ADDR_MAX 0x22c
#define HDR_XLOADFLAGS      0x236
#define HDR_CMDLINE_SIZE    0x238
#define HDR_PREF_ADDRESS    0x258
#define HDR_INIT_SIZE       0x260
#define HDR_END_MAX         0x290   /* first byte after the header's room */
#define BP_E820_TABLE       0x2d0
#define BP_E820_MAX         128
#define BP_SIZE             0x1000

#define BOOT_FLAG_MAGIC     0xaa55
#define HDRS_MAGIC          0x53726448u   /* "HdrS" */
#define PROTO_MIN_64BIT     0x020c        /* xloadflags appeared in 2.12 */
#define LOADER_TYPE_UNKNOWN 0xff
#define LF_LOADED_HIGH      BIT(0)
#define XLF_KERNEL_64       BIT(0)
#define ENTRY_64_OFFSET     0x200

/* Guest-physical scratch layout below the EBDA (all e820 RAM). Linux copies
 * the zero page and command line early and replaces the page tables. */
#define BZ_GDT_GPA          0x1000ULL
#define BZ_PML4_GPA         0x2000ULL
#define BZ_PDPT_GPA         0x3000ULL
#define BZ_PD_GPA           0x4000ULL     /* 4 pages: 0..4 GiB in 2 MiB pages */
#define BZ_PD_PAGES         4
#define BZ_ZERO_PAGE_GPA    0x8000ULL
#define BZ_STACK_TOP_GPA    0xa000ULL
#define BZ_CMDLINE_GPA      0x20000ULL
#define BZ_CMDLINE_ROOM     0x10000ULL
#define BZ_KERNEL_GPA       GUEST_HIGHMEM_START   /* code32_start, 1 MiB */

#define PTE_P   BIT(0)
#define PTE_RW  BIT(1)
#define PTE_PS  BIT(7)

#define BOOT_CS 0x10
#define BOOT_DS 0x18
/* Flat 4 GiB descriptors, accessed bits preset (VM entry wants them set):
 * code: P, DPL0, S, type 0xb, L=1, G=1; data: P, DPL0, S, type 0x3, D/B=1, G=1. */
#define GDT_CODE64 0x00af9b000000ffffULL
#define GDT_DATA   0x00cf93000000ffffULL

#define CR0_PE  BIT(0)
#define CR0_ET  BIT(4)
#define CR0_NE  BIT(5)
#define CR0_PG  BIT(31)
#define CR4_PAE BIT(5)
#define EFER_LME BIT(8)
#define EFER_LMA BIT(10)
#define RFLAGS_FIXED BIT(1)

_Static_assert(BP_E820_TABLE + BP_E820_MAX * sizeof(struct e820_entry) <= 0xcd0,
	       "e820 table overruns its zero-page slot");
_Static_assert(sizeof(struct e820_entry) == 20, "boot_e820_entry is 20 bytes");
_Static_assert(BZ_PD_GPA + BZ_PD_PAGES * PAGE_SIZE <= BZ_ZERO_PAGE_GPA, "layout");
_Static_assert(BZ_CMDLINE_GPA + BZ_CMDLINE_ROOM <= GUEST_LOWMEM_END, "layout");

/* What the loader learned from the image. */
struct bz_info {
	size_t hdr_end;         /* end of the setup header in the image */
	size_t pm_offset;       /* protected-mode kernel in the file */
	size_t pm_size;
	uint16_t version;
	uint32_t initrd_max;    /* highest byte an initrd may occupy */
	uint32_t cmdline_max;   /* longest command line, without the NUL */
	uint64_t kernel_end;    /* guest-physical end of kernel + decompressor room */
};

static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static int bz_header_check(const uint8_t *d, size_t size, struct bz_info *bi)
{
	if (size < HDR_END_MAX || rd16(d + HDR_BOOT_FLAG) != BOOT_FLAG_MAGIC ||
	    rd32(d + HDR_MAGIC) != HDRS_MAGIC) {
		pr_err("bzimage: wrong magic (no 0xAA55/\"HdrS\" setup header), not a bzImage\n");
		return -ENOEXEC;
	}
	bi->version = rd16(d + HDR_VERSION);
	if (bi->version < PROTO_MIN_64BIT) {
		pr_err("bzimage: boot protocol %u.%02u too old, 64-bit entry needs >= 2.12\n",
		       bi->version >> 8, bi->version & 0xff);
		return -ENOEXEC;
	}
	if (!(rd16(d + HDR_XLOADFLAGS) & XLF_KERNEL_64)) {
		pr_err("bzimage: no 64-bit entry point (xloadflags lacks XLF_KERNEL_64)\n");
		return -ENOEXEC;
	}
	return 0;
}

/* Sizes and limits from the header; boot.rst §"Details of Header Fields". */
static int bz_header_parse(const uint8_t *d, size_t size, struct bz_info *bi)
{
	unsigned sects = d[HDR_SETUP_SECTS] ? d[HDR_SETUP_SECTS] : 4;
	/* Saturate a wild pref_address so the sum below cannot wrap. */
	uint64_t pref = MIN(rd64(d + HDR_PREF_ADDRESS), GiB(4));
	uint64_t init = rd32(d + HDR_INIT_SIZE);

	bi->hdr_end = MIN((size_t)HDR_JUMP + 2 + d[HDR_JUMP + 1], (size_t)HDR_END_MAX);
	bi->pm_offset = (size_t)(sects + 1) * 512;
	if (bi->pm_offset >= size) {
		pr_err("bzimage: truncated image (%zu B, setup alone is %zu B)\n",
		       size, bi->pm_offset);
		return -ENOEXEC;
	}
	bi->pm_size = size - bi->pm_offset;
	bi->initrd_max = rd32(d + HDR_INITRD_ADDR_MAX);
	bi->cmdline_max = rd32(d + HDR_CMDLINE_SIZE);
	/* The decompressor runs at max(load address, pref_address) and needs
	 * init_size bytes there (compressed/head_64.S). */
	bi->kernel_end = MAX(BZ_KERNEL_GPA + bi->pm_size, MAX(pref, BZ_KERNEL_GPA) + init);
	return 0;
}

/* Does the e820 map describe [start, end) as one run of RAM? */
static bool e820_covers(const struct e820_entry *e, unsigned n, uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < n; i++)
		if (e[i].type == E820_RAM && e[i].addr <= start && end <= e[i].addr + e[i].size)
			return true;
	return false;
}

static void bz_e820_store(uint8_t *bp, const struct e820_entry *map, unsigned n)
{
	memcpy(bp + BP_E820_TABLE, map, n * sizeof(*map));
	bp[BP_E820_ENTRIES] = (uint8_t)n;
}

static int bz_fit_check(const struct guest_ram *ram, const struct bz_info *bi,
			const struct e820_entry *map, unsigned n)
{
	if (bi->kernel_end > ram->size || !e820_covers(map, n, BZ_KERNEL_GPA, bi->kernel_end)) {
		pr_err("bzimage: kernel needs RAM up to 0x%llx, the VM has 0x%llx B\n",
		       (unsigned long long)bi->kernel_end, (unsigned long long)ram->size);
		return -E2BIG;
	}
	if (!e820_covers(map, n, 0, BZ_CMDLINE_GPA + BZ_CMDLINE_ROOM)) {
		pr_err("bzimage: e820 has no RAM at 0..0x%llx for the boot structures\n",
		       (unsigned long long)(BZ_CMDLINE_GPA + BZ_CMDLINE_ROOM));
		return -EINVAL;
	}
	return 0;
}

static int bz_cmdline_place(const struct guest_ram *ram, const struct guest_image *img,
			    const struct bz_info *bi, uint8_t *bp)
{
	const char *cl = img->cmdline ? img->cmdline : "";
	size_t len = strnlen(cl, BZ_CMDLINE_ROOM);

	if (len > bi->cmdline_max || len >= BZ_CMDLINE_ROOM) {
		pr_err("bzimage: command line of %zu B exceeds the kernel's %u B\n",
		       len, bi->cmdline_max);
		return -E2BIG;
	}
	memcpy(ram->base + BZ_CMDLINE_GPA, cl, len);
	ram->base[BZ_CMDLINE_GPA + len] = '\0';
	wr32(bp + HDR_CMD_LINE_PTR, (uint32_t)BZ_CMDLINE_GPA);
	wr32(bp + BP_EXT_CMDLINE, (uint32_t)(BZ_CMDLINE_GPA >> 32));
	return 0;
}

/* Highest page-aligned start for `size` bytes inside one e820 RAM entry,
 * ending at or below `top` and starting at or above `floor`; 0 if none. */
static uint64_t e820_highest_fit(const struct e820_entry *e, unsigned n, uint64_t size,
				 uint64_t floor, uint64_t top)
{
	uint64_t best = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t end = MIN(e[i].addr + e[i].size, top), start;

		if (e[i].type != E820_RAM || end < size)
			continue;
		start = ALIGN_DOWN(end - size, PAGE_SIZE);
		if (start >= e[i].addr && start >= floor && start > best)
			best = start;
	}
	return best;
}

/* Initrd at the top of RAM below the header's limit (boot.rst: "as high as
 * possible"), page aligned, above the kernel's decompression room. */
static int bz_initrd_place(const struct guest_ram *ram, const struct guest_image *img,
			   const struct bz_info *bi, uint8_t *bp,
			   const struct e820_entry *map, unsigned n)
{
	uint64_t top = MIN(ram->size, (uint64_t)bi->initrd_max + 1), start;

	if (!img->initrd || !img->initrd_size)
		return 0;
	start = e820_highest_fit(map, n, img->initrd_size,
				 ALIGN_UP(bi->kernel_end, PAGE_SIZE), top);
	if (!start) {
		pr_err("bzimage: initrd of %zu B does not fit between the kernel (ends 0x%llx) "
		       "and 0x%llx\n", img->initrd_size, (unsigned long long)bi->kernel_end,
		       (unsigned long long)top);
		return -E2BIG;
	}
	memcpy(ram->base + start, img->initrd, img->initrd_size);
	wr32(bp + HDR_RAMDISK_IMAGE, (uint32_t)start);
	wr32(bp + BP_EXT_RAMDISK_IMG, (uint32_t)(start >> 32));
	wr32(bp + HDR_RAMDISK_SIZE, (uint32_t)img->initrd_size);
	wr32(bp + BP_EXT_RAMDISK_SIZE, (uint32_t)((uint64_t)img->initrd_size >> 32));
	return 0;
}

/* Identity map 0..4 GiB with 2 MiB pages: covers the kernel, init_size, the
 * zero page, the command line and the initrd (all below 3 GiB). */
static void bz_paging_build(uint8_t *mem)
{
	memset(mem + BZ_PML4_GPA, 0, 2 * PAGE_SIZE + BZ_PD_PAGES * PAGE_SIZE);
	wr64(mem + BZ_PML4_GPA, BZ_PDPT_GPA | PTE_P | PTE_RW);
	for (unsigned g = 0; g < BZ_PD_PAGES; g++) {
		uint64_t pd = BZ_PD_GPA + g * PAGE_SIZE;

		wr64(mem + BZ_PDPT_GPA + g * 8, pd | PTE_P | PTE_RW);
		for (unsigned i = 0; i < 512; i++)
			wr64(mem + pd + i * 8, (GiB(g) + MiB(2) * i) | PTE_P | PTE_RW | PTE_PS);
	}
}

static void bz_gdt_build(uint8_t *mem)
{
	memset(mem + BZ_GDT_GPA, 0, 4 * 8);
	wr64(mem + BZ_GDT_GPA + BOOT_CS, GDT_CODE64);
	wr64(mem + BZ_GDT_GPA + BOOT_DS, GDT_DATA);
}

/* boot.rst §"64-bit Boot Protocol": the CPU state at the 64-bit entry. */
static void bz_entry_fill(struct guest_entry *out)
{
	memset(out, 0, sizeof(*out));
	out->mode = GUEST_MODE_LONG64;
	out->rip = BZ_KERNEL_GPA + ENTRY_64_OFFSET;
	out->rsi = BZ_ZERO_PAGE_GPA;
	out->rsp = BZ_STACK_TOP_GPA;
	out->rflags = RFLAGS_FIXED;            /* IF=0: interrupts disabled */
	out->cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_PG;
	out->cr3 = BZ_PML4_GPA;
	out->cr4 = CR4_PAE;
	out->efer = EFER_LME | EFER_LMA;
	out->gdt_base = BZ_GDT_GPA;
	out->gdt_limit = 4 * 8 - 1;
	out->cs = BOOT_CS;
	out->ds = BOOT_DS;
}

/* Zero page: cleared, the image's setup header copied in (sentinel stays 0,
 * so Linux trusts the fields), then the loader's own fields. */
static uint8_t *bz_zero_page_init(const struct guest_ram *ram, const uint8_t *d,
				  const struct bz_info *bi)
{
	uint8_t *bp = ram->base + BZ_ZERO_PAGE_GPA;

	memset(bp, 0, BP_SIZE);
	memcpy(bp + HDR_START, d + HDR_START, bi->hdr_end - HDR_START);
	bp[HDR_TYPE_OF_LOADER] = LOADER_TYPE_UNKNOWN;
	bp[HDR_LOADFLAGS] |= LF_LOADED_HIGH;
	wr64(bp + BP_ACPI_RSDP, 0);   /* Linux scans 0xE0000-0xFFFFF itself */
	ASSERT(bp[BP_SENTINEL] == 0);
	return bp;
}

static int bz_prepare(const struct guest_ram *ram, const struct guest_image *img,
		      struct bz_info *bi, struct e820_entry *map, int *nr)
{
	int rc;

	if (!ram || !ram->base || !img || !img->data)
		return -EINVAL;
	rc = bz_header_check(img->data, img->size, bi);
	if (!rc)
		rc = bz_header_parse(img->data, img->size, bi);
	if (rc)
		return rc;
	if (ram->size < BZ_CMDLINE_GPA + BZ_CMDLINE_ROOM) {
		pr_err("bzimage: VM RAM of 0x%llx B is too small\n", (unsigned long long)ram->size);
		return -E2BIG;
	}
	*nr = guest_e820(ram->size, map, BP_E820_MAX);
	if (*nr <= 0 || *nr > BP_E820_MAX) {
		pr_err("bzimage: guest_e820 gave %d entries (1..%u allowed)\n", *nr, BP_E820_MAX);
		return -EINVAL;
	}
	return bz_fit_check(ram, bi, map, (unsigned)*nr);
}

int load_bzimage(const struct guest_ram *ram, const struct guest_image *img,
		 struct guest_entry *out)
{
	struct e820_entry map[BP_E820_MAX];
	struct bz_info bi;
	uint8_t *bp;
	int n, rc;

	rc = bz_prepare(ram, img, &bi, map, &n);
	if (rc)
		return rc;
	bp = bz_zero_page_init(ram, img->data, &bi);
	bz_e820_store(bp, map, (unsigned)n);
	rc = bz_cmdline_place(ram, img, &bi, bp);
	if (!rc)
		rc = bz_initrd_place(ram, img, &bi, bp, map, (unsigned)n);
	if (rc)
		return rc;
	memcpy(ram->base + BZ_KERNEL_GPA, img->data + bi.pm_offset, bi.pm_size);
	bz_paging_build(ram->base);
	bz_gdt_build(ram->base);
	bz_entry_fill(out);
	pr_info("bzimage: protocol %u.%02u, kernel %zu B at 0x%llx (room to 0x%llx), "
		"cmdline %zu B, initrd %zu B at 0x%x\n", bi.version >> 8, bi.version & 0xff,
		bi.pm_size, (unsigned long long)BZ_KERNEL_GPA, (unsigned long long)bi.kernel_end,
		strlen((const char *)ram->base + BZ_CMDLINE_GPA), img->initrd ? img->initrd_size : 0,
		rd32(bp + HDR_RAMDISK_IMAGE));
	return 0;
}
