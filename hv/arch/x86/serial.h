/* 16550 UART console on COM1 and Bochs/QEMU's port 0xE9 debug output. */
#ifndef HV_ARCH_X86_SERIAL_H
#define HV_ARCH_X86_SERIAL_H
#include "types.h"
#define COM1_PORT 0x3f8
void serial_init(uint16_t port);
void serial_putc(uint16_t port, char c);
int serial_getc(uint16_t port);   /* -1 when no byte is waiting */
void serial_drain(uint16_t port); /* wait until the transmitter is empty */
#endif
