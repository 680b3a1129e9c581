/* seg_linear(): the segmentation checks of the memory operands the
 * hypervisor emulates (REP INS/OUTS, MOVS/STOS/LODS on MMIO): SDM vol. 3
 * §5.3 limits, §3.4.5.1 types, §5.4.1 null selectors (issue 10). */
#include <check.h>
#include "check_run.h"
#include "vmx/seg_check.h"

/* Access rights: present data read/write (type 3), accessed. */
#define AR_DATA_RW   (0x93u | SEG_AR_DB)
#define AR_DATA_RO   (0x91u | SEG_AR_DB)
#define AR_DATA_DOWN (0x97u)                 /* expand-down, read/write, B=0 */
#define AR_CODE_XO   (0x99u | SEG_AR_DB)     /* execute-only */
#define AR_CODE_XR   (0x9bu | SEG_AR_DB)     /* execute/read */

static struct seg_view sv(unsigned seg, uint64_t base, uint32_t limit, uint32_t ar, unsigned mode)
{
	struct seg_view s = { .base = base, .limit = limit, .ar = ar, .seg = (uint8_t)seg,
			      .mode = (uint8_t)mode };
	return s;
}

START_TEST(test_limit_up)
{
	struct seg_view ds = sv(SEG_DS, 0x10000, 0xff, AR_DATA_RW, SEG_MODE_PROT);
	uint64_t la = 0;

	ck_assert_int_eq(seg_linear(&ds, 0, 1, false, &la), 0);
	ck_assert_uint_eq(la, 0x10000);
	ck_assert_int_eq(seg_linear(&ds, 0xff, 1, true, &la), 0);
	ck_assert_uint_eq(la, 0x100ff);
	ck_assert_int_eq(seg_linear(&ds, 0xfc, 4, false, &la), 0);
	/* Any byte past the limit: the last one counts. */
	ck_assert_int_eq(seg_linear(&ds, 0xfd, 4, false, &la), X86_EXC_GP);
	ck_assert_int_eq(seg_linear(&ds, 0x100, 1, false, &la), X86_EXC_GP);
	ck_assert_int_eq(seg_linear(&ds, 0xffffffff, 1, false, &la), X86_EXC_GP);
}
END_TEST

START_TEST(test_ss_is_ss_fault)
{
	struct seg_view ss = sv(SEG_SS, 0, 0xfff, AR_DATA_RW, SEG_MODE_PROT);
	uint64_t la;

	ck_assert_int_eq(seg_linear(&ss, 0xffe, 2, false, &la), 0);
	ck_assert_int_eq(seg_linear(&ss, 0xfff, 2, false, &la), X86_EXC_SS);
	ss.ar = AR_DATA_RO;
	ck_assert_int_eq(seg_linear(&ss, 0, 1, true, &la), X86_EXC_SS);
}
END_TEST

START_TEST(test_expand_down)
{
	/* B=0: valid offsets limit+1 .. 0xFFFF. */
	struct seg_view es = sv(SEG_ES, 0x20000, 0x0fff, AR_DATA_DOWN, SEG_MODE_PROT);
	uint64_t la;

	ck_assert_int_eq(seg_linear(&es, 0x0fff, 1, true, &la), X86_EXC_GP);
	ck_assert_int_eq(seg_linear(&es, 0x0000, 1, true, &la), X86_EXC_GP);
	ck_assert_int_eq(seg_linear(&es, 0x1000, 1, true, &la), 0);
	ck_assert_uint_eq(la, 0x21000);
	ck_assert_int_eq(seg_linear(&es, 0xfffe, 2, true, &la), 0);
	ck_assert_int_eq(seg_linear(&es, 0xffff, 2, true, &la), X86_EXC_GP);
	ck_assert_int_eq(seg_linear(&es, 0x10000, 1, true, &la), X86_EXC_GP);
	/* B=1: up to 0xFFFFFFFF. */
	es.ar |= SEG_AR_DB;
	ck_assert_int_eq(seg_linear(&es, 0x10000, 4, true, &la), 0);
	ck_assert_int_eq(seg_linear(&es, 0xfffffffc, 4, true, &la), 0);
	ck_assert_uint_eq(la, 0x1fffc);      /* base + offset wraps at 2^32 */
	ck_assert_int_eq(seg_linear(&es, 0x0800, 4, true, &la), X86_EXC_GP);
}
END_TEST

