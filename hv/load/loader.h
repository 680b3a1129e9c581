/* Guest image loaders: pure functions over the guest's RAM (contiguous in the
 * host, mapped 1:1 by EPT at guest-physical 0). Host-buildable. */
#ifndef HV_LOAD_LOADER_H
#define HV_LOAD_LOADER_H
#include "types.h"

/* Guest-physical layout every VM gets (a PC, like QEMU's "pc"). */
#define GUEST_LOWMEM_END     0x9fc00ULL     /* RAM 0..here; EBDA above */
#define GUEST_BIOS_START     0xe0000ULL     /* ACPI RSDP/tables and MP table live here */
#define GUEST_BIOS_END       0x100000ULL
#define GUEST_HIGHMEM_START  0x100000ULL
#define GUEST_MAX_RAM        0xc0000000ULL  /* RAM below 3 GiB; MMIO hole above */
#define GUEST_IOAPIC_BASE    0xfec00000ULL
#define GUEST_LAPIC_BASE     0xfee00000ULL

enum e820_type { E820_RAM = 1, E820_RESERVED = 2, E820_ACPI = 3, E820_NVS = 4 };
struct e820_entry { uint64_t addr, size; uint32_t type; } __attribute__((packed));

/* Fill the guest's e820 map for a RAM size; returns the number of entries. */
unsigned guest_e820(uint64_t ram_size, struct e820_entry *out, unsigned max);

enum guest_mode { GUEST_MODE_REAL16, GUEST_MODE_PROT32, GUEST_MODE_LONG64 };

/* CPU state the boot vCPU starts with. Segments are flat (base 0, limit 4G);
 * for GUEST_MODE_LONG64 the loader builds page tables and a GDT in guest RAM
 * and sets cr3/gdt_base. */
struct guest_entry {
	enum guest_mode mode;
	uint64_t rip, rsp, rflags;
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp;
	uint64_t cr0, cr3, cr4, efer;
	uint64_t gdt_base;
	uint16_t gdt_limit;
	uint16_t cs, ds;  /* selectors (ds also used for es/ss/fs/gs) */
};

struct guest_ram {
	uint8_t *base;       /* host pointer to guest-physical 0 */
	uint64_t size;       /* bytes of RAM */
	unsigned nr_vcpus;
};

struct guest_image {
	const uint8_t *data;  size_t size;      /* kernel image as loaded by GRUB */
	const char *cmdline;                    /* guest command line ("" if none) */
	const uint8_t *initrd; size_t initrd_size;
};

/* Each returns 0 or a negative errno after logging one clear line saying why. */
int load_multiboot1(const struct guest_ram *ram, const struct guest_image *img,
		    struct guest_entry *out);
int load_flat(const struct guest_ram *ram, const struct guest_image *img,
	      struct guest_entry *out);
int load_bzimage(const struct guest_ram *ram, const struct guest_image *img,
		 struct guest_entry *out);
#endif
