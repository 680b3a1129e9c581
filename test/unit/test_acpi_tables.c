/* Unit tests for hv/dev/acpi_tables.c and mptable.c: build the area, then find
 * and parse everything back the way an OS does (scan for the RSDP and the MP
 * floating pointer, follow pointers, verify every checksum). Setting
 * ACPI_DUMP_DIR writes the tables out for `iasl -d`. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dev/acpi_tables.h"
#include "dev/acpi_layout.h"
#include "dev/acpipm.h"
#include "load/loader.h"
#include "errno.h"

static uint8_t area[ACPI_TABLES_AREA_SIZE];

static uint8_t sum(const void *p, size_t n)
{
	const uint8_t *b = p;
	unsigned s = 0;

	for (size_t i = 0; i < n; i++)
		s += b[i];
	return (uint8_t)s;
}

static void *at(uint64_t gpa)
{
	ck_assert_uint_ge(gpa, GUEST_BIOS_START);
	ck_assert_uint_lt(gpa, GUEST_BIOS_END);
	return area + (gpa - GUEST_BIOS_START);
}

/* Linux's acpi_scan_rsdp: 16-byte steps, signature + v1 checksum. */
static const struct acpi_rsdp *find_rsdp(void)
{
	for (size_t off = 0; off + 36 <= sizeof(area); off += 16) {
		const struct acpi_rsdp *r = (const void *)(area + off);

		if (!memcmp(r->sig, "RSD PTR ", 8) && sum(r, 20) == 0)
			return r;
	}
	return NULL;
}

static const struct acpi_header *table(uint64_t gpa, const char *sig)
{
	const struct acpi_header *h = at(gpa);

	ck_assert_int_eq(memcmp(h->sig, sig, 4), 0);
	ck_assert_uint_le(gpa + h->length, GUEST_BIOS_END);
	ck_assert_uint_eq(sum(h, h->length), 0);
	return h;
}

static const struct acpi_header *xsdt_find(const struct acpi_header *xsdt, const char *sig)
{
	unsigned n = (xsdt->length - sizeof(*xsdt)) / 8;

	for (unsigned i = 0; i < n; i++) {
		uint64_t a;
		memcpy(&a, (const uint8_t *)(xsdt + 1) + 8 * i, 8);
		const struct acpi_header *h = at(a);
		if (!memcmp(h->sig, sig, 4))
			return table(a, sig);
	}
	return NULL;
}

static struct acpi_tables_info build(unsigned n)
{
	struct acpi_tables_cfg cfg;
	struct acpi_tables_info info;

	memset(area, 0xcc, sizeof(area));
	acpi_tables_cfg_default(&cfg, n);
	ck_assert_int_eq(acpi_tables_build(area, sizeof(area), &cfg, &info), 0);
	return info;
}

START_TEST(test_rsdp_and_sdts)
{
	struct acpi_tables_info info = build(4);
	const struct acpi_rsdp *r = find_rsdp();

	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(GUEST_BIOS_START + (uint64_t)((const uint8_t *)r - area), info.rsdp);
	ck_assert_uint_eq(r->revision, 2);
	ck_assert_uint_eq(r->length, 36);
	ck_assert_uint_eq(sum(r, 36), 0);
	const struct acpi_header *xsdt = table(r->xsdt, "XSDT");
	const struct acpi_header *rsdt = table(r->rsdt, "RSDT");
	ck_assert_uint_eq((xsdt->length - 36) / 8, (rsdt->length - 36) / 4);
	ck_assert_ptr_nonnull(xsdt_find(xsdt, "FACP"));
	ck_assert_ptr_nonnull(xsdt_find(xsdt, "APIC"));
	ck_assert_ptr_null(xsdt_find(xsdt, "HPET"));
	uint32_t first;
	memcpy(&first, rsdt + 1, 4);
	ck_assert_uint_eq(first, info.fadt);
	ck_assert_uint_le(info.used, ACPI_TABLES_AREA_SIZE);
}
END_TEST

