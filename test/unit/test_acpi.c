/* Unit tests for hv/arch/x86/acpi.c on fabricated RSDP/RSDT/XSDT/MADT/FADT/DSDT. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include "arch/x86/acpi.h"
#include "arch/x86/mptable.h"
#include "errno.h"
#include "log.h"
#include "shim.h"

/* Fabricated physical memory: the first 2 MiB live in a host buffer. */
#define FAKE_MEM (2u << 20)
static uint8_t *fake;

static const void *fake_map(paddr_t pa, size_t len)
{
	if (pa >= FAKE_MEM || len > FAKE_MEM - pa)
		return NULL;
	return fake + pa;
}

static void fake_reset(void)
{
	static uint8_t mem[FAKE_MEM] __attribute__((aligned(4096)));

	fake = mem;
	memset(fake, 0, FAKE_MEM);
	acpi_phys_map = fake_map;
}

static void fake_fix_checksum(uint32_t pa, uint32_t len, uint32_t sum_off)
{
	fake[pa + sum_off] = 0;
	fake[pa + sum_off] = (uint8_t)(0x100 - acpi_checksum(fake + pa, len));
}

static void put16(uint32_t pa, uint16_t v) { memcpy(fake + pa, &v, 2); }
static void put32(uint32_t pa, uint32_t v) { memcpy(fake + pa, &v, 4); }
static void put64(uint32_t pa, uint64_t v) { memcpy(fake + pa, &v, 8); }

#define RSDP_PA  0xe0000u
#define RSDT_PA  0x100000u
#define XSDT_PA  0x101000u
#define MADT_PA  0x102000u
#define FADT_PA  0x103000u
#define DSDT_PA  0x104000u
#define SSDT_PA  0x105000u

static struct platform_info pi;
static uint32_t madt_len;

static void put_rsdp(uint32_t pa, uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
	memcpy(fake + pa, "RSD PTR ", 8);
	memcpy(fake + pa + 9, "TESTOE", 6);
	fake[pa + 15] = rev;
	put32(pa + 16, rsdt);
	put32(pa + 20, 36);
	put64(pa + 24, xsdt);
	fake_fix_checksum(pa, 20, 8);
	fake_fix_checksum(pa, 36, 32);
}

static void put_header(uint32_t pa, const char *sig, uint32_t len, uint8_t rev)
{
	memcpy(fake + pa, sig, 4);
	put32(pa + 4, len);
	fake[pa + 8] = rev;
	memcpy(fake + pa + 10, "TESTOE", 6);
	fake_fix_checksum(pa, len, 9);
}

static void put_root(uint32_t pa, bool x, const uint64_t *ent, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (x)
			put64(pa + 36 + 8 * i, ent[i]);
		else
			put32(pa + 36 + 4 * i, (uint32_t)ent[i]);
	}
	put_header(pa, x ? "XSDT" : "RSDT", 36 + n * (x ? 8 : 4), 1);
}

/* MADT builder: entries appended after the 44-byte fixed part. */
static void madt_begin(void)
{
	memset(fake + MADT_PA, 0, 0x1000);
	put32(MADT_PA + 36, 0xfee00000);
	put32(MADT_PA + 40, 1);            /* PCAT_COMPAT */
	madt_len = 44;
}

static void madt_add(const uint8_t *e, uint8_t len)
{
	memcpy(fake + MADT_PA + madt_len, e, len);
	madt_len += len;
}

static void madt_lapic(uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t e[8] = { 0, 8, uid, id };
	memcpy(e + 4, &flags, 4);
	madt_add(e, 8);
}

static void madt_x2apic(uint32_t id, uint32_t flags, uint32_t uid)
{
	uint8_t e[16] = { 9, 16 };
	memcpy(e + 4, &id, 4);
	memcpy(e + 8, &flags, 4);
	memcpy(e + 12, &uid, 4);
	madt_add(e, 16);
}

static void madt_ioapic(uint8_t id, uint32_t addr, uint32_t gsi)
{
	uint8_t e[12] = { 1, 12, id, 0 };
	memcpy(e + 4, &addr, 4);
	memcpy(e + 8, &gsi, 4);
	madt_add(e, 12);
}

static void madt_iso(uint8_t irq, uint32_t gsi, uint16_t flags)
{
	uint8_t e[10] = { 2, 10, 0, irq };
	memcpy(e + 4, &gsi, 4);
	memcpy(e + 8, &flags, 2);
	madt_add(e, 10);
}

