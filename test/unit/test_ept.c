/* Unit tests for the EPT builder on host memory. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include "vmx/ept.h"
#include "compiler.h"

static void *pages[4096];
static int pages_alloced;
static void *alloc(void *ctx)
{
	void *p = aligned_alloc(4096, 4096);
	if (!p || pages_alloced == 4096)
		return NULL;
	pages[pages_alloced++] = p;
	return memset(p, 0, 4096);
}

static void free_pages(void)
{
	while (pages_alloced)
		free(pages[--pages_alloced]);
}
static paddr_t v2p(void *ctx, void *p) { return (paddr_t)(uintptr_t)p; }
static void *p2v(void *ctx, paddr_t pa) { return (void *)(uintptr_t)pa; }

static struct ept mk(void)
{
	struct ept e = { .alloc_page = alloc, .virt_to_phys = v2p, .phys_to_virt = p2v };
	ck_assert_int_eq(ept_init(&e), 0);
	return e;
}

START_TEST(test_large_and_small)
{
	struct ept e = mk();
	paddr_t h; uint64_t p;

	/* 64 MiB + 12 KiB at an aligned host address: 32 large + 3 small. */
	ck_assert_int_eq(ept_map(&e, 0, 0x40000000, MiB(64) + 3 * 4096, EPT_RWX), 0);
	ck_assert_uint_eq(e.large_mappings, 32);
	ck_assert_uint_eq(e.small_mappings, 3);
	ck_assert_int_eq(ept_translate(&e, 0x123456, &h, &p), 0);
	ck_assert_uint_eq(h, 0x40123456);
	ck_assert_uint_eq(p, EPT_RWX);
	ck_assert_int_eq(ept_translate(&e, MiB(64) + 0x2fff, &h, &p), 0);
	ck_assert_uint_eq(h, 0x40000000 + MiB(64) + 0x2fff);
	ck_assert_int_eq(ept_translate(&e, MiB(64) + 0x3000, &h, &p), -2);
}
END_TEST

START_TEST(test_holes_unmapped)
{
	struct ept e = mk();
	paddr_t h; uint64_t p;

	ck_assert_int_eq(ept_map(&e, 0, 0x1000000, MiB(16), EPT_RWX), 0);
	ck_assert_int_eq(ept_translate(&e, 0xfee00000, &h, &p), -2);
	ck_assert_int_eq(ept_translate(&e, 0xfec00000, &h, &p), -2);
	ck_assert_int_eq(ept_translate(&e, 1ull << 40, &h, &p), -2);
}
END_TEST

START_TEST(test_unaligned_host_uses_small_pages)
{
	struct ept e = mk();
	paddr_t h; uint64_t p;

	ck_assert_int_eq(ept_map(&e, 0, 0x1001000, MiB(4), EPT_R | EPT_X), 0);
	ck_assert_uint_eq(e.large_mappings, 0);
	ck_assert_uint_eq(e.small_mappings, 1024);
	ck_assert_int_eq(ept_translate(&e, MiB(3) + 5, &h, &p), 0);
	ck_assert_uint_eq(h, 0x1001000 + MiB(3) + 5);
	ck_assert_uint_eq(p, EPT_R | EPT_X);
}
END_TEST

START_TEST(test_bad_args)
{
	struct ept e = mk();
	ck_assert_int_eq(ept_map(&e, 0x800, 0, 4096, EPT_RWX), -22);
	ck_assert_int_eq(ept_map(&e, 0, 0, 4096, 0), -22);
	ck_assert_uint_eq(ept_pointer(&e) & 0x3f, 0x1e);   /* WB, 4-level */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ept");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, NULL, free_pages);
	tcase_add_test(tc, test_large_and_small);
	tcase_add_test(tc, test_holes_unmapped);
	tcase_add_test(tc, test_unaligned_host_uses_small_pages);
	tcase_add_test(tc, test_bad_args);
	suite_add_tcase(s, tc);

	return check_run(s);
}
