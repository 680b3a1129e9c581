/* MP table fallback (Intel MultiProcessor Specification 1.4, chapter 4):
 * find the floating pointer, verify both checksums, and turn processor,
 * IOAPIC and ISA interrupt-assignment entries into struct platform_info. */
#include "arch/x86/mptable.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

/* Base table entry types and sizes (MPS 4.3). */
enum { MP_PROC = 0, MP_BUS = 1, MP_IOAPIC = 2, MP_IOINT = 3, MP_LINT = 4 };
#define MP_PROC_LEN      20
#define MP_OTHER_LEN     8
#define MP_PROC_EN       BIT(0)
#define MP_PROC_BP       BIT(1)
#define MP_IOAPIC_EN     BIT(0)
#define MP_IOAPIC_PINS   24      /* assumed per IOAPIC to derive GSI bases */
#define MP_MAX_BUSES     256
#define MP_INT_TYPE_INT  0

static bool floating_valid(const struct mp_floating *f)
{
	return memcmp(f->signature, "_MP_", 4) == 0 && f->length == 1 &&
	       acpi_checksum(f, sizeof(*f)) == 0;
}

static paddr_t floating_scan(paddr_t start, size_t len)
{
	for (paddr_t pa = start; pa + sizeof(struct mp_floating) <= start + len; pa += 16) {
		const struct mp_floating *f = acpi_phys_map(pa, sizeof(*f));
		if (f && floating_valid(f))
			return pa;
	}
	return 0;
}

/* A 16-bit BIOS data area field (0x413 is not 2-byte aligned). */
static uint16_t bda_read16(paddr_t pa)
{
	const uint8_t *p = acpi_phys_map(pa, 2);

	return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

paddr_t mptable_find(void)
{
	paddr_t pa = 0, ebda = (paddr_t)bda_read16(0x40e) << 4;   /* EBDA segment */
	paddr_t top = (paddr_t)bda_read16(0x413) * 1024;          /* base memory KiB */

	if (ebda >= 0x80000 && ebda < 0xa0000)
		pa = floating_scan(ebda, 1024);
	if (!pa && top >= 0x80000 && top <= 0xa0000)
		pa = floating_scan(top - 1024, 1024);
	return pa ? pa : floating_scan(0xf0000, 0x10000);
}

/* State while walking the entries: which bus IDs are ISA. */
struct mp_walk { struct platform_info *pi; uint8_t isa[MP_MAX_BUSES / 8]; };

static void mp_proc(struct mp_walk *w, const uint8_t *e, unsigned index)
{
	if (!(e[3] & MP_PROC_EN))
		return;   /* unusable processor (MPS 4.3.1) */
	platform_cpu_add(w->pi, e[1], index,
			 PLATFORM_CPU_ENABLED | (e[3] & MP_PROC_BP ? PLATFORM_CPU_BSP : 0));
}

static void mp_ioapic(struct mp_walk *w, const uint8_t *e)
{
	struct platform_info *pi = w->pi;
	uint32_t gsi = 0;

	if (!(e[3] & MP_IOAPIC_EN))
		return;
	for (unsigned i = 0; i < pi->nr_ioapics; i++)
		gsi = MAX(gsi, pi->ioapics[i].gsi_base + MP_IOAPIC_PINS);
	platform_ioapic_add(pi, e[1], (uint32_t)e[4] | (uint32_t)e[5] << 8 |
			    (uint32_t)e[6] << 16 | (uint32_t)e[7] << 24, gsi);
}

/* An ISA interrupt routed to a different IOAPIC pin, or with non-default
 * polarity/trigger, becomes an override like MADT type 2. */
static void mp_ioint(struct mp_walk *w, const uint8_t *e)
{
	struct platform_info *pi = w->pi;
	uint16_t flags = (uint16_t)(e[2] | e[3] << 8);
	uint8_t bus = e[4], irq = e[5], apic = e[6], pin = e[7];

	if (e[1] != MP_INT_TYPE_INT || !(w->isa[bus / 8] & BIT(bus % 8)))
		return;
	for (unsigned i = 0; i < pi->nr_ioapics; i++) {
		uint32_t gsi = pi->ioapics[i].gsi_base + pin;
		if (pi->ioapics[i].id != apic || (gsi == irq && !flags))
			continue;
		if (pi->nr_isos < PLATFORM_MAX_ISOS)
			pi->isos[pi->nr_isos++] = (struct platform_iso){
				.bus = 0, .irq = irq, .flags = flags, .gsi = gsi };
		return;
	}
}

static int mp_entry(struct mp_walk *w, const uint8_t *e, size_t room, unsigned index)
{
	size_t len = e[0] == MP_PROC ? MP_PROC_LEN : MP_OTHER_LEN;

	if (e[0] > MP_LINT || len > room)
		return -EINVAL;
	if (e[0] == MP_PROC)
		mp_proc(w, e, index);
	else if (e[0] == MP_BUS && memcmp(e + 2, "ISA   ", 6) == 0)
		w->isa[e[1] / 8] |= (uint8_t)BIT(e[1] % 8);
	else if (e[0] == MP_IOAPIC)
		mp_ioapic(w, e);
	else if (e[0] == MP_IOINT)
		mp_ioint(w, e);
	return (int)len;
}

static const struct mp_config *config_map(const struct mp_floating *f)
{
	const struct mp_config *c = f->config_addr ?
		acpi_phys_map(f->config_addr, sizeof(*c)) : NULL;

	if (!c || memcmp(c->signature, "PCMP", 4) != 0 || c->base_length < sizeof(*c))
		return NULL;
	c = acpi_phys_map(f->config_addr, c->base_length);
	return c && acpi_checksum(c, c->base_length) == 0 ? c : NULL;
}

int mptable_parse(paddr_t floating, struct platform_info *pi)
{
	const struct mp_floating *f = floating ? acpi_phys_map(floating, sizeof(*f)) : NULL;
	const struct mp_config *c;
	struct mp_walk w = { .pi = pi };
	const uint8_t *p, *end;
	unsigned count;
	int n;

	memset(pi, 0, sizeof(*pi));
	if (!f || !floating_valid(f))
		return -ENODEV;
	if (f->feature[0]) {
		pr_err("mptable: default configuration %u (no table) is not supported\n",
		       f->feature[0]);
		return -ENODEV;
	}
	if (!(c = config_map(f))) {
		pr_err("mptable: configuration table at 0x%x missing or corrupt\n", f->config_addr);
		return -EINVAL;
	}
	platform_table_note(pi, f->config_addr, c->base_length);
	pi->lapic_addr = c->lapic_addr;
	pi->pcat_compat = true;
	count = c->oem_table_size_entry_count >> 16;
	p = (const uint8_t *)(c + 1);
	end = (const uint8_t *)c + c->base_length;
	for (unsigned i = 0; i < count && p < end; i++, p += n)
		if ((n = mp_entry(&w, p, (size_t)(end - p), pi->nr_cpus)) < 0) {
			pr_err("mptable: entry %u (type %u) unknown or past the table end\n", i, *p);
			return -EINVAL;
		}
	pi->source = PLATFORM_MPTABLE;
	return 0;
}
