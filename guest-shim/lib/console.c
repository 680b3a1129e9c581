/* COM1 16550 console: polled transmit (LSR.THRE, bit 5), one lock so lines
 * from several CPUs do not interleave. */
#include "guest.h"

#define COM1        0x3f8
#define UART_THR    0
#define UART_IER    1
#define UART_FCR    2
#define UART_LCR    3
#define UART_MCR    4
#define UART_LSR    5
#define LSR_THRE    0x20
#define THRE_SPINS  100000             /* give up waiting rather than hang */

static glock_t con_lock;

void con_init(void)
{
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x80);       /* DLAB: divisor 1 = 115200 baud */
	outb(COM1 + 0, 0x01);
	outb(COM1 + 1, 0x00);
	outb(COM1 + UART_LCR, 0x03);       /* 8N1 */
	outb(COM1 + UART_FCR, 0x07);
	outb(COM1 + UART_MCR, 0x03);
}

static void con_putc(char c)
{
	for (int i = 0; i < THRE_SPINS && !(inb(COM1 + UART_LSR) & LSR_THRE); i++)
		cpu_pause();
	outb(COM1 + UART_THR, (uint8_t)c);
}

void con_write(const char *s, size_t n)
{
	glock_lock(&con_lock);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			con_putc('\r');
		con_putc(s[i]);
	}
	glock_unlock(&con_lock);
}

static void con_vprintf(const char *fmt, va_list ap)
{
	char buf[256];
	int n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);

	con_write(buf, n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void con_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	con_vprintf(fmt, ap);
	va_end(ap);
}
