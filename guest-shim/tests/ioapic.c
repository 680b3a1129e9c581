/* IOAPIC-routed interrupts: the PIT (ISA IRQ 0, GSI from the MADT override,
 * usually 2) and the RTC periodic interrupt (IRQ 8) to vectors on the BSP;
 * masking the pin stops delivery. Waits spin first (no HLT hang if nothing
 * arrives), then one HLT wake-up by the PIT. */
#include "guest.h"

const char test_name[] = "ioapic";

#define VEC_PIT  0x51
#define VEC_RTC  0x52
#define PIT_HZ   1193182u
#define CMOS_IDX 0x70
#define CMOS_DAT 0x71

static uint8_t cmos_read(uint8_t r)
{
	outb(CMOS_IDX, r);
	return inb(CMOS_DAT);
}

static void cmos_write(uint8_t r, uint8_t v)
{
	outb(CMOS_IDX, r);
	outb(CMOS_DAT, v);
}

static void on_rtc(unsigned v)
{
	cmos_read(0x0c);                       /* acknowledge: read register C */
}

static void pit_start_100hz(void)
{
	uint16_t count = PIT_HZ / 100;

	outb(0x43, 0x34);                      /* channel 0, lo/hi, mode 2 */
	outb(0x40, count & 0xff);
	outb(0x40, count >> 8);
}

static void check_registers(unsigned pins)
{
	ioapic_write(0x10 + 2 * 5, 0x10000 | 0x77);
	uint32_t lo = ioapic_read(0x10 + 2 * 5);

	test_check("version", pins >= 16 && pins <= 240, "%u pins, version 0x%x", pins,
		   ioapic_read(1) & 0xff);
	test_check("rte_readback", (lo & 0x100ff) == 0x10077, "RTE 5 low 0x%x", lo);
}

static void check_pit(unsigned pins)
{
	unsigned gsi = acpi_isa_to_gsi(0);
	uint64_t t0;
	bool got;

	ioapic_route(gsi, VEC_PIT, apic_id(), false, false);
	t0 = rdtsc();
	pit_start_100hz();
	got = wait_count(&irq_counts[VEC_PIT], 5, 2000);
	uint64_t ms = (rdtsc() - t0) / tsc_khz;
	test_check("pit", got && ms >= 25 && ms < 1000, "GSI %u: %u interrupts in %llu ms (100 Hz)",
		   gsi, irq_counts[VEC_PIT], (unsigned long long)ms);
	if (got)
		test_check("pit_hlt_wake", hlt_until_raw(&irq_counts[VEC_PIT], irq_counts[VEC_PIT] + 2, 1000),
			   "HLT woken twice");
	ioapic_mask(gsi);
	delay_us(2000);
	uint32_t before = irq_counts[VEC_PIT];
	delay_us(50000);
	test_check("pit_masked", irq_counts[VEC_PIT] == before, "%u interrupts while masked",
		   irq_counts[VEC_PIT] - before);
}

static void check_rtc(void)
{
	unsigned gsi = acpi_isa_to_gsi(8);
	bool got;

	irq_set_handler(VEC_RTC, on_rtc);
	ioapic_route(gsi, VEC_RTC, apic_id(), false, false);
	cmos_write(0x0a, (cmos_read(0x0a) & 0xf0) | 0x06);   /* 1024 Hz */
	cmos_write(0x0b, cmos_read(0x0b) | 0x40);            /* PIE */
	cmos_read(0x0c);
	got = wait_count(&irq_counts[VEC_RTC], 4, 1000);
	cmos_write(0x0b, cmos_read(0x0b) & ~0x40);
	ioapic_mask(gsi);
	test_check("rtc_periodic", got, "GSI %u: %u interrupts", gsi, irq_counts[VEC_RTC]);
}

void test_main(void)
{
	unsigned pins = ioapic_nr_pins();

	test_check("madt", acpi_find("APIC") != NULL, "IOAPIC at 0x%lx", (unsigned long)acpi_ioapic_base());
	check_registers(pins);
	check_pit(pins);
	check_rtc();
}
