/* The simple PC devices of one VM behind one port-I/O entry point and one
 * pull-model timer sweep: every model registered with DEV_REGISTER (today
 * COM1, isa-debug-exit, fw_cfg, PIT + port 0x61, CMOS RTC, ACPI PM + 0xCF9
 * reset, absent PCI, and the port-0x80 / 0x64 sinks), each with its state in
 * this bundle. Interrupt controllers (PIC/IOAPIC/LAPIC) are not here: -ENOENT
 * means "try the next device", and an unclaimed read should return all ones.
 * Not locked: the caller holds one lock per VM around these calls. */
#ifndef HV_DEV_PCDEV_H
#define HV_DEV_PCDEV_H
#include "dev/registry.h"
#include "errno.h"

#define PCDEV_PORT_POST  0x80   /* POST codes / Linux io_delay: writes ignored */
#define PCDEV_PORT_KBD   0x64   /* 8042 command: 0xFE pulses reset */
#define PCDEV_STATE_BYTES 4096  /* all models' state; checked at init */

/* Kept for the callers' spelling: the configuration every model gets. */
#define pcdev_cfg dev_cfg

struct pcdev {
	_Alignas(DEV_STATE_ALIGN) uint8_t state[PCDEV_STATE_BYTES];
	const struct dev_host *host;
	uint64_t pio_count, pio_unclaimed;
};

/* The checked registry, built from the hv_dev section by the first
 * pcdev_init (boot stops there if two models overlap). */
extern struct dev_registry pcdev_registry;

void pcdev_init(struct pcdev *d, const struct dev_cfg *cfg);
/* 0 if a device took the access, -ENOENT if none did (val untouched).
 * Inline, as the sweep below: the exit path pays no call for the routing. */
static inline int pcdev_pio(struct pcdev *d, uint16_t port, unsigned size, bool write,
			    uint32_t *val)
{
	unsigned e = pcdev_registry.port[port] & DEV_PORT_IDX;
	int rc = -ENOENT;

	d->pio_count++;
	if (likely(e)) {
		const struct dev_slot *s = &pcdev_registry.slot[e - 1];

		rc = s->pio(d->state + s->off, port, size, write, val);
	}
	if (rc == -ENOENT)
		d->pio_unclaimed++;
	return rc;
}
/* MMIO to a registered range: 0, or -ENOENT if no model claims gpa. */
int pcdev_mmio(struct pcdev *d, uint64_t gpa, unsigned size, bool write, uint64_t *val);
/* Whether the access may move a deadline or an interrupt output (DEV_PIO_*). */
static inline bool pcdev_pio_retimes(uint16_t port, bool write)
{
	return pcdev_registry.port[port] & (write ? DEV_PIO_TIMED : DEV_PIO_TIMED_READ);
}
/* A model's state by its registered name (NULL if not registered). */
void *pcdev_find(struct pcdev *d, const char *name);
/* Earliest timer deadline of the bundle (STIME_NEVER if none) and catch-up,
 * over the timed models in port order. */
static inline stime_t pcdev_next_deadline(const struct pcdev *d)
{
	const struct dev_registry *r = &pcdev_registry;
	stime_t dl = STIME_NEVER;

	for (unsigned i = 0; i < r->nr_timed; i++) {
		stime_t t = r->timed[i].next_deadline(d->state + r->timed[i].off);

		dl = MIN(dl, t);
	}
	return dl;
}

static inline void pcdev_advance(struct pcdev *d, stime_t now)
{
	const struct dev_registry *r = &pcdev_registry;

	for (unsigned i = 0; i < r->nr_timed; i++)
		r->timed[i].advance(d->state + r->timed[i].off, now);
}
#endif
