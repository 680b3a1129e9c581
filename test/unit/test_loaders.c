/* Unit tests for hv/load/{mb1,mb1_info,flat,layout}.c with fabricated images:
 * good ELF32, ELF64 (plain and via the a.out kludge), bad magic, truncation,
 * segments beyond RAM or over the BIOS area, flat images, the e820 map. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "load/mb1.h"
#include "errno.h"
#include "log.h"
#include "shim.h"
#include "check_run.h"

#define RAM_SIZE MiB(16)
#define KBASE    0x100000u   /* where fabricated kernels load */

struct e32 { uint8_t id[16]; uint16_t type, mach; uint32_t ver, entry, phoff, shoff, flags;
	     uint16_t ehsz, phsz, phnum, shsz, shnum, shstr; };
struct p32 { uint32_t type, off, vaddr, paddr, filesz, memsz, flags, align; };
struct e64 { uint8_t id[16]; uint16_t type, mach; uint32_t ver; uint64_t entry, phoff, shoff;
	     uint32_t flags; uint16_t ehsz, phsz, phnum, shsz, shnum, shstr; };
struct p64 { uint32_t type, flags; uint64_t off, vaddr, paddr, filesz, memsz, align; };

static uint8_t *ram_mem;
static struct guest_ram ram;
static uint8_t img[0x8000];
static struct guest_image gi;
static struct guest_entry ge;

static void setup(void)
{
	ram_mem = malloc(RAM_SIZE);
	memset(ram_mem, 0xaa, RAM_SIZE);    /* so bss zeroing is visible */
	ram = (struct guest_ram){ ram_mem, RAM_SIZE, 1 };
	memset(img, 0, sizeof(img));
	gi = (struct guest_image){ img, sizeof(img), "console=ttyS0 test=1", NULL, 0 };
	shim_reset_logs();
}

static void teardown(void)
{
	free(ram_mem);
}

static void put_mbhdr(size_t off, uint32_t flags, const uint32_t *aout)
{
	struct mb1_header h = { MB1_HEADER_MAGIC, flags, -(MB1_HEADER_MAGIC + flags) };

	if (aout)
		memcpy(&h.header_addr, aout, 5 * sizeof(uint32_t));
	memcpy(img + off, &h, sizeof(h));
}

/* ELF32 with one text segment (file 0x1000..0x1800 -> paddr) plus bss. */
static void make_elf32(uint32_t vaddr, uint32_t paddr, uint32_t entry, uint32_t memsz)
{
	struct e32 e = { { 0x7f, 'E', 'L', 'F', 1, 1, 1 }, 2, 3, 1, entry, 52, 0, 0,
			 52, 32, 2, 40, 0, 0 };
	struct p32 p[2] = { { 1, 0x1000, vaddr, paddr, 0x800, memsz, 5, 0x1000 },
			    { 4, 0, 0, 0, 0, 0, 4, 4 } };  /* PT_NOTE: ignored */

	memcpy(img, &e, sizeof(e));
	memcpy(img + 52, p, sizeof(p));
	put_mbhdr(0x200, MB1_HDR_PAGE_ALIGN | MB1_HDR_MEMINFO, NULL);
	for (int i = 0; i < 0x800; i++)
		img[0x1000 + i] = (uint8_t)(i * 7 + 1);
}

static void make_elf64(uint64_t paddr, uint64_t entry)
{
	struct e64 e = { { 0x7f, 'E', 'L', 'F', 2, 1, 1 }, 2, 62, 1, entry, 64, 0, 0,
			 64, 56, 1, 64, 0, 0 };
	struct p64 p = { 1, 5, 0x1000, paddr, paddr, 0x800, 0x2000, 0x1000 };

	memcpy(img, &e, sizeof(e));
	memcpy(img + 64, &p, sizeof(p));
	for (int i = 0; i < 0x800; i++)
		img[0x1000 + i] = (uint8_t)(i ^ 0x5a);
}

/* Load from a heap copy of exactly size bytes, so ASan sees any over-read. */
static int load_exact(size_t size)
{
	uint8_t *copy = malloc(size);
	struct guest_image g = gi;
	int rc;

	memcpy(copy, img, size);
	g.data = copy;
	g.size = size;
	rc = load_multiboot1(&ram, &g, &ge);
	free(copy);
	return rc;
}

static const struct mb1_info *info(void)
{
	return (const struct mb1_info *)(ram_mem + ge.rbx);
}

