/* Unit tests for hv/bootinfo.c on multiboot2 information built in host memory. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include "bootinfo.h"
#include "errno.h"
#include "log.h"
#include "shim.h"

/* ---- builder: tags appended to an 8-aligned buffer ---- */
static uint64_t mbuf[2048];
static uint32_t mlen;
static struct boot_info bi;

static uint8_t *mb(void) { return (uint8_t *)mbuf; }

static void mb_begin(void)
{
	memset(mbuf, 0, sizeof(mbuf));
	mlen = 8;
}

/* Append a tag with an explicit size field and `len` payload bytes. */
static void mb_tag_sized(uint32_t type, uint32_t size, const void *payload, uint32_t len)
{
	struct mb2_tag t = { type, size };

	memcpy(mb() + mlen, &t, 8);
	if (len)
		memcpy(mb() + mlen + 8, payload, len);
	mlen += (8 + len + 7) & ~7u;
}

static void mb_tag(uint32_t type, const void *payload, uint32_t len)
{
	mb_tag_sized(type, 8 + len, payload, len);
}

static void mb_str(uint32_t type, const char *s)
{
	mb_tag(type, s, (uint32_t)strlen(s) + 1);
}

static void mb_module(uint32_t start, uint32_t end, const char *s)
{
	uint8_t p[256];
	uint32_t n = (uint32_t)strlen(s) + 1;

	memcpy(p, &start, 4);
	memcpy(p + 4, &end, 4);
	memcpy(p + 8, s, n);
	mb_tag(MB2_TAG_MODULE, p, 8 + n);
}

static void mb_mmap(const struct mb2_mmap_entry *e, unsigned n)
{
	uint8_t p[1024];
	uint32_t es = 24, ver = 0;

	memcpy(p, &es, 4);
	memcpy(p + 4, &ver, 4);
	memcpy(p + 8, e, n * sizeof(*e));
	mb_tag(MB2_TAG_MMAP, p, 8 + n * 24);
}

static uint32_t mb_end(void)
{
	mb_tag(MB2_TAG_END, NULL, 0);
	((uint32_t *)mbuf)[0] = mlen;
	return mlen;
}

static int parse(void)
{
	shim_reset_logs();
	return bootinfo_parse(MB2_BOOTLOADER_MAGIC, mbuf, &bi);
}

/* A failing parse must log exactly one error line. */
#define ck_fails_with(e) do { ck_assert_int_eq(parse(), (e)); \
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1); } while (0)

static const struct mb2_mmap_entry good_map[] = {
	{ 0, 0x9fc00, 1, 0 },
	{ 0x9fc00, 0x400, 2, 0 },
	{ 0xf0000, 0x10000, 2, 0 },
	{ 0x100000, 0x7ef0000, 1, 0 },
	{ 0x7ff0000, 0x10000, 3, 0 },
	{ 0x100000000ULL, 0x40000000, 1, 0 },
	{ 0x140000000ULL, 0x40000000, 1, 0 },   /* adjacent: merged */
	{ 0x200000000ULL, 0, 1, 0 },            /* empty: dropped */
};

static void build_good(void)
{
	uint8_t rsdp_new[36], rsdp_old[20];
	uint32_t meminfo[2] = { 639, 130048 };
	uint32_t lba = 0x200000;
	uint64_t st = 0x7fabc000;

	memset(rsdp_new, 0xa2, sizeof(rsdp_new));
	memset(rsdp_old, 0x01, sizeof(rsdp_old));
	mb_begin();
	mb_str(MB2_TAG_CMDLINE, "loglvl=debug sched=credit");
	mb_str(MB2_TAG_BOOTLOADER_NAME, "GRUB 2.06");
	mb_tag(MB2_TAG_BASIC_MEMINFO, meminfo, 8);
	mb_module(0x1000000, 0x1200000, "vm=0 kind=linux cmdline=\"console=ttyS0\"");
	mb_module(0x1200000, 0x1200000, "");
	mb_tag(MB2_TAG_ACPI_NEW, rsdp_new, 36);
	mb_tag(MB2_TAG_ACPI_OLD, rsdp_old, 20);
	mb_tag(99, "whatever", 8);
	mb_tag(MB2_TAG_EFI64, &st, 8);
	mb_tag(MB2_TAG_LOAD_BASE_ADDR, &lba, 4);
	mb_mmap(good_map, 8);
	mb_end();
}

