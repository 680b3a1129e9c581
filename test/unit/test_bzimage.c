/* Unit tests for hv/load/bzimage.c: synthetic images (good and each malformed
 * case) and, when `make linux-guest` has built one, the real guest bzImage.
 * Offsets are written out from Documentation/x86/boot.rst independently of
 * the loader, so a wrong offset in either shows up. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "errno.h"
#include "load/loader.h"
#include "log.h"
#include "shim.h"

#define RAM_SIZE   (32u << 20)
#define PM_SIZE    (64u << 10)
#define SETUP_SECTS 4
#define PM_OFFSET  ((SETUP_SECTS + 1) * 512)
#define IMG_SIZE   (PM_OFFSET + PM_SIZE)
#define INIT_SIZE  (2u << 20)
#define PREF_ADDR  (16u << 20)

/* The platform's layout (hv/load/layout.c) overrides this when linked. */
__attribute__((weak)) unsigned guest_e820(uint64_t ram_size, struct e820_entry *out,
					  unsigned max)
{
	struct e820_entry map[] = {
		{ 0, GUEST_LOWMEM_END, E820_RAM },
		{ GUEST_LOWMEM_END, 0xa0000 - GUEST_LOWMEM_END, E820_RESERVED },
		{ GUEST_BIOS_START, GUEST_BIOS_END - GUEST_BIOS_START, E820_RESERVED },
		{ GUEST_HIGHMEM_START, ram_size - GUEST_HIGHMEM_START, E820_RAM },
	};
	unsigned n = max < 4 ? max : 4;
	memcpy(out, map, n * sizeof(*out));
	return n;
}

static uint8_t *ram_mem, *img;
static uint8_t initrd[3 * 4096 + 123];
static struct guest_ram ram;
static struct guest_image gi;
static struct guest_entry entry;

static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* A minimal image with a 2.15 header like Linux 6.1's. */
static void image_make(void)
{
	memset(img, 0, IMG_SIZE);
	img[0x1ef] = 0xff;                /* header.S sets the sentinel */
	img[0x1f1] = SETUP_SECTS;
	put16(img + 0x1fe, 0xaa55);
	img[0x200] = 0xeb;                /* jmp short: header ends at 0x202 + 0x6a */
	img[0x201] = 0x6a;
	memcpy(img + 0x202, "HdrS", 4);
	put16(img + 0x206, 0x020f);
	img[0x211] = 0x01;                /* LOADED_HIGH */
	put32(img + 0x22c, 0x7fffffff);   /* initrd_addr_max */
	put16(img + 0x236, 0x0001);       /* XLF_KERNEL_64 */
	put32(img + 0x238, 2047);         /* cmdline_size */
	put64(img + 0x258, PREF_ADDR);
	put32(img + 0x260, INIT_SIZE);
	for (unsigned i = 0; i < PM_SIZE; i++)
		img[PM_OFFSET + i] = (uint8_t)(i * 7 + 3);
}

static void setup(void)
{
	ram_mem = calloc(1, RAM_SIZE);
	img = malloc(IMG_SIZE);
	ck_assert_ptr_nonnull(ram_mem);
	ck_assert_ptr_nonnull(img);
	image_make();
	for (unsigned i = 0; i < sizeof(initrd); i++)
		initrd[i] = (uint8_t)(i ^ 0x5a);
	ram = (struct guest_ram){ .base = ram_mem, .size = RAM_SIZE, .nr_vcpus = 1 };
	gi = (struct guest_image){ .data = img, .size = IMG_SIZE,
		.cmdline = "console=ttyS0,115200 hv.run=\"bartest 4 100 spin\"",
		.initrd = initrd, .initrd_size = sizeof(initrd) };
	memset(&entry, 0xcc, sizeof(entry));
	shim_reset_logs();
}

static void teardown(void)
{
	free(ram_mem);
	free(img);
}

/* Walk the guest's 4-level page tables (SDM Vol. 3A §4.5) for a linear address. */
static uint64_t walk(uint64_t cr3, uint64_t va)
{
	uint64_t e = cr3;
	for (int level = 3; level >= 0; level--) {
		uint64_t table = e & 0x000ffffffffff000ULL;
		ck_assert_uint_lt(table + 4096, RAM_SIZE + 1);
		e = get64(ram_mem + table + ((va >> (12 + 9 * level)) & 511) * 8);
		ck_assert_msg(e & 1, "not present at level %d for %#llx", level,
			      (unsigned long long)va);
		if (level == 1 && (e & 0x80))
			return (e & 0x000fffffffe00000ULL) | (va & 0x1fffff);
		ck_assert_int_ne(level, 0);
	}
	return ~0ULL;
}

