/* Unit tests for hv/dev/registry.c: the DEV_REGISTER set in the image builds
 * (no two models overlap), overlapping or duplicate registrations are
 * rejected with a message naming both models, and the port map and timer
 * list come out in port order whatever the registration order. */
#include <check.h>
#include <string.h>
#include "shim.h"
#include "dev/registry.h"
#include "dev/pcdev.h"
#include "errno.h"

static struct dev_registry R;

static void nop_init(void *dev, const struct dev_cfg *cfg) {}
static int nop_pio(void *dev, uint16_t port, unsigned size, bool write, uint32_t *val) { return 0; }
static int nop_mmio(void *dev, uint64_t gpa, unsigned size, bool write, uint64_t *val) { return 0; }
static stime_t nop_dl(const void *dev) { return STIME_NEVER; }
static void nop_adv(void *dev, stime_t now) {}

static const struct dev_model A = { .name = "a", .size = 24, .init = nop_init, .pio = nop_pio,
	DEV_PIO_RANGES({ 0x100, 0x107, 0 }, { 0x300, 0x300, DEV_PIO_TIMED }) };
static const struct dev_model B = { .name = "b", .size = 8, .init = nop_init, .pio = nop_pio,
	.next_deadline = nop_dl, .advance = nop_adv,
	DEV_PIO_RANGES({ 0x40, 0x43, DEV_PIO_TIMED | DEV_PIO_TIMED_READ }) };
static const struct dev_model C_OVERLAP = { .name = "c", .init = nop_init, .pio = nop_pio,
	DEV_PIO_RANGES({ 0x2ff, 0x301, 0 }) };
static const struct dev_model A_AGAIN = { .name = "a", .init = nop_init, .pio = nop_pio,
	DEV_PIO_RANGES({ 0x500, 0x500, 0 }) };
static const struct dev_model M1 = { .name = "m1", .init = nop_init, .mmio = nop_mmio,
	DEV_MMIO_RANGES({ 0xfed00000, 0xfed003ff }) };
static const struct dev_model M2 = { .name = "m2", .init = nop_init, .mmio = nop_mmio,
	DEV_MMIO_RANGES({ 0xfed003ff, 0xfed00400 }) };
static const struct dev_model REVERSED = { .name = "r", .init = nop_init, .pio = nop_pio,
	DEV_PIO_RANGES({ 0x10, 0x0f, 0 }) };
static const struct dev_model HALF_TIMED = { .name = "h", .init = nop_init, .pio = nop_pio,
	.next_deadline = nop_dl, DEV_PIO_RANGES({ 0x10, 0x10, 0 }) };

/* The models of the image when the registry came (ab31920). */
static bool known_model(const char *name)
{
	static const char *const known[] = { "uart", "pit", "rtc", "acpipm", "fwcfg", "debugexit",
					     "pci_absent", "kbd", "post" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i], name))
			return true;
	return false;
}