START_TEST(test_good)
{
	build_good();
	ck_assert_int_eq(parse(), 0);
	ck_assert_int_eq(shim_log_count[LOG_ERR] + shim_log_count[LOG_WARN], 0);
	ck_assert_str_eq(bi.cmdline, "loglvl=debug sched=credit");
	ck_assert_str_eq(bi.loader_name, "GRUB 2.06");
	ck_assert(bi.has_meminfo);
	ck_assert_uint_eq(bi.mem_upper_kib, 130048);
	ck_assert_uint_eq(bi.nr_modules, 2);
	ck_assert_uint_eq(bi.modules[0].start, 0x1000000);
	ck_assert_uint_eq(bi.modules[0].end, 0x1200000);
	ck_assert_str_eq(bi.modules[0].string, "vm=0 kind=linux cmdline=\"console=ttyS0\"");
	ck_assert_str_eq(bi.modules[1].string, "");
	ck_assert_uint_eq(bi.rsdp_len, 36);
	ck_assert_uint_eq(bi.rsdp[0], 0xa2);
	ck_assert_uint_eq(bi.efi_system_table, 0x7fabc000);
	ck_assert_uint_eq(bi.load_base, 0x200000);
	ck_assert_uint_eq(bi.nr_mmap, 6);
	ck_assert_uint_eq(bi.mmap[5].addr, 0x100000000ULL);
	ck_assert_uint_eq(bi.mmap[5].len, 0x80000000ULL);
	ck_assert_uint_eq(bi.mmap[4].type, 3);
	ck_assert(!bi.has_efi_mmap);
	ck_assert_uint_eq(bi.total_size, mlen);
	ck_assert_uint_eq(bi.mbi, (uintptr_t)mbuf);
	ck_assert_uint_eq(bootinfo_ram_bytes(&bi), 0x9fc00 + 0x7ef0000 + 0x80000000ULL);
	log_level = LOG_DEBUG;
	bootinfo_print(&bi);
	log_level = LOG_WARN;
}
END_TEST

START_TEST(test_minimal_and_old_rsdp)
{
	uint8_t rsdp_old[20];

	mb_begin();
	mb_end();
	ck_assert_int_eq(parse(), 0);
	ck_assert_str_eq(bi.cmdline, "");
	ck_assert_uint_eq(bi.nr_mmap, 0);
	ck_assert_int_eq(shim_log_count[LOG_WARN], 1);   /* no memory map */
	memset(rsdp_old, 7, sizeof(rsdp_old));
	mb_begin();
	mb_tag(MB2_TAG_ACPI_OLD, rsdp_old, 20);
	mb_end();
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(bi.rsdp_len, 20);
	ck_assert_uint_eq(bi.rsdp[19], 7);
}
END_TEST

START_TEST(test_bad_header)
{
	build_good();
	shim_reset_logs();
	ck_assert_int_eq(bootinfo_parse(0x2badb002, mbuf, &bi), -EINVAL);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
	ck_assert_int_eq(bootinfo_parse(MB2_BOOTLOADER_MAGIC, NULL, &bi), -EFAULT);
	ck_assert_int_eq(bootinfo_parse(MB2_BOOTLOADER_MAGIC, mb() + 4, &bi), -EFAULT);
	ck_assert_str_eq(bi.cmdline, "");
	((uint32_t *)mbuf)[0] = 8;
	ck_fails_with(-EINVAL);
	((uint32_t *)mbuf)[0] = 0xfffffff0u;
	ck_fails_with(-EINVAL);
}
END_TEST

