/* Guest ACPI tables (ACPI 6.5 ch. 5): RSDP -> RSDT/XSDT -> FADT (-> FACS, DSDT)
 * and MADT. The FADT names the PM ports of dev/acpipm.h; the DSDT holds only
 * \_S5 so that ACPI power-off works. The MP table lives in mptable.c. */
#include "dev/acpi_tables.h"
#include "dev/acpi_layout.h"
#include "dev/acpi_build.h"
#include "dev/acpipm.h"
#include "errno.h"
#include "lib/string.h"
#include "load/loader.h"

#define ACPI_OEM_ID    "HVRSCH"
#define ACPI_OEM_TABLE "HVRESRCH"
#define ACPI_CREATOR   "HVRS"
#define ACPI_GAS_IO    1
#define ACPI_ACCESS_WORD  2
#define ACPI_ACCESS_DWORD 3
#define MADT_ISO_LEVEL_HIGH 0x000d   /* polarity 01 (high), trigger 11 (level) */

/* acpi_checksum() lives in lib/checksum.c (shared with the other ACPI code). */

static void acpi_header_fill(struct acpi_header *h, const char *sig, uint32_t len, uint8_t rev)
{
	memcpy(h->sig, sig, 4);
	h->length = len;
	h->revision = rev;
	memcpy(h->oem_id, ACPI_OEM_ID, 6);
	memcpy(h->oem_table_id, ACPI_OEM_TABLE, 8);
	h->oem_revision = 1;
	memcpy(h->creator_id, ACPI_CREATOR, 4);
	h->creator_revision = 1;
}

static void acpi_header_seal(struct acpi_header *h)
{
	h->checksum = 0;
	h->checksum = (uint8_t)-acpi_checksum(h, h->length);
}

static struct acpi_gas acpi_gas_io(uint16_t port, uint8_t bits, uint8_t access)
{
	struct acpi_gas g = { ACPI_GAS_IO, bits, 0, access, port };

	return g;
}

/* DefinitionBlock AML: Name (_S5, Package (4) { S5, S5, 0, 0 }). */
static const uint8_t dsdt_aml[] = {
	0x08, '_', 'S', '5', '_',             /* NameOp NameSeg */
	0x12, 0x08, 0x04,                     /* PackageOp PkgLength NumElements */
	0x0a, ACPIPM_SLP_TYP_S5,              /* BytePrefix SLP_TYPa */
	0x0a, ACPIPM_SLP_TYP_S5,              /* BytePrefix SLP_TYPb */
	0x00, 0x00,                           /* ZeroOp ZeroOp */
};

static struct acpi_header *acpi_dsdt_build(struct acpi_area *a)
{
	uint32_t len = (uint32_t)(sizeof(struct acpi_header) + sizeof(dsdt_aml));
	struct acpi_header *h = acpi_area_alloc(a, len, 16);

	if (!h)
		return NULL;
	acpi_header_fill(h, "DSDT", len, 2);
	memcpy(h + 1, dsdt_aml, sizeof(dsdt_aml));
	acpi_header_seal(h);
	return h;
}

static struct acpi_facs *acpi_facs_build(struct acpi_area *a)
{
	struct acpi_facs *f = acpi_area_alloc(a, sizeof(*f), 64);   /* 64-byte aligned */

	if (!f)
		return NULL;
	memcpy(f->sig, "FACS", 4);
	f->length = sizeof(*f);
	f->version = 2;
	return f;
}

static void acpi_fadt_ports(struct acpi_fadt *f)
{
	f->sci_int = ACPIPM_SCI_IRQ;
	f->smi_cmd = 0;   /* already in ACPI mode: SCI_EN reads 1 */
	f->pm1a_evt_blk = ACPIPM_PM1A_EVT;
	f->pm1a_cnt_blk = ACPIPM_PM1A_CNT;
	f->pm_tmr_blk = ACPIPM_PM_TMR;
	f->pm1_evt_len = 4;
	f->pm1_cnt_len = 2;
	f->pm_tmr_len = 4;
	f->x_pm1a_evt_blk = acpi_gas_io(ACPIPM_PM1A_EVT, 32, ACPI_ACCESS_WORD);
	f->x_pm1a_cnt_blk = acpi_gas_io(ACPIPM_PM1A_CNT, 16, ACPI_ACCESS_WORD);
	f->x_pm_tmr_blk = acpi_gas_io(ACPIPM_PM_TMR, 32, ACPI_ACCESS_DWORD);
	f->reset_reg = acpi_gas_io(ACPIPM_RESET_PORT, 8, 1);
	f->reset_value = ACPIPM_RESET_VAL;
}

