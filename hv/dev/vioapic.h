/* Virtual I/O APIC (Intel 82093AA): 24 pins, redirection table, index/data
 * window at 0x00/0x10, level-triggered remote IRR cleared by EOI broadcasts.
 * Not locked: hv/dev/intc.c serialises calls under the VM's intc lock. */
#ifndef HV_DEV_VIOAPIC_H
#define HV_DEV_VIOAPIC_H
#include "dev/vlapic.h"

#define VIOAPIC_PINS     24
#define IOAPIC_REGSEL    0x00      /* MMIO: index register (82093AA §3.1) */
#define IOAPIC_WIN       0x10      /* MMIO: data window */
#define IOAPIC_REG_ID    0x00
#define IOAPIC_REG_VER   0x01
#define IOAPIC_REG_ARB   0x02
#define IOAPIC_REG_RTE   0x10      /* 0x10 + 2*pin: low half, +1: high half */
/* version 0x11, maximum redirection entry 23 (82093AA §3.2.2) */
#define VIOAPIC_VERSION  (0x11u | ((VIOAPIC_PINS - 1u) << 16))

/* Redirection-table entry bits (82093AA §3.2.4). */
#define RTE_VECTOR       0xffULL
#define RTE_DM_SHIFT     8
#define RTE_LOGICAL      BIT(11)
#define RTE_DELIVS       BIT(12)   /* read-only */
#define RTE_POLARITY     BIT(13)   /* 1 = active low */
#define RTE_REMOTE_IRR   BIT(14)   /* read-only */
#define RTE_LEVEL        BIT(15)
#define RTE_MASKED       BIT(16)
#define RTE_DEST_SHIFT   56
#define RTE_WRITABLE     (0xff000000ffffffffULL & ~(RTE_DELIVS | RTE_REMOTE_IRR) & \
			  ~0xfffe0000ULL)

struct vioapic_ops {
	/* send an interrupt message to the local APICs (8-bit destination) */
	void (*deliver)(void *ctx, const struct apic_msg *m);
	void *ctx;
};

struct vioapic {
	uint8_t id;
	uint8_t regsel;
	uint32_t lines;              /* input pins currently asserted */
	uint64_t rte[VIOAPIC_PINS];
	uint64_t delivered[VIOAPIC_PINS];   /* statistics */
	const struct vioapic_ops *ops;
	uint32_t gen;                /* bumped after every RTE write (vmx/apicv.c caches) */
};

/* Reset state: every entry masked, ID as given (the MADT's IOAPIC ID). */
void vioapic_init(struct vioapic *io, uint8_t id, const struct vioapic_ops *ops);
/* MMIO inside the IOAPIC page: off 0x00 index, 0x10 data; others read 0. */
int vioapic_mmio_read(struct vioapic *io, unsigned off, unsigned size, uint32_t *val);
int vioapic_mmio_write(struct vioapic *io, unsigned off, unsigned size, uint32_t val);
/* Input pin: level = asserted (logical level; devices never model polarity). */
void vioapic_set_irq(struct vioapic *io, unsigned pin, bool level);
/* EOI broadcast from a local APIC: clear remote IRR of matching level entries. */
void vioapic_eoi(struct vioapic *io, uint8_t vector);
/* Whether some unmasked level-triggered entry uses vector (EOI-exit bitmap). */
bool vioapic_vector_is_level(const struct vioapic *io, uint8_t vector);
#endif
