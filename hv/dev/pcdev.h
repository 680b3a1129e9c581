/* The simple PC devices of one VM bundled behind one port-I/O entry point and
 * one pull-model timer: COM1, isa-debug-exit, fw_cfg, PIT + port 0x61, CMOS
 * RTC, ACPI PM + 0xCF9 reset, absent PCI, and the port-0x80 / 0x64 sinks.
 * Interrupt controllers (PIC/IOAPIC/LAPIC) are not here: -ENOENT means "try
 * the next device", and an unclaimed read should return all ones.
 * Not locked: the caller holds one lock per VM around these calls. */
#ifndef HV_DEV_PCDEV_H
#define HV_DEV_PCDEV_H
#include "dev/uart.h"
#include "dev/debugexit.h"
#include "dev/fwcfg.h"
#include "dev/pit.h"
#include "dev/rtc.h"
#include "dev/acpipm.h"

#define PCDEV_PORT_POST  0x80   /* POST codes / Linux io_delay: writes ignored */
#define PCDEV_PORT_KBD   0x64   /* 8042 command: 0xFE pulses reset */

struct pcdev_cfg {
	const struct dev_host *host;
	irq_line_fn irq;          /* ISA IRQ lines: 0 PIT, 4 COM1, 8 RTC, 9 SCI */
	void *irqctx;
	uint64_t ram_size;
	unsigned nr_vcpus;
	int64_t epoch_secs;       /* guest wall clock (Unix seconds) at init */
};

struct pcdev {
	struct uart com1;
	struct debugexit dbgexit;
	struct fwcfg fwcfg;
	struct pit pit;
	struct rtc rtc;
	struct acpipm pm;
	const struct dev_host *host;
	uint64_t pio_count, pio_unclaimed;
};

void pcdev_init(struct pcdev *d, const struct pcdev_cfg *cfg);
/* 0 if a device took the access, -ENOENT if none did (val untouched). */
int pcdev_pio(struct pcdev *d, uint16_t port, unsigned size, bool write, uint32_t *val);
/* Earliest timer deadline of the bundle (STIME_NEVER if none) and catch-up. */
stime_t pcdev_next_deadline(const struct pcdev *d);
void pcdev_advance(struct pcdev *d, stime_t now);
#endif
