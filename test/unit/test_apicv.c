/* Unit tests for the pure part of APIC virtualization (hv/vmx/apicv_calc.c):
 * interrupt status, TPR threshold, EOI-exit bitmap, x2APIC MSR bitmap. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "vmx/apicv_calc.h"
#include "check_run.h"

static uint32_t page[1024];

static void vec_set(unsigned base, unsigned v)
{
	page[(base + (v / 32) * 16) / 4] |= 1u << (v % 32);
}

static void setup(void)
{
	memset(page, 0, sizeof(page));
}

START_TEST(test_intr_status)
{
	ck_assert_uint_eq(apicv_calc_intr_status(page), 0);
	vec_set(0x200, 0x31);
	vec_set(0x200, 0x80);
	ck_assert_uint_eq(apicv_calc_intr_status(page), 0x0080);
	vec_set(0x100, 0x41);
	vec_set(0x100, 0xfe);
	ck_assert_uint_eq(apicv_calc_intr_status(page), 0xfe80);
	vec_set(0x200, 0xff);
	ck_assert_uint_eq(apicv_calc_intr_status(page), 0xfeff);
}
END_TEST

START_TEST(test_tpr_threshold)
{
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 0);
	page[0x80 / 4] = 0x50;
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 0);    /* nothing pending */
	vec_set(0x200, 0x35);
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 3);    /* masked by TPR 5 */
	page[0x80 / 4] = 0x20;
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 0);    /* deliverable */
	page[0x80 / 4] = 0x3f;
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 3);    /* same class: masked */
	vec_set(0x200, 0x91);
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 0);    /* highest wins */
}
END_TEST

START_TEST(test_eoi_bitmap)
{
	uint64_t rte[4] = {
		0x70 | (1ull << 15),                  /* level fixed: exits */
		0x71,                                 /* edge */
		0x72 | (1ull << 15) | (4ull << 8),    /* level NMI: no remote IRR */
		0x73 | (1ull << 15) | (1ull << 8) | (1ull << 16),  /* lowest, masked */
	};
	uint64_t bm[4];

	vec_set(0x180, 0x60);
	vec_set(0x180, 0xe1);
	apicv_calc_eoi_bitmap(page, rte, 4, bm);
	ck_assert_uint_eq(bm[0], 0);
	ck_assert_uint_eq(bm[1], (1ull << (0x60 - 64)) | (1ull << (0x70 - 64)) |
			  (1ull << (0x73 - 64)));
	ck_assert_uint_eq(bm[2], 0);
	ck_assert_uint_eq(bm[3], 1ull << (0xe1 - 192));
	/* The split form (cached level vectors) gives the same bitmap. */
	{
		uint64_t lv[4], bm2[4];

		apicv_calc_level_vectors(rte, 4, lv);
		ck_assert_uint_eq(lv[1], (1ull << (0x70 - 64)) | (1ull << (0x73 - 64)));
		ck_assert_uint_eq(lv[0] | lv[2] | lv[3], 0);
		apicv_calc_eoi_from_level(page, lv, bm2);
		for (unsigned i = 0; i < 4; i++)
			ck_assert_uint_eq(bm2[i], bm[i]);
	}
}
END_TEST

static uint8_t bitmap[4096];

START_TEST(test_x2apic_bitmap)
{
	memset(bitmap, 0xff, sizeof(bitmap));
	apicv_calc_x2apic_bitmap(bitmap, true, true);
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x802, false));   /* ID */
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x820, false));   /* IRR */
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x830, false));   /* ICR */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x839, false));    /* current count */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x83f, false));    /* SELF IPI: write-only */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x82f, false));    /* no CMCI */
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x808, true));
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x80b, true));
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x83f, true));
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x830, true));     /* ICR: emulated */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x838, true));     /* timer: emulated */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x1b, false));     /* others untouched */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x800 - 1, true));

	memset(bitmap, 0xff, sizeof(bitmap));
	apicv_calc_x2apic_bitmap(bitmap, false, false);
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x802, false));
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x808, true));
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x80b, true));
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x83f, true));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("apicv");
	TCase *tc = tcase_create("calc");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_intr_status);
	tcase_add_test(tc, test_tpr_threshold);
	tcase_add_test(tc, test_eoi_bitmap);
	tcase_add_test(tc, test_x2apic_bitmap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
