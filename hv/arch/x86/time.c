/* TSC calibration against PIT channel 2 (CPUID 15h/16h are not trusted: Bochs
 * claims 1.5 GHz whatever its instruction rate) and TSC <-> ns conversion. */
#include "arch/x86/time.h"
#include "arch/x86/cpu.h"
#include "log.h"

#define PIT_HZ        1193182u
#define PIT_CH2       0x42
#define PIT_CMD       0x43
#define PORT_61       0x61
#define P61_GATE2     BIT(0)
#define P61_SPEAKER   BIT(1)
#define P61_OUT2      BIT(5)

uint64_t tsc_hz;
static uint64_t tsc_boot;
static uint64_t ns_per_tsc_q32;   /* ns per TSC tick, 32.32 fixed point */
static uint64_t tsc_per_ns_q32;

void pit_wait_start(unsigned us)
{
	uint32_t count = (uint32_t)(((uint64_t)PIT_HZ * us) / 1000000u);

	if (count > 0xffff)
		count = 0xffff;
	/* Gate low, speaker off; channel 2, lobyte/hibyte, mode 0 (SDM-era 8254 datasheet). */
	outb(PORT_61, (inb(PORT_61) & ~(P61_SPEAKER | P61_GATE2)));
	outb(PIT_CMD, 0xb0);
	outb(PIT_CH2, (uint8_t)count);
	outb(PIT_CH2, (uint8_t)(count >> 8));
	outb(PORT_61, (inb(PORT_61) & ~P61_SPEAKER) | P61_GATE2);
}

bool pit_wait_done(void)
{
	return inb(PORT_61) & P61_OUT2;
}

void time_init(void)
{
	uint64_t t0, t1;

	pit_wait_start(10000);
	t0 = rdtsc();
	while (!pit_wait_done())
		cpu_relax();
	t1 = rdtsc();
	tsc_hz = (t1 - t0) * 100;
	if (tsc_hz < 1000000) {
		pr_warn("time: TSC calibration gave %lu Hz; assuming 1 GHz\n", tsc_hz);
		tsc_hz = 1000000000ull;
	}
	ns_per_tsc_q32 = (uint64_t)(((unsigned __int128)1000000000ull << 32) / tsc_hz);
	tsc_per_ns_q32 = (uint64_t)(((unsigned __int128)tsc_hz << 32) / 1000000000ull);
	tsc_boot = t0;
	pr_info("time: TSC %lu.%03lu MHz (PIT-calibrated)\n", tsc_hz / 1000000,
		(tsc_hz / 1000) % 1000);
}

stime_t time_tsc_to_ns(uint64_t tsc)
{
	/* Signed: a guest may name a TSC value from before the host booted. */
	int64_t d = (int64_t)(tsc - tsc_boot);
	uint64_t mag = d < 0 ? -(uint64_t)d : (uint64_t)d;
	stime_t ns = (stime_t)(((unsigned __int128)mag * ns_per_tsc_q32) >> 32);

	return d < 0 ? -ns : ns;
}

stime_t time_now(void)
{
	return time_tsc_to_ns(rdtsc());
}

uint64_t time_ns_to_tsc(stime_t ns)
{
	return tsc_boot + (uint64_t)(((unsigned __int128)ns * tsc_per_ns_q32) >> 32);
}

void udelay(unsigned us)
{
	uint64_t end = rdtsc() + tsc_hz / 1000000 * us;

	while (rdtsc() < end)
		cpu_relax();
}
