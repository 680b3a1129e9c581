/* Unit tests for the guest page walker on fabricated page tables. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include "vm/gmem.h"

#define RAM (8u << 20)
static uint8_t *ram;

static void put32(uint64_t a, uint32_t v) { memcpy(ram + a, &v, 4); }
static void put64(uint64_t a, uint64_t v) { memcpy(ram + a, &v, 8); }

static void setup(void) { ram = calloc(1, RAM); }
static void teardown(void) { free(ram); }

START_TEST(test_no_paging)
{
	struct gpaging pg = { .cr0 = 1 };
	uint64_t gpa;
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x12345678, false, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x12345678);
}
END_TEST

START_TEST(test_32bit_4k_and_4m)
{
	struct gpaging pg = { .cr0 = 0x80000001, .cr3 = 0x1000, .cr4 = 1u << 4 };
	uint64_t gpa;

	put32(0x1000 + 1 * 4, 0x2000 | 1);         /* PDE for 0x00400000 -> PT */
	put32(0x2000 + 5 * 4, 0x345000 | 1);       /* PTE for page 5 */
	put32(0x1000 + 2 * 4, 0x00400000 | 0x81);  /* 4 MiB page at 0x00800000 -> 4 MiB */
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x00405abc, false, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x345abc);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x00812345, false, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x00412345);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x00c00000, false, &gpa), -14);   /* not present */
}
END_TEST

START_TEST(test_4level_2m)
{
	struct gpaging pg = { .cr0 = 0x80000001, .cr3 = 0x10000, .cr4 = 1u << 5,
			      .efer = (1u << 8) | (1u << 10) };
	uint64_t gpa;

	put64(0x10000 + 0 * 8, 0x11000 | 3);       /* PML4[0] */
	put64(0x11000 + 1 * 8, 0x12000 | 3);       /* PDPT[1]: 1 GiB..2 GiB */
	put64(0x12000 + 3 * 8, 0x600000 | 0x83);   /* PD[3]: 2 MiB page */
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x40000000ull + 3 * 0x200000 + 0x1234, false, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x601234);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x80000000ull, false, &gpa), -14);
}
END_TEST

/* U/S and R/W ANDed over the levels (SDM vol. 3 5.6); non-canonical refused. */
START_TEST(test_rights)
{
	struct gpaging pg = { .cr0 = 0x80000001, .cr3 = 0x10000, .cr4 = 1u << 5,
			      .efer = (1u << 8) | (1u << 10) };
	uint64_t gpa;

	put64(0x10000 + 0 * 8, 0x11000 | 7);       /* PML4[0]: P W U */
	put64(0x11000 + 0 * 8, 0x12000 | 7);       /* PDPT[0] */
	put64(0x12000 + 0 * 8, 0x13000 | 7);       /* PD[0] -> PT */
	put64(0x13000 + 1 * 8, 0x200000 | 7);      /* page 1: user, writable */
	put64(0x13000 + 2 * 8, 0x201000 | 3);      /* page 2: supervisor, writable */
	put64(0x13000 + 3 * 8, 0x202000 | 5);      /* page 3: user, read-only */
	put64(0x12000 + 1 * 8, 0x400000 | 0x85);   /* PD[1]: 2 MiB user read-only */
	/* supervisor access, CR0.WP clear: everything goes */
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x2000, true, &gpa), 0);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x3000, true, &gpa), 0);
	pg.cr0 |= 1u << 16;                        /* WP: supervisor writes obey R/W */
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x3000, true, &gpa), -13);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x3000, false, &gpa), 0);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x200123, true, &gpa), -13);
	pg.user = true;
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x1000, true, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x200000);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x2000, false, &gpa), -13);   /* kernel page */
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x3000, false, &gpa), 0);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x3000, true, &gpa), -13);    /* read-only */
	pg.cr0 &= ~(1u << 16);                     /* user writes obey R/W without WP too */
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x3000, true, &gpa), -13);
	/* SMAP (SDM vol. 3 5.6.1): a supervisor data access to a user page
	 * faults, read or write, WP or not; supervisor pages are untouched */
	pg.user = false;
	pg.smap = true;
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x1000, false, &gpa), -13);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x1000, true, &gpa), -13);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x200123, false, &gpa), -13);  /* 2 MiB user page */
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x2000, true, &gpa), 0);
	pg.user = true;                            /* CPL 3 is not subject to SMAP */
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x1000, true, &gpa), 0);
	pg.smap = false;
	ck_assert(gpaging_smap(1u << 21, 0));
	ck_assert(!gpaging_smap(1u << 21, 1u << 18));   /* RFLAGS.AC: STAC */
	ck_assert(!gpaging_smap(0, 0));
	/* a supervisor upper level hides a user PTE */
	put64(0x12000 + 0 * 8, 0x13000 | 3);
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x1000, false, &gpa), -13);
	/* not canonical */
	pg.user = false;
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x0000800000001000ull, false, &gpa), -14);
}
END_TEST

START_TEST(test_table_outside_ram)
{
	struct gpaging pg = { .cr0 = 0x80000001, .cr3 = 0x7ffff000ull };
	uint64_t gpa;
	ck_assert_int_eq(gwalk(&pg, ram, RAM, 0x1000, false, &gpa), -14);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gwalk");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_no_paging);
	tcase_add_test(tc, test_32bit_4k_and_4m);
	tcase_add_test(tc, test_4level_2m);
	tcase_add_test(tc, test_table_outside_ram);
	tcase_add_test(tc, test_rights);
	suite_add_tcase(s, tc);

	return check_run(s);
}
