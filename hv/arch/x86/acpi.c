/* ACPI table discovery: RSDP -> XSDT/RSDT -> MADT (CPUs, IOAPICs, overrides)
 * and FADT (PM1 control, reset register, \_S5 from the DSDT). Checksums and
 * lengths are verified before any field is trusted. */
#include "arch/x86/acpi.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

#define ACPI_TABLE_MAX   (1u << 20)   /* larger "tables" are garbage */
#define RSDP_V1_LEN      20
#define RSDP_V2_LEN      36

/* MADT entry types (ACPI 5.2.12.x). */
enum {
	MADT_LAPIC = 0, MADT_IOAPIC = 1, MADT_ISO = 2, MADT_NMI_SRC = 3,
	MADT_LAPIC_NMI = 4, MADT_LAPIC_ADDR = 5, MADT_X2APIC = 9, MADT_X2APIC_NMI = 10,
};
#define MADT_FLAG_PCAT_COMPAT  BIT(0)
#define MADT_LAPIC_ENABLED     BIT(0)
#define MADT_LAPIC_ONLINE_CAP  BIT(1)

/* FADT field offsets (ACPI 5.2.9, Table 5.9). */
#define FADT_DSDT          40
#define FADT_SCI_INT       46
#define FADT_SMI_CMD       48
#define FADT_ACPI_ENABLE   52
#define FADT_PM1A_CNT      64
#define FADT_PM1B_CNT      68
#define FADT_PM_TMR        76
#define FADT_BOOT_ARCH     109
#define FADT_FLAGS         112
#define FADT_RESET_REG     116
#define FADT_RESET_VALUE   128
#define FADT_X_DSDT        140
#define FADT_F_TMR_VAL_EXT BIT(8)
#define FADT_F_RESET_REG   BIT(10)
#define FADT_F_HW_REDUCED  BIT(20)

static const void *identity_map(paddr_t pa, size_t len)
{
	return (const void *)(uintptr_t)pa;
}
const void *(*acpi_phys_map)(paddr_t pa, size_t len) = identity_map;

static struct { paddr_t root; bool xsdt; } acpi_root;

/* Weak: hv/lib/checksum.c provides the shared one where it is linked in. */
__attribute__((weak)) uint8_t acpi_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum = (uint8_t)(sum + *b++);
	return sum;
}

static uint32_t rd32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint16_t rd16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }

void platform_table_note(struct platform_info *pi, paddr_t addr, uint64_t len)
{
	if (pi->nr_tables < PLATFORM_MAX_TABLES)
		pi->tables[pi->nr_tables++] = (struct platform_range){ addr, len };
}

/* A whole table, its length sane and its checksum right; NULL otherwise. */
static const struct acpi_sdt_header *table_map(paddr_t pa, const char *want)
{
	const struct acpi_sdt_header *h = pa ? acpi_phys_map(pa, sizeof(*h)) : NULL;
	uint32_t len;

	if (!h)
		return NULL;
	len = h->length;
	if (want && memcmp(h->signature, want, 4) != 0)
		return NULL;
	if (len < sizeof(*h) || len > ACPI_TABLE_MAX) {
		pr_err("acpi: table %.4s at 0x%llx has bad length %u\n", h->signature,
		       (unsigned long long)pa, len);
		return NULL;
	}
	h = acpi_phys_map(pa, len);
	if (h && acpi_checksum(h, len) != 0) {
		pr_err("acpi: table %.4s at 0x%llx has a bad checksum\n", h->signature,
		       (unsigned long long)pa);
		return NULL;
	}
	return h;
}

/* Entry i of the root table (4-byte RSDT or 8-byte XSDT pointers). */
static paddr_t root_entry(const struct acpi_sdt_header *root, unsigned i)
{
	const uint8_t *e = (const uint8_t *)(root + 1);

	return acpi_root.xsdt ? rd64(e + 8 * i) : rd32(e + 4 * i);
}

static unsigned root_count(const struct acpi_sdt_header *root)
{
	return (root->length - (uint32_t)sizeof(*root)) / (acpi_root.xsdt ? 8 : 4);
}