static void madt_end(void)
{
	put_header(MADT_PA, "APIC", madt_len, 4);
}

/* FADT (rev 3, 244 bytes) with PM1a, PM timer, reset register, X_DSDT. */
static void put_fadt(void)
{
	memset(fake + FADT_PA, 0, 244);
	put32(FADT_PA + 40, DSDT_PA);
	put16(FADT_PA + 46, 9);
	put32(FADT_PA + 48, 0xb2);
	fake[FADT_PA + 52] = 0xf1;
	put32(FADT_PA + 64, 0x604);
	put32(FADT_PA + 76, 0x608);
	put16(FADT_PA + 109, 0x3);
	put32(FADT_PA + 112, (1u << 10) | (1u << 8));
	fake[FADT_PA + 116] = 1;           /* GAS: system I/O */
	put64(FADT_PA + 120, 0xcf9);
	fake[FADT_PA + 128] = 0x06;
	put64(FADT_PA + 140, DSDT_PA);
	put_header(FADT_PA, "FACP", 244, 3);
}

/* DSDT holding Name(\_S5, Package(4) { 0x05, Zero, Zero, Zero }) amid junk. */
static void put_dsdt(void)
{
	static const uint8_t aml[] = { 0x10, 0x05, '_', 'S', 'B', '_', 0x08, '\\', '_', 'S',
		'5', '_', 0x12, 0x08, 0x04, 0x0a, 0x05, 0x00, 0x00, 0x00, 0xa0 };

	memcpy(fake + DSDT_PA + 36, aml, sizeof(aml));
	put_header(DSDT_PA, "DSDT", 36 + sizeof(aml), 2);
}

/* A typical machine: 4 CPUs (one disabled, one online-capable), an IOAPIC,
 * two overrides, FADT and DSDT, reachable from RSDT (v1) and XSDT (v2). */
static void build_machine(void)
{
	uint64_t ent[3] = { FADT_PA, SSDT_PA, MADT_PA };

	fake_reset();
	shim_reset_logs();
	madt_begin();
	madt_lapic(0, 0, 1);
	madt_lapic(1, 1, 1);
	madt_lapic(2, 2, 0);                 /* disabled, not online-capable */
	madt_lapic(3, 3, 2);                 /* online-capable */
	madt_ioapic(4, 0xfec00000, 0);
	madt_iso(0, 2, 0);
	madt_iso(9, 9, 0xd);
	madt_end();
	put_fadt();
	put_dsdt();
	put_header(SSDT_PA, "SSDT", 36, 1);
	put_root(RSDT_PA, false, ent, 3);
	put_root(XSDT_PA, true, ent, 3);
	put_rsdp(RSDP_PA, 2, RSDT_PA, XSDT_PA);
}

START_TEST(test_v2_machine)
{
	build_machine();
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), 0);
	ck_assert_int_eq(shim_log_count[LOG_ERR] + shim_log_count[LOG_WARN], 0);
	ck_assert_int_eq(pi.source, PLATFORM_ACPI);
	ck_assert_uint_eq(pi.acpi_revision, 2);
	ck_assert_uint_eq(pi.nr_cpus, 3);
	ck_assert_uint_eq(pi.nr_cpus_enabled, 2);
	ck_assert_uint_eq(pi.cpus[1].apic_id, 1);
	ck_assert_uint_eq(pi.cpus[2].apic_id, 3);
	ck_assert_uint_eq(pi.cpus[2].flags, PLATFORM_CPU_ONLINE_CAP);
	ck_assert_uint_eq(pi.cpus[0].flags, PLATFORM_CPU_ENABLED);
	ck_assert_uint_eq(pi.lapic_addr, 0xfee00000);
	ck_assert(pi.pcat_compat);
	ck_assert_uint_eq(pi.nr_ioapics, 1);
	ck_assert_uint_eq(pi.ioapics[0].addr, 0xfec00000);
	ck_assert_uint_eq(pi.nr_isos, 2);
	ck_assert_uint_eq(pi.isos[0].gsi, 2);
	ck_assert_uint_eq(pi.isos[1].flags, 0xd);
	ck_assert(pi.has_fadt);
	ck_assert_uint_eq(pi.pm1a_cnt, 0x604);
	ck_assert_uint_eq(pi.pm_tmr, 0x608);
	ck_assert(pi.pm_tmr_32bit);
	ck_assert_uint_eq(pi.sci_irq, 9);
	ck_assert_uint_eq(pi.boot_arch, 3);
	ck_assert(pi.reset_supported);
	ck_assert_uint_eq(pi.reset_space, 1);
	ck_assert_uint_eq(pi.reset_addr, 0xcf9);
	ck_assert_uint_eq(pi.reset_value, 6);
	ck_assert(pi.has_s5);
	ck_assert_uint_eq(pi.s5_typ_a, 5);
	ck_assert_uint_eq(pi.s5_typ_b, 0);
	ck_assert_uint_eq(pi.nr_tables, 4);   /* XSDT, MADT, FADT, DSDT */
	ck_assert_uint_eq(pi.tables[0].addr, XSDT_PA);
	ck_assert_int_eq(platform_cpu_find(&pi, 3), 2);
	ck_assert_int_eq(platform_cpu_find(&pi, 2), -1);
	ck_assert_uint_eq(acpi_find_table("SSDT", 0), SSDT_PA);
	ck_assert_uint_eq(acpi_find_table("SSDT", 1), 0);
	ck_assert_uint_eq(acpi_find_table("HPET", 0), 0);
	log_level = LOG_INFO;
	platform_print(&pi);
	log_level = LOG_WARN;
}
END_TEST

