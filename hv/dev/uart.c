/* 16550A UART: register file, receive queue and interrupt identification
 * (register layout and IIR priorities per the TI/NS PC16550D data sheet).
 * The transmitter is infinitely fast: THR writes leave at once, so LSR.THRE
 * and LSR.TEMT always read set and a THRE interrupt follows every write. */
#include "dev/uart.h"
#include "compiler.h"
#include "errno.h"
#include "lib/string.h"

enum { UART_RBR = 0, UART_IER = 1, UART_IIR = 2, UART_LCR = 3, UART_MCR = 4,
       UART_LSR = 5, UART_MSR = 6, UART_SCR = 7 };

#define IER_RDI    BIT(0)
#define IER_THRI   BIT(1)
#define IER_RLSI   BIT(2)
#define IIR_NO_INT 0x01
#define IIR_RLSI   0x06
#define IIR_RDI    0x04
#define IIR_THRI   0x02
#define IIR_FIFO   0xc0
#define FCR_ENABLE BIT(0)
#define FCR_CLR_RX BIT(1)
#define LCR_DLAB   BIT(7)
#define MCR_LOOP   BIT(4)
#define LSR_DR     BIT(0)
#define LSR_OE     BIT(1)
#define LSR_THRE   BIT(5)
#define LSR_TEMT   BIT(6)

static unsigned uart_rx_count(const struct uart *u)
{
	return u->rx_tail - u->rx_head;
}

static uint8_t uart_iir_get(const struct uart *u)
{
	uint8_t fifo = (u->fcr & FCR_ENABLE) ? IIR_FIFO : 0;

	if ((u->ier & IER_RLSI) && u->overrun)
		return fifo | IIR_RLSI;
	if ((u->ier & IER_RDI) && uart_rx_count(u))
		return fifo | IIR_RDI;
	if ((u->ier & IER_THRI) && u->thr_ipending)
		return fifo | IIR_THRI;
	return fifo | IIR_NO_INT;
}

/* Like QEMU, the line is not gated by MCR.OUT2: guests that poll never
 * enable IER, and guests that use interrupts set OUT2 anyway. */
static void uart_irq_update(struct uart *u)
{
	bool level = (uart_iir_get(u) & IIR_NO_INT) == 0;

	if (level == u->irq_level)
		return;
	u->irq_level = level;
	if (u->irq)
		u->irq(u->irqctx, u->gsi, level);
}

static void uart_rx_put(struct uart *u, uint8_t c)
{
	if (uart_rx_count(u) == UART_RXQ_SIZE) {
		u->overrun = true;
		return;
	}
	u->rxq[u->rx_tail++ % UART_RXQ_SIZE] = c;
	u->rx_bytes++;
}

static uint8_t uart_rx_get(struct uart *u)
{
	if (!uart_rx_count(u))
		return 0;
	return u->rxq[u->rx_head++ % UART_RXQ_SIZE];
}

static void uart_thr_write(struct uart *u, uint8_t c)
{
	if (u->mcr & MCR_LOOP) {
		uart_rx_put(u, c);
	} else {
		char ch = (char)c;

		if (u->host && u->host->console_write)
			u->host->console_write(u->host->ctx, &ch, 1);
	}
	u->tx_bytes++;
	u->thr_ipending = true;
}

/* Modem status: in loopback the outputs feed the inputs (DTR->DSR, RTS->CTS,
 * OUT1->RI, OUT2->DCD); otherwise a null modem with CTS, DSR, DCD up. */
static uint8_t uart_msr_get(const struct uart *u)
{
	uint8_t m = u->mcr;

	if (!(m & MCR_LOOP))
		return 0xb0;
	return (uint8_t)(((m & 1) << 5) | ((m & 2) << 3) | ((m & 4) << 4) | ((m & 8) << 4));
}

static uint8_t uart_lsr_get(struct uart *u)
{
	uint8_t lsr = LSR_THRE | LSR_TEMT;

	if (uart_rx_count(u))
		lsr |= LSR_DR;
	if (u->overrun)
		lsr |= LSR_OE;
	u->overrun = false;   /* OE clears on read */
	return lsr;
}