static const uint8_t *zero_page(void)
{
	ck_assert_uint_lt(entry.rsi + 4096, RAM_SIZE);
	return ram_mem + entry.rsi;
}

START_TEST(test_good_entry_state)
{
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), 0);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 0);
	ck_assert_int_eq(entry.mode, GUEST_MODE_LONG64);
	ck_assert_uint_eq(entry.rip, 0x100200);
	ck_assert_uint_eq(entry.cs, 0x10);
	ck_assert_uint_eq(entry.ds, 0x18);
	ck_assert_uint_eq(entry.rflags & (1 << 9), 0);           /* IF clear */
	ck_assert_uint_eq(entry.cr0 & 0x80000001, 0x80000001);   /* PG, PE */
	ck_assert_uint_eq(entry.cr4 & 0x20, 0x20);               /* PAE */
	ck_assert_uint_eq(entry.efer & 0x500, 0x500);            /* LME, LMA */
	ck_assert_uint_ge(entry.gdt_limit, 0x1f);
	ck_assert_uint_eq(entry.rax | entry.rbx | entry.rcx | entry.rdx | entry.rdi, 0);
}
END_TEST

START_TEST(test_good_gdt)
{
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), 0);
	uint64_t cs = get64(ram_mem + entry.gdt_base + 0x10);
	uint64_t ds = get64(ram_mem + entry.gdt_base + 0x18);
	ck_assert_uint_eq((cs >> 47) & 1, 1);                    /* present */
	ck_assert_uint_eq((cs >> 53) & 1, 1);                    /* L: 64-bit code */
	ck_assert_uint_eq((cs >> 43) & 3, 3);                    /* code, readable */
	ck_assert_uint_eq((ds >> 47) & 1, 1);
	ck_assert_uint_eq((ds >> 43) & 1, 0);                    /* data */
	ck_assert_uint_eq((ds >> 41) & 1, 1);                    /* writable */
	ck_assert_uint_eq(ds & 0xffff, 0xffff);                  /* 4G flat, G=1 */
	ck_assert_uint_eq((ds >> 55) & 1, 1);
	ck_assert_uint_eq((ds >> 16) & 0xffffff, 0);             /* base 0 */
}
END_TEST

START_TEST(test_good_zero_page)
{
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), 0);
	const uint8_t *bp = zero_page();
	ck_assert_int_eq(memcmp(bp + 0x202, "HdrS", 4), 0);
	ck_assert_uint_eq(get16(bp + 0x206), 0x020f);
	ck_assert_uint_eq(bp[0x1ef], 0);                         /* sentinel */
	ck_assert_uint_eq(bp[0x210], 0xff);                      /* type_of_loader */
	ck_assert_uint_eq(bp[0x211] & 1, 1);
	ck_assert_uint_eq(get64(bp + 0x070), 0);                 /* acpi_rsdp_addr */
	ck_assert_uint_eq(get32(bp + 0x260), INIT_SIZE);
	/* Nothing past the header's end (0x26c) leaks from the image. */
	for (unsigned i = 0x26c; i < 0x290; i++)
		ck_assert_uint_eq(bp[i], 0);
}
END_TEST

START_TEST(test_good_cmdline_e820)
{
	struct e820_entry want[8];
	unsigned n = guest_e820(RAM_SIZE, want, 8);

	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), 0);
	const uint8_t *bp = zero_page();
	uint64_t cl = get32(bp + 0x228) | (uint64_t)get32(bp + 0x0c8) << 32;
	ck_assert_uint_lt(cl, RAM_SIZE);
	ck_assert_str_eq((const char *)ram_mem + cl, gi.cmdline);
	ck_assert_uint_eq(bp[0x1e8], n);
	ck_assert_int_eq(memcmp(bp + 0x2d0, want, n * 20), 0);
}
END_TEST