START_TEST(test_v1_and_copy)
{
	uint8_t copy[36];

	build_machine();
	put_rsdp(RSDP_PA, 0, RSDT_PA, 0);
	memcpy(copy, fake + RSDP_PA, 20);
	ck_assert_int_eq(acpi_parse_rsdp(copy, 20, &pi), 0);   /* from a tag-14 copy */
	ck_assert_uint_eq(pi.acpi_revision, 0);
	ck_assert_uint_eq(pi.tables[0].addr, RSDT_PA);
	ck_assert_uint_eq(pi.nr_cpus, 3);
	ck_assert_uint_eq(acpi_find_table("FACP", 0), FADT_PA);
	/* A v2 RSDP handed over as 20 bytes is refused (no extended part). */
	put_rsdp(RSDP_PA, 2, RSDT_PA, XSDT_PA);
	memcpy(copy, fake + RSDP_PA, 36);
	ck_assert_int_eq(acpi_parse_rsdp(copy, 20, &pi), -EINVAL);
	ck_assert_int_eq(acpi_parse_rsdp(copy, 36, &pi), 0);
	ck_assert_int_eq(acpi_parse_rsdp(NULL, 36, &pi), -EINVAL);
}
END_TEST

START_TEST(test_bad_checksums)
{
	build_machine();
	fake[RSDP_PA + 3] ^= 1;                          /* signature */
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), -EINVAL);
	build_machine();
	fake[RSDP_PA + 8] ^= 1;                          /* v1 checksum */
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), -EINVAL);
	build_machine();
	fake[RSDP_PA + 32] ^= 1;                         /* extended checksum */
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), -EINVAL);
	ck_assert_int_eq(acpi_parse(0, &pi), -EINVAL);
	/* Bad XSDT: fall back to the RSDT with a warning. */
	build_machine();
	fake[XSDT_PA + 9] ^= 0x40;
	shim_reset_logs();
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), 0);
	ck_assert_int_eq(shim_log_count[LOG_WARN], 1);
	ck_assert_uint_eq(pi.tables[0].addr, RSDT_PA);
	ck_assert_uint_eq(pi.nr_cpus, 3);
	/* Both roots bad. */
	fake[RSDT_PA + 20] ^= 0x40;
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), -EINVAL);
	/* Bad MADT checksum: no MADT. */
	build_machine();
	fake[MADT_PA + 44] ^= 1;
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), -ENODEV);
	ck_assert_uint_eq(acpi_find_table("APIC", 0), 0);
	ck_assert_uint_eq(pi.nr_cpus, 0);
	/* Bad FADT checksum: CPUs still found, no FADT data. */
	build_machine();
	fake[FADT_PA + 64] ^= 1;
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), 0);
	ck_assert(!pi.has_fadt);
	ck_assert_uint_eq(pi.pm1a_cnt, 0);
	/* Bad DSDT checksum: FADT kept, no \_S5. */
	build_machine();
	fake[DSDT_PA + 40] ^= 1;
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), 0);
	ck_assert(pi.has_fadt && !pi.has_s5);
}
END_TEST

