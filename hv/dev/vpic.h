/* Virtual 8259A pair (master at 0x20/0x21, slave at 0xa0/0xa1 on master IR2)
 * plus the ELCR edge/level registers at 0x4d0/0x4d1. Not locked: hv/dev/intc.c
 * serialises calls. After reset both chips are fully masked (a PC BIOS would
 * leave them so; Linux then probes by writing and reading back the mask). */
#ifndef HV_DEV_VPIC_H
#define HV_DEV_VPIC_H
#include "compiler.h"

#define PIC_MASTER_CMD  0x20
#define PIC_MASTER_DATA 0x21
#define PIC_SLAVE_CMD   0xa0
#define PIC_SLAVE_DATA  0xa1
#define PIC_ELCR_MASTER 0x4d0
#define PIC_ELCR_SLAVE  0x4d1
#define PIC_CASCADE_IRQ 2

struct vpic_chip {
	uint8_t irr, isr, imr;
	uint8_t lines;        /* input levels, for edge detection */
	uint8_t elcr, elcr_mask;
	uint8_t vbase;        /* ICW2: vector of IR0 */
	uint8_t prio_low;     /* IR with the lowest priority (rotation, OCW2) */
	uint8_t init_step;    /* 0 ready; 1..3 expecting ICW2..ICW4 */
	bool icw4_needed, single, auto_eoi, rotate_aeoi, sfnm;
	bool read_isr, poll, special_mask;
};

struct vpic {
	struct vpic_chip chip[2];  /* 0 master, 1 slave */
	uint64_t acks, spurious;   /* statistics */
};

void vpic_init(struct vpic *p);
/* Port access; 0 handled, -ENOENT not a PIC/ELCR port. Byte accesses. */
int vpic_pio_read(struct vpic *p, uint16_t port, uint8_t *val);
int vpic_pio_write(struct vpic *p, uint16_t port, uint8_t val);
/* ISA IRQ input 0..15 (level = asserted); ELCR picks edge or level sensing. */
void vpic_set_irq(struct vpic *p, unsigned irq, bool level);
/* INT output of the master towards the CPU's INTR / LINT0. */
bool vpic_output(const struct vpic *p);
/* Vector the next INTA would return, without side effects; -1 if no request. */
int vpic_peek(const struct vpic *p);
/* INTA cycle: returns the vector (IR7 of the chip if spurious) and moves it to ISR. */
uint8_t vpic_ack(struct vpic *p);
#endif
