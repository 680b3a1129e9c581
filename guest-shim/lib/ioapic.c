/* IOAPIC: indirect registers through IOREGSEL (+0x00) / IOWIN (+0x10);
 * redirection entry n at registers 0x10+2n (low) and 0x11+2n (high, the
 * destination in bits 63:56) (82093AA datasheet 3.2). */
#include "guest.h"

#define IOAPIC_VER    0x01
#define IOAPIC_REDTBL 0x10
#define RTE_MASKED    (1u << 16)
#define RTE_LEVEL     (1u << 15)
#define RTE_LOW       (1u << 13)

static volatile uint32_t *ioapic_regs(void)
{
	return (volatile uint32_t *)acpi_ioapic_base();
}

uint32_t ioapic_read(unsigned reg)
{
	volatile uint32_t *r = ioapic_regs();

	r[0] = reg;
	return r[4];
}

void ioapic_write(unsigned reg, uint32_t v)
{
	volatile uint32_t *r = ioapic_regs();

	r[0] = reg;
	r[4] = v;
}

unsigned ioapic_nr_pins(void)
{
	return ((ioapic_read(IOAPIC_VER) >> 16) & 0xff) + 1;
}

void ioapic_route(unsigned pin, unsigned vector, unsigned dest, bool level, bool low)
{
	uint32_t lo = vector | (level ? RTE_LEVEL : 0) | (low ? RTE_LOW : 0);

	ioapic_write(IOAPIC_REDTBL + 2 * pin, RTE_MASKED);
	ioapic_write(IOAPIC_REDTBL + 2 * pin + 1, dest << 24);
	ioapic_write(IOAPIC_REDTBL + 2 * pin, lo);
}

void ioapic_mask(unsigned pin)
{
	ioapic_write(IOAPIC_REDTBL + 2 * pin, RTE_MASKED);
}