START_TEST(test_duplicates_and_x2apic)
{
	uint64_t ent[1] = { MADT_PA };

	build_machine();
	madt_begin();
	madt_lapic(0, 0, 1);
	madt_lapic(1, 0, 1);                 /* duplicate APIC ID */
	madt_lapic(2, 0xff, 1);              /* placeholder ID */
	madt_x2apic(300, 1, 7);
	madt_x2apic(300, 1, 8);              /* duplicate */
	madt_x2apic(0, 1, 9);                /* same CPU as the xAPIC entry */
	madt_x2apic(0xffffffffu, 1, 10);     /* placeholder */
	madt_x2apic(301, 0, 11);             /* disabled */
	madt_x2apic(302, 2, 12);             /* online-capable */
	madt_ioapic(1, 0xfec00000, 0);
	madt_ioapic(1, 0xfec01000, 24);      /* duplicate ID */
	madt_ioapic(2, 0xfec00000, 24);      /* duplicate address */
	madt_ioapic(3, 0xfec10000, 24);
	madt_iso(0, 2, 0);
	madt_iso(0, 5, 0);                   /* later override of the same IRQ wins */
	uint8_t addr_ovr[12] = { 5, 12 };
	uint64_t la = 0xfed00000ULL;
	memcpy(addr_ovr + 4, &la, 8);
	madt_add(addr_ovr, 12);
	madt_end();
	put_root(XSDT_PA, true, ent, 1);
	shim_reset_logs();
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), 0);
	ck_assert_uint_eq(pi.nr_cpus, 3);
	ck_assert_uint_eq(pi.nr_cpus_enabled, 2);
	ck_assert_uint_eq(pi.cpus[1].apic_id, 300);
	ck_assert_uint_eq(pi.cpus[1].acpi_uid, 7);
	ck_assert_uint_eq(pi.cpus[1].flags, PLATFORM_CPU_ENABLED | PLATFORM_CPU_X2APIC);
	ck_assert_uint_eq(pi.cpus[2].apic_id, 302);
	ck_assert_uint_eq(pi.cpus[2].flags, PLATFORM_CPU_ONLINE_CAP | PLATFORM_CPU_X2APIC);
	ck_assert_uint_eq(pi.nr_ioapics, 2);
	ck_assert_uint_eq(pi.ioapics[1].id, 3);
	ck_assert_uint_eq(pi.ioapics[1].gsi_base, 24);
	ck_assert_uint_eq(pi.nr_isos, 1);
	ck_assert_uint_eq(pi.isos[0].gsi, 5);
	ck_assert_uint_eq(pi.lapic_addr, 0xfed00000ULL);
	ck_assert_int_eq(shim_log_count[LOG_WARN], 5);
	ck_assert(!pi.has_fadt);              /* XSDT now lists only the MADT */
}
END_TEST

START_TEST(test_malformed_madt)
{
	build_machine();
	madt_begin();
	madt_lapic(0, 0, 1);
	uint8_t zero_len[2] = { 0, 0 };
	madt_add(zero_len, 2);
	madt_lapic(1, 1, 1);
	madt_end();
	shim_reset_logs();
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), -EINVAL);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
	ck_assert_uint_eq(pi.nr_cpus, 1);     /* what came before is kept */
	/* An entry claiming more bytes than the table has. */
	madt_begin();
	madt_lapic(0, 0, 1);
	uint8_t longe[8] = { 0, 40, 1, 1, 1 };
	madt_add(longe, 8);
	madt_end();
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), -EINVAL);
	ck_assert_uint_eq(pi.nr_cpus, 1);
	/* A known type shorter than its layout is skipped, not misread. */
	madt_begin();
	uint8_t shorte[6] = { 0, 6, 1, 1, 1, 0 };
	madt_add(shorte, 6);
	madt_lapic(2, 2, 1);
	madt_end();
	shim_reset_logs();
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), 0);
	ck_assert_uint_eq(pi.nr_cpus, 1);
	ck_assert_uint_eq(pi.cpus[0].apic_id, 2);
	ck_assert_int_eq(shim_log_count[LOG_WARN], 1);
	/* Truncated: a MADT too short for its fixed part, and one whose length
	 * runs past readable memory. */
	madt_begin();
	put_header(MADT_PA, "APIC", 40, 1);
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), -EINVAL);
	put32(MADT_PA + 4, FAKE_MEM);
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), -ENODEV);
	/* A root table entry pointing outside memory is skipped. */
	build_machine();
	uint64_t ent[2] = { 0x7fffffffffULL, MADT_PA };
	put_root(XSDT_PA, true, ent, 2);
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), 0);
	ck_assert_uint_eq(pi.nr_cpus, 3);
}
END_TEST