static void check_payload(uint32_t paddr, uint32_t memsz, int xor)
{
	for (int i = 0; i < 0x800; i++)
		ck_assert_uint_eq(ram_mem[paddr + i], xor ? (uint8_t)(i ^ 0x5a) : (uint8_t)(i * 7 + 1));
	for (uint32_t i = 0x800; i < memsz; i++)
		ck_assert_uint_eq(ram_mem[paddr + i], 0);   /* bss zeroed */
	ck_assert_uint_eq(ram_mem[paddr + memsz], 0xaa);   /* nothing past memsz */
}

static void check_entry_state(uint32_t rip)
{
	ck_assert_int_eq(ge.mode, GUEST_MODE_PROT32);
	ck_assert_uint_eq(ge.rip, rip);
	ck_assert_uint_eq(ge.rax, MB1_BOOT_MAGIC);
	ck_assert_uint_eq(ge.cr0 & 0x80000001u, 1);       /* PE on, PG off */
	ck_assert_uint_eq(ge.rflags & 0x200, 0);          /* IF clear */
	/* A flat GDT at entry, CS/DS inside it (issue 18 item 10). */
	ck_assert_uint_eq(ge.cs, 0x08);
	ck_assert_uint_eq(ge.ds, 0x10);
	ck_assert_uint_eq(ge.gdt_limit, 23);
	ck_assert_uint_ge(ge.gdt_base, 0x1000);
	ck_assert_uint_eq(ge.gdt_base % 8, 0);
	uint64_t d[3];
	memcpy(d, ram_mem + ge.gdt_base, sizeof(d));
	ck_assert_uint_eq(d[0], 0);
	ck_assert_uint_eq(d[1], 0x00cf9b000000ffffull);
	ck_assert_uint_eq(d[2], 0x00cf93000000ffffull);
	/* it does not overlap the info block */
	ck_assert(ge.gdt_base >= ge.rbx + sizeof(struct mb1_info) || ge.gdt_base + 24 <= ge.rbx);
}

START_TEST(test_elf32_good)
{
	make_elf32(KBASE, KBASE, KBASE + 0x10, 0x3000);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
	check_payload(KBASE, 0x3000, 0);
	check_entry_state(KBASE + 0x10);
	ck_assert_uint_ge(ge.rbx, 0x1000);
	ck_assert(ge.rbx + sizeof(struct mb1_info) <= KBASE || ge.rbx >= KBASE + 0x3000);
}
END_TEST

START_TEST(test_info_block)
{
	struct e820_entry e[8];
	unsigned n = guest_e820(RAM_SIZE, e, 8);

	make_elf32(KBASE, KBASE, KBASE, 0x800);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
	const struct mb1_info *mi = info();
	ck_assert_uint_eq(mi->flags & (MB1_INFO_MEM | MB1_INFO_MMAP | MB1_INFO_CMDLINE | MB1_INFO_LOADER),
			  MB1_INFO_MEM | MB1_INFO_MMAP | MB1_INFO_CMDLINE | MB1_INFO_LOADER);
	ck_assert_uint_eq(mi->flags & MB1_INFO_MODS, 0);
	ck_assert_uint_eq(mi->mem_lower, 639);
	ck_assert_uint_eq(mi->mem_upper, (RAM_SIZE - MiB(1)) >> 10);
	ck_assert_str_eq((const char *)ram_mem + mi->cmdline, "console=ttyS0 test=1");
	ck_assert_str_eq((const char *)ram_mem + mi->boot_loader_name, MB1_LOADER_NAME);
	ck_assert_uint_eq(mi->mmap_length, n * 24);
	for (unsigned i = 0; i < n; i++) {
		struct mb1_mmap_entry m;

		memcpy(&m, ram_mem + mi->mmap_addr + i * 24, sizeof(m));
		ck_assert_uint_eq(m.size, 20);
		ck_assert_uint_eq(m.addr, e[i].addr);
		ck_assert_uint_eq(m.len, e[i].size);
		ck_assert_uint_eq(m.type, e[i].type);
	}
}
END_TEST

/* A kernel loaded over the usual info area pushes the block elsewhere. */
START_TEST(test_info_avoids_kernel)
{
	make_elf32(0x1000, 0x1000, 0x1000, 0x9e000);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
	ck_assert_uint_ge(ge.rbx, 0x9f000);   /* the 3 KiB gap above the kernel */
	ck_assert_uint_le(ge.rbx + sizeof(struct mb1_info), GUEST_LOWMEM_END);
	ck_assert_str_eq((const char *)ram_mem + info()->cmdline, "console=ttyS0 test=1");
	ck_assert_uint_eq(ram_mem[0x1000], 1);   /* kernel intact */
}
END_TEST