static struct acpi_fadt *acpi_fadt_build(struct acpi_area *a, const struct acpi_facs *facs,
					 const struct acpi_header *dsdt)
{
	struct acpi_fadt *f = acpi_area_alloc(a, sizeof(*f), 16);

	if (!f)
		return NULL;
	acpi_header_fill(&f->h, "FACP", sizeof(*f), 3);
	f->facs = (uint32_t)acpi_area_gpa(a, facs);
	f->dsdt = (uint32_t)acpi_area_gpa(a, dsdt);
	f->x_dsdt = f->dsdt;   /* X_FIRMWARE_CTRL stays 0: ACPICA would map the FACS twice */
	acpi_fadt_ports(f);
	f->p_lvl2_lat = 101;    /* > 100: no C2 */
	f->p_lvl3_lat = 1001;   /* > 1000: no C3 */
	f->century = 0x32;      /* CMOS century byte (dev/rtc.c) */
	f->iapc_boot_arch = FADT_BOOT_LEGACY_DEVICES | FADT_BOOT_NO_VGA;   /* no 8042 */
	f->flags = FADT_F_WBINVD | FADT_F_PROC_C1 | FADT_F_PWR_BUTTON | FADT_F_SLP_BUTTON |
		   FADT_F_RESET_REG_SUP;
	acpi_header_seal(&f->h);
	return f;
}

static void *acpi_madt_entry(struct acpi_area *a, struct acpi_madt *m, uint8_t type, uint8_t len)
{
	uint8_t *e = acpi_area_alloc(a, len, 1);

	if (!e)
		return NULL;
	e[0] = type;
	e[1] = len;
	m->h.length += len;
	return e;
}

static int acpi_madt_iso(struct acpi_area *a, struct acpi_madt *m, uint8_t irq, uint32_t gsi,
			 uint16_t flags)
{
	struct madt_iso *iso = acpi_madt_entry(a, m, MADT_ISO, sizeof(*iso));

	if (!iso)
		return -ENOSPC;
	iso->source = irq;
	iso->gsi = gsi;
	iso->flags = flags;
	return 0;
}

static int acpi_madt_devices(struct acpi_area *a, struct acpi_madt *m,
			     const struct acpi_tables_cfg *cfg)
{
	struct madt_ioapic *io = acpi_madt_entry(a, m, MADT_IOAPIC, sizeof(*io));
	struct madt_lapic_nmi *nmi;

	if (!io)
		return -ENOSPC;
	io->id = cfg->ioapic_id;
	io->addr = (uint32_t)cfg->ioapic_base;
	if (acpi_madt_iso(a, m, 0, 2, 0) || acpi_madt_iso(a, m, ACPIPM_SCI_IRQ, ACPIPM_SCI_IRQ,
							  MADT_ISO_LEVEL_HIGH))
		return -ENOSPC;
	nmi = acpi_madt_entry(a, m, MADT_LAPIC_NMI, sizeof(*nmi));
	if (!nmi)
		return -ENOSPC;
	nmi->uid = 0xff;   /* all processors, LINT1 */
	nmi->lint = 1;
	return 0;
}

static struct acpi_madt *acpi_madt_build(struct acpi_area *a, const struct acpi_tables_cfg *cfg)
{
	struct acpi_madt *m = acpi_area_alloc(a, sizeof(*m), 16);

	if (!m)
		return NULL;
	acpi_header_fill(&m->h, "APIC", sizeof(*m), 3);
	m->lapic_addr = (uint32_t)cfg->lapic_base;
	m->flags = MADT_PCAT_COMPAT;
	for (unsigned i = 0; i < cfg->nr_vcpus; i++) {
		struct madt_lapic *l = acpi_madt_entry(a, m, MADT_LAPIC, sizeof(*l));

		if (!l)
			return NULL;
		l->uid = (uint8_t)i;
		l->apic_id = (uint8_t)i;
		l->flags = 1;   /* enabled */
	}
	if (acpi_madt_devices(a, m, cfg))
		return NULL;
	acpi_header_seal(&m->h);
	return m;
}