paddr_t acpi_find_table(const char sig[4], unsigned instance)
{
	const struct acpi_sdt_header *root, *h;

	root = table_map(acpi_root.root, acpi_root.xsdt ? "XSDT" : "RSDT");
	if (!root)
		return 0;
	for (unsigned i = 0; i < root_count(root); i++) {
		paddr_t pa = root_entry(root, i);
		h = pa ? acpi_phys_map(pa, sizeof(*h)) : NULL;
		if (!h || memcmp(h->signature, sig, 4) != 0)
			continue;
		if (table_map(pa, sig) && instance-- == 0)
			return pa;
	}
	return 0;
}

/* ------------------------------------------------------------ platform_info */
int platform_cpu_find(const struct platform_info *pi, uint32_t apic_id)
{
	for (unsigned i = 0; i < pi->nr_cpus; i++)
		if (pi->cpus[i].apic_id == apic_id)
			return (int)i;
	return -1;
}

int platform_cpu_add(struct platform_info *pi, uint32_t apic_id, uint32_t uid, uint32_t flags)
{
	if (platform_cpu_find(pi, apic_id) >= 0) {
		pr_warn("platform: duplicate CPU with APIC ID %u ignored\n", apic_id);
		return -EEXIST;
	}
	if (pi->nr_cpus >= PLATFORM_MAX_CPUS) {
		pr_warn("platform: more than %d CPUs; APIC ID %u ignored\n", PLATFORM_MAX_CPUS,
			apic_id);
		return -ENOSPC;
	}
	pi->cpus[pi->nr_cpus++] = (struct platform_cpu){ apic_id, uid, flags };
	if (flags & PLATFORM_CPU_ENABLED)
		pi->nr_cpus_enabled++;
	return 0;
}

int platform_ioapic_add(struct platform_info *pi, uint32_t id, uint32_t addr, uint32_t gsi)
{
	for (unsigned i = 0; i < pi->nr_ioapics; i++)
		if (pi->ioapics[i].id == id || pi->ioapics[i].addr == addr) {
			pr_warn("platform: duplicate IOAPIC %u at 0x%x ignored\n", id, addr);
			return -EEXIST;
		}
	if (pi->nr_ioapics >= PLATFORM_MAX_IOAPICS) {
		pr_warn("platform: too many IOAPICs; IOAPIC %u ignored\n", id);
		return -ENOSPC;
	}
	pi->ioapics[pi->nr_ioapics++] = (struct platform_ioapic){ id, addr, gsi };
	return 0;
}

static void platform_iso_add(struct platform_info *pi, const struct platform_iso *iso)
{
	for (unsigned i = 0; i < pi->nr_isos; i++)
		if (pi->isos[i].bus == iso->bus && pi->isos[i].irq == iso->irq) {
			pi->isos[i] = *iso;   /* the later entry wins */
			return;
		}
	if (pi->nr_isos < PLATFORM_MAX_ISOS)
		pi->isos[pi->nr_isos++] = *iso;
	else
		pr_warn("platform: too many interrupt overrides; IRQ %u ignored\n", iso->irq);
}

/* ------------------------------------------------------------ MADT */
/* Local APIC (type 0, 8 bytes) or x2APIC (type 9, 16 bytes) entry. */
static void madt_cpu(struct platform_info *pi, uint32_t id, uint32_t uid, uint32_t fl,
		     uint32_t extra)
{
	uint32_t flags = extra;

	if (fl & MADT_LAPIC_ENABLED)
		flags |= PLATFORM_CPU_ENABLED;
	else if (fl & MADT_LAPIC_ONLINE_CAP)
		flags |= PLATFORM_CPU_ONLINE_CAP;
	else
		return;   /* disabled for good (ACPI 6.3 5.2.12.2) */
	platform_cpu_add(pi, id, uid, flags);
}

