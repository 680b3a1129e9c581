/* Virtual 8259A programmable interrupt controllers after the Intel 8259A
 * datasheet (ICW1-4, OCW1-3, fully nested mode, rotation, AEOI, special mask)
 * and the PIIX/ICH ELCR registers that make IRQs level-sensitive on a PC. */
#include "dev/vpic.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

static void chip_reset(struct vpic_chip *c, uint8_t elcr_mask)
{
	memset(c, 0, sizeof(*c));
	c->imr = 0xff;
	c->elcr_mask = elcr_mask;
	c->prio_low = 7;
}

void vpic_init(struct vpic *p)
{
	memset(p, 0, sizeof(*p));
	/* IRQ0/1/2 and IRQ8/13 are edge-only on a PC chipset */
	chip_reset(&p->chip[0], 0xf8);
	chip_reset(&p->chip[1], 0xde);
}

/* Rank 0 is the highest priority: IR(prio_low + 1) (datasheet "Rotation"). */
static unsigned rank(const struct vpic_chip *c, unsigned irq)
{
	return (irq - c->prio_low - 1) & 7;
}

static int highest(const struct vpic_chip *c, uint8_t mask)
{
	for (unsigned r = 0; r < 8; r++) {
		unsigned irq = (c->prio_low + 1 + r) & 7;
		if (mask & (1u << irq))
			return (int)irq;
	}
	return -1;
}

/* Highest unmasked request that beats everything in service. Special mask
 * mode ignores masked in-service levels; special fully nested mode on the
 * master lets the slave interrupt again while IR2 is in service. */
static int chip_pending(const struct vpic_chip *c, bool master)
{
	int irq = highest(c, c->irr & ~c->imr), cur;
	uint8_t in_service = c->isr;

	if (irq < 0)
		return -1;
	if (c->special_mask)
		in_service &= ~c->imr;
	if (master && c->sfnm)
		in_service &= ~(1u << PIC_CASCADE_IRQ);
	cur = highest(c, in_service);
	if (cur >= 0 && rank(c, (unsigned)cur) <= rank(c, (unsigned)irq))
		return -1;
	return irq;
}

/* The slave's INT drives master IR2 as a level input. */
static void cascade_update(struct vpic *p)
{
	struct vpic_chip *m = &p->chip[0];

	if (chip_pending(&p->chip[1], false) >= 0)
		m->irr |= 1u << PIC_CASCADE_IRQ;
	else
		m->irr &= (uint8_t)~(1u << PIC_CASCADE_IRQ);
}

static void chip_set_line(struct vpic_chip *c, unsigned irq, bool level)
{
	uint8_t bit = (uint8_t)(1u << irq);

	if (level && (!(c->lines & bit) || (c->elcr & bit)))
		c->irr |= bit;
	else if (!level && (c->elcr & bit))
		c->irr &= (uint8_t)~bit;   /* level mode: IRR follows the line */
	c->lines = level ? c->lines | bit : c->lines & (uint8_t)~bit;
}

void vpic_set_irq(struct vpic *p, unsigned irq, bool level)
{
	if (irq >= 16 || irq == PIC_CASCADE_IRQ)
		return;
	chip_set_line(&p->chip[irq >> 3], irq & 7, level);
	cascade_update(p);
}

bool vpic_output(const struct vpic *p)
{
	return chip_pending(&p->chip[0], true) >= 0;
}

int vpic_peek(const struct vpic *p)
{
	int irq = chip_pending(&p->chip[0], true), sirq;

	if (irq < 0)
		return -1;
	if (irq != PIC_CASCADE_IRQ)
		return p->chip[0].vbase + irq;
	sirq = chip_pending(&p->chip[1], false);
	return p->chip[1].vbase + (sirq < 0 ? 7 : sirq);
}

/* INTA on one chip: edge requests are consumed, level requests stay while
 * the line is high; AEOI skips ISR (and may rotate). */
static void chip_intack(struct vpic_chip *c, unsigned irq)
{
	uint8_t bit = (uint8_t)(1u << irq);

	if (!(c->elcr & bit))
		c->irr &= (uint8_t)~bit;
	if (!c->auto_eoi)
		c->isr |= bit;
	else if (c->rotate_aeoi)
		c->prio_low = (uint8_t)irq;
}

uint8_t vpic_ack(struct vpic *p)
{
	struct vpic_chip *m = &p->chip[0], *s = &p->chip[1];
	int irq = chip_pending(m, true), sirq;
	uint8_t vec;

	if (irq < 0) {
		p->spurious++;
		return m->vbase + 7;    /* spurious IRQ7, ISR untouched */
	}
	chip_intack(m, (unsigned)irq);
	if (irq == PIC_CASCADE_IRQ) {
		sirq = chip_pending(s, false);
		if (sirq < 0) {
			p->spurious++;
			sirq = 7;
		} else {
			chip_intack(s, (unsigned)sirq);
		}
		vec = s->vbase + (uint8_t)sirq;
	} else {
		vec = m->vbase + (uint8_t)irq;
	}
	cascade_update(p);
	p->acks++;
	return vec;
}