/* RSDT and XSDT list the same tables: FADT and MADT. */
static int acpi_sdts_build(struct acpi_area *a, struct acpi_tables_info *info)
{
	const uint64_t tables[] = { info->fadt, info->madt };
	const unsigned n = ARRAY_SIZE(tables);
	struct acpi_header *rsdt = acpi_area_alloc(a, sizeof(*rsdt) + 4 * n, 16);
	struct acpi_header *xsdt = acpi_area_alloc(a, sizeof(*xsdt) + 8 * n, 16);

	if (!rsdt || !xsdt)
		return -ENOSPC;
	acpi_header_fill(rsdt, "RSDT", (uint32_t)(sizeof(*rsdt) + 4 * n), 1);
	acpi_header_fill(xsdt, "XSDT", (uint32_t)(sizeof(*xsdt) + 8 * n), 1);
	for (unsigned i = 0; i < n; i++) {
		uint32_t a32 = (uint32_t)tables[i];

		memcpy((uint8_t *)(rsdt + 1) + 4 * i, &a32, 4);
		memcpy((uint8_t *)(xsdt + 1) + 8 * i, &tables[i], 8);
	}
	acpi_header_seal(rsdt);
	acpi_header_seal(xsdt);
	info->rsdt = acpi_area_gpa(a, rsdt);
	info->xsdt = acpi_area_gpa(a, xsdt);
	return 0;
}

static void acpi_rsdp_fill(struct acpi_rsdp *r, const struct acpi_tables_info *info)
{
	memcpy(r->sig, "RSD PTR ", 8);
	memcpy(r->oem_id, ACPI_OEM_ID, 6);
	r->revision = 2;
	r->rsdt = (uint32_t)info->rsdt;
	r->length = sizeof(*r);
	r->xsdt = info->xsdt;
	r->checksum = (uint8_t)-acpi_checksum(r, 20);   /* ACPI 1.0 part */
	r->ext_checksum = (uint8_t)-acpi_checksum(r, sizeof(*r));
}

static int acpi_build_all(struct acpi_area *a, const struct acpi_tables_cfg *cfg,
			  struct acpi_tables_info *info)
{
	struct acpi_rsdp *rsdp = acpi_area_alloc(a, sizeof(*rsdp), 16);   /* at 0xE0000 */
	struct acpi_facs *facs = acpi_facs_build(a);
	struct acpi_header *dsdt = acpi_dsdt_build(a);
	struct acpi_fadt *fadt = facs && dsdt ? acpi_fadt_build(a, facs, dsdt) : NULL;
	struct acpi_madt *madt = acpi_madt_build(a, cfg);

	if (!rsdp || !fadt || !madt)
		return -ENOSPC;
	info->rsdp = acpi_area_gpa(a, rsdp);
	info->facs = acpi_area_gpa(a, facs);
	info->dsdt = acpi_area_gpa(a, dsdt);
	info->fadt = acpi_area_gpa(a, fadt);
	info->madt = acpi_area_gpa(a, madt);
	if (acpi_sdts_build(a, info))
		return -ENOSPC;
	acpi_rsdp_fill(rsdp, info);
	return 0;
}

void acpi_tables_cfg_default(struct acpi_tables_cfg *cfg, unsigned nr_vcpus)
{
	cfg->nr_vcpus = nr_vcpus;
	cfg->ioapic_id = (uint8_t)nr_vcpus;
	cfg->ioapic_base = GUEST_IOAPIC_BASE;
	cfg->lapic_base = GUEST_LAPIC_BASE;
}

static bool acpi_cfg_valid(const struct acpi_tables_cfg *cfg)
{
	return cfg->nr_vcpus >= 1 && cfg->nr_vcpus <= ACPI_TABLES_MAX_CPUS &&
	       cfg->ioapic_id >= cfg->nr_vcpus && cfg->ioapic_base < BIT(32) &&
	       cfg->lapic_base < BIT(32);
}

int acpi_tables_build(uint8_t *area, size_t size, const struct acpi_tables_cfg *cfg,
		      struct acpi_tables_info *info)
{
	struct acpi_area acpi = { .base = area, .size = MP_AREA_OFFSET,
				  .gpa_base = GUEST_BIOS_START };
	struct acpi_area mp = { .base = area + MP_AREA_OFFSET,
				.size = ACPI_TABLES_AREA_SIZE - MP_AREA_OFFSET,
				.gpa_base = GUEST_BIOS_START + MP_AREA_OFFSET };
	int rc;

	if (size != ACPI_TABLES_AREA_SIZE || !acpi_cfg_valid(cfg))
		return -EINVAL;
	memset(area, 0, size);
	memset(info, 0, sizeof(*info));
	if ((rc = acpi_build_all(&acpi, cfg, info)))
		return rc;
	if ((rc = mptable_build(&mp, cfg, info)))
		return rc;
	info->used = (uint32_t)(MP_AREA_OFFSET + mp.used);
	return 0;
}