START_TEST(test_image_set_builds)
{
	const struct dev_model *m[DEV_MAX];
	unsigned n = dev_registry_section(m, DEV_MAX);

	ck_assert_uint_ge(n, 9);
	ck_assert_uint_le(n, DEV_MAX);
	shim_reset_logs();
	ck_assert_int_eq(dev_registry_build(&R, m, n), 0);
	ck_assert_int_eq(shim_log_count[0], 0);
	ck_assert_uint_le(R.state_size, PCDEV_STATE_BYTES);
	/* The hand-kept list this replaced: UART, PCI, fw_cfg, debug exit and
	 * POST writes are untimed; PIT, RTC, PM, 0x64 and unclaimed ports (PIC)
	 * timed; of the reads only the RTC data port. */
	const uint16_t untimed[] = { 0x3f8, 0x3ff, 0xcf8, 0xcf9, 0xcfc, 0xcff, 0x510, 0x511, 0xf4, 0x80 };
	const uint16_t timed[] = { 0x40, 0x43, 0x61, 0x70, 0x71, 0x600, 0x60b, 0x64, 0x20, 0xa1, 0x4d0 };

	for (size_t i = 0; i < sizeof(untimed) / sizeof(untimed[0]); i++)
		ck_assert_msg(!(R.port[untimed[i]] & DEV_PIO_TIMED), "port %#x", untimed[i]);
	for (size_t i = 0; i < sizeof(timed) / sizeof(timed[0]); i++)
		ck_assert_msg(R.port[timed[i]] & DEV_PIO_TIMED, "port %#x", timed[i]);
	/* Checked over the ports of today's models and the unclaimed ones, so
	 * that a new model (one file, docs/CONVENTIONS.md) needs no edit here. */
	for (uint32_t p = 0; p < 65536; p++) {
		unsigned idx = R.port[p] & DEV_PORT_IDX;

		if (idx && !known_model(R.slot[idx - 1].model->name))
			continue;
		ck_assert_msg(!(R.port[p] & DEV_PIO_TIMED_READ) == (p != 0x71), "port %#x", p);
	}
	/* Timer sweep in port order: PIT, RTC, ACPI PM (as before the registry),
	 * whatever timed models come between. */
	const char *const sweep[] = { "pit", "rtc", "acpipm" };
	unsigned k = 0;

	for (unsigned i = 0; i < R.nr_timed && k < 3; i++)
		if (!strcmp(R.slot[R.timed_slot[i]].model->name, sweep[k]))
			k++;
	ck_assert_uint_eq(k, 3);
}
END_TEST

START_TEST(test_port_map_and_order)
{
	const struct dev_model *m[] = { &A, &B, &M1 };

	ck_assert_int_eq(dev_registry_build(&R, m, 3), 0);
	ck_assert_uint_eq(R.nr, 3);
	ck_assert_str_eq(R.slot[0].model->name, "b");   /* lowest port first */
	ck_assert_str_eq(R.slot[1].model->name, "a");
	ck_assert_str_eq(R.slot[2].model->name, "m1");  /* MMIO-only last */
	ck_assert_uint_eq(R.port[0x40], 1 | DEV_PIO_TIMED | DEV_PIO_TIMED_READ);
	ck_assert_uint_eq(R.port[0x100], 2);
	ck_assert_uint_eq(R.port[0x107], 2);
	ck_assert_uint_eq(R.port[0x108], DEV_PIO_TIMED);
	ck_assert_uint_eq(R.port[0x300], 2 | DEV_PIO_TIMED);
	ck_assert_uint_eq(R.slot[0].off, 0);
	ck_assert_uint_eq(R.slot[1].off, DEV_STATE_ALIGN);
	ck_assert_uint_eq(R.slot[2].off, DEV_STATE_ALIGN + 32);
	ck_assert_uint_eq(R.nr_timed, 1);
	ck_assert_uint_eq(R.timed_slot[0], 0);
}
END_TEST

static void expect_rejected(const struct dev_model *x, const struct dev_model *y, int err,
			    const char *msg)
{
	const struct dev_model *m[] = { x, y };

	shim_reset_logs();
	ck_assert_int_eq(dev_registry_build(&R, m, 2), err);
	ck_assert_int_eq(shim_log_count[0], 1);
	ck_assert_msg(strstr(shim_last_log, msg), "log: %s", shim_last_log);
}

START_TEST(test_rejects)
{
	expect_rejected(&A, &C_OVERLAP, -EEXIST, "ports 0x300-0x300 of a overlap ports 0x2ff-0x301 of c");
	expect_rejected(&A, &A_AGAIN, -EEXIST, "model a registered twice");
	expect_rejected(&M1, &M2, -EEXIST, "of m1 overlaps MMIO");
	expect_rejected(&A, &REVERSED, -EINVAL, "r: port range 0x10-0xf");
	expect_rejected(&A, &HALF_TIMED, -EINVAL, "h: needs init, and next_deadline with advance");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dev_registry");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_image_set_builds);
	tcase_add_test(tc, test_port_map_and_order);
	tcase_add_test(tc, test_rejects);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