/* ICW1 (datasheet "Initialization Command Words"): clears IMR and ISR,
 * IR7 gets the lowest priority, special mask off, IRR read selected, and
 * the edge detector restarts (IRR cleared). LTIM is ignored: a PC's ELCR decides. */
static void chip_icw1(struct vpic_chip *c, uint8_t val)
{
	c->icw4_needed = val & 1;
	c->single = val & 2;
	c->init_step = 1;
	c->imr = c->isr = c->irr = 0;
	c->prio_low = 7;
	c->special_mask = c->read_isr = c->poll = false;
	c->auto_eoi = c->rotate_aeoi = c->sfnm = false;
}

static void chip_eoi(struct vpic_chip *c, int irq, bool rotate)
{
	if (irq < 0)
		return;
	c->isr &= (uint8_t)~(1u << irq);
	if (rotate)
		c->prio_low = (uint8_t)irq;
}

/* OCW2: R, SL, EOI bits 7:5 and the level in 2:0. */
static void chip_ocw2(struct vpic_chip *c, uint8_t val)
{
	switch (val >> 5) {
	case 0: c->rotate_aeoi = false; break;               /* rotate in AEOI clear */
	case 4: c->rotate_aeoi = true; break;                /* rotate in AEOI set */
	case 1: chip_eoi(c, highest(c, c->isr), false); break;  /* non-specific EOI */
	case 5: chip_eoi(c, highest(c, c->isr), true); break;   /* rotate on NS EOI */
	case 3: chip_eoi(c, val & 7, false); break;          /* specific EOI */
	case 7: chip_eoi(c, val & 7, true); break;           /* rotate on specific EOI */
	case 6: c->prio_low = val & 7; break;                /* set priority */
	default: break;                                      /* 2: no operation */
	}
}

/* OCW3: ESMM/SMM 6:5, poll 2, RR/RIS 1:0. */
static void chip_ocw3(struct vpic_chip *c, uint8_t val)
{
	if (val & 0x40)
		c->special_mask = (val >> 5) & 1;
	if (val & 4)
		c->poll = true;
	if (val & 2)
		c->read_isr = val & 1;
}

static void chip_data_write(struct vpic_chip *c, uint8_t val)
{
	switch (c->init_step) {
	case 1:             /* ICW2: vector base, low 3 bits from the IR number */
		c->vbase = val & 0xf8;
		c->init_step = !c->single ? 2 : c->icw4_needed ? 3 : 0;
		break;
	case 2:             /* ICW3: cascade wiring is fixed on a PC */
		c->init_step = c->icw4_needed ? 3 : 0;
		break;
	case 3:             /* ICW4: AEOI bit 1, SFNM bit 4 */
		c->auto_eoi = val & 2;
		c->sfnm = val & 0x10;
		c->init_step = 0;
		break;
	default:            /* OCW1 */
		c->imr = val;
		break;
	}
}

static uint8_t chip_poll(struct vpic *p, struct vpic_chip *c)
{
	int irq = chip_pending(c, c == &p->chip[0]);

	c->poll = false;
	if (irq < 0)
		return 0;
	chip_intack(c, (unsigned)irq);
	cascade_update(p);
	return (uint8_t)(0x80 | irq);
}

int vpic_pio_read(struct vpic *p, uint16_t port, uint8_t *val)
{
	struct vpic_chip *c = &p->chip[(port >> 7) & 1];

	switch (port) {
	case PIC_MASTER_CMD: case PIC_SLAVE_CMD:
		*val = c->poll ? chip_poll(p, c) : c->read_isr ? c->isr : c->irr;
		return 0;
	case PIC_MASTER_DATA: case PIC_SLAVE_DATA:
		*val = c->imr;
		return 0;
	case PIC_ELCR_MASTER: case PIC_ELCR_SLAVE:
		*val = p->chip[port & 1].elcr;
		return 0;
	}
	return -ENOENT;
}

int vpic_pio_write(struct vpic *p, uint16_t port, uint8_t val)
{
	struct vpic_chip *c = &p->chip[(port >> 7) & 1];

	switch (port) {
	case PIC_MASTER_CMD: case PIC_SLAVE_CMD:
		if (val & 0x10)
			chip_icw1(c, val);
		else if (val & 0x08)
			chip_ocw3(c, val);
		else
			chip_ocw2(c, val);
		break;
	case PIC_MASTER_DATA: case PIC_SLAVE_DATA:
		chip_data_write(c, val);
		break;
	case PIC_ELCR_MASTER: case PIC_ELCR_SLAVE:
		c = &p->chip[port & 1];
		c->elcr = val & c->elcr_mask;
		break;
	default:
		return -ENOENT;
	}
	cascade_update(p);
	return 0;
}
