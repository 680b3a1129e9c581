/* Port I/O of every size and string I/O: UART scratch register, fw_cfg
 * (16-bit select, byte data, rep insb), rep outsb to the UART, absent ports
 * read as all ones, no PCI (0xCF8/0xCFC), the ACPI PM timer (32-bit). */
#include "guest.h"

const char test_name[] = "pio";

#define COM1_SCR   0x3ff
#define COM1_THR   0x3f8
#define PCI_ADDR   0xcf8
#define PCI_DATA   0xcfc

static const uint16_t absent_ports[] = { 0x3e8, 0x2e8, 0x160, 0x1e0 };

static void check_scratch(void)
{
	static const uint8_t seq[8] = { 1, 2, 3, 4, 5, 6, 7, 0x88 };
	uint8_t buf[16];
	bool all = true;

	outb(COM1_SCR, 0xa5);
	test_check("outb_inb", inb(COM1_SCR) == 0xa5, "scratch 0x%x", inb(COM1_SCR));
	outsb(COM1_SCR, seq, sizeof(seq));
	test_check("outsb_scratch", inb(COM1_SCR) == 0x88, "last byte 0x%x", inb(COM1_SCR));
	outb(COM1_SCR, 0x5a);
	memset(buf, 0, sizeof(buf));
	insb(COM1_SCR, buf, sizeof(buf));
	for (unsigned i = 0; i < sizeof(buf); i++)
		all &= buf[i] == 0x5a;
	test_check("insb_scratch", all, "buf[0] 0x%x buf[15] 0x%x", buf[0], buf[15]);
}

/* The line goes out through rep outsb, 16 bytes (one 16550 FIFO) per
 * instruction once THRE says the FIFO is empty: if string output to the UART
 * is broken the runner sees no (or a mangled) PASS line, and the SUMMARY
 * count no longer matches the PASS lines. */
static void check_outsb_uart(void)
{
	char line[64];
	int n = fmt_snprintf(line, sizeof(line), "TEST %s_outsb_uart PASS\r\n", test_name);

	for (int off = 0; off < n; off += 16) {
		for (int i = 0; i < 100000 && !(inb(COM1_THR + 5) & 0x20); i++)
			cpu_pause();
		outsb(COM1_THR, line + off, (size_t)(n - off < 16 ? n - off : 16));
	}
	test_count(true);
}

static void check_fwcfg(void)
{
	char sig[5] = "";

	outw(0x510, 0x0000);
	insb(0x511, sig, 4);
	test_check("fwcfg_insb", !memcmp(sig, "QEMU", 4), "signature '%.4s'", sig);
	test_check("fwcfg_cpus", fwcfg_nr_cpus() >= 1, "%u CPUs", fwcfg_nr_cpus());
}

static void check_absent(void)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < ARRAY_SIZE(absent_ports); i++) {
		uint16_t p = absent_ports[i];
		uint8_t b = inb(p);
		uint16_t w = inw(p);
		uint32_t l = inl(p);
		uint8_t buf[4] = { 0 };

		insb(p, buf, sizeof(buf));
		if (b != 0xff || w != 0xffff || l != 0xffffffffu || buf[0] != 0xff || buf[3] != 0xff) {
			con_printf("pio: port 0x%x reads 0x%x 0x%x 0x%x\n", p, b, w, l);
			bad++;
		}
	}
	test_check("absent_all_ones", !bad, "%u of %u ports differ", bad,
		   (unsigned)ARRAY_SIZE(absent_ports));
}

static void check_no_pci(void)
{
	outl(PCI_ADDR, 0x80000000u);           /* bus 0, device 0, vendor/device ID */
	uint32_t id = inl(PCI_DATA);

	test_check("no_pci", id == 0xffffffffu, "00:00.0 ID 0x%08x", id);
}

static void check_pm_timer(void)
{
	uint16_t port = acpi_pm_timer_port();
	uint32_t a, b;

	if (!port) {
		test_check("pm_timer", false, "no FADT or no PM timer port");
		return;
	}
	a = inl(port) & 0xffffff;
	delay_us(2000);
	b = inl(port) & 0xffffff;
	/* 3.579545 MHz: about 7159 ticks in 2 ms */
	uint32_t d = (b - a) & 0xffffff;
	test_check("pm_timer", d > 3000 && d < 100000, "port 0x%x advanced %u ticks in 2 ms", port, d);
}

void test_main(void)
{
	check_scratch();
	check_outsb_uart();
	check_fwcfg();
	check_absent();
	check_no_pci();
	check_pm_timer();
	test_check("pit_ch2", tsc_calibrated, "TSC %llu kHz from PIT channel 2",
		   (unsigned long long)tsc_khz);
}