/* One entry; its length was checked against the table by the caller. */
static void madt_entry(struct platform_info *pi, const uint8_t *e)
{
	static const uint8_t want_len[] = {
		[MADT_LAPIC] = 8, [MADT_IOAPIC] = 12, [MADT_ISO] = 10,
		[MADT_LAPIC_ADDR] = 12, [MADT_X2APIC] = 16,
	};

	if (e[0] < ARRAY_SIZE(want_len) && want_len[e[0]] && e[1] < want_len[e[0]]) {
		pr_warn("acpi: MADT entry type %u has length %u < %u; skipped\n", e[0], e[1],
			want_len[e[0]]);
		return;
	}
	switch (e[0]) {
	case MADT_LAPIC:
		if (e[3] != 0xff)
			madt_cpu(pi, e[3], e[2], rd32(e + 4), 0);
		break;
	case MADT_X2APIC:
		if (rd32(e + 4) != 0xffffffffu)
			madt_cpu(pi, rd32(e + 4), rd32(e + 12), rd32(e + 8), PLATFORM_CPU_X2APIC);
		break;
	case MADT_IOAPIC:
		platform_ioapic_add(pi, e[2], rd32(e + 4), rd32(e + 8));
		break;
	case MADT_ISO:
		platform_iso_add(pi, &(struct platform_iso){ .bus = e[2], .irq = e[3],
				 .gsi = rd32(e + 4), .flags = rd16(e + 8) });
		break;
	case MADT_LAPIC_ADDR:
		pi->lapic_addr = rd64(e + 4);
		break;
	default:
		break;   /* NMI sources and others: not needed here */
	}
}

int acpi_madt_parse(paddr_t madt, struct platform_info *pi)
{
	const struct acpi_sdt_header *h = table_map(madt, "APIC");
	const uint8_t *p, *end;

	if (!h || h->length < sizeof(*h) + 8) {
		pr_err("acpi: MADT at 0x%llx missing, corrupt or too short\n",
		       (unsigned long long)madt);
		return -EINVAL;
	}
	platform_table_note(pi, madt, h->length);
	p = (const uint8_t *)(h + 1);
	end = (const uint8_t *)h + h->length;
	if (!pi->lapic_addr)
		pi->lapic_addr = rd32(p);
	pi->pcat_compat = rd32(p + 4) & MADT_FLAG_PCAT_COMPAT;
	for (p += 8; p < end; p += p[1]) {
		if (end - p < 2 || p[1] < 2 || p[1] > end - p) {
			pr_err("acpi: MADT entry at offset %u runs past the table or has length "
			       "< 2; rest ignored\n", (unsigned)(p - (const uint8_t *)h));
			return -EINVAL;
		}
		madt_entry(pi, p);
	}
	return 0;
}

/* ------------------------------------------------------------ FADT, \_S5 */
/* AML data object: ZeroOp, OneOp, BytePrefix n; -1 for anything else. */
static int aml_small_int(const uint8_t *p, const uint8_t *end, const uint8_t **next)
{
	if (p >= end)
		return -1;
	if (*p == 0x00 || *p == 0x01) {
		*next = p + 1;
		return *p;
	}
	if (*p == 0x0a && p + 1 < end) {
		*next = p + 2;
		return p[1];
	}
	return -1;
}

/* Find `Name(_S5_, Package() { a, b, ... })` in the DSDT (ACPI 7.4.2) by a
 * byte scan: PackageOp 0x12, PkgLength (1-4 bytes), NumElements, a, b. */
static void dsdt_find_s5(paddr_t dsdt, struct platform_info *pi)
{
	const struct acpi_sdt_header *h = table_map(dsdt, "DSDT");
	const uint8_t *p, *end;
	int a, b;

	if (!h)
		return;
	platform_table_note(pi, dsdt, h->length);
	end = (const uint8_t *)h + h->length;
	for (p = (const uint8_t *)(h + 1); p + 8 < end; p++) {
		if (memcmp(p, "_S5_", 4) != 0 || p[4] != 0x12)
			continue;
		p += 5;
		p += ((*p >> 6) & 3) + 1 + 1;   /* PkgLength, NumElements */
		a = aml_small_int(p, end, &p);
		b = a < 0 ? -1 : aml_small_int(p, end, &p);
		if (a >= 0 && b >= 0) {
			pi->has_s5 = true;
			pi->s5_typ_a = (uint8_t)a;
			pi->s5_typ_b = (uint8_t)b;
		}
		return;
	}
}