START_TEST(test_entry_virtual)
{
	/* linked at 0xc0100000, loaded at 1 MiB: entry translated like GRUB does */
	make_elf32(0xc0100000u, KBASE, 0xc0100020u, 0x1000);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
	ck_assert_uint_eq(ge.rip, KBASE + 0x20);
	check_payload(KBASE, 0x1000, 0);
}
END_TEST

START_TEST(test_module)
{
	static const uint8_t rd[5000] = { 1, 2, 3 };

	gi.initrd = rd;
	gi.initrd_size = sizeof(rd);
	make_elf32(KBASE, KBASE, KBASE, 0x3000);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
	const struct mb1_info *mi = info();
	ck_assert(mi->flags & MB1_INFO_MODS);
	ck_assert_uint_eq(mi->mods_count, 1);
	ck_assert_uint_eq(mi->mods_addr % 4, 0);
	ck_assert_uint_eq(mi->mmap_addr % 4, 0);
	const struct mb1_module *m = (const void *)(ram_mem + mi->mods_addr);
	ck_assert_uint_eq(m->mod_start % 4096, 0);
	ck_assert_uint_ge(m->mod_start, KBASE + 0x3000);
	ck_assert_uint_eq(m->mod_end - m->mod_start, sizeof(rd));
	ck_assert_mem_eq(ram_mem + m->mod_start, rd, sizeof(rd));
	ck_assert_str_eq((const char *)ram_mem + m->string, "initrd");
}
END_TEST

/* Two PT_LOAD segments (text and data+bss) and an empty one that is skipped. */
START_TEST(test_elf32_multi_segment)
{
	struct e32 e = { { 0x7f, 'E', 'L', 'F', 1, 1, 1 }, 2, 3, 1, 0x200000, 52, 0, 0,
			 52, 32, 3, 40, 0, 0 };
	struct p32 p[3] = { { 1, 0x1000, 0x200000, 0x200000, 0x100, 0x100, 5, 0x1000 },
			    { 1, 0x0, 0x0, 0x0, 0, 0, 6, 0x1000 },
			    { 1, 0x1100, 0x300000, 0x300000, 0x80, 0x5000, 6, 0x1000 } };

	memcpy(img, &e, sizeof(e));
	memcpy(img + 52, p, sizeof(p));
	put_mbhdr(0x200, MB1_HDR_MEMINFO, NULL);
	memset(img + 0x1000, 0x11, 0x100);
	memset(img + 0x1100, 0x22, 0x80);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
	ck_assert_uint_eq(ram_mem[0x2000ff], 0x11);
	ck_assert_uint_eq(ram_mem[0x200100], 0xaa);       /* text ends there */
	ck_assert_uint_eq(ram_mem[0x30007f], 0x22);
	ck_assert_uint_eq(ram_mem[0x300080], 0);          /* bss */
	ck_assert_uint_eq(ram_mem[0x304fff], 0);
	ck_assert_uint_eq(ram_mem[0x0], 0xaa);            /* the empty segment loads nothing */
	check_entry_state(0x200000);
}
END_TEST

/* The a.out kludge with a header in the last 32 bytes of the file (no video
 * fields), load_end_addr 0 = to the end of the file, bss_end_addr 0 = none. */
START_TEST(test_aout_short_tail)
{
	uint32_t aout[5] = { 0x400000 + 0xfe0, 0x400000, 0, 0, 0x400000 };
	uint32_t flags = MB1_HDR_AOUT;
	uint32_t h[8] = { MB1_HEADER_MAGIC, flags, -(MB1_HEADER_MAGIC + flags) };

	memcpy(h + 3, aout, sizeof(aout));
	memcpy(img + 0xfe0, h, sizeof(h));           /* exactly 32 bytes */
	img[0] = 0xeb;
	ck_assert_int_eq(load_exact(0x1000), 0);
	ck_assert_uint_eq(ram_mem[0x400000], 0xeb);
	ck_assert_mem_eq(ram_mem + 0x400fe0, h, sizeof(h));
	ck_assert_uint_eq(ram_mem[0x401000], 0xaa);
	check_entry_state(0x400000);
}
END_TEST

START_TEST(test_elf64_phdrs)
{
	make_elf64(0x200000, 0x200100);
	put_mbhdr(0x100, MB1_HDR_MEMINFO, NULL);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
	check_payload(0x200000, 0x2000, 1);
	check_entry_state(0x200100);
}
END_TEST

