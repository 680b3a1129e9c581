/* Unit tests for tools/linux/bareload/plan.c: GRUB arguments, module lookup,
 * module placement around the guest RAM being built, the command-line file. */
#include <check.h>
#include <string.h>
#include "bareload.h"
#include "errno.h"
#include "log.h"
#include "shim.h"
#include "check_run.h"

static struct boot_info bi;

/* A 512 MiB machine: RAM 0..640K and 1M..512M, as Bochs's BIOS reports. */
static void bi_reset(void)
{
	memset(&bi, 0, sizeof(bi));
	bi.mmap[0] = (struct bootinfo_range){ 0, 0x9fc00, MB2_MMAP_AVAILABLE };
	bi.mmap[1] = (struct bootinfo_range){ 0x100000, MiB(511), MB2_MMAP_AVAILABLE };
	bi.nr_mmap = 2;
}

static void mod_add(const char *s, uint64_t start, uint64_t len)
{
	bi.modules[bi.nr_modules++] = (struct bootinfo_module){ start, start + len, s };
}

START_TEST(args_defaults_and_values)
{
	struct bl_cfg c;

	ck_assert_int_eq(bl_args_parse("", &c), 0);
	ck_assert_uint_eq(c.vcpus, 1);
	ck_assert_uint_eq(c.mem, MiB(128));
	ck_assert_int_eq(bl_args_parse(NULL, &c), 0);
	ck_assert_int_eq(bl_args_parse("  vcpus=4   mem=192M other=x", &c), 0);
	ck_assert_uint_eq(c.vcpus, 4);
	ck_assert_uint_eq(c.mem, MiB(192));
	ck_assert_int_eq(bl_args_parse("mem=64", &c), 0);
	ck_assert_uint_eq(c.mem, MiB(64));
	ck_assert_int_eq(bl_args_parse("mem=65536K", &c), 0);
	ck_assert_uint_eq(c.mem, MiB(64));
}
END_TEST

START_TEST(args_rejects_bad_values)
{
	struct bl_cfg c;
	const char *bad[] = { "vcpus=0", "vcpus=256", "vcpus=2x", "mem=abc", "mem=8M",
			      "mem=1G", "mem=257M", "mem=99999999999999999999", "mem=M" };

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		shim_reset_logs();
		ck_assert_msg(bl_args_parse(bad[i], &c) == -EINVAL, "%s accepted", bad[i]);
		ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
	}
	ck_assert_int_eq(bl_args_parse("mem=256M", &c), 0);   /* up to the image */
}
END_TEST

START_TEST(mods_found_by_first_word)
{
	struct bl_mods m;

	bi_reset();
	mod_add("cmdline", 0x300000, 100);
	mod_add("initrdX", 0x400000, 5);
	mod_add("initrd extra words", 0x500000, 2000);
	mod_add("bzImage", 0x200000, 1000);
	ck_assert_int_eq(bl_mods_find(&bi, &m), 0);
	ck_assert_uint_eq(m.start[BL_MOD_KERNEL], 0x200000);
	ck_assert_uint_eq(m.len[BL_MOD_KERNEL], 1000);
	ck_assert_uint_eq(m.start[BL_MOD_INITRD], 0x500000);
	ck_assert_uint_eq(m.len[BL_MOD_INITRD], 2000);
	ck_assert_uint_eq(m.src[BL_MOD_CMDLINE], 0x300000);
}
END_TEST

START_TEST(mods_missing_one)
{
	struct bl_mods m;

	bi_reset();
	mod_add("bzImage", 0x200000, 1000);
	mod_add("initrd", 0x300000, 1000);
	shim_reset_logs();
	ck_assert_int_eq(bl_mods_find(&bi, &m), -ENOENT);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
}
END_TEST

static bool overlap(uint64_t a, uint64_t al, uint64_t b, uint64_t bl)
{
	return a < b + bl && b < a + al;
}

START_TEST(mods_moved_out_of_guest_ram)
{
	struct bl_mods m;
	uint64_t guest = MiB(128), image_end = BL_IMAGE_BASE + 0x20000;

	bi_reset();
	mod_add("bzImage", 0x1000000, 1410048);            /* inside guest RAM: moves */
	mod_add("initrd", BL_IMAGE_BASE + MiB(1), 2290688); /* above: stays */
	mod_add("cmdline", MiB(127) + 0x800, MiB(2));       /* straddles 128M: moves */
	ck_assert_int_eq(bl_mods_find(&bi, &m), 0);
	ck_assert_int_eq(bl_mods_place(&bi, &m, guest, image_end), 0);
	ck_assert_uint_eq(m.start[BL_MOD_INITRD], BL_IMAGE_BASE + MiB(1));
	for (unsigned k = 0; k < BL_MOD_NR; k++) {
		ck_assert_uint_ge(m.start[k], guest);
		ck_assert_uint_eq(m.start[k] % PAGE_SIZE, 0);
		ck_assert(!overlap(m.start[k], m.len[k], BL_IMAGE_BASE, image_end - BL_IMAGE_BASE) ||
			  m.start[k] == m.src[k]);
		for (unsigned j = 0; j < BL_MOD_NR; j++) {
			ck_assert(j == k || !overlap(m.start[k], m.len[k], m.start[j], m.len[j]));
			/* a moved module never lands on a source still to be copied */
			ck_assert(m.start[k] == m.src[k] ||
				  !overlap(m.start[k], m.len[k], m.src[j], m.len[j]));
		}
	}
}
END_TEST

START_TEST(mods_no_room)
{
	struct bl_mods m;

	bi_reset();
	bi.mmap[1].len = MiB(255);   /* RAM ends at 256 MiB, below the image */
	mod_add("bzImage", 0x1000000, 1000);
	mod_add("initrd", 0x2000000, 1000);
	mod_add("cmdline", 0x3000000, 100);
	ck_assert_int_eq(bl_mods_find(&bi, &m), 0);
	shim_reset_logs();
	ck_assert_int_eq(bl_mods_place(&bi, &m, MiB(128), BL_IMAGE_BASE + 0x20000), -ENOMEM);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
}
END_TEST

START_TEST(cmdline_file)
{
	char out[32];
	const char ok[] = "quiet hv.run=hog,10\n";

	ck_assert_int_eq(bl_cmdline_copy(ok, strlen(ok), out, sizeof(out)), 0);
	ck_assert_str_eq(out, "quiet hv.run=hog,10");
	ck_assert_int_eq(bl_cmdline_copy("a \r\n\t", 5, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "a");
	ck_assert_int_eq(bl_cmdline_copy("", 0, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(bl_cmdline_copy("a\nb", 3, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(bl_cmdline_copy("a\0b", 3, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(bl_cmdline_copy("0123456789", 10, out, 10), -E2BIG);
	ck_assert_int_eq(bl_cmdline_copy("012345678", 9, out, 10), 0);
}
END_TEST

static Suite *bareload_suite(void)
{
	Suite *s = suite_create("bareload");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, args_defaults_and_values);
	tcase_add_test(tc, args_rejects_bad_values);
	tcase_add_test(tc, mods_found_by_first_word);
	tcase_add_test(tc, mods_missing_one);
	tcase_add_test(tc, mods_moved_out_of_guest_ram);
	tcase_add_test(tc, mods_no_room);
	tcase_add_test(tc, cmdline_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(bareload_suite());
}
