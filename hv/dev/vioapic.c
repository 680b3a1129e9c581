/* Virtual I/O APIC after the Intel 82093AA datasheet (rev. 1996, §3: registers,
 * redirection table) and SDM vol. 3A §11.8.5 (EOI broadcast to I/O APICs). */
#include "dev/vioapic.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

_Static_assert(VIOAPIC_PINS <= 32, "pin levels kept in one 32-bit word");
_Static_assert(IOAPIC_REG_RTE + 2 * VIOAPIC_PINS <= 0x100, "RTEs fit the index space");

void vioapic_init(struct vioapic *io, uint8_t id, const struct vioapic_ops *ops)
{
	memset(io, 0, sizeof(*io));
	io->id = id & 0xf;
	io->ops = ops;
	for (unsigned i = 0; i < VIOAPIC_PINS; i++)
		io->rte[i] = RTE_MASKED;
}

/* Only fixed and lowest-priority messages are EOI'd, so only they may hold
 * remote IRR; NMI/INIT/ExtINT entries behave as edge (82093AA §3.2.4). */
static bool rte_uses_remote_irr(uint64_t rte)
{
	unsigned dm = (rte >> RTE_DM_SHIFT) & 7;

	return (rte & RTE_LEVEL) && (dm == APIC_DM_FIXED || dm == APIC_DM_LOWEST);
}

static void pin_deliver(struct vioapic *io, unsigned pin)
{
	uint64_t rte = io->rte[pin];
	struct apic_msg m = {
		.dest = (uint32_t)(rte >> RTE_DEST_SHIFT),
		.vector = (uint8_t)(rte & RTE_VECTOR),
		.mode = (rte >> RTE_DM_SHIFT) & 7,
		.logical = !!(rte & RTE_LOGICAL),
		.level_trig = rte_uses_remote_irr(rte),
		.assert = true,
	};

	if (rte & RTE_MASKED)
		return;
	if (m.level_trig) {
		if (rte & RTE_REMOTE_IRR)
			return;     /* wait for the EOI of the previous delivery */
		io->rte[pin] |= RTE_REMOTE_IRR;
	}
	io->delivered[pin]++;
	io->ops->deliver(io->ops->ctx, &m);
}

/* Edge pins fire on a rising edge; an edge on a masked pin is lost
 * (82093AA §3.2.4, bit 16). Level pins deliver while asserted and not
 * already in service (remote IRR). */
void vioapic_set_irq(struct vioapic *io, unsigned pin, bool level)
{
	uint32_t bit = 1u << pin, old;

	if (pin >= VIOAPIC_PINS)
		return;
	old = io->lines & bit;
	io->lines = level ? io->lines | bit : io->lines & ~bit;
	if (!level)
		return;
	if ((io->rte[pin] & RTE_LEVEL) || !old)
		pin_deliver(io, pin);
}

void vioapic_eoi(struct vioapic *io, uint8_t vector)
{
	for (unsigned pin = 0; pin < VIOAPIC_PINS; pin++) {
		uint64_t rte = io->rte[pin];

		if ((rte & RTE_VECTOR) != vector || !(rte & RTE_REMOTE_IRR))
			continue;
		io->rte[pin] &= ~RTE_REMOTE_IRR;
		if (io->lines & (1u << pin))
			pin_deliver(io, pin);   /* still asserted: deliver again */
	}
}

bool vioapic_vector_is_level(const struct vioapic *io, uint8_t vector)
{
	for (unsigned pin = 0; pin < VIOAPIC_PINS; pin++)
		if ((io->rte[pin] & RTE_VECTOR) == vector && rte_uses_remote_irr(io->rte[pin]))
			return true;
	return false;
}

static uint32_t reg_read(const struct vioapic *io, uint8_t idx)
{
	unsigned pin = (idx - IOAPIC_REG_RTE) / 2;

	switch (idx) {
	case IOAPIC_REG_ID:
	case IOAPIC_REG_ARB:
		return (uint32_t)io->id << 24;
	case IOAPIC_REG_VER:
		return VIOAPIC_VERSION;
	}
	if (idx < IOAPIC_REG_RTE || pin >= VIOAPIC_PINS)
		return 0;
	return (uint32_t)(idx & 1 ? io->rte[pin] >> 32 : io->rte[pin]);
}

static void rte_write(struct vioapic *io, unsigned pin, bool high, uint32_t val)
{
	uint64_t old = io->rte[pin], rte;

	if (high)
		rte = (old & 0xffffffffULL) | ((uint64_t)val << 32);
	else
		rte = (old & ~0xffffffffULL) | val;
	rte = (rte & RTE_WRITABLE) | (old & RTE_REMOTE_IRR);
	if (!(rte & RTE_LEVEL))
		rte &= ~RTE_REMOTE_IRR;     /* edge entries never hold remote IRR */
	io->rte[pin] = rte;
	__atomic_fetch_add(&io->gen, 1, __ATOMIC_RELEASE);
	/* unmasking a level entry whose line is asserted delivers it now */
	if ((rte & RTE_LEVEL) && (io->lines & (1u << pin)))
		pin_deliver(io, pin);
}

static void reg_write(struct vioapic *io, uint8_t idx, uint32_t val)
{
	unsigned pin = (idx - IOAPIC_REG_RTE) / 2;

	if (idx == IOAPIC_REG_ID) {
		io->id = (val >> 24) & 0xf;
		return;
	}
	if (idx < IOAPIC_REG_RTE || pin >= VIOAPIC_PINS)
		return;     /* version, arbitration: read-only */
	rte_write(io, pin, idx & 1, val);
}

int vioapic_mmio_read(struct vioapic *io, unsigned off, unsigned size, uint32_t *val)
{
	if (size != 1 && size != 2 && size != 4)
		return -EINVAL;
	switch (off) {
	case IOAPIC_REGSEL:
		*val = io->regsel;
		break;
	case IOAPIC_WIN:
		*val = reg_read(io, io->regsel);
		break;
	default:
		*val = 0;
		break;
	}
	if (size < 4)
		*val &= (1u << (size * 8)) - 1;
	return 0;
}

int vioapic_mmio_write(struct vioapic *io, unsigned off, unsigned size, uint32_t val)
{
	if (size != 1 && size != 2 && size != 4)
		return -EINVAL;
	if (off == IOAPIC_REGSEL)
		io->regsel = (uint8_t)val;
	else if (off == IOAPIC_WIN && size == 4)
		reg_write(io, io->regsel, val);
	return 0;
}
