/* Polled 16550 UART driver for the hypervisor console. */
#include "arch/x86/serial.h"
#include "arch/x86/cpu.h"

#define UART_THR 0
#define UART_DLL 0
#define UART_IER 1
#define UART_DLM 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LCR_8N1  0x03
#define LCR_DLAB 0x80
#define LSR_DR   0x01
#define LSR_THRE 0x20
#define LSR_TEMT 0x40

void serial_init(uint16_t port)
{
	outb(port + UART_IER, 0);
	outb(port + UART_LCR, LCR_DLAB);
	outb(port + UART_DLL, 1);        /* 115200 baud */
	outb(port + UART_DLM, 0);
	outb(port + UART_LCR, LCR_8N1);  /* Bochs honours the word length */
	outb(port + UART_FCR, 0x07);     /* enable and clear FIFOs */
	outb(port + UART_MCR, 0x03);     /* DTR | RTS */
}

void serial_putc(uint16_t port, char c)
{
	for (int i = 0; i < 100000 && !(inb(port + UART_LSR) & LSR_THRE); i++)
		cpu_relax();
	outb(port + UART_THR, (uint8_t)c);
}

int serial_getc(uint16_t port)
{
	if (!(inb(port + UART_LSR) & LSR_DR))
		return -1;
	return inb(port + UART_THR);
}

void serial_drain(uint16_t port)
{
	/* TEMT: holding register and shift register both empty (16550 LSR bit 6). */
	for (int i = 0; i < 1000000 && !(inb(port + UART_LSR) & LSR_TEMT); i++)
		cpu_relax();
}
