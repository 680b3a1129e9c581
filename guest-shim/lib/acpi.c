/* Just enough ACPI (spec 6.x, 5.2): the RSDP in the BIOS area 0xE0000-0xFFFFF,
 * RSDT/XSDT, MADT entries (LAPIC, IOAPIC, interrupt source override) and the
 * FADT's PM timer port. All tables are assumed below 4 GiB. */
#include "guest.h"

struct sdt { char sig[4]; uint32_t len; uint8_t rev, sum; char oem[6], table[8];
	     uint32_t oem_rev, creator, creator_rev; } __attribute__((packed));
_Static_assert(sizeof(struct sdt) == 36, "ACPI table header");
struct rsdp { char sig[8]; uint8_t sum; char oem[6]; uint8_t rev; uint32_t rsdt;
	      uint32_t len; uint64_t xsdt; uint8_t xsum, rsvd[3]; } __attribute__((packed));

#define MADT_LAPIC  0
#define MADT_IOAPIC 1
#define MADT_ISO    2
#define FADT_PM_TMR_BLK 76
#define DEFAULT_IOAPIC  0xfec00000u

static uint8_t bytes_sum(const void *p, size_t n)
{
	uint8_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += ((const uint8_t *)p)[i];
	return s;
}

static const struct rsdp *rsdp_find(void)
{
	for (uintptr_t p = 0xe0000; p < 0x100000; p += 16)
		if (!memcmp((const void *)p, "RSD PTR ", 8) && !bytes_sum((const void *)p, 20))
			return (const void *)p;
	return NULL;
}

const void *acpi_find(const char sig[4])
{
	const struct rsdp *r = rsdp_find();
	const struct sdt *root;
	bool x;
	unsigned n;

	if (!r)
		return NULL;
	x = r->rev >= 2 && r->xsdt;
	root = (const void *)(uintptr_t)(x ? r->xsdt : r->rsdt);
	n = (root->len - sizeof(*root)) / (x ? 8 : 4);
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *e = (const uint8_t *)(root + 1) + i * (x ? 8 : 4);
		uint32_t a;

		memcpy(&a, e, 4);
		if (!memcmp((const void *)(uintptr_t)a, sig, 4))
			return (const void *)(uintptr_t)a;
	}
	return NULL;
}

/* Call fn on each MADT entry of the given type; stops when fn returns true. */
static const uint8_t *madt_each(unsigned type, bool (*fn)(const uint8_t *e, void *arg), void *arg)
{
	const struct sdt *m = acpi_find("APIC");
	const uint8_t *p, *end;

	if (!m)
		return NULL;
	p = (const uint8_t *)m + sizeof(*m) + 8;
	end = (const uint8_t *)m + m->len;
	for (; p + 2 <= end && p[1] >= 2; p += p[1])
		if (p[0] == type && fn(p, arg))
			return p;
	return NULL;
}

static bool iso_match(const uint8_t *e, void *arg)
{
	return e[3] == *(unsigned *)arg;     /* source IRQ */
}

unsigned acpi_isa_to_gsi(unsigned irq)
{
	const uint8_t *e = madt_each(MADT_ISO, iso_match, &irq);
	uint32_t gsi;

	if (!e)
		return irq;
	memcpy(&gsi, e + 4, 4);
	return gsi;
}

static bool first(const uint8_t *e, void *arg)
{
	return true;
}

uintptr_t acpi_ioapic_base(void)
{
	static uintptr_t base;
	const uint8_t *e;
	uint32_t a;

	if (base)
		return base;
	e = madt_each(MADT_IOAPIC, first, NULL);
	if (!e)
		return base = DEFAULT_IOAPIC;
	memcpy(&a, e + 4, 4);
	return base = a;
}

static bool count_enabled(const uint8_t *e, void *arg)
{
	if (e[4] & 1)
		(*(unsigned *)arg)++;
	return false;
}

unsigned acpi_nr_lapics(void)
{
	unsigned n = 0;

	madt_each(MADT_LAPIC, count_enabled, &n);
	return n;
}

uint16_t acpi_pm_timer_port(void)
{
	const uint8_t *f = acpi_find("FACP");
	uint32_t port;

	if (!f || ((const struct sdt *)f)->len < FADT_PM_TMR_BLK + 4)
		return 0;
	memcpy(&port, f + FADT_PM_TMR_BLK, 4);
	return (uint16_t)port;
}