int acpi_fadt_parse(paddr_t fadt, struct platform_info *pi)
{
	const struct acpi_sdt_header *h = table_map(fadt, "FACP");
	const uint8_t *f = (const uint8_t *)h;
	uint32_t len, flags = 0;
	uint64_t dsdt;

	if (!h || h->length < FADT_PM_TMR + 4) {
		pr_err("acpi: FADT at 0x%llx missing, corrupt or too short\n",
		       (unsigned long long)fadt);
		return -EINVAL;
	}
	len = h->length;
	platform_table_note(pi, fadt, len);
	pi->has_fadt = true;
	pi->sci_irq = rd16(f + FADT_SCI_INT);
	pi->smi_cmd = rd32(f + FADT_SMI_CMD);
	pi->acpi_enable = f[FADT_ACPI_ENABLE];
	pi->pm1a_cnt = rd32(f + FADT_PM1A_CNT);
	pi->pm1b_cnt = rd32(f + FADT_PM1B_CNT);
	pi->pm_tmr = rd32(f + FADT_PM_TMR);
	if (len >= FADT_FLAGS + 4) {
		flags = rd32(f + FADT_FLAGS);
		pi->boot_arch = h->revision >= 2 ? rd16(f + FADT_BOOT_ARCH) : 0;
	}
	pi->pm_tmr_32bit = flags & FADT_F_TMR_VAL_EXT;
	pi->hw_reduced = flags & FADT_F_HW_REDUCED;
	if (len >= FADT_RESET_VALUE + 1 && (flags & FADT_F_RESET_REG)) {
		pi->reset_supported = true;
		pi->reset_space = f[FADT_RESET_REG];
		pi->reset_addr = rd64(f + FADT_RESET_REG + 4);
		pi->reset_value = f[FADT_RESET_VALUE];
	}
	dsdt = len >= FADT_X_DSDT + 8 ? rd64(f + FADT_X_DSDT) : 0;
	dsdt_find_s5(dsdt ? dsdt : rd32(f + FADT_DSDT), pi);
	return 0;
}

/* ------------------------------------------------------------ RSDP, root */
static bool rsdp_valid(const struct acpi_rsdp *r, size_t len)
{
	if (len < RSDP_V1_LEN || memcmp(r->signature, "RSD PTR ", 8) != 0)
		return false;
	if (acpi_checksum(r, RSDP_V1_LEN) != 0)
		return false;
	if (r->revision < 2)
		return true;
	return len >= RSDP_V2_LEN && r->length >= RSDP_V2_LEN &&
	       acpi_checksum(r, RSDP_V2_LEN) == 0;
}

/* XSDT when the RSDP has one and it checks out, else the RSDT. */
static int root_pick(const struct acpi_rsdp *r, struct platform_info *pi)
{
	const struct acpi_sdt_header *h;

	if (r->revision >= 2 && r->xsdt_addr) {
		acpi_root.root = r->xsdt_addr;
		acpi_root.xsdt = true;
		if ((h = table_map(acpi_root.root, "XSDT"))) {
			platform_table_note(pi, acpi_root.root, h->length);
			return 0;
		}
		pr_warn("acpi: XSDT at 0x%llx unusable, trying the RSDT\n",
			(unsigned long long)r->xsdt_addr);
	}
	acpi_root.root = r->rsdt_addr;
	acpi_root.xsdt = false;
	if ((h = table_map(acpi_root.root, "RSDT"))) {
		platform_table_note(pi, acpi_root.root, h->length);
		return 0;
	}
	acpi_root.root = 0;
	pr_err("acpi: no usable RSDT/XSDT (RSDT at 0x%x)\n", r->rsdt_addr);
	return -EINVAL;
}

