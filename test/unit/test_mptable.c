/* Unit tests for hv/arch/x86/mptable.c on fabricated MP floating pointers and
 * configuration tables (MPS 1.4 chapter 4). */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "arch/x86/mptable.h"
#include "errno.h"
#include "log.h"
#include "shim.h"

/* Fabricated physical memory: the first 1 MiB lives in a host buffer. */
#define FAKE_MEM (1u << 20)
static uint8_t mem[FAKE_MEM] __attribute__((aligned(4096)));

static const void *fake_map(paddr_t pa, size_t len)
{
	return pa < FAKE_MEM && len <= FAKE_MEM - pa ? mem + pa : NULL;
}

static void fix_checksum(uint32_t pa, uint32_t len, uint32_t off)
{
	mem[pa + off] = 0;
	mem[pa + off] = (uint8_t)(0x100 - acpi_checksum(mem + pa, len));
}

static void put16(uint32_t pa, uint16_t v) { memcpy(mem + pa, &v, 2); }
static void put32(uint32_t pa, uint32_t v) { memcpy(mem + pa, &v, 4); }

#define CFG_PA 0x9fd00u
static struct platform_info pi;
static uint32_t cfg_len;
static uint16_t cfg_count;

static void reset(void)
{
	memset(mem, 0, sizeof(mem));
	acpi_phys_map = fake_map;
	shim_reset_logs();
}

static void put_floating(uint32_t pa, uint32_t cfg, uint8_t feature)
{
	memcpy(mem + pa, "_MP_", 4);
	put32(pa + 4, cfg);
	mem[pa + 8] = 1;
	mem[pa + 9] = 4;
	mem[pa + 11] = feature;
	fix_checksum(pa, 16, 10);
}

static void cfg_begin(void)
{
	memset(mem + CFG_PA, 0, 0x300);
	memcpy(mem + CFG_PA, "PCMP", 4);
	mem[CFG_PA + 6] = 4;
	put32(CFG_PA + 36, 0xfee00000);
	cfg_len = 44;
	cfg_count = 0;
}

static void cfg_add(const uint8_t *e, uint32_t len)
{
	memcpy(mem + CFG_PA + cfg_len, e, len);
	cfg_len += len;
	cfg_count++;
}

static void cfg_proc(uint8_t id, uint8_t flags)
{
	uint8_t e[20] = { 0, id, 0x14, flags };
	cfg_add(e, 20);
}

static void cfg_bus(uint8_t id, const char *type)
{
	uint8_t e[8] = { 1, id };
	memcpy(e + 2, type, 6);
	cfg_add(e, 8);
}

static void cfg_ioapic(uint8_t id, uint8_t flags, uint32_t addr)
{
	uint8_t e[8] = { 2, id, 0x11, flags };
	memcpy(e + 4, &addr, 4);
	cfg_add(e, 8);
}

static void cfg_ioint(uint8_t bus, uint8_t irq, uint8_t apic, uint8_t pin, uint16_t flags)
{
	uint8_t e[8] = { 3, 0, (uint8_t)flags, (uint8_t)(flags >> 8), bus, irq, apic, pin };
	cfg_add(e, 8);
}

static void cfg_end(void)
{
	put16(CFG_PA + 4, (uint16_t)cfg_len);
	put16(CFG_PA + 34, cfg_count);
	fix_checksum(CFG_PA, cfg_len, 7);
}

/* Bochs/QEMU-like table: 3 CPUs (one disabled), ISA + PCI, one IOAPIC,
 * IRQ0 -> pin 2, IRQ1 -> pin 1, IRQ9 -> pin 9 level/active-low. */
static void build_table(void)
{
	cfg_begin();
	cfg_proc(0, 3);
	cfg_proc(1, 1);
	cfg_proc(2, 0);
	cfg_proc(1, 1);                      /* duplicate APIC ID */
	cfg_bus(0, "PCI   ");
	cfg_bus(1, "ISA   ");
	cfg_ioapic(3, 1, 0xfec00000);
	cfg_ioapic(4, 0, 0xfec10000);        /* unusable */
	cfg_ioint(1, 0, 3, 2, 0);
	cfg_ioint(1, 1, 3, 1, 0);
	cfg_ioint(1, 9, 3, 9, 0xf);
	cfg_ioint(0, 0x10, 3, 16, 0xf);      /* PCI: not an ISA override */
	uint8_t lint[8] = { 4, 3, 0, 0, 1, 0, 0xff, 0 };
	cfg_add(lint, 8);
	cfg_end();
}

