/* Intel MultiProcessor Specification 1.4 tables (ch. 4): floating pointer at
 * 0xF0000 and a configuration table with one processor entry per vCPU, the
 * ISA bus, the IOAPIC and ISA IRQ routing matching the MADT (IRQ0 -> pin 2,
 * SCI level/high). Linux uses them with acpi=off; some test kernels only
 * know MP tables. */
#include "dev/acpi_build.h"
#include "dev/acpi_layout.h"
#include "dev/acpipm.h"
#include "errno.h"
#include "lib/string.h"

#define MP_SPEC_REV      4      /* 1.4 */
#define MP_LAPIC_VERSION 0x14
#define MP_IOAPIC_VERSION 0x11
#define MP_CPU_SIGNATURE 0x600  /* family 6 */
#define MP_CPU_FEATURES  (BIT(0) | BIT(9))   /* FPU, APIC */
#define MP_ISA_BUS       0
#define MP_ALL_LAPICS    0xff

struct mp_builder {
	struct acpi_area *a;
	struct mp_config *hdr;
	bool nospace;
};

static void *mp_entry(struct mp_builder *b, size_t len, uint8_t type)
{
	uint8_t *e = acpi_area_alloc(b->a, len, 1);

	if (!e) {
		b->nospace = true;
		return NULL;
	}
	e[0] = type;
	b->hdr->length = (uint16_t)(b->hdr->length + len);
	b->hdr->entry_count++;
	return e;
}

static void mp_add_cpus(struct mp_builder *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct mp_proc *p = mp_entry(b, sizeof(*p), MP_PROC);

		if (!p)
			return;
		p->apic_id = (uint8_t)i;
		p->apic_ver = MP_LAPIC_VERSION;
		p->flags = (uint8_t)(MP_PROC_EN | (i == 0 ? MP_PROC_BP : 0));
		p->signature = MP_CPU_SIGNATURE;
		p->features = MP_CPU_FEATURES;
	}
}

static void mp_add_irq(struct mp_builder *b, uint8_t type, uint8_t irq_type, uint16_t flags,
		       uint8_t src_irq, uint8_t dst_id, uint8_t dst_pin)
{
	struct mp_irq *e = mp_entry(b, sizeof(*e), type);

	if (!e)
		return;
	e->irq_type = irq_type;
	e->flags = flags;
	e->src_bus = MP_ISA_BUS;
	e->src_irq = src_irq;
	e->dst_id = dst_id;
	e->dst_pin = dst_pin;
}

/* ISA IRQs 0-15 to IOAPIC pins (pin 2 carries IRQ0, so IRQ2 has no entry). */
static void mp_add_isa_irqs(struct mp_builder *b, uint8_t ioapic)
{
	for (uint8_t irq = 0; irq < 16; irq++) {
		uint16_t flags = irq == ACPIPM_SCI_IRQ ? MPS_ACTIVE_HIGH | MPS_LEVEL_TRIGGER : 0;

		if (irq == 2)
			continue;
		mp_add_irq(b, MP_IOINT, MP_INT, flags, irq, ioapic, irq == 0 ? 2 : irq);
	}
	mp_add_irq(b, MP_LINT, MP_EXTINT, 0, 0, MP_ALL_LAPICS, 0);
	mp_add_irq(b, MP_LINT, MP_NMI, 0, 0, MP_ALL_LAPICS, 1);
}

static void mp_add_devices(struct mp_builder *b, const struct acpi_tables_cfg *cfg)
{
	struct mp_bus *bus = mp_entry(b, sizeof(*bus), MP_BUS);
	struct mp_ioapic *io;

	if (bus) {
		bus->id = MP_ISA_BUS;
		memcpy(bus->name, "ISA   ", 6);
	}
	io = mp_entry(b, sizeof(*io), MP_IOAPIC);
	if (io) {
		io->id = cfg->ioapic_id;
		io->ver = MP_IOAPIC_VERSION;
		io->flags = 1;   /* usable */
		io->addr = (uint32_t)cfg->ioapic_base;
	}
	mp_add_isa_irqs(b, cfg->ioapic_id);
}

static void mp_header_fill(struct mp_config *h, const struct acpi_tables_cfg *cfg)
{
	memcpy(h->sig, "PCMP", 4);
	h->length = sizeof(*h);
	h->spec_rev = MP_SPEC_REV;
	memcpy(h->oem_id, "HVRSCH  ", 8);
	memcpy(h->product_id, "HVRESEARCH  ", 12);
	h->lapic_addr = (uint32_t)cfg->lapic_base;
}

int mptable_build(struct acpi_area *a, const struct acpi_tables_cfg *cfg,
		  struct acpi_tables_info *info)
{
	struct mp_fp *fp = acpi_area_alloc(a, sizeof(*fp), 16);
	struct mp_builder b = { .a = a, .hdr = acpi_area_alloc(a, sizeof(struct mp_config), 16) };

	if (!fp || !b.hdr)
		return -ENOSPC;
	mp_header_fill(b.hdr, cfg);
	mp_add_cpus(&b, cfg->nr_vcpus);
	mp_add_devices(&b, cfg);
	if (b.nospace)
		return -ENOSPC;
	b.hdr->checksum = (uint8_t)-acpi_checksum(b.hdr, b.hdr->length);
	memcpy(fp->sig, "_MP_", 4);
	fp->config = (uint32_t)acpi_area_gpa(a, b.hdr);
	fp->length = 1;   /* in 16-byte units */
	fp->spec_rev = MP_SPEC_REV;
	fp->checksum = (uint8_t)-acpi_checksum(fp, sizeof(*fp));
	info->mpfp = acpi_area_gpa(a, fp);
	info->mpc = fp->config;
	return 0;
}
