/* 16550A UART model for COM1 (0x3F8, IRQ4). Output goes to dev_host.console_write;
 * the host pushes serial input with uart_input_push. Not locked: the caller
 * serialises accesses to one UART (one lock per VM's legacy devices). */
#ifndef HV_DEV_UART_H
#define HV_DEV_UART_H
#include "dev/dev.h"

#define UART_COM1_BASE 0x3f8
#define UART_COM1_IRQ  4
#define UART_NR_PORTS  8
#define UART_RXQ_SIZE  256   /* power of two */

struct uart {
	const struct dev_host *host;
	irq_line_fn irq;
	void *irqctx;
	uint16_t base;
	unsigned gsi;
	uint8_t ier, lcr, mcr, scr, fcr;
	uint8_t dll, dlm;
	bool thr_ipending;   /* THR-empty interrupt armed (cleared by IIR read) */
	bool overrun;
	bool irq_level;
	uint8_t rxq[UART_RXQ_SIZE];
	unsigned rx_head, rx_tail; /* free-running indices */
	uint64_t tx_bytes, rx_bytes;
};

void uart_init(struct uart *u, const struct dev_host *host, irq_line_fn irq,
	       void *irqctx, uint16_t base, unsigned gsi);
int uart_pio(struct uart *u, uint16_t port, unsigned size, bool write, uint32_t *val);
/* Queue bytes for the guest to read; returns how many were accepted. */
size_t uart_input_push(struct uart *u, const uint8_t *buf, size_t n);
#endif