START_TEST(test_fadt)
{
	struct acpi_tables_info info = build(2);
	const struct acpi_fadt *f = (const void *)table(info.fadt, "FACP");

	ck_assert_uint_eq(f->h.length, 244);
	ck_assert_uint_eq(f->pm_tmr_blk, ACPIPM_PM_TMR);
	ck_assert_uint_eq(f->pm_tmr_len, 4);
	ck_assert_uint_eq(f->pm1a_evt_blk, ACPIPM_PM1A_EVT);
	ck_assert_uint_eq(f->pm1_evt_len, 4);
	ck_assert_uint_eq(f->pm1a_cnt_blk, ACPIPM_PM1A_CNT);
	ck_assert_uint_eq(f->pm1_cnt_len, 2);
	ck_assert_uint_eq(f->sci_int, 9);
	ck_assert_uint_eq(f->smi_cmd, 0);
	ck_assert_uint_eq(f->x_pm_tmr_blk.space_id, 1);
	ck_assert_uint_eq(f->x_pm_tmr_blk.address, ACPIPM_PM_TMR);
	ck_assert_uint_eq(f->reset_reg.space_id, 1);
	ck_assert_uint_eq(f->reset_reg.address, 0xcf9);
	ck_assert_uint_eq(f->reset_value, 6);
	ck_assert_uint_ne(f->flags & (1u << 10), 0);      /* RESET_REG_SUP */
	ck_assert_uint_eq(f->flags & (1u << 8), 0);       /* 24-bit timer */
	ck_assert_uint_eq(f->iapc_boot_arch & 2, 0);      /* no 8042 */
	ck_assert_uint_eq(f->x_dsdt, f->dsdt);
	ck_assert_uint_eq(f->x_facs, 0);                  /* one FACS pointer only */
	ck_assert_uint_eq(f->dsdt, info.dsdt);
	const struct acpi_facs *facs = at(f->facs);
	ck_assert_int_eq(memcmp(facs->sig, "FACS", 4), 0);
	ck_assert_uint_eq(facs->length, 64);
	ck_assert_uint_eq(f->facs % 64, 0);
}
END_TEST

/* The DSDT's AML is Name(_S5, Package(4){0, 0, 0, 0}) with a correct PkgLength. */
START_TEST(test_dsdt_aml)
{
	struct acpi_tables_info info = build(1);
	const struct acpi_header *d = table(info.dsdt, "DSDT");
	const uint8_t *aml = (const uint8_t *)(d + 1);
	size_t n = d->length - sizeof(*d);

	ck_assert_uint_ge(n, 8);
	ck_assert_uint_eq(aml[0], 0x08);
	ck_assert_int_eq(memcmp(aml + 1, "_S5_", 4), 0);
	ck_assert_uint_eq(aml[5], 0x12);
	ck_assert_uint_eq(aml[6], n - 6);                 /* PkgLength covers the rest */
	ck_assert_uint_eq(aml[7], 4);
	ck_assert_uint_eq(aml[8], 0x0a);
	ck_assert_uint_eq(aml[9], ACPIPM_SLP_TYP_S5);
}
END_TEST

START_TEST(test_madt)
{
	for (unsigned n = 1; n <= 16; n += 5) {
		struct acpi_tables_info info = build(n);
		const struct acpi_madt *m = (const void *)table(info.madt, "APIC");
		const uint8_t *p = (const uint8_t *)(m + 1), *end = (const uint8_t *)m + m->h.length;
		unsigned lapics = 0, ioapics = 0, isos = 0, nmis = 0;
		bool irq0_to_2 = false, sci_level = false;

		ck_assert_uint_eq(m->lapic_addr, GUEST_LAPIC_BASE);
		ck_assert_uint_eq(m->flags & 1, 1);
		while (p < end) {
			ck_assert_uint_ge(p[1], 2);
			ck_assert(p + p[1] <= end);
			if (p[0] == MADT_LAPIC) {
				const struct madt_lapic *l = (const void *)p;
				ck_assert_uint_eq(l->apic_id, lapics);
				ck_assert_uint_eq(l->flags & 1, 1);
				lapics++;
			} else if (p[0] == MADT_IOAPIC) {
				const struct madt_ioapic *io = (const void *)p;
				ck_assert_uint_eq(io->addr, GUEST_IOAPIC_BASE);
				ck_assert_uint_eq(io->gsi_base, 0);
				ck_assert_uint_ge(io->id, n);
				ioapics++;
			} else if (p[0] == MADT_ISO) {
				const struct madt_iso *iso = (const void *)p;
				irq0_to_2 |= iso->source == 0 && iso->gsi == 2 && iso->bus == 0;
				sci_level |= iso->source == 9 && iso->gsi == 9 && iso->flags == 0xd;
				isos++;
			} else if (p[0] == MADT_LAPIC_NMI) {
				nmis++;
			}
			p += p[1];
		}
		ck_assert_ptr_eq(p, end);
		ck_assert_uint_eq(lapics, n);
		ck_assert_uint_eq(ioapics, 1);
		ck_assert_uint_eq(isos, 2);
		ck_assert_uint_eq(nmis, 1);
		ck_assert(irq0_to_2);
		ck_assert(sci_level);
	}
}
END_TEST

/* Linux's smp_scan_config: "_MP_", 16 bytes, checksum, in 0xF0000-0xFFFFF. */
static const struct mp_fp *find_mpfp(void)
{
	for (size_t off = 0x10000; off + 16 <= sizeof(area); off += 16) {
		const struct mp_fp *f = (const void *)(area + off);

		if (!memcmp(f->sig, "_MP_", 4) && f->length == 1 && sum(f, 16) == 0)
			return f;
	}
	return NULL;
}

