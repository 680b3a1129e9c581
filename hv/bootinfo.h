/* Multiboot2 boot information: tag numbers and layouts (Multiboot2 spec 1.0,
 * section 3.6) and the parsed, validated summary the rest of the boot uses. */
#ifndef HV_BOOTINFO_H
#define HV_BOOTINFO_H
#include "compiler.h"

#define MB2_BOOTLOADER_MAGIC   0x36d76289u   /* in EAX at entry (spec 3.3) */
#define MB2_TAG_ALIGN          8

/* Boot information tag types (spec 3.6). */
enum mb2_tag_type {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_BOOTLOADER_NAME = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_BASIC_MEMINFO = 4,
	MB2_TAG_BOOTDEV = 5,
	MB2_TAG_MMAP = 6,
	MB2_TAG_VBE = 7,
	MB2_TAG_FRAMEBUFFER = 8,
	MB2_TAG_ELF_SECTIONS = 9,
	MB2_TAG_APM = 10,
	MB2_TAG_EFI32 = 11,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_SMBIOS = 13,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
	MB2_TAG_NETWORK = 16,
	MB2_TAG_EFI_MMAP = 17,
	MB2_TAG_EFI_BS = 18,
	MB2_TAG_EFI32_IH = 19,
	MB2_TAG_EFI64_IH = 20,
	MB2_TAG_LOAD_BASE_ADDR = 21,
};

/* Memory map entry types (tag 6). */
enum mb2_mmap_type {
	MB2_MMAP_AVAILABLE = 1,
	MB2_MMAP_RESERVED = 2,
	MB2_MMAP_ACPI_RECLAIMABLE = 3,
	MB2_MMAP_NVS = 4,
	MB2_MMAP_BADRAM = 5,
};

struct mb2_info_header { uint32_t total_size, reserved; } __packed;
struct mb2_tag { uint32_t type, size; } __packed;
struct mb2_tag_string { uint32_t type, size; char string[]; } __packed;
struct mb2_tag_module { uint32_t type, size, mod_start, mod_end; char string[]; } __packed;
struct mb2_tag_meminfo { uint32_t type, size, mem_lower, mem_upper; } __packed;
struct mb2_mmap_entry { uint64_t addr, len; uint32_t type, zero; } __packed;
struct mb2_tag_mmap { uint32_t type, size, entry_size, entry_version; } __packed;
struct mb2_tag_efi_mmap { uint32_t type, size, desc_size, desc_version; } __packed;
struct mb2_tag_ptr64 { uint32_t type, size; uint64_t pointer; } __packed;
struct mb2_tag_load_base { uint32_t type, size, load_base_addr; } __packed;
_Static_assert(sizeof(struct mb2_mmap_entry) == 24, "spec 3.6.8");
_Static_assert(sizeof(struct mb2_tag_module) == 16, "spec 3.6.6");

/* UEFI memory descriptor (UEFI spec 2.x, 7.2 GetMemoryMap). */
struct efi_mem_desc {
	uint32_t type, pad;
	uint64_t phys_start, virt_start, num_pages, attribute;
} __packed;
_Static_assert(sizeof(struct efi_mem_desc) == 40, "UEFI EFI_MEMORY_DESCRIPTOR");
enum efi_mem_type {
	EFI_LOADER_CODE = 1, EFI_LOADER_DATA = 2,
	EFI_BOOT_SERVICES_CODE = 3, EFI_BOOT_SERVICES_DATA = 4,
	EFI_CONVENTIONAL_MEMORY = 7, EFI_UNUSABLE = 8,
	EFI_ACPI_RECLAIM = 9, EFI_ACPI_NVS = 10,
};

#define BOOTINFO_MMAP_MAX     256
#define BOOTINFO_MODULES_MAX  32
#define BOOTINFO_RSDP_MAX     36     /* ACPI 2.0+ RSDP; ACPI 1.0 uses 20 */

struct bootinfo_range { uint64_t addr, len; uint32_t type; };  /* type: enum mb2_mmap_type */

struct bootinfo_module {
	paddr_t start, end;       /* [start, end) as loaded by the boot loader */
	const char *string;       /* NUL-terminated, inside the boot information */
};

struct boot_info {
	paddr_t mbi;                          /* boot information itself ... */
	uint32_t total_size;                  /* ... and its size (reserve both) */
	const char *cmdline;                  /* "" when absent */
	const char *loader_name;              /* "" when absent */
	bool has_meminfo;
	uint32_t mem_lower_kib, mem_upper_kib;
	/* Memory map: from tag 6, else converted from the EFI map (tag 17). */
	unsigned nr_mmap;
	struct bootinfo_range mmap[BOOTINFO_MMAP_MAX];
	bool mmap_from_efi;
	/* EFI memory map (tag 17) as given: descriptors of efi_desc_size bytes. */
	bool has_efi_mmap;
	const void *efi_mmap;
	uint32_t efi_desc_size, efi_desc_version, nr_efi_desc;
	bool efi_boot_services;               /* tag 18: boot services not exited */
	uint64_t efi_system_table;            /* tag 12 (0 if absent) */
	uint32_t load_base;                   /* tag 21 (0 if absent) */
	unsigned nr_modules;
	struct bootinfo_module modules[BOOTINFO_MODULES_MAX];
	/* ACPI RSDP copied from tag 14 (rsdp_len 20) or tag 15 (36); new wins. */
	uint8_t rsdp_len;
	uint8_t rsdp[BOOTINFO_RSDP_MAX];
};

/*
 * Validate and summarise the multiboot2 information at `mbi` (read only within
 * its total_size). Returns 0, or a negative errno after one pr_err line:
 * -EINVAL wrong magic or malformed tags, -EFAULT NULL/misaligned pointer,
 * -E2BIG too many modules. Unknown tags are skipped.
 */
int bootinfo_parse(uint32_t magic, const void *mbi, struct boot_info *bi);
/* Log a summary (memory map, modules, command line) at info level. */
void bootinfo_print(const struct boot_info *bi);
/* Sum of available (type 1) bytes in the memory map. */
uint64_t bootinfo_ram_bytes(const struct boot_info *bi);
#endif
