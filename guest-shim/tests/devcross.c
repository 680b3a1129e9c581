/* A platform timer armed by another vCPU: vCPU 1 starts the RTC periodic
 * interrupt (IRQ 8, 1024 Hz) while vCPU 0, which takes it through the IOAPIC,
 * is halted on its own pCPU. The hypervisor advances platform devices on
 * vCPU 0's pCPU, so it must notice the new deadline at once (an IPI to that
 * pCPU), not at vCPU 0's next unrelated wake-up. hlt_until()'s watchdog (the
 * PIT at 20 Hz, hence the RTC here) bounds a miss to 50 ms; each of three
 * rounds must see the interrupt within 10 ms. */
#include "guest.h"

const char test_name[] = "devcross";

#define VEC_RTC   0x52
#define CMOS_IDX  0x70
#define CMOS_DAT  0x71
#define ROUNDS    3

static volatile uint32_t go, armed;
static volatile uint64_t arm_tsc, irq_tsc;
static glock_t cmos_lock;   /* index/data pairs from two vCPUs */

static uint8_t cmos_read(uint8_t r)
{
	uint8_t v;

	glock_lock(&cmos_lock);
	outb(CMOS_IDX, r);
	v = inb(CMOS_DAT);
	glock_unlock(&cmos_lock);
	return v;
}

static void cmos_write(uint8_t r, uint8_t v)
{
	glock_lock(&cmos_lock);
	outb(CMOS_IDX, r);
	outb(CMOS_DAT, v);
	glock_unlock(&cmos_lock);
}

/* First interrupt of a round: note the time, stop the periodic source. */
static void on_rtc(unsigned v)
{
	if (!irq_tsc)
		irq_tsc = rdtsc();
	cmos_write(0x0b, cmos_read(0x0b) & ~0x40);
	cmos_read(0x0c);                       /* acknowledge */
}

/* On vCPU 1: give vCPU 0 2 ms to halt, then start the periodic interrupt. */
static void arm_rtc(unsigned cpu)
{
	while (!go)
		cpu_pause();
	delay_us(2000);
	cmos_read(0x0c);                            /* no stale flag: the IRQ waits for a tick */
	arm_tsc = rdtsc();
	cmos_write(0x0b, cmos_read(0x0b) | 0x40);   /* PIE */
	armed = 1;
}

void test_main(void)
{
	unsigned gsi = acpi_isa_to_gsi(8), fast = 0;
	char name[32];

	irq_set_handler(VEC_RTC, on_rtc);
	test_check("two_vcpus", smp_nr_cpus() >= 2 && smp_start_ap(1, 0x08, NULL) == 0, "%u vCPUs",
		   smp_nr_cpus());
	cmos_write(0x0a, (cmos_read(0x0a) & 0xf0) | 0x06);   /* 1024 Hz */
	cmos_read(0x0c);
	ioapic_route(gsi, VEC_RTC, apic_id(), false, false);
	for (int r = 0; r < ROUNDS; r++) {
		uint32_t before = irq_counts[VEC_RTC];
		uint64_t us;
		bool woke;

		go = armed = 0;
		irq_tsc = 0;
		smp_run_on(1, arm_rtc, 0);     /* returns at once; vCPU 1 waits for go */
		go = 1;
		woke = hlt_until(&irq_counts[VEC_RTC], before + 1, 500);
		us = woke && armed ? (irq_tsc - arm_tsc) * 1000 / tsc_khz : ~0ull;
		fmt_snprintf(name, sizeof(name), "round%d", r);
		fast += test_check(name, woke && us < 10000, "IRQ8 %llu us after vCPU 1 started it",
				   (unsigned long long)us);
	}
	ioapic_mask(gsi);
	test_check("all_rounds_fast", fast == ROUNDS, "%u of %d", fast, ROUNDS);
}
