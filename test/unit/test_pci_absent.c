/* Unit tests for hv/dev/pci_absent.c: all-ones reads, 0xCF9 left to reset. */
#include <check.h>
#include "test_devfake.h"
#include "dev/pci_absent.h"

START_TEST(test_reads_all_ones)
{
	uint32_t v = 0x80000000u;

	ck_assert_int_eq(pci_absent_pio(PCI_CONF_ADDR, 4, true, &v), 0);
	ck_assert_int_eq(pci_absent_pio(PCI_CONF_ADDR, 4, false, &v), 0);
	ck_assert_uint_eq(v, 0xffffffffu);
	ck_assert_int_eq(pci_absent_pio(PCI_CONF_DATA, 4, false, &v), 0);
	ck_assert_uint_eq(v, 0xffffffffu);
	ck_assert_int_eq(pci_absent_pio(PCI_CONF_DATA + 2, 2, false, &v), 0);
	ck_assert_uint_eq(v, 0xffff);
	ck_assert_int_eq(pci_absent_pio(PCI_CONF_DATA + 3, 1, false, &v), 0);
	ck_assert_uint_eq(v, 0xff);
}
END_TEST

START_TEST(test_port_range)
{
	uint32_t v = 6;

	ck_assert_int_eq(pci_absent_pio(0xcf9, 1, true, &v), -ENOENT);
	ck_assert_int_eq(pci_absent_pio(0xcf7, 1, false, &v), -ENOENT);
	ck_assert_int_eq(pci_absent_pio(0xd00, 1, false, &v), -ENOENT);
	ck_assert_int_eq(pci_absent_pio(0xcfa, 2, false, &v), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pci_absent");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_reads_all_ones);
	tcase_add_test(tc, test_port_range);
	suite_add_tcase(s, tc);
	return devfake_run(s);
}
