/* bareload's hardware: COM1 output, the log functions hv/ code calls, and
 * the chipset set-up that makes bare Bochs look like the VM's platform where
 * Linux reads it: writable RAM at 0xE0000-0xFFFFF for the guest tables and
 * the ACPI PM block at the ports the guest FADT names. */
#include "bareload.h"
#include "arch/x86/cpu.h"
#include "dev/acpipm.h"
#include "lib/fmt.h"
#include "log.h"

#define COM1            0x3f8
#define UART_LSR_THRE   0x20
#define PCI_ADDR        0xcf8
#define PCI_DATA        0xcfc
#define PCI_ENABLE      0x80000000u

/* i440FX PMC (0:0.0): PAM0 bits 5:4 cover 0xF0000-0xFFFFF, PAM5/PAM6 the
 * four 16 KiB pieces of 0xE0000-0xEFFFF; 11b = reads and writes go to DRAM
 * (Intel 82441FX datasheet §3.2.18). */
#define I440FX_PAM0     0x59
#define I440FX_PAM5     0x5e
#define I440FX_PAM6     0x5f
#define PAM_RW_BOTH     0x33
/* PIIX4 power management function (0:1.3): PMBA at 0x40 (bit 0 reads 1),
 * PMREGMISC bit 0 enables the I/O block (Intel 82371AB datasheet §7.1). */
#define PIIX4_PM_DEVFN  ((1u << 3) | 3u)
#define PIIX4_PM_ID     0x71138086u
#define PIIX4_PMBA      0x40
#define PIIX4_PMREGMISC 0x80
#define PM1_CNT_SCI_EN  0x0001

int log_level = LOG_INFO;

static void bl_putc(char c)
{
	for (unsigned spin = 0; spin < 100000; spin++)
		if (inb(COM1 + 5) & UART_LSR_THRE)
			break;
	outb(COM1, (uint8_t)c);
}

/* 115200 8N1, FIFOs on: what Linux's earlyprintk programs anyway. */
void bl_serial_init(void)
{
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x80);
	outb(COM1 + 0, 0x01);
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);
	outb(COM1 + 2, 0x07);
	outb(COM1 + 4, 0x03);
}

void log_vprintf(int level, const char *fmt, va_list ap)
{
	char buf[512];

	if (level > log_level)
		return;
	fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	for (const char *p = buf; *p; p++) {
		if (*p == '\n')
			bl_putc('\r');
		bl_putc(*p);
	}
}

void log_printf(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprintf(level, fmt, ap);
	va_end(ap);
}

void panic_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	log_printf(LOG_ERR, "bareload: panic at %s:%d: ", file, line);
	va_start(ap, fmt);
	log_vprintf(LOG_ERR, fmt, ap);
	va_end(ap);
	log_printf(LOG_ERR, "\n");
	for (;;)
		__asm__ volatile("cli; hlt");
}

static void pci_select(unsigned devfn, unsigned reg)
{
	outl(PCI_ADDR, PCI_ENABLE | (devfn << 8) | (reg & 0xfc));
}

static uint32_t pci_read32(unsigned devfn, unsigned reg)
{
	pci_select(devfn, reg);
	return inl(PCI_DATA);
}

static void pci_write32(unsigned devfn, unsigned reg, uint32_t v)
{
	pci_select(devfn, reg);
	outl(PCI_DATA, v);
}

static uint8_t pci_read8(unsigned devfn, unsigned reg)
{
	pci_select(devfn, reg);
	return inb((uint16_t)(PCI_DATA + (reg & 3)));
}

static void pci_write8(unsigned devfn, unsigned reg, uint8_t v)
{
	pci_select(devfn, reg);
	outb((uint16_t)(PCI_DATA + (reg & 3)), v);
}

/* Move the PIIX4 PM block to ACPIPM_PM1A_EVT (the guest FADT's ports, where
 * the VM emulates PM1a and the PM timer) and start in ACPI mode (SCI_EN=1,
 * as the VM's acpipm device does: its FADT has no SMI command port). */
static void bl_pm_move(void)
{
	if (pci_read32(PIIX4_PM_DEVFN, 0) != PIIX4_PM_ID) {
		pr_warn("bareload: no PIIX4 PM function at 0:1.3; PM ports left alone\n");
		return;
	}
	pci_write32(PIIX4_PM_DEVFN, PIIX4_PMBA, ACPIPM_PM1A_EVT | 1u);
	pci_write8(PIIX4_PM_DEVFN, PIIX4_PMREGMISC,
		   pci_read8(PIIX4_PM_DEVFN, PIIX4_PMREGMISC) | 1u);
	outw(ACPIPM_PM1A_CNT, inw(ACPIPM_PM1A_CNT) | PM1_CNT_SCI_EN);
}

void bl_platform_prepare(void)
{
	pci_write8(0, I440FX_PAM0, pci_read8(0, I440FX_PAM0) | 0x30);
	pci_write8(0, I440FX_PAM5, PAM_RW_BOTH);
	pci_write8(0, I440FX_PAM6, PAM_RW_BOTH);
	bl_pm_move();
}
