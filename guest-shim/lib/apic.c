/* Local APIC access in either mode: xAPIC MMIO at 0xFEE00000 or x2APIC MSRs
 * 0x800 + reg/16 (SDM Vol. 3 10.12.1.2), chosen by IA32_APIC_BASE.EXTD. */
#include "guest.h"

#define X2APIC_MSR(reg) (0x800u + ((reg) >> 4))
#define MSR_X2APIC_ICR  0x830
#define ICR_BUSY        (1u << 12)

/* The mode is per CPU (each LAPIC switches on its own), so it is kept per
 * CPU; apic_x2_mode is what apic_init() switches a CPU to. */
bool apic_x2_mode;
static bool x2_on[GUEST_MAX_CPUS];

static bool apic_x2_here(void)
{
	return x2_on[cpu_id()];
}

uint32_t apic_read(unsigned reg)
{
	if (apic_x2_here())
		return (uint32_t)rdmsr(X2APIC_MSR(reg));
	return mmio_read32(LAPIC_MMIO + reg);
}

void apic_write(unsigned reg, uint32_t v)
{
	if (apic_x2_here())
		wrmsr(X2APIC_MSR(reg), v);
	else
		mmio_write32(LAPIC_MMIO + reg, v);
}

unsigned apic_id(void)
{
	uint32_t id = apic_read(APIC_ID);

	return apic_x2_here() ? id : id >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

bool apic_x2_supported(void)
{
	return cpuid(1, 0).c & (1u << 21);
}

/* xAPIC -> x2APIC is a legal transition (SDM Vol. 3 Figure 10-27). */
int apic_x2_enable(void)
{
	if (!apic_x2_supported())
		return -1;
	if (wrmsr_safe(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | APIC_BASE_EN | APIC_BASE_X2))
		return -1;
	apic_x2_mode = true;
	x2_on[cpu_id()] = true;
	return 0;
}

/* Software-enable with spurious vector 0xff, accept all priorities, mask
 * every LVT (the 8259 is masked too: tests use the IOAPIC). */
void apic_init(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	if (!(base & APIC_BASE_EN))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN);
	if (apic_x2_mode && !(base & APIC_BASE_X2))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_X2);
	x2_on[cpu_id()] = !!(rdmsr(MSR_APIC_BASE) & APIC_BASE_X2);
	apic_write(APIC_SVR, 0x100 | VEC_SPURIOUS);
	apic_write(APIC_TPR, 0);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	apic_write(APIC_LVT_LINT0, APIC_LVT_MASKED);
	apic_write(APIC_LVT_LINT1, APIC_LVT_MASKED);
	apic_write(APIC_LVT_ERROR, APIC_LVT_MASKED);
	apic_write(APIC_TMICT, 0);
}

/* Level = assert for every IPI we send (SDM Vol. 3 10.6.1: only INIT
 * level de-assert clears it, which we never send). */
int apic_send_ipi(unsigned dest, uint32_t icr_lo)
{
	icr_lo |= ICR_ASSERT;
	if (apic_x2_here()) {
		wrmsr(MSR_X2APIC_ICR, ((uint64_t)dest << 32) | icr_lo);
		return 0;
	}
	mmio_write32(LAPIC_MMIO + APIC_ICR_HI, dest << 24);
	mmio_write32(LAPIC_MMIO + APIC_ICR_LO, icr_lo);
	for (int i = 0; i < 1000000; i++)
		if (!(mmio_read32(LAPIC_MMIO + APIC_ICR_LO) & ICR_BUSY))
			return 0;
	return -1;
}

void apic_timer_stop(void)
{
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	apic_write(APIC_TMICT, 0);
	if (cpuid(1, 0).c & (1u << 24))
		wrmsr_safe(MSR_TSC_DEADLINE, 0);
}
