/* xcr0_valid(): the XSETBV rules checked before the hypervisor loads a
 * guest's XCR0 (a 0x81 from a hostile guest used to #GP the host). */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "vmx/xcr0.h"

#define ALL 0x602ffull   /* x87 SSE AVX MPX AVX-512 PKRU AMX */

START_TEST(test_rules)
{
	ck_assert(xcr0_valid(0x1, ALL));
	ck_assert(xcr0_valid(0x3, ALL));
	ck_assert(xcr0_valid(0x7, ALL));
	ck_assert(xcr0_valid(0xe7, ALL));
	ck_assert(!xcr0_valid(0x0, ALL));            /* x87 clear */
	ck_assert(!xcr0_valid(0x2, ALL));
	ck_assert(!xcr0_valid(0x5, ALL));            /* AVX without SSE */
	ck_assert(!xcr0_valid(0x81, ALL));           /* Hi16_ZMM alone: the hostile guest's value */
	ck_assert(!xcr0_valid(0x63, ALL));           /* AVX-512 partly */
	ck_assert(!xcr0_valid(0xe3, ALL));           /* AVX-512 without AVX */
	ck_assert(!xcr0_valid(0x9, ALL));            /* MPX partly */
	ck_assert(xcr0_valid(0x1b, ALL));
	ck_assert(!xcr0_valid(0x20003, ALL));        /* AMX partly */
	ck_assert(xcr0_valid(0x60003, ALL));
	ck_assert(!xcr0_valid(0x7, 0x3));            /* unsupported AVX */
	ck_assert(!xcr0_valid(1ull << 63, ~0ull));
}
END_TEST

/* xsavec_layout_ok(): the boot self-test's verdict on an XSAVEC image. */
START_TEST(test_xsavec_layout)
{
	static uint8_t img[1024], ymm[256];

	for (unsigned i = 0; i < 256; i++)
		ymm[i] = (uint8_t)(i | 1);
	memcpy(img + 576, ymm, 256);            /* the SDM's compacted layout */
	img[512] = XCR0_X87 | XCR0_SSE | XCR0_AVX;
	ck_assert(xsavec_layout_ok(img, ymm));
	img[512] = XCR0_X87 | XCR0_SSE;         /* AVX reported in its init state */
	ck_assert(!xsavec_layout_ok(img, ymm));
	memset(img, 0, sizeof(img));            /* Bochs 2.7: AVX at 416, header over it */
	memcpy(img + 416, ymm, 256);
	memset(img + 512, 0, 16);
	img[512] = XCR0_AVX;
	img[527] = 0x80;                        /* XCOMP_BV bit 63 */
	ck_assert(!xsavec_layout_ok(img, ymm));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("xcr0");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_xsavec_layout);
	suite_add_tcase(s, tc);
	return check_run(s);
}