START_TEST(test_find_locations)
{
	reset();
	ck_assert_uint_eq(mptable_find(), 0);
	put_floating(0xf6a50, CFG_PA, 0);                /* BIOS ROM */
	ck_assert_uint_eq(mptable_find(), 0xf6a50);
	put16(0x413, 639);                               /* base memory: 639 KiB */
	put_floating(0x9f800 + 0x3f0, CFG_PA, 0);        /* last KiB of base memory */
	ck_assert_uint_eq(mptable_find(), 0x9fbf0);
	put16(0x40e, 0x9000);                            /* EBDA at 0x90000 */
	put_floating(0x90040, CFG_PA, 0);
	ck_assert_uint_eq(mptable_find(), 0x90040);
	mem[0x90040 + 10] ^= 1;                          /* bad checksum: next place */
	ck_assert_uint_eq(mptable_find(), 0x9fbf0);
	reset();
	put_floating(0xf0008, CFG_PA, 0);                /* not 16-byte aligned */
	ck_assert_uint_eq(mptable_find(), 0);
}
END_TEST

START_TEST(test_parse_table)
{
	reset();
	build_table();
	put_floating(0xf0000, CFG_PA, 0);
	ck_assert_int_eq(mptable_parse(mptable_find(), &pi), 0);
	ck_assert_int_eq(pi.source, PLATFORM_MPTABLE);
	ck_assert_uint_eq(pi.nr_cpus, 2);
	ck_assert_uint_eq(pi.nr_cpus_enabled, 2);
	ck_assert_uint_eq(pi.cpus[0].flags, PLATFORM_CPU_ENABLED | PLATFORM_CPU_BSP);
	ck_assert_uint_eq(pi.cpus[1].apic_id, 1);
	ck_assert_int_eq(shim_log_count[LOG_WARN], 1);  /* the duplicate */
	ck_assert_uint_eq(pi.lapic_addr, 0xfee00000);
	ck_assert_uint_eq(pi.nr_ioapics, 1);
	ck_assert_uint_eq(pi.ioapics[0].id, 3);
	ck_assert_uint_eq(pi.ioapics[0].addr, 0xfec00000);
	ck_assert_uint_eq(pi.ioapics[0].gsi_base, 0);
	ck_assert_uint_eq(pi.nr_isos, 2);
	ck_assert_uint_eq(pi.isos[0].irq, 0);
	ck_assert_uint_eq(pi.isos[0].gsi, 2);
	ck_assert_uint_eq(pi.isos[1].irq, 9);
	ck_assert_uint_eq(pi.isos[1].flags, 0xf);
	ck_assert_uint_eq(pi.nr_tables, 1);
	ck_assert_uint_eq(pi.tables[0].addr, CFG_PA);
}
END_TEST

START_TEST(test_malformed)
{
	reset();
	ck_assert_int_eq(mptable_parse(0, &pi), -ENODEV);
	build_table();
	put_floating(0xf0000, CFG_PA, 0);
	mem[CFG_PA + 50] ^= 1;                           /* config checksum */
	ck_assert_int_eq(mptable_parse(0xf0000, &pi), -EINVAL);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
	build_table();
	memcpy(mem + CFG_PA, "PCMQ", 4);                 /* signature */
	fix_checksum(CFG_PA, cfg_len, 7);
	ck_assert_int_eq(mptable_parse(0xf0000, &pi), -EINVAL);
	build_table();
	put_floating(0xf0000, CFG_PA, 5);                /* default configuration 5 */
	ck_assert_int_eq(mptable_parse(0xf0000, &pi), -ENODEV);
	put_floating(0xf0000, 0, 0);                     /* no table address */
	ck_assert_int_eq(mptable_parse(0xf0000, &pi), -EINVAL);
	put_floating(0xf0000, 0xfffff000u, 0);           /* unreadable table */
	ck_assert_int_eq(mptable_parse(0xf0000, &pi), -EINVAL);
	/* An entry count larger than the table: stops at the end, no overrun. */
	put_floating(0xf0000, CFG_PA, 0);
	build_table();
	put16(CFG_PA + 34, 500);
	fix_checksum(CFG_PA, cfg_len, 7);
	ck_assert_int_eq(mptable_parse(0xf0000, &pi), 0);
	ck_assert_uint_eq(pi.nr_cpus, 2);
	/* A processor entry cut by the table end. */
	cfg_begin();
	cfg_proc(0, 3);
	cfg_len -= 8;
	cfg_end();
	ck_assert_int_eq(mptable_parse(0xf0000, &pi), -EINVAL);
	/* An unknown entry type. */
	cfg_begin();
	cfg_proc(0, 3);
	uint8_t odd[8] = { 9 };
	cfg_add(odd, 8);
	cfg_end();
	shim_reset_logs();
	ck_assert_int_eq(mptable_parse(0xf0000, &pi), -EINVAL);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "type 9"));
}
END_TEST

START_TEST(test_discover_fallback)
{
	reset();
	build_table();
	put_floating(0xf0000, CFG_PA, 0);
	ck_assert_int_eq(platform_discover(NULL, 0, &pi), 0);
	ck_assert_int_eq(pi.source, PLATFORM_MPTABLE);
	ck_assert_uint_eq(pi.nr_cpus, 2);
	mem[0xf0000 + 10] ^= 1;
	ck_assert_int_eq(platform_discover(NULL, 0, &pi), -ENODEV);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mptable");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_find_locations);
	tcase_add_test(tc, test_parse_table);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_discover_fallback);
	suite_add_tcase(s, tc);

	return check_run(s);
}