int acpi_parse_rsdp(const void *rsdp, size_t len, struct platform_info *pi)
{
	const struct acpi_rsdp *r = rsdp;
	paddr_t madt, fadt;
	int rc;

	memset(pi, 0, sizeof(*pi));
	acpi_root.root = 0;
	if (!r || !rsdp_valid(r, len)) {
		pr_err("acpi: RSDP missing or invalid (signature/checksum/length)\n");
		return -EINVAL;
	}
	pi->acpi_revision = r->revision;
	rc = root_pick(r, pi);
	if (rc)
		return rc;
	madt = acpi_find_table("APIC", 0);
	if (!madt) {
		pr_err("acpi: no valid MADT under the %s\n", acpi_root.xsdt ? "XSDT" : "RSDT");
		return -ENODEV;
	}
	rc = acpi_madt_parse(madt, pi);
	if ((fadt = acpi_find_table("FACP", 0)))
		acpi_fadt_parse(fadt, pi);
	pi->source = PLATFORM_ACPI;
	return rc;
}

int acpi_parse(paddr_t rsdp_pa, struct platform_info *pi)
{
	const struct acpi_rsdp *r = rsdp_pa ? acpi_phys_map(rsdp_pa, RSDP_V1_LEN) : NULL;

	if (r && r->revision >= 2)
		r = acpi_phys_map(rsdp_pa, RSDP_V2_LEN);
	return acpi_parse_rsdp(r, r && r->revision >= 2 ? RSDP_V2_LEN : RSDP_V1_LEN, pi);
}

static paddr_t rsdp_scan_range(paddr_t start, size_t len)
{
	for (paddr_t pa = start; pa + RSDP_V1_LEN <= start + len; pa += 16) {
		const struct acpi_rsdp *r = acpi_phys_map(pa, RSDP_V1_LEN);
		if (!r || memcmp(r->signature, "RSD PTR ", 8) != 0)
			continue;
		if (r->revision >= 2 && !(r = acpi_phys_map(pa, RSDP_V2_LEN)))
			continue;
		if (rsdp_valid(r, r->revision >= 2 ? RSDP_V2_LEN : RSDP_V1_LEN))
			return pa;
	}
	return 0;
}

/* ACPI 5.2.5.1: first KiB of the EBDA (segment at 0x40E), then 0xE0000-0xFFFFF. */
paddr_t acpi_rsdp_scan(void)
{
	const uint8_t *seg = acpi_phys_map(0x40e, 2);
	paddr_t ebda = seg ? (paddr_t)rd16(seg) << 4 : 0, pa = 0;

	if (ebda >= 0x80000 && ebda < 0xa0000)
		pa = rsdp_scan_range(ebda, 1024);
	return pa ? pa : rsdp_scan_range(0xe0000, 0x20000);
}

void platform_print(const struct platform_info *pi)
{
	static const char *const src[] = { "none", "ACPI", "MP table" };

	pr_info("platform: %s, %u CPUs (%u enabled), LAPIC at 0x%llx, %u IOAPICs, "
		"%u overrides%s\n", src[pi->source], pi->nr_cpus, pi->nr_cpus_enabled,
		(unsigned long long)pi->lapic_addr, pi->nr_ioapics, pi->nr_isos,
		pi->pcat_compat ? ", 8259 PICs" : "");
	for (unsigned i = 0; i < pi->nr_cpus; i++)
		pr_info("  cpu %u: apic id %u uid %u%s%s%s\n", i, pi->cpus[i].apic_id,
			pi->cpus[i].acpi_uid,
			pi->cpus[i].flags & PLATFORM_CPU_ENABLED ? " enabled" : " online-capable",
			pi->cpus[i].flags & PLATFORM_CPU_X2APIC ? " x2apic" : "",
			pi->cpus[i].flags & PLATFORM_CPU_BSP ? " bsp" : "");
	for (unsigned i = 0; i < pi->nr_ioapics; i++)
		pr_info("  ioapic %u: id %u at 0x%x gsi %u\n", i, pi->ioapics[i].id,
			pi->ioapics[i].addr, pi->ioapics[i].gsi_base);
	if (pi->has_fadt)
		pr_info("  fadt: pm1a_cnt 0x%x pm_tmr 0x%x reset %s 0x%llx=0x%x s5 %s\n",
			pi->pm1a_cnt, pi->pm_tmr, pi->reset_supported ? "yes" : "no",
			(unsigned long long)pi->reset_addr, pi->reset_value,
			pi->has_s5 ? "yes" : "no");
}