START_TEST(test_bad_tags)
{
	uint32_t two[2] = { 0x2000, 0x1000 };
	struct mb2_mmap_entry wrap = { 0xfffffffffffff000ULL, 0x2000, 1, 0 };

	mb_begin();                         /* size below 8 */
	mb_tag_sized(MB2_TAG_CMDLINE, 4, NULL, 0);
	mb_end();
	ck_fails_with(-EINVAL);
	mb_begin();                         /* cmdline without NUL */
	mb_tag(MB2_TAG_CMDLINE, "abcdefgh", 8);
	mb_end();
	ck_fails_with(-EINVAL);
	mb_begin();                         /* empty string tag */
	mb_tag(MB2_TAG_BOOTLOADER_NAME, NULL, 0);
	mb_end();
	ck_fails_with(-EINVAL);
	mb_begin();                         /* module end < start */
	mb_module(0x2000, 0x1000, "m");
	mb_end();
	ck_fails_with(-EINVAL);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "module end"));
	mb_begin();                         /* module without a string */
	mb_tag(MB2_TAG_MODULE, two, 8);
	mb_end();
	ck_fails_with(-EINVAL);
	mb_begin();                         /* meminfo too short */
	mb_tag(MB2_TAG_BASIC_MEMINFO, two, 4);
	mb_end();
	ck_fails_with(-EINVAL);
	mb_begin();                         /* RSDP tags too short */
	mb_tag(MB2_TAG_ACPI_NEW, "RSD PTR \0\0\0\0\0\0\0\0\0\0\0\0", 20);
	mb_end();
	ck_fails_with(-EINVAL);
	mb_begin();
	mb_tag(MB2_TAG_ACPI_OLD, "RSD PTR ", 8);
	mb_end();
	ck_fails_with(-EINVAL);
	mb_begin();                         /* wrapping memory map entry */
	mb_mmap(&wrap, 1);
	mb_end();
	ck_fails_with(-EINVAL);
	mb_begin();                         /* end tag with a wrong size */
	mb_tag_sized(MB2_TAG_END, 16, "12345678", 8);
	((uint32_t *)mbuf)[0] = mlen;
	ck_fails_with(-EINVAL);
	mb_begin();                         /* no end tag at all */
	mb_str(MB2_TAG_CMDLINE, "x");
	((uint32_t *)mbuf)[0] = mlen;
	ck_fails_with(-EINVAL);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "end tag"));
}
END_TEST

START_TEST(test_bad_mmap)
{
	uint32_t hdr[8] = { 20, 0 };

	mb_begin();                         /* entry_size 20 */
	mb_tag(MB2_TAG_MMAP, hdr, 8 + 20);
	mb_end();
	ck_fails_with(-EINVAL);
	hdr[0] = 24;                        /* 1.5 entries */
	mb_begin();
	mb_tag(MB2_TAG_MMAP, hdr, 8 + 12);
	mb_end();
	ck_fails_with(-EINVAL);
	mb_begin();                         /* too short for its header */
	mb_tag(MB2_TAG_MMAP, hdr, 4);
	mb_end();
	ck_fails_with(-EINVAL);
	hdr[0] = 32;                        /* larger entries are fine (spec) */
	mb_begin();
	uint8_t p[8 + 64] = { 0 };
	memcpy(p, hdr, 8);
	struct mb2_mmap_entry e = { 0x100000, 0x100000, 1, 0 };
	memcpy(p + 8 + 32, &e, sizeof(e));
	mb_tag(MB2_TAG_MMAP, p, sizeof(p));
	mb_end();
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(bi.nr_mmap, 1);
	ck_assert_uint_eq(bi.mmap[0].addr, 0x100000);
}
END_TEST

START_TEST(test_too_many)
{
	mb_begin();
	for (int i = 0; i < BOOTINFO_MODULES_MAX + 1; i++)
		mb_module(0x1000000 + i * 0x1000, 0x1000000 + i * 0x1000 + 10, "m");
	mb_end();
	ck_fails_with(-E2BIG);
	/* More distinct map entries than fit. */
	static struct mb2_mmap_entry many[BOOTINFO_MMAP_MAX + 1];
	for (int i = 0; i < BOOTINFO_MMAP_MAX + 1; i++)
		many[i] = (struct mb2_mmap_entry){ (uint64_t)i * 0x2000, 0x1000, 1, 0 };
	mb_begin();
	uint8_t *p = malloc(8 + sizeof(many));
	uint32_t es[2] = { 24, 0 };
	memcpy(p, es, 8);
	memcpy(p + 8, many, sizeof(many));
	mb_tag(MB2_TAG_MMAP, p, 8 + sizeof(many));
	free(p);
	mb_end();
	ck_fails_with(-E2BIG);
}
END_TEST

