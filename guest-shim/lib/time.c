/* Time: TSC calibrated against PIT channel 2 gated by port 0x61 (8254 mode 0,
 * as Linux's pit_calibrate_tsc does), 8259 masking, bounded waits. */
#include "guest.h"

#define PIT_HZ        1193182u
#define PIT_CH2       0x42
#define PIT_CMD       0x43
#define PORT_61       0x61
#define P61_GATE2     0x01
#define P61_SPEAKER   0x02
#define P61_OUT2      0x20
#define CAL_MS        10
#define CAL_TRIES     3
#define CAL_SPINS     20000000u
#define FALLBACK_KHZ  1000000u         /* 1 GHz if the PIT does not count */

uint64_t tsc_khz = FALLBACK_KHZ;
bool tsc_calibrated;

/* TSC ticks over one CAL_MS run of PIT channel 2, or 0 if it did not count. */
static uint64_t tsc_calibrate_once(void)
{
	uint32_t count = PIT_HZ * CAL_MS / 1000;
	uint64_t t0, t1;
	uint32_t i;

	outb(PORT_61, (inb(PORT_61) & ~P61_SPEAKER) & ~P61_GATE2);
	outb(PIT_CMD, 0xb0);               /* channel 2, lo/hi byte, mode 0, binary */
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	outb(PORT_61, (inb(PORT_61) & ~P61_SPEAKER) | P61_GATE2);   /* start */
	t0 = rdtsc();
	for (i = 0; i < CAL_SPINS && !(inb(PORT_61) & P61_OUT2); i++)
		;
	t1 = rdtsc();
	outb(PORT_61, inb(PORT_61) & ~P61_GATE2);
	if (i == CAL_SPINS || t1 - t0 < CAL_MS * 1000)
		return 0;
	return t1 - t0;
}

/* A vCPU descheduled during a run sees OUT2 late, so that run reads too
 * many ticks (a guest sharing its pCPU once calibrated a 10 MHz TSC as
 * 70 MHz); it never reads too few. The shortest of CAL_TRIES runs is
 * right unless every one was preempted (Linux's pit_calibrate_tsc retries
 * for the same reason). */
void tsc_calibrate(void)
{
	uint64_t best = 0;

	for (unsigned k = 0; k < CAL_TRIES; k++) {
		uint64_t t = tsc_calibrate_once();

		if (t && (!best || t < best))
			best = t;
	}
	if (!best) {
		con_printf("WARN: PIT channel 2 did not count; assuming a %u kHz TSC\n",
			   FALLBACK_KHZ);
		return;
	}
	tsc_khz = best / CAL_MS;
	tsc_calibrated = true;
}

/* Remap the 8259s to 0x20/0x28 (ICW1-4) and mask every line. */
void pic_disable(void)
{
	outb(0x20, 0x11);
	outb(0xa0, 0x11);
	outb(0x21, 0x20);
	outb(0xa1, 0x28);
	outb(0x21, 0x04);
	outb(0xa1, 0x02);
	outb(0x21, 0x01);
	outb(0xa1, 0x01);
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

void delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + us * tsc_khz / 1000;

	while (!tsc_passed(end))
		cpu_pause();
}

bool wait_count(volatile uint32_t *p, uint32_t want, unsigned ms)
{
	uint64_t end = tsc_after_ms(ms);

	while (*p < want) {
		if (tsc_passed(end))
			return false;
		cpu_pause();
	}
	return true;
}

/* Watchdog for HLT waits: PIT channel 0 at 20 Hz through the IOAPIC, so a
 * wake-up that never comes ends in a FAIL line, not a hung VM (as long as
 * the PIT and IOAPIC work). */
#define WATCHDOG_HZ 20

static void watchdog(bool on)
{
	unsigned gsi = acpi_isa_to_gsi(0);
	uint16_t count = PIT_HZ / WATCHDOG_HZ;

	if (!on) {
		ioapic_mask(gsi);
		outb(PIT_CMD, 0x30);           /* channel 0, mode 0, no reload */
		outb(0x40, 0);
		outb(0x40, 0);
		return;
	}
	ioapic_route(gsi, VEC_WATCHDOG, apic_id(), false, false);
	outb(PIT_CMD, 0x34);                   /* channel 0, lo/hi, mode 2 */
	outb(0x40, count & 0xff);
	outb(0x40, count >> 8);
}

/* cli; test; sti;hlt - the STI shadow closes the wake-up race. */
bool hlt_until(volatile uint32_t *p, uint32_t want, unsigned ms)
{
	bool ok;

	watchdog(true);
	ok = hlt_until_raw(p, want, ms);
	watchdog(false);
	return ok;
}

bool hlt_until_raw(volatile uint32_t *p, uint32_t want, unsigned ms)
{
	uint64_t end = tsc_after_ms(ms);
	bool ok = true;

	for (;;) {
		cli();
		if (*p >= want)
			break;
		if (tsc_passed(end)) {
			ok = false;
			break;
		}
		sti_hlt();
	}
	sti();
	return ok;
}
