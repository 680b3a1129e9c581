/* Multiboot 1 (spec 0.6.96) structures and the placement helpers shared by the
 * multiboot1 and flat loaders (hv/load-internal). */
#ifndef HV_LOAD_MB1_H
#define HV_LOAD_MB1_H
#include "compiler.h"
#include "load/loader.h"

#define MB1_HEADER_MAGIC   0x1BADB002u   /* spec 3.1.2 */
#define MB1_BOOT_MAGIC     0x2BADB002u   /* EAX on entry, spec 3.2 */
#define MB1_SEARCH_LEN     8192u         /* header lies in the first 8 KiB */
#define MB1_HDR_PAGE_ALIGN BIT(0)        /* modules page aligned */
#define MB1_HDR_MEMINFO    BIT(1)        /* mem_* and mmap wanted */
#define MB1_HDR_VIDEO      BIT(2)        /* video mode wanted (we keep text mode) */
#define MB1_HDR_AOUT       BIT(16)       /* load by the header's address fields */
#define MB1_HDR_REQ_KNOWN  (MB1_HDR_PAGE_ALIGN | MB1_HDR_MEMINFO | MB1_HDR_VIDEO)

/* Multiboot header (spec 3.1.1); fields after checksum valid per flags. */
struct mb1_header {
	uint32_t magic, flags, checksum;
	uint32_t header_addr, load_addr, load_end_addr, bss_end_addr, entry_addr;
	uint32_t mode_type, width, height, depth;
};
_Static_assert(sizeof(struct mb1_header) == 48, "multiboot header layout");

/* Boot information flags (spec 3.3). */
#define MB1_INFO_MEM       BIT(0)
#define MB1_INFO_CMDLINE   BIT(2)
#define MB1_INFO_MODS      BIT(3)
#define MB1_INFO_MMAP      BIT(6)
#define MB1_INFO_LOADER    BIT(9)

struct mb1_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
	uint32_t mods_count, mods_addr, syms[4];
	uint32_t mmap_length, mmap_addr, drives_length, drives_addr;
	uint32_t config_table, boot_loader_name, apm_table;
	uint32_t vbe_control_info, vbe_mode_info;
	uint16_t vbe_mode, vbe_interface_seg, vbe_interface_off, vbe_interface_len;
	uint8_t framebuffer[28];
} __packed;
_Static_assert(sizeof(struct mb1_info) == 116, "multiboot info layout");
_Static_assert(offsetof(struct mb1_info, mmap_length) == 44, "mmap_length offset");
_Static_assert(offsetof(struct mb1_info, boot_loader_name) == 64, "loader name offset");

/* mmap entry: size counts the bytes after itself (20). */
struct mb1_mmap_entry { uint32_t size; uint64_t addr, len; uint32_t type; } __packed;
_Static_assert(sizeof(struct mb1_mmap_entry) == 24, "mmap entry layout");

struct mb1_module { uint32_t mod_start, mod_end, string, reserved; };
_Static_assert(sizeof(struct mb1_module) == 16, "module entry layout");

#define MB1_LOADER_NAME "hv-research"

/* Guest-physical ranges already taken while loading one image. */
#define LOAD_MAX_USED 24
struct load_used {
	unsigned n;
	struct { uint64_t start, end; } r[LOAD_MAX_USED];
};

/* Check [gpa, gpa+len) lies in guest RAM outside the EBDA/VGA/BIOS area and
 * record it as used; logs why and returns -ERANGE (or -ENOSPC) otherwise. */
int load_range_claim(const struct guest_ram *ram, struct load_used *used,
		     uint64_t gpa, uint64_t len, const char *what);
/* Lowest free RAM range of len bytes aligned to align at or above min. */
int load_range_find(const struct guest_ram *ram, const struct load_used *used,
		    uint64_t len, uint64_t align, uint64_t min, uint64_t *gpa);
/* Entry selectors: the GDT the loader leaves has flat code at 0x08 and flat
 * data at 0x10, as QEMU's and GRUB-like loaders leave it. */
#define MB1_ENTRY_CS    0x08
#define MB1_ENTRY_DS    0x10
#define MB1_ENTRY_GDT_LIMIT (3 * 8 - 1)
/* Build the multiboot info block (and place the initrd as module 0) and the
 * entry GDT; the ranges in used are avoided. Sets *info_gpa and *gdt_gpa. */
int mb1_info_build(const struct guest_ram *ram, const struct guest_image *img,
		   struct load_used *used, uint32_t *info_gpa, uint32_t *gdt_gpa);
/* Entry state of spec 3.2: 32-bit protected mode, paging off, flat segments
 * described by the GDT at gdt_gpa. */
void mb1_entry_init(struct guest_entry *out, uint32_t entry, uint32_t info_gpa,
		    uint32_t gdt_gpa);
#endif