START_TEST(test_mptable)
{
	const unsigned n = 4;
	struct acpi_tables_info info = build(n);
	const struct mp_fp *fp = find_mpfp();

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fp->spec_rev, 4);
	ck_assert_uint_eq(fp->feature[0], 0);             /* config table present */
	ck_assert_uint_eq(fp->config, info.mpc);
	const struct mp_config *c = at(fp->config);
	ck_assert_int_eq(memcmp(c->sig, "PCMP", 4), 0);
	ck_assert_uint_eq(sum(c, c->length), 0);
	ck_assert_uint_eq(c->lapic_addr, GUEST_LAPIC_BASE);
	const uint8_t *p = (const uint8_t *)(c + 1);
	unsigned cpus = 0, bps = 0, ioints = 0, lints = 0, buses = 0, ioapics = 0;
	bool irq0_pin2 = false;
	for (unsigned i = 0; i < c->entry_count; i++) {
		switch (p[0]) {
		case MP_PROC: {
			const struct mp_proc *pr = (const void *)p;
			ck_assert_uint_eq(pr->apic_id, cpus);
			bps += !!(pr->flags & MP_PROC_BP);
			cpus++;
			p += 20;
			break;
		}
		case MP_BUS:
			ck_assert_int_eq(memcmp(((const struct mp_bus *)p)->name, "ISA", 3), 0);
			buses++; p += 8; break;
		case MP_IOAPIC:
			ck_assert_uint_eq(((const struct mp_ioapic *)p)->addr, GUEST_IOAPIC_BASE);
			ck_assert_uint_eq(((const struct mp_ioapic *)p)->id, n);
			ioapics++; p += 8; break;
		case MP_IOINT: {
			const struct mp_irq *q = (const void *)p;
			ck_assert_uint_eq(q->dst_id, n);
			irq0_pin2 |= q->src_irq == 0 && q->dst_pin == 2;
			ck_assert(q->src_irq == 0 || q->dst_pin == q->src_irq);
			ioints++; p += 8; break;
		}
		case MP_LINT:
			lints++; p += 8; break;
		default:
			ck_abort_msg("bad MP entry type %u", p[0]);
		}
	}
	ck_assert_ptr_eq(p, (const uint8_t *)c + c->length);
	ck_assert_uint_eq(cpus, n);
	ck_assert_uint_eq(bps, 1);
	ck_assert_uint_eq(buses, 1);
	ck_assert_uint_eq(ioapics, 1);
	ck_assert_uint_eq(ioints, 15);
	ck_assert_uint_eq(lints, 2);
	ck_assert(irq0_pin2);
}
END_TEST

START_TEST(test_bad_config)
{
	struct acpi_tables_cfg cfg;
	struct acpi_tables_info info;

	acpi_tables_cfg_default(&cfg, 0);
	ck_assert_int_eq(acpi_tables_build(area, sizeof(area), &cfg, &info), -EINVAL);
	acpi_tables_cfg_default(&cfg, 256);
	ck_assert_int_eq(acpi_tables_build(area, sizeof(area), &cfg, &info), -EINVAL);
	acpi_tables_cfg_default(&cfg, 4);
	cfg.ioapic_id = 2;                                /* collides with a CPU */
	ck_assert_int_eq(acpi_tables_build(area, sizeof(area), &cfg, &info), -EINVAL);
	acpi_tables_cfg_default(&cfg, 4);
	ck_assert_int_eq(acpi_tables_build(area, sizeof(area) - 16, &cfg, &info), -EINVAL);
	acpi_tables_cfg_default(&cfg, 255);
	cfg.ioapic_id = 255;
	ck_assert_int_eq(acpi_tables_build(area, sizeof(area), &cfg, &info), 0);
	ck_assert_uint_eq(acpi_checksum("\x01\xff", 2), 0);
}
END_TEST

/* Optional: write the tables for iasl (ACPI_DUMP_DIR=/tmp/acpi). */
static void dump_one(const char *dir, const char *name, uint64_t gpa)
{
	const struct acpi_header *h = at(gpa);
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	f = fopen(path, "wb");
	if (f) {
		fwrite(h, 1, h->length, f);
		fclose(f);
	}
}

START_TEST(test_dump)
{
	const char *dir = getenv("ACPI_DUMP_DIR");
	struct acpi_tables_info info = build(4);

	if (!dir)
		return;
	dump_one(dir, "facp", info.fadt);
	dump_one(dir, "apic", info.madt);
	dump_one(dir, "dsdt", info.dsdt);
	dump_one(dir, "xsdt", info.xsdt);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("acpi_tables");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_rsdp_and_sdts);
	tcase_add_test(tc, test_fadt);
	tcase_add_test(tc, test_dsdt_aml);
	tcase_add_test(tc, test_madt);
	tcase_add_test(tc, test_mptable);
	tcase_add_test(tc, test_bad_config);
	tcase_add_test(tc, test_dump);
	suite_add_tcase(s, tc);

	return check_run(s);
}
