/* Unit tests for hv/dev/fwcfg.c: signature, ID, RAM size, CPU count. */
#include <check.h>
#include "test_devfake.h"
#include "dev/fwcfg.h"

static struct fwcfg F;

static void sel(uint16_t key)
{
	uint32_t v = key;

	ck_assert_int_eq(fwcfg_pio(&F, FWCFG_PORT_SEL, 2, true, &v), 0);
}

static uint64_t read_le(unsigned n)
{
	uint64_t r = 0;

	for (unsigned i = 0; i < n; i++) {
		uint32_t v = 0xffff;
		ck_assert_int_eq(fwcfg_pio(&F, FWCFG_PORT_DATA, 1, false, &v), 0);
		ck_assert_uint_le(v, 0xff);
		r |= (uint64_t)v << (8 * i);
	}
	return r;
}

START_TEST(test_signature)
{
	char sig[5] = { 0 };

	fwcfg_init(&F, 256ull << 20, 4);
	sel(FWCFG_SIGNATURE);
	for (int i = 0; i < 4; i++)
		sig[i] = (char)read_le(1);
	ck_assert_str_eq(sig, "QEMU");
	ck_assert_uint_eq(read_le(1), 0);   /* past the end */
	sel(FWCFG_SIGNATURE);               /* reselect rewinds */
	ck_assert_uint_eq(read_le(1), 'Q');
}
END_TEST

START_TEST(test_values)
{
	fwcfg_init(&F, 0x123456789ull, 3);
	sel(FWCFG_ID);
	ck_assert_uint_eq(read_le(4), 1);
	sel(FWCFG_RAM_SIZE);
	ck_assert_uint_eq(read_le(8), 0x123456789ull);
	sel(FWCFG_NB_CPUS);
	ck_assert_uint_eq(read_le(2), 3);
	ck_assert_uint_eq(read_le(2), 0);
	sel(0x19);                           /* file directory: absent, zeros */
	ck_assert_uint_eq(read_le(4), 0);
}
END_TEST

START_TEST(test_wide_read_and_ports)
{
	uint32_t v = 0;

	fwcfg_init(&F, 0, 1);
	sel(FWCFG_SIGNATURE);
	ck_assert_int_eq(fwcfg_pio(&F, FWCFG_PORT_DATA, 4, false, &v), 0);
	ck_assert_uint_eq(v, 0x554d4551);    /* "QEMU" little-endian */
	ck_assert_int_eq(fwcfg_pio(&F, 0x512, 1, false, &v), -ENOENT);
	ck_assert_int_eq(fwcfg_pio(&F, 0x50f, 1, false, &v), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fwcfg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_signature);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_wide_read_and_ports);
	suite_add_tcase(s, tc);
	return devfake_run(s);
}
