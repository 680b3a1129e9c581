/* AP start-up (SDM Vol. 3 10.4.4: INIT, 10 ms, SIPI; we send a single SIPI on
 * purpose, the platform contract says one suffices) and work posting to APs
 * idling in HLT. CPU index == APIC ID; GUEST_MAX_CPUS at most. */
#include "guest.h"

extern const char ap_tramp_start[], ap_tramp_end[];
extern char ap_stacks[];
void ap_main(void);

volatile uint32_t smp_online, smp_online_mask;
static cpu_fn ap_first_fn;
static cpu_fn volatile ap_work[GUEST_MAX_CPUS];
static volatile uint32_t ap_done[GUEST_MAX_CPUS];

/* The CPU index comes from the stack pointer (entry.S gives APIC ID n the
 * n-th AP stack; the BSP has its own), so it needs no LAPIC access. */
unsigned cpu_id(void)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t base = (uintptr_t)ap_stacks;

	if (sp < base || sp >= base + AP_STACK_SIZE * GUEST_MAX_CPUS)
		return 0;
	return (unsigned)((sp - base) / AP_STACK_SIZE);
}

unsigned smp_nr_cpus(void)
{
	unsigned n = fwcfg_nr_cpus();

	if (!n)
		n = acpi_nr_lapics();
	if (!n)
		n = 1;
	return n > GUEST_MAX_CPUS ? GUEST_MAX_CPUS : n;
}

/* The trampoline is position independent; vector 0 puts it at address 0. */
static void tramp_install(uint8_t vector)
{
	volatile uint8_t *dst = (volatile uint8_t *)((uintptr_t)vector << 12);

	for (size_t i = 0; i < (size_t)(ap_tramp_end - ap_tramp_start); i++)
		dst[i] = (uint8_t)ap_tramp_start[i];
}

void ap_main(void)
{
	unsigned me;

	idt_load();
	apic_init();
	me = cpu_id();
	if (ap_first_fn)
		ap_first_fn(me);
	__atomic_fetch_or(&smp_online_mask, 1u << me, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&smp_online, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		cpu_fn fn;

		cli();
		fn = ap_work[me];
		if (!fn) {
			sti_hlt();
			continue;
		}
		ap_work[me] = NULL;
		sti();
		fn(me);
		__atomic_fetch_add(&ap_done[me], 1, __ATOMIC_SEQ_CST);
	}
}

int smp_start_ap(unsigned apic, uint8_t sipi_vector, cpu_fn fn)
{
	uint32_t before = smp_online;

	ap_first_fn = fn;
	tramp_install(sipi_vector);
	if (apic_send_ipi(apic, ICR_INIT | ICR_ASSERT))
		return -1;
	delay_us(10000);
	if (apic_send_ipi(apic, ICR_SIPI | ICR_ASSERT | sipi_vector))
		return -1;
	return wait_count(&smp_online, before + 1, 2000) ? 0 : -1;
}

int smp_start_all(cpu_fn fn)
{
	unsigned n = smp_nr_cpus(), bsp = cpu_id();
	int rc = 0;

	for (unsigned id = 0; id < n; id++)
		if (id != bsp && !(smp_online_mask & (1u << id)) && smp_start_ap(id, 0x08, fn))
			rc = -1;
	return rc;
}

int smp_run_on(unsigned cpu, cpu_fn fn, unsigned ms)
{
	uint32_t done = ap_done[cpu];

	ap_work[cpu] = fn;
	apic_send_ipi(cpu, VEC_KICK);
	return wait_count(&ap_done[cpu], done + 1, ms) ? 0 : -1;
}