START_TEST(test_16bit_limit)
{
	/* A real-mode-like 64 KiB segment: a word at 0xFFFF crosses it. */
	struct seg_view ds = sv(SEG_DS, 0x12340, 0xffff, 0x93, SEG_MODE_REAL);
	uint64_t la;

	ck_assert_int_eq(seg_linear(&ds, 0xfffe, 2, false, &la), 0);
	ck_assert_uint_eq(la, 0x2233e);
	ck_assert_int_eq(seg_linear(&ds, 0xffff, 2, false, &la), X86_EXC_GP);
	ck_assert_int_eq(seg_linear(&ds, 0xffff, 1, false, &la), 0);
}
END_TEST

START_TEST(test_types)
{
	struct seg_view s = sv(SEG_DS, 0, 0xffffffff, AR_DATA_RO, SEG_MODE_PROT);
	uint64_t la;

	ck_assert_int_eq(seg_linear(&s, 0x1000, 4, false, &la), 0);
	ck_assert_int_eq(seg_linear(&s, 0x1000, 4, true, &la), X86_EXC_GP);   /* read-only */
	s = sv(SEG_CS, 0, 0xffffffff, AR_CODE_XO, SEG_MODE_PROT);
	ck_assert_int_eq(seg_linear(&s, 0x1000, 1, false, &la), X86_EXC_GP);  /* execute-only */
	ck_assert_int_eq(seg_linear(&s, 0x1000, 1, true, &la), X86_EXC_GP);
	s.ar = AR_CODE_XR;
	ck_assert_int_eq(seg_linear(&s, 0x1000, 1, false, &la), 0);           /* readable code */
	ck_assert_int_eq(seg_linear(&s, 0x1000, 1, true, &la), X86_EXC_GP);   /* never writable */
	/* Null selector: the register is unusable. */
	s = sv(SEG_ES, 0, 0xffffffff, AR_DATA_RW | SEG_AR_UNUSABLE, SEG_MODE_PROT);
	ck_assert_int_eq(seg_linear(&s, 0, 1, true, &la), X86_EXC_GP);
	/* A system type in a data register is never valid. */
	s = sv(SEG_FS, 0, 0xffffffff, 0x8b, SEG_MODE_PROT);
	ck_assert_int_eq(seg_linear(&s, 0, 1, false, &la), X86_EXC_GP);
}
END_TEST

START_TEST(test_real_mode_no_types)
{
	/* Real and virtual-8086 mode check the limit but not the type. */
	struct seg_view s = sv(SEG_ES, 0xb8000, 0xffff, AR_DATA_RO, SEG_MODE_REAL);
	uint64_t la;

	ck_assert_int_eq(seg_linear(&s, 0x10, 1, true, &la), 0);
	ck_assert_uint_eq(la, 0xb8010);
	ck_assert_int_eq(seg_linear(&s, 0x10000, 1, true, &la), X86_EXC_GP);
}
END_TEST

START_TEST(test_flat_4g_and_wrap)
{
	struct seg_view s = sv(SEG_DS, 0x1000, 0xffffffff, AR_DATA_RW, SEG_MODE_PROT);
	uint64_t la;

	ck_assert_int_eq(seg_linear(&s, 0xfffffffe, 4, true, &la), 0);
	ck_assert_uint_eq(la, 0xffe);   /* base + offset wraps at 2^32 outside 64-bit mode */
}
END_TEST

START_TEST(test_64bit)
{
	/* No checks; only FS and GS have bases (SDM vol. 1 §3.4.2.1). */
	struct seg_view s = sv(SEG_DS, 0x5000, 0x10, AR_DATA_RO | SEG_AR_UNUSABLE, SEG_MODE_64);
	uint64_t la;

	ck_assert_int_eq(seg_linear(&s, 0x123456789ull, 8, true, &la), 0);
	ck_assert_uint_eq(la, 0x123456789ull);
	s.seg = SEG_GS;
	s.base = 0xffff800000000000ull;
	ck_assert_int_eq(seg_linear(&s, 0x10, 8, true, &la), 0);
	ck_assert_uint_eq(la, 0xffff800000000010ull);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("seg_check");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_limit_up);
	tcase_add_test(tc, test_ss_is_ss_fault);
	tcase_add_test(tc, test_expand_down);
	tcase_add_test(tc, test_16bit_limit);
	tcase_add_test(tc, test_types);
	tcase_add_test(tc, test_real_mode_no_types);
	tcase_add_test(tc, test_flat_4g_and_wrap);
	tcase_add_test(tc, test_64bit);
	suite_add_tcase(s, tc);
	return check_run(s);
}