/* ELF64 file with nonsense program headers: the kludge fields must win. */
START_TEST(test_aout_kludge)
{
	/* header at file 0x100 <-> 0x300100; load file 0x0.. from 0x300000 */
	uint32_t aout[5] = { 0x300100, 0x300000, 0x301800, 0x304000, 0x301000 };

	make_elf64(0xf0000000ull, 0xf0000000ull);
	put_mbhdr(0x100, MB1_HDR_MEMINFO | MB1_HDR_AOUT, aout);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
	ck_assert_mem_eq(ram_mem + 0x300000, img, 0x1800);
	for (int i = 0x1800; i < 0x4000; i++)
		ck_assert_uint_eq(ram_mem[0x300000 + i], 0);
	check_entry_state(0x301000);
}
END_TEST

START_TEST(test_aout_bad)
{
	uint32_t aout[5] = { 0x300100, 0x300200, 0, 0, 0x300200 };   /* header below load */

	put_mbhdr(0x100, MB1_HDR_AOUT, aout);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ENOEXEC);
	uint32_t aout2[5] = { 0x300100, 0x300000, 0, 0, 0x400000 };  /* entry outside */
	put_mbhdr(0x100, MB1_HDR_AOUT, aout2);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ENOEXEC);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 2);
}
END_TEST

START_TEST(test_bad_magic)
{
	make_elf32(KBASE, KBASE, KBASE, 0x800);
	img[1] = 'X';
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ENOEXEC);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
	ck_assert_uint_eq(ram_mem[KBASE], 0xaa);     /* nothing loaded */
}
END_TEST

START_TEST(test_no_header)
{
	make_elf32(KBASE, KBASE, KBASE, 0x800);
	img[0x208] ^= 1;                             /* checksum broken */
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ENOEXEC);
	memset(img + 0x200, 0, 48);
	put_mbhdr(0x2000, MB1_HDR_MEMINFO, NULL);    /* beyond the first 8 KiB */
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ENOEXEC);
	memset(img + 0x2000, 0, 48);
	put_mbhdr(0x1ffc - 8, MB1_HDR_MEMINFO, NULL); /* last slot inside the window */
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
}
END_TEST

START_TEST(test_unsupported_flags)
{
	make_elf32(KBASE, KBASE, KBASE, 0x800);
	put_mbhdr(0x200, MB1_HDR_MEMINFO | BIT(5), NULL);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ENOTSUP);
	put_mbhdr(0x200, MB1_HDR_MEMINFO | BIT(20), NULL);  /* optional bits are fine */
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
}
END_TEST

START_TEST(test_beyond_ram)
{
	make_elf32(RAM_SIZE - 0x1000, RAM_SIZE - 0x1000, RAM_SIZE - 0x1000, 0x2000);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ERANGE);
	make_elf32(0xfffff000u, 0xfffff000u, 0xfffff000u, 0x2000);   /* wraps 4 GiB */
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ERANGE);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 2);
}
END_TEST

START_TEST(test_bios_overlap)
{
	make_elf32(0xf0000, 0xf0000, 0xf0000, 0x800);
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ERANGE);
	make_elf32(0x9f000, 0x9f000, 0x9f000, 0x1000);    /* crosses into the EBDA */
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ERANGE);
	make_elf32(0x9f000, 0x9f000, 0x9f000, 0xc00);     /* ends at 0x9fc00: fine */
	img[0x1000 + 0xbff] = 0;
	struct p32 p;
	memcpy(&p, img + 52, sizeof(p));
	p.filesz = 0x800;
	memcpy(img + 52, &p, sizeof(p));
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), 0);
}
END_TEST

START_TEST(test_truncated)
{
	make_elf32(KBASE, KBASE, KBASE, 0x800);
	ck_assert_int_eq(load_exact(0x1400), -ENOEXEC);   /* segment data cut */
	img[44] = 40;                                      /* e_phnum: table past the end */
	ck_assert_int_eq(load_exact(0x240), -ENOEXEC);
	memset(img, 0, sizeof(img));
	img[0] = 0x7f; img[1] = 'E'; img[2] = 'L'; img[3] = 'F'; img[4] = 1; img[5] = 1;
	put_mbhdr(16, MB1_HDR_MEMINFO, NULL);
	ck_assert_int_eq(load_exact(40), -ENOEXEC);        /* ELF header cut */
	make_elf32(KBASE, KBASE, KBASE, 0x400);            /* filesz > memsz */
	ck_assert_int_eq(load_exact(sizeof(img)), -ENOEXEC);
	ck_assert_int_eq(load_exact(0x1800), -ENOEXEC);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 5);
	ck_assert_uint_eq(ram_mem[KBASE], 0xaa);
}
END_TEST