START_TEST(test_good_kernel_and_initrd)
{
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), 0);
	const uint8_t *bp = zero_page();
	uint64_t rd = get32(bp + 0x218) | (uint64_t)get32(bp + 0x0c0) << 32;
	uint64_t rs = get32(bp + 0x21c) | (uint64_t)get32(bp + 0x0c4) << 32;
	ck_assert_int_eq(memcmp(ram_mem + 0x100000, img + PM_OFFSET, PM_SIZE), 0);
	ck_assert_uint_eq(rs, sizeof(initrd));
	ck_assert_uint_eq(rd % 4096, 0);
	ck_assert_uint_ge(rd, PREF_ADDR + INIT_SIZE);            /* above decompressor room */
	ck_assert_uint_le(rd + rs, RAM_SIZE);
	ck_assert_uint_gt(rd + rs, RAM_SIZE - 4096);             /* as high as possible */
	ck_assert_int_eq(memcmp(ram_mem + rd, initrd, sizeof(initrd)), 0);
}
END_TEST

START_TEST(test_good_identity_map)
{
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), 0);
	const uint8_t *bp = zero_page();
	uint64_t rd = get32(bp + 0x218);
	uint64_t va[] = { entry.rip, entry.rsi, entry.rsi + 4095, get32(bp + 0x228),
			  PREF_ADDR + INIT_SIZE - 1, rd, rd + sizeof(initrd) - 1,
			  entry.gdt_base, entry.rsp - 8, 0xbfffffffULL };
	for (unsigned i = 0; i < sizeof(va) / sizeof(va[0]); i++)
		ck_assert_uint_eq(walk(entry.cr3, va[i]), va[i]);
}
END_TEST

START_TEST(test_initrd_addr_max)
{
	put32(img + 0x22c, (24u << 20) - 1);     /* initrd must end at or below 24 MiB */
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), 0);
	uint64_t rd = get32(zero_page() + 0x218);
	ck_assert_uint_le(rd + sizeof(initrd), 24u << 20);
	ck_assert_uint_ge(rd, PREF_ADDR + INIT_SIZE);
}
END_TEST

START_TEST(test_no_initrd)
{
	gi.initrd = NULL;
	gi.initrd_size = 0;
	gi.cmdline = NULL;
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), 0);
	ck_assert_uint_eq(get32(zero_page() + 0x218), 0);
	ck_assert_uint_eq(get32(zero_page() + 0x21c), 0);
	ck_assert_str_eq((const char *)ram_mem + get32(zero_page() + 0x228), "");
}
END_TEST

/* Each malformed case: the errno, exactly one error line naming the cause,
 * and (for header errors) guest RAM left untouched. */
static void expect_fail(int err, const char *why, int ram_untouched)
{
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), err);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
	ck_assert_msg(strstr(shim_last_log, why), "log '%s' lacks '%s'", shim_last_log, why);
	if (!ram_untouched)
		return;
	size_t i = 0;
	while (i < RAM_SIZE / 8 && ((const uint64_t *)ram_mem)[i] == 0)
		i++;
	ck_assert_uint_eq(i, RAM_SIZE / 8);
}

START_TEST(test_bad_boot_flag)
{
	put16(img + 0x1fe, 0x55aa);
	expect_fail(-ENOEXEC, "magic", 1);
}
END_TEST

START_TEST(test_bad_hdrs)
{
	memcpy(img + 0x202, "HdrZ", 4);
	expect_fail(-ENOEXEC, "magic", 1);
}
END_TEST

START_TEST(test_short_file)
{
	gi.size = 0x280;
	expect_fail(-ENOEXEC, "magic", 1);
}
END_TEST

START_TEST(test_old_protocol)
{
	put16(img + 0x206, 0x020b);
	expect_fail(-ENOEXEC, "too old", 1);
}
END_TEST

START_TEST(test_no_64bit_entry)
{
	put16(img + 0x236, 0x0002);
	expect_fail(-ENOEXEC, "64-bit", 1);
}
END_TEST

START_TEST(test_truncated)
{
	img[0x1f1] = 200;                      /* setup claims 100 KiB */
	expect_fail(-ENOEXEC, "truncated", 1);
}
END_TEST

START_TEST(test_kernel_too_large)
{
	put32(img + 0x260, RAM_SIZE);          /* init_size alone fills the VM */
	expect_fail(-E2BIG, "kernel needs RAM", 1);
}
END_TEST

