/* bareload: boot the guest Linux natively in bare Bochs the way the
 * hypervisor boots it in a VM -- the same load_bzimage() (hv/load/bzimage.c),
 * the same guest ACPI/MP tables (hv/dev/acpi_tables.c) at the same place, the
 * same RAM size, CPU count and command line -- so that the cycles from kernel
 * entry to /init compare like for like (issue 6, `make bench-linux-boot`).
 *
 * GRUB loads build/linux/bareload.elf as a Multiboot2 kernel with arguments
 * "vcpus=N mem=MIB" and three modules named by their strings: "bzImage",
 * "initrd" and "cmdline" (a file holding the guest command line). The planning
 * below is pure logic (host unit test: test/unit/test_bareload.c). */
#ifndef BARELOAD_H
#define BARELOAD_H
#include "types.h"
#include "compiler.h"
#include "bootinfo.h"

#define BL_IMAGE_BASE   0x10000000ULL   /* bareload.ld: above any guest RAM */
#define BL_ALIAS_BASE   0x100000000ULL  /* physical 0..4 GiB again at 4 GiB */
#define BL_CMDLINE_MAX  4096            /* longest guest command line */
#define BL_MEM_DEFAULT  MiB(128)

/* What GRUB's arguments ask for: the VM's vcpus= and mem= (MiB). */
struct bl_cfg {
	unsigned vcpus;
	uint64_t mem;
};

enum bl_mod_kind { BL_MOD_KERNEL, BL_MOD_INITRD, BL_MOD_CMDLINE, BL_MOD_NR };

/* The three modules after placement: physical [start, start + len). */
struct bl_mods {
	uint64_t start[BL_MOD_NR], len[BL_MOD_NR];
	uint64_t src[BL_MOD_NR];        /* where GRUB left them */
};

/* The register state the jump loads (entry.asm uses these offsets). */
struct bl_jump {
	uint64_t cr3, rip, rsi, rsp, cr0, cr4;
	uint16_t gdt_limit;
	uint64_t gdt_base;
	uint16_t cs, ds;
} __packed;
_Static_assert(offsetof(struct bl_jump, gdt_limit) == 48, "entry.asm J_GDTR");
_Static_assert(offsetof(struct bl_jump, cs) == 58, "entry.asm J_CS");
_Static_assert(offsetof(struct bl_jump, ds) == 60, "entry.asm J_DS");

/* "vcpus=N mem=M" (M in MiB, optional K/M/G suffix); unknown words are
 * ignored. 0 or -EINVAL after one pr_err line. */
int bl_args_parse(const char *s, struct bl_cfg *c);
/* Find the three modules by their strings; -ENOENT if one is missing. */
int bl_mods_find(const struct boot_info *bi, struct bl_mods *m);
/* Choose where each module lives while the guest RAM [0, guest_end) is
 * built: a module wholly at or above guest_end stays; the others move to
 * free RAM above every module and above image_end. Every final range must
 * lie in one available memory-map range. 0, -ENOMEM or -ERANGE. */
int bl_mods_place(const struct boot_info *bi, struct bl_mods *m, uint64_t guest_end,
		  uint64_t image_end);
/* Copy a command-line file of n bytes to dst (room bytes), trailing
 * whitespace dropped, NUL-terminated. -E2BIG if too long, -EINVAL if it
 * contains a NUL or a line break before its end. */
int bl_cmdline_copy(const char *src, size_t n, char *dst, size_t room);

/* Image-only (hw.c, main.c). */
void bl_serial_init(void);
void bl_platform_prepare(void);
__noreturn void bareload_jump(const struct bl_jump *j);
#endif