static uint8_t uart_reg_read(struct uart *u, unsigned reg)
{
	bool dlab = u->lcr & LCR_DLAB;
	uint8_t iir;

	switch (reg) {
	case UART_RBR: return dlab ? u->dll : uart_rx_get(u);
	case UART_IER: return dlab ? u->dlm : u->ier;
	case UART_IIR:
		iir = uart_iir_get(u);
		if ((iir & 0x0f) == IIR_THRI)
			u->thr_ipending = false;  /* reading IIR acks THRE */
		return iir;
	case UART_LCR: return u->lcr;
	case UART_MCR: return u->mcr;
	case UART_LSR: return uart_lsr_get(u);
	case UART_MSR: return uart_msr_get(u);
	default:       return u->scr;
	}
}

static void uart_ier_write(struct uart *u, uint8_t v)
{
	/* Enabling ETBEI while THR is empty raises THRE at once (8250 behaviour
	 * Linux's serial8250 THRE test relies on). */
	if ((v & IER_THRI) && !(u->ier & IER_THRI))
		u->thr_ipending = true;
	u->ier = v & 0x0f;
}

static void uart_reg_write(struct uart *u, unsigned reg, uint8_t v)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (reg) {
	case UART_RBR:
		if (dlab)
			u->dll = v;
		else
			uart_thr_write(u, v);
		break;
	case UART_IER:
		if (dlab)
			u->dlm = v;
		else
			uart_ier_write(u, v);
		break;
	case UART_IIR:
		if (v & FCR_CLR_RX)
			u->rx_head = u->rx_tail;
		u->fcr = v & 0xc9;
		break;
	case UART_LCR: u->lcr = v; break;
	case UART_MCR: u->mcr = v & 0x1f; break;
	case UART_SCR: u->scr = v; break;
	default: break;   /* LSR, MSR: read-only */
	}
}

void uart_init(struct uart *u, const struct dev_host *host, irq_line_fn irq,
	       void *irqctx, uint16_t base, unsigned gsi)
{
	memset(u, 0, sizeof(*u));
	u->host = host;
	u->irq = irq;
	u->irqctx = irqctx;
	u->base = base;
	u->gsi = gsi;
	u->dll = 0x0c;   /* 9600 baud, as after a BIOS */
	u->lcr = 0x03;   /* 8N1 */
}

/* Whether an access can change what uart_iir_get() sees (IER, FCR, the
 * receive queue, overrun, THRE pending): THR/RBR and IER without DLAB, FCR
 * writes; IIR and LSR reads. LCR, MCR, MSR, SCR and the divisor latch
 * cannot, so those skip the interrupt re-evaluation. */
static bool uart_reg_feeds_irq(const struct uart *u, unsigned reg, bool write)
{
	bool dlab = u->lcr & LCR_DLAB;

	if (reg == UART_RBR || (write && reg == UART_IER))
		return !dlab;
	return reg == UART_IIR || (!write && reg == UART_LSR);
}

/* Wider accesses act on the byte at the port (the 16550 has an 8-bit bus). */
int uart_pio(struct uart *u, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	unsigned reg;
	bool feeds;

	if (port < u->base || port >= u->base + UART_NR_PORTS)
		return -ENOENT;
	reg = port - u->base;
	feeds = uart_reg_feeds_irq(u, reg, write);   /* before an LCR write moves DLAB */
	if (write)
		uart_reg_write(u, reg, (uint8_t)*val);
	else
		*val = uart_reg_read(u, reg);
	if (feeds)
		uart_irq_update(u);
	return 0;
}

size_t uart_input_push(struct uart *u, const uint8_t *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n && uart_rx_count(u) < UART_RXQ_SIZE; i++)
		uart_rx_put(u, buf[i]);
	uart_irq_update(u);
	return i;
}

static void uart_dev_init(void *dev, const struct dev_cfg *cfg)
{
	uart_init(dev, cfg->host, cfg->irq, cfg->irqctx, UART_COM1_BASE, UART_COM1_IRQ);
}

/* COM1. Untimed: the UART has no timer, its interrupt line follows at once. */
DEV_REGISTER(uart, .size = sizeof(struct uart), .init = uart_dev_init,
	     .pio = DEV_PIO_OP(struct uart, uart_pio),
	     DEV_PIO_RANGES({ UART_COM1_BASE, UART_COM1_BASE + UART_NR_PORTS - 1, 0 }));