START_TEST(test_pref_address_wraps)
{
	put64(img + 0x258, ~0ULL);             /* pref_address + init_size wraps */
	expect_fail(-E2BIG, "kernel needs RAM", 1);
}
END_TEST

START_TEST(test_ram_too_small)
{
	ram.size = 17u << 20;                  /* < pref_address + init_size */
	expect_fail(-E2BIG, "kernel needs RAM", 1);
}
END_TEST

START_TEST(test_initrd_too_large)
{
	static uint8_t big[1];
	gi.initrd = big;
	gi.initrd_size = RAM_SIZE - PREF_ADDR - INIT_SIZE + 1;
	expect_fail(-E2BIG, "initrd", 0);
}
END_TEST

START_TEST(test_cmdline_too_long)
{
	static char cl[3000];
	memset(cl, 'a', sizeof(cl) - 1);
	gi.cmdline = cl;
	expect_fail(-E2BIG, "command line", 0);
}
END_TEST

START_TEST(test_null_args)
{
	gi.data = NULL;
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), -EINVAL);
}
END_TEST

/* The guest kernel `make linux-guest` built, if present. */
START_TEST(test_real_bzimage)
{
#ifdef TEST_BZIMAGE_PATH
	FILE *f = fopen(TEST_BZIMAGE_PATH, "rb");
	if (!f) {
		fprintf(stderr, "test_real_bzimage: skipped, no %s\n", TEST_BZIMAGE_PATH);
		return;
	}
	static uint8_t buf[16 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ck_assert_uint_gt(n, 0x10000);
	free(ram_mem);
	ram.size = 256u << 20;
	ram_mem = ram.base = calloc(1, ram.size);
	gi.data = buf;
	gi.size = n;
	ck_assert_int_eq(load_bzimage(&ram, &gi, &entry), 0);
	const uint8_t *bp = ram_mem + entry.rsi;
	unsigned pm = (buf[0x1f1] + 1u) * 512;
	ck_assert_uint_ge(get16(bp + 0x206), 0x020c);
	ck_assert_uint_eq(get16(bp + 0x236) & 1, 1);
	ck_assert_int_eq(memcmp(ram_mem + 0x100000, buf + pm, n - pm), 0);
	ck_assert_uint_ge(get32(bp + 0x218), get64(bp + 0x258) + get32(bp + 0x260));
	ck_assert_int_eq(memcmp(ram_mem + get32(bp + 0x218), initrd, sizeof(initrd)), 0);
	ck_assert_uint_eq(walk(entry.cr3, entry.rip), 0x100200);
#else
	fprintf(stderr, "test_real_bzimage: skipped, TEST_BZIMAGE_PATH not defined\n");
#endif
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bzimage");
	TCase *good = tcase_create("good"), *bad = tcase_create("bad");

	tcase_add_checked_fixture(good, setup, teardown);
	tcase_add_checked_fixture(bad, setup, teardown);
	tcase_add_test(good, test_good_entry_state);
	tcase_add_test(good, test_good_gdt);
	tcase_add_test(good, test_good_zero_page);
	tcase_add_test(good, test_good_cmdline_e820);
	tcase_add_test(good, test_good_kernel_and_initrd);
	tcase_add_test(good, test_good_identity_map);
	tcase_add_test(good, test_initrd_addr_max);
	tcase_add_test(good, test_no_initrd);
	tcase_add_test(good, test_real_bzimage);
	tcase_add_test(bad, test_bad_boot_flag);
	tcase_add_test(bad, test_bad_hdrs);
	tcase_add_test(bad, test_short_file);
	tcase_add_test(bad, test_old_protocol);
	tcase_add_test(bad, test_no_64bit_entry);
	tcase_add_test(bad, test_truncated);
	tcase_add_test(bad, test_kernel_too_large);
	tcase_add_test(bad, test_pref_address_wraps);
	tcase_add_test(bad, test_ram_too_small);
	tcase_add_test(bad, test_initrd_too_large);
	tcase_add_test(bad, test_cmdline_too_long);
	tcase_add_test(bad, test_null_args);
	suite_add_tcase(s, good);
	suite_add_tcase(s, bad);

	return check_run(s);
}
