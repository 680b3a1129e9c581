/* Intel 8254 PIT (ports 0x40-0x43) plus the port-0x61 bits it owns (channel 2
 * gate, speaker enable, channel 2 output, refresh toggle). Counting is derived
 * from dev_host.now at 1.193182 MHz; channel 0 drives ISA IRQ0 through the
 * pull model (pit_next_deadline / pit_advance). Not locked: caller serialises. */
#ifndef HV_DEV_PIT_H
#define HV_DEV_PIT_H
#include "dev/dev.h"

#define PIT_PORT_CH0   0x40
#define PIT_PORT_CMD   0x43
#define PIT_PORT_61    0x61
#define PIT_HZ         1193182ULL
#define PIT_IRQ        0

struct pit_channel {
	uint32_t reload;        /* 1..65536 (a written 0 means 65536) */
	uint8_t mode;           /* 0-5 */
	uint8_t rw;             /* 1 LSB, 2 MSB, 3 LSB then MSB */
	bool bcd;
	bool counting;          /* a count is loaded and (for modes 1/5) triggered */
	bool paused;            /* gate low in a mode where it suspends counting */
	bool armed;             /* count loaded, waiting for a gate edge (modes 1/5) */
	bool out_idle;          /* output while not counting */
	bool null_count;
	uint64_t start;         /* tick at which counting started */
	uint64_t frozen;        /* elapsed ticks while paused */
	uint16_t latch;
	uint8_t latch_left;     /* bytes of latched count still to read (0-2) */
	bool latch_msb_next;    /* with rw 3, next latched byte is the MSB */
	bool status_latched;
	uint8_t status;
	bool read_msb;          /* unlatched read flip-flop (rw 3) */
	bool write_msb;         /* write flip-flop (rw 3) */
	uint8_t write_lsb;
	bool gate;
};

struct pit {
	const struct dev_host *host;
	irq_line_fn irq;
	void *irqctx;
	struct pit_channel ch[3];
	uint8_t port61;          /* bits 0-3 as written */
	uint64_t irq_next;       /* tick of channel 0's next IRQ0 edge, UINT64_MAX if none */
	uint64_t irqs;           /* IRQ0 pulses raised */
	uint64_t irqs_missed;    /* periodic edges coalesced because advance came late */
};

void pit_init(struct pit *p, const struct dev_host *host, irq_line_fn irq, void *irqctx);
/* Ports 0x40-0x43 and 0x61. */
int pit_pio(struct pit *p, uint16_t port, unsigned size, bool write, uint32_t *val);
stime_t pit_next_deadline(const struct pit *p);
void pit_advance(struct pit *p, stime_t now);
/* For tests and the integrator's debug dump. */
uint16_t pit_count_get(struct pit *p, unsigned ch, stime_t now);
bool pit_out_get(struct pit *p, unsigned ch, stime_t now);
#endif
