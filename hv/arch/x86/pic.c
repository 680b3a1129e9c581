/* The legacy 8259A pair: remapped away from the exception vectors (the BIOS
 * leaves IRQ0 on vector 8, which would look like #DF) and fully masked; the
 * hypervisor uses only the local APIC. */
#include "arch/x86/cpu.h"
#include "arch/x86/pic.h"

#define PIC1_CMD 0x20
#define PIC1_DATA 0x21
#define PIC2_CMD 0xa0
#define PIC2_DATA 0xa1

void pic_disable(void)
{
	/* ICW1: init + ICW4; ICW2: vector bases 0x20/0x28; ICW3: cascade on IR2;
	 * ICW4: 8086 mode (8259A datasheet, "Initialization Command Words"). */
	outb(PIC1_CMD, 0x11);
	outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, 0x20);
	outb(PIC2_DATA, 0x28);
	outb(PIC1_DATA, 0x04);
	outb(PIC2_DATA, 0x02);
	outb(PIC1_DATA, 0x01);
	outb(PIC2_DATA, 0x01);
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
}