static void efi_map(bool boot_services)
{
	struct efi_mem_desc d[4] = {
		{ .type = EFI_CONVENTIONAL_MEMORY, .phys_start = 0, .num_pages = 0xa0 },
		{ .type = EFI_BOOT_SERVICES_DATA, .phys_start = 0x100000, .num_pages = 0x100 },
		{ .type = EFI_LOADER_DATA, .phys_start = 0x200000, .num_pages = 0x100 },
		{ .type = EFI_ACPI_NVS, .phys_start = 0x300000, .num_pages = 1 },
	};
	uint8_t p[8 + 4 * 48] = { 0 };
	uint32_t hdr[2] = { 48, 1 };          /* firmware-style padded descriptors */

	memcpy(p, hdr, 8);
	for (int i = 0; i < 4; i++)
		memcpy(p + 8 + i * 48, &d[i], sizeof(d[i]));
	mb_begin();
	if (boot_services)
		mb_tag(MB2_TAG_EFI_BS, NULL, 0);
	mb_tag(MB2_TAG_EFI_MMAP, p, sizeof(p));
	mb_end();
}

START_TEST(test_efi_mmap)
{
	efi_map(false);
	ck_assert_int_eq(parse(), 0);
	ck_assert(bi.has_efi_mmap && bi.mmap_from_efi);
	ck_assert_uint_eq(bi.nr_efi_desc, 4);
	ck_assert_uint_eq(bi.efi_desc_size, 48);
	ck_assert_uint_eq(bi.nr_mmap, 3);     /* 0x100000-0x300000 merged */
	ck_assert_uint_eq(bi.mmap[1].addr, 0x100000);
	ck_assert_uint_eq(bi.mmap[1].len, 0x200000);
	ck_assert_uint_eq(bi.mmap[2].type, MB2_MMAP_NVS);
	efi_map(true);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(bi.nr_mmap, 4);
	ck_assert_uint_eq(bi.mmap[1].type, MB2_MMAP_RESERVED);
	/* With tag 6 present the EFI map is only recorded. */
	build_good();
	efi_map(false);
	mlen -= 8;   /* reopen: drop the end tag and add a real map */
	mb_mmap(good_map, 2);
	mb_end();
	ck_assert_int_eq(parse(), 0);
	ck_assert(!bi.mmap_from_efi);
	ck_assert_uint_eq(bi.nr_mmap, 2);
	/* Descriptor size below 40. */
	uint32_t hdr[2] = { 32, 1 };
	mb_begin();
	mb_tag(MB2_TAG_EFI_MMAP, hdr, 8);
	mb_end();
	ck_fails_with(-EINVAL);
}
END_TEST

/* Every truncation and random corruption: never a read past total_size
 * (ASan watches the exact-size copies), and a failure is one error line. */
START_TEST(test_truncated_and_fuzzed)
{
	uint32_t total;
	int ok = 0, failed = 0;

	build_good();
	total = mlen;
	for (uint32_t len = 8; len <= total; len += 4) {
		uint8_t *copy = aligned_alloc(8, len + (8 - len % 8) % 8);
		memcpy(copy, mbuf, len);
		((uint32_t *)copy)[0] = len;
		shim_reset_logs();
		int rc = bootinfo_parse(MB2_BOOTLOADER_MAGIC, copy, &bi);
		ck_assert(rc == 0 || shim_log_count[LOG_ERR] == 1);
		rc ? failed++ : ok++;
		free(copy);
	}
	ck_assert_int_eq(ok, 1);              /* only the full length parses */
	srand(12345);
	for (int iter = 0; iter < 3000; iter++) {
		uint8_t *copy = malloc(total);
		memcpy(copy, mbuf, total);
		for (int k = 0; k < 1 + iter % 4; k++)
			copy[8 + (unsigned)rand() % (total - 8)] = (uint8_t)rand();
		shim_reset_logs();
		int rc = bootinfo_parse(MB2_BOOTLOADER_MAGIC, copy, &bi);
		ck_assert(rc == 0 || shim_log_count[LOG_ERR] == 1);
		for (unsigned i = 0; rc == 0 && i < bi.nr_modules; i++) {
			ck_assert_uint_ge(bi.modules[i].end, bi.modules[i].start);
			ck_assert_ptr_nonnull(bi.modules[i].string);
		}
		free(copy);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bootinfo");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_minimal_and_old_rsdp);
	tcase_add_test(tc, test_bad_header);
	tcase_add_test(tc, test_bad_tags);
	tcase_add_test(tc, test_bad_mmap);
	tcase_add_test(tc, test_too_many);
	tcase_add_test(tc, test_efi_mmap);
	tcase_add_test(tc, test_truncated_and_fuzzed);
	suite_add_tcase(s, tc);

	return check_run(s);
}
