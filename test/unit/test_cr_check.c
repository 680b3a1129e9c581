/* cr0_write_ok()/cr4_write_ok(): the #GP rules for MOV to CR0/CR4 (the
 * hostile guest's NW-without-CD writes used to be accepted). */
#include <check.h>
#include "check_run.h"
#include "vmx/cr_check.h"
#include "vmx/exc_class.h"

START_TEST(test_cr0)
{
	ck_assert(cr0_write_ok(0x60000010, false));          /* reset value */
	ck_assert(cr0_write_ok(0x80000011, false));
	ck_assert(!cr0_write_ok(0x20000011, false));         /* NW without CD */
	ck_assert(cr0_write_ok(0x60000011, false));
	ck_assert(!cr0_write_ok(0x80000010, false));         /* PG without PE */
	ck_assert(!cr0_write_ok(0x180000011ull, true));      /* bit 32 */
	ck_assert(!cr0_write_ok(0x00000011, true));          /* PG off in IA-32e mode */
	ck_assert(cr0_write_ok(0x80000011, true));
}
END_TEST

START_TEST(test_cr4)
{
	ck_assert(cr4_write_ok(0x20, false));
	ck_assert(cr4_write_ok(0x6f8, true));
	ck_assert(!cr4_write_ok(0x2020, false));             /* VMXE */
	ck_assert(!cr4_write_ok(0x8020, false));             /* bit 15 */
	ck_assert(!cr4_write_ok(0x40000020, false));         /* bit 30 */
	ck_assert(!cr4_write_ok(0x100000020ull, true));      /* bit 32 */
	ck_assert(!cr4_write_ok(0x0, true));                 /* PAE off in IA-32e mode */
	ck_assert(cr4_write_ok(0x0, false));
	ck_assert(!cr4_write_ok(0x20020, false));            /* PCIDE outside IA-32e mode */
	ck_assert(cr4_write_ok(0x20020, true));
}
END_TEST

/* Issue 18 item 1: the guest's CR0/CR4 is the guest-state field for the
 * guest-owned bits and the read shadow only for the host-owned ones. */
START_TEST(test_guest_view)
{
	uint64_t mask = (1u << 5) | (1u << 29) | (1u << 30);   /* NE, NW, CD */

	/* PG set by the guest without an exit: the shadow still says 0x11. */
	ck_assert_uint_eq(cr_guest_view(0x80000031, 0x11, mask), 0x80000011);
	/* CD from the shadow although the hardware field keeps caching on. */
	ck_assert_uint_eq(cr_guest_view(0x80000031, 0x60000011, mask), 0xe0000011);
	/* CR4: OSXSAVE guest-owned, VMXE host-owned and hidden. */
	ck_assert_uint_eq(cr_guest_view(0x42020, 0x20, 1u << 13), 0x40020);
}
END_TEST

START_TEST(test_pg_enable)
{
	ck_assert(cr0_pg_enable_ok(0x11, 0x80000011, true, true));
	ck_assert(!cr0_pg_enable_ok(0x11, 0x80000011, true, false));    /* LME without PAE */
	ck_assert(cr0_pg_enable_ok(0x11, 0x80000011, false, false));    /* 32-bit paging */
	ck_assert(cr0_pg_enable_ok(0x80000011, 0x80000011, true, false)); /* PG already on */
	ck_assert(cr0_pg_enable_ok(0x11, 0x31, true, false));            /* PG stays off */
}
END_TEST

START_TEST(test_efer_write)
{
	const uint64_t allowed = 0x901;   /* SCE | LME | NXE */
	bool ok;

	/* Long mode, paging on: NXE and SCE keep LMA (the VM used to die). */
	ck_assert_uint_eq(efer_write_value(0x500, 0x900, true, allowed, &ok), 0xd00);
	ck_assert(ok);
	ck_assert_uint_eq(efer_write_value(0x500, 0xd01, true, allowed, &ok), 0xd01);
	ck_assert(ok);
	/* LME changed while paging is on: #GP (SDM 10.8.5). */
	efer_write_value(0x500, 0x800, true, allowed, &ok);
	ck_assert(!ok);
	efer_write_value(0x000, 0x100, true, allowed, &ok);
	ck_assert(!ok);
	/* Paging off: LME may change, LMA stays 0 whatever is written. */
	ck_assert_uint_eq(efer_write_value(0, 0x500, false, allowed, &ok), 0x100);
	ck_assert(ok);
	ck_assert_uint_eq(efer_write_value(0x100, 0x0, false, allowed, &ok), 0);
	ck_assert(ok);
	/* Reserved bits. */
	efer_write_value(0x500, 0x8000000000000500ull, true, allowed, &ok);
	ck_assert(!ok);
	efer_write_value(0, 0x2, false, allowed, &ok);
	ck_assert(!ok);
}
END_TEST

/* Issue 18 item 4: which injected exceptions push RF=1. */
START_TEST(test_exc_rf)
{
	const unsigned faults[] = { 0, 5, 6, 7, 10, 11, 12, 13, 14, 16, 17, 19, 20, 21, 31 };
	const unsigned others[] = { 1, 2, 3, 4, 8, 18, 32, 255 };

	for (unsigned i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		ck_assert(exc_is_fault(faults[i]));
		ck_assert_uint_eq(exc_inject_rflags(0x246, faults[i]), 0x10246);
	}
	for (unsigned i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		ck_assert(!exc_is_fault(others[i]));
		ck_assert_uint_eq(exc_inject_rflags(0x246, others[i]), 0x246);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cr_check");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cr0);
	tcase_add_test(tc, test_cr4);
	tcase_add_test(tc, test_guest_view);
	tcase_add_test(tc, test_efer_write);
	tcase_add_test(tc, test_pg_enable);
	tcase_add_test(tc, test_exc_rf);
	suite_add_tcase(s, tc);
	return check_run(s);
}
