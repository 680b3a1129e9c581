/* Physical local APIC driver: x2APIC when the CPU has it, xAPIC MMIO otherwise
 * (SDM vol. 3 §11.4, §11.12). The timer runs TSC-deadline when available
 * (§11.5.4.1), else one-shot with a PIT-calibrated count. */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/time.h"
#include "arch/x86/trap.h"
#include "arch/x86/percpu.h"
#include "log.h"

#define XAPIC_BASE_DEFAULT 0xfee00000ull
#define APIC_ID       0x020
#define APIC_EOI      0x0b0
#define APIC_SVR      0x0f0
#define APIC_ICR_LO   0x300
#define APIC_ICR_HI   0x310
#define APIC_LVT_TMR  0x320
#define APIC_TMR_INIT 0x380
#define APIC_TMR_CUR  0x390
#define APIC_TMR_DIV  0x3e0

#define SVR_ENABLE        BIT(8)
#define LVT_MASK          BIT(16)
#define LVT_TSC_DEADLINE  (2u << 17)
#define ICR_INIT          (5u << 8)
#define ICR_SIPI          (6u << 8)
#define ICR_LEVEL_ASSERT  BIT(14)
#define ICR_PENDING       BIT(12)
#define ICR_ALL_BUT_SELF  (3u << 18)

static bool x2apic;
static bool tsc_deadline;
static uint64_t xapic_base = XAPIC_BASE_DEFAULT;
static uint64_t apic_hz;  /* one-shot timer ticks per second (divide by 1) */

static uint32_t apic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(MSR_X2APIC_BASE + (reg >> 4));
	return mmio_read32(xapic_base + reg);
}

static void apic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(MSR_X2APIC_BASE + (reg >> 4), v);
	else
		mmio_write32(xapic_base + reg, v);
}

static void apic_icr(uint32_t dest, uint32_t lo)
{
	if (x2apic) {
		/* x2APIC ICR is one 64-bit MSR; no delivery-status polling (§11.12.9). */
		wrmsr(MSR_X2APIC_BASE + (APIC_ICR_LO >> 4), ((uint64_t)dest << 32) | lo);
		return;
	}
	mmio_write32(xapic_base + APIC_ICR_HI, dest << 24);
	mmio_write32(xapic_base + APIC_ICR_LO, lo);
	for (int i = 0; i < 1000000 && (mmio_read32(xapic_base + APIC_ICR_LO) & ICR_PENDING); i++)
		cpu_relax();
}

/* VEC_SPURIOUS's handler, registered by the init sequence (hv/main.c), so
 * that the driver does not call back into the dispatcher that calls
 * apic_eoi (tools/check_layers.py). */
void apic_spurious_irq(struct trap_frame *f)
{
	/* No EOI for spurious interrupts (§11.9). */
}

void apic_init(bool bsp)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	if (bsp) {
		x2apic = cpu_has(1, CPUID_ECX, 21);
		tsc_deadline = cpu_has(1, CPUID_ECX, 24);
		xapic_base = base & ~0xfffull & ((1ull << 52) - 1);
	}
	base |= APIC_BASE_EN;
	wrmsr(MSR_IA32_APIC_BASE, base);
	if (x2apic && !(base & APIC_BASE_EXTD))
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EXTD);
	apic_write(APIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
	apic_write(APIC_LVT_TMR, LVT_MASK | VEC_TIMER);
	apic_write(APIC_TMR_DIV, 0xb);   /* divide by 1 */
}

bool apic_is_x2apic(void)
{
	return x2apic;
}

uint32_t apic_id(void)
{
	uint32_t id = apic_read(APIC_ID);
	return x2apic ? id : id >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

void apic_send_ipi(uint32_t dest, uint8_t vector)
{
	apic_icr(dest, vector);
}

void apic_send_init(uint32_t dest)
{
	apic_icr(dest, ICR_INIT | ICR_LEVEL_ASSERT);
}

void apic_send_sipi(uint32_t dest, uint8_t page)
{
	apic_icr(dest, ICR_SIPI | page);
}

void apic_stop_others(void)
{
	if (nr_cpus_online > 1)
		apic_icr(0, ICR_ALL_BUT_SELF | VEC_STOP);
}

void apic_ipi_others(uint8_t vector)
{
	if (nr_cpus_online > 1)
		apic_icr(0, ICR_ALL_BUT_SELF | vector);
}

void apic_calibrate(void)
{
	if (tsc_deadline) {
		pr_info("apic: %s mode, TSC-deadline timer\n", x2apic ? "x2APIC" : "xAPIC");
		return;
	}
	apic_write(APIC_LVT_TMR, LVT_MASK | VEC_TIMER);
	apic_write(APIC_TMR_INIT, 0xffffffff);
	pit_wait_start(10000);
	uint32_t c0 = apic_read(APIC_TMR_CUR);
	while (!pit_wait_done())
		cpu_relax();
	uint32_t c1 = apic_read(APIC_TMR_CUR);
	apic_write(APIC_TMR_INIT, 0);
	apic_hz = (uint64_t)(c0 - c1) * 100;
	pr_info("apic: %s mode, one-shot timer %lu kHz (PIT-calibrated)\n",
		x2apic ? "x2APIC" : "xAPIC", apic_hz / 1000);
}

void apic_timer_oneshot(uint64_t deadline)
{
	if (!deadline) {
		if (tsc_deadline)
			wrmsr(MSR_IA32_TSC_DEADLINE, 0);
		else
			apic_write(APIC_TMR_INIT, 0);
		return;
	}
	if (tsc_deadline) {
		apic_write(APIC_LVT_TMR, LVT_TSC_DEADLINE | VEC_TIMER);
		wrmsr(MSR_IA32_TSC_DEADLINE, deadline);
		return;
	}
	uint64_t now = rdtsc();
	uint64_t delta = deadline > now ? deadline - now : 1;
	uint64_t ticks = (uint64_t)(((unsigned __int128)delta * apic_hz) / tsc_hz);
	if (ticks == 0)
		ticks = 1;
	if (ticks > 0xffffffffull)
		ticks = 0xffffffffull;
	apic_write(APIC_LVT_TMR, VEC_TIMER);
	apic_write(APIC_TMR_INIT, (uint32_t)ticks);
}