START_TEST(test_wrong_machine)
{
	make_elf32(KBASE, KBASE, KBASE, 0x800);
	img[18] = 40;                        /* EM_ARM */
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ENOEXEC);
	make_elf32(KBASE, KBASE, 0x50000000u, 0x800);   /* entry in no segment */
	ck_assert_int_eq(load_multiboot1(&ram, &gi, &ge), -ENOEXEC);
}
END_TEST

START_TEST(test_flat_good)
{
	for (int i = 0; i < 0x100; i++)
		img[i] = (uint8_t)(0xc0 + i);
	gi.size = 0x100;
	ck_assert_int_eq(load_flat(&ram, &gi, &ge), 0);
	ck_assert_mem_eq(ram_mem + GUEST_HIGHMEM_START, img, 0x100);
	check_entry_state(GUEST_HIGHMEM_START);
	ck_assert_str_eq((const char *)ram_mem + info()->cmdline, "console=ttyS0 test=1");
	ck_assert_uint_lt(ge.rbx, GUEST_LOWMEM_END);
}
END_TEST

START_TEST(test_flat_too_large)
{
	struct guest_ram small = { ram_mem, MiB(1) + 0x4000, 1 };

	gi.size = 0x4001;
	ck_assert_int_eq(load_flat(&small, &gi, &ge), -E2BIG);
	gi.size = 0x4000;                    /* exactly fits; info goes low */
	ck_assert_int_eq(load_flat(&small, &gi, &ge), 0);
	gi.size = 0;
	ck_assert_int_eq(load_flat(&small, &gi, &ge), -ENOEXEC);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 2);
}
END_TEST

static uint64_t e820_ram(const struct e820_entry *e, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++) {
		if (i)
			ck_assert_uint_ge(e[i].addr, e[i - 1].addr + e[i - 1].size);
		if (e[i].type == E820_RAM)
			sum += e[i].size;
	}
	return sum;
}

START_TEST(test_e820)
{
	struct e820_entry e[8];
	unsigned n = guest_e820(MiB(256), e, 8);

	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(e[0].addr, 0);
	ck_assert_uint_eq(e[0].size, GUEST_LOWMEM_END);
	ck_assert_uint_eq(e[3].addr, GUEST_HIGHMEM_START);
	ck_assert_uint_eq(e[3].type, E820_RAM);
	ck_assert_uint_eq(e820_ram(e, n), MiB(256) - (GUEST_HIGHMEM_START - GUEST_LOWMEM_END));
	n = guest_e820(GiB(8), e, 8);        /* capped below the MMIO hole */
	ck_assert_uint_eq(e820_ram(e, n), GUEST_MAX_RAM - (GUEST_HIGHMEM_START - GUEST_LOWMEM_END));
	ck_assert_int_eq(shim_log_count[LOG_WARN], 1);
	n = guest_e820(KiB(512), e, 8);      /* tiny: low RAM only */
	ck_assert_uint_eq(e820_ram(e, n), KiB(512));
	ck_assert_uint_eq(guest_e820(MiB(64), e, 2), 2);
	for (unsigned i = 0; i < 6; i++) {   /* device pages never RAM */
		ck_assert(e[i].type != E820_RAM || e[i].addr + e[i].size <= GUEST_MAX_RAM);
	}
}
END_TEST

static Suite *loaders_suite(void)
{
	Suite *s = suite_create("loaders");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_elf32_good);
	tcase_add_test(t, test_info_block);
	tcase_add_test(t, test_info_avoids_kernel);
	tcase_add_test(t, test_entry_virtual);
	tcase_add_test(t, test_module);
	tcase_add_test(t, test_elf32_multi_segment);
	tcase_add_test(t, test_aout_short_tail);
	tcase_add_test(t, test_elf64_phdrs);
	tcase_add_test(t, test_aout_kludge);
	tcase_add_test(t, test_aout_bad);
	tcase_add_test(t, test_bad_magic);
	tcase_add_test(t, test_no_header);
	tcase_add_test(t, test_unsupported_flags);
	tcase_add_test(t, test_beyond_ram);
	tcase_add_test(t, test_bios_overlap);
	tcase_add_test(t, test_truncated);
	tcase_add_test(t, test_wrong_machine);
	tcase_add_test(t, test_flat_good);
	tcase_add_test(t, test_flat_too_large);
	tcase_add_test(t, test_e820);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return check_run(loaders_suite());
}