START_TEST(test_too_many_cpus)
{
	build_machine();
	madt_begin();
	for (uint32_t i = 0; i < PLATFORM_MAX_CPUS + 10; i++)
		madt_x2apic(i, 1, i);
	madt_end();
	ck_assert_int_eq(acpi_parse(RSDP_PA, &pi), 0);
	ck_assert_uint_eq(pi.nr_cpus, PLATFORM_MAX_CPUS);
}
END_TEST

START_TEST(test_rsdp_scan)
{
	fake_reset();
	ck_assert_uint_eq(acpi_rsdp_scan(), 0);
	put_rsdp(0xf5a30, 0, RSDT_PA, 0);
	ck_assert_uint_eq(acpi_rsdp_scan(), 0xf5a30);
	put16(0x40e, 0x9fc0);                       /* EBDA at 0x9fc00 */
	put_rsdp(0x9fc10, 0, RSDT_PA, 0);
	ck_assert_uint_eq(acpi_rsdp_scan(), 0x9fc10);
	fake_reset();
	put_rsdp(0xe0008, 0, RSDT_PA, 0);           /* not 16-byte aligned */
	ck_assert_uint_eq(acpi_rsdp_scan(), 0);
	put_rsdp(0xe1000, 2, RSDT_PA, XSDT_PA);
	fake[0xe1000 + 32] ^= 1;                    /* bad extended checksum */
	ck_assert_uint_eq(acpi_rsdp_scan(), 0);
}
END_TEST

/* Random corruption with fixed-up checksums: ASan guards every read. */
START_TEST(test_fuzz_madt)
{
	srand(777);
	for (int it = 0; it < 2000; it++) {
		build_machine();
		madt_x2apic(500, 1, 1);
		madt_end();
		for (int k = 0; k < 1 + it % 6; k++)
			fake[MADT_PA + 36 + (unsigned)rand() % (madt_len - 36)] = (uint8_t)rand();
		if (it % 3 == 0)
			put32(MADT_PA + 4, 36 + (uint32_t)rand() % 200);
		fake_fix_checksum(MADT_PA, *(uint32_t *)(fake + MADT_PA + 4), 9);
		int rc = acpi_parse(RSDP_PA, &pi);
		ck_assert(rc == 0 || rc == -EINVAL || rc == -ENODEV);
		if (pi.nr_cpus > PLATFORM_MAX_CPUS || pi.nr_ioapics > PLATFORM_MAX_IOAPICS ||
		    pi.nr_isos > PLATFORM_MAX_ISOS || pi.nr_cpus_enabled > pi.nr_cpus)
			ck_abort_msg("counts out of range");
	}
}
END_TEST

START_TEST(test_discover_order)
{
	uint8_t copy[36];

	build_machine();
	memcpy(copy, fake + RSDP_PA, 36);
	memset(fake + RSDP_PA, 0, 36);              /* only the copy knows it */
	ck_assert_int_eq(platform_discover(copy, 36, &pi), 0);
	ck_assert_int_eq(pi.source, PLATFORM_ACPI);
	copy[8] ^= 1;                               /* bad copy: scan finds nothing */
	ck_assert_int_eq(platform_discover(copy, 36, &pi), -ENODEV);
	ck_assert_int_eq(pi.source, PLATFORM_NONE);
	put_rsdp(0xe4440, 2, RSDT_PA, XSDT_PA);     /* now the scan finds one */
	ck_assert_int_eq(platform_discover(copy, 36, &pi), 0);
	ck_assert_uint_eq(pi.nr_cpus, 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("acpi");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_v2_machine);
	tcase_add_test(tc, test_v1_and_copy);
	tcase_add_test(tc, test_bad_checksums);
	tcase_add_test(tc, test_duplicates_and_x2apic);
	tcase_add_test(tc, test_malformed_madt);
	tcase_add_test(tc, test_too_many_cpus);
	tcase_add_test(tc, test_rsdp_scan);
	tcase_add_test(tc, test_fuzz_madt);
	tcase_add_test(tc, test_discover_order);
	suite_add_tcase(s, tc);

	return check_run(s);
}
