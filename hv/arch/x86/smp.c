/* Application-processor start-up (SDM vol. 3 §9.4.4, "MP Initialization
 * Example": INIT, 10 ms, SIPI, 200 us, SIPI). APs start one at a time. */
#include "arch/x86/smp.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/time.h"
#include "lib/string.h"
#include "log.h"

extern uint8_t tramp_start[], tramp_end[], t_gdtr_base[], t_farptr[], t_cr3[], t_stack[],
	t_entry[], t_cpu[], t_pm32[], t_gdt[];
static uint8_t ap_stacks[MAX_CPUS][CPU_STACK_SIZE] __aligned(4096);

#define TRAMP_FIELD(base, sym, type) (*(type *)((base) + ((sym) - tramp_start)))

static void ap_entry(unsigned cpu) __noreturn __used;
static void (*ap_main)(unsigned cpu);

static void ap_entry(unsigned cpu)
{
	ap_main(cpu);
	for (;;)
		cpu_halt();
}

static bool start_one(uint8_t *t, paddr_t page, unsigned cpu, uint32_t apic)
{
	TRAMP_FIELD(t, t_stack, uint64_t) = (uint64_t)ap_stacks[cpu] + CPU_STACK_SIZE;
	TRAMP_FIELD(t, t_cpu, uint32_t) = cpu;
	percpu_area[cpu].stack_top = (uint64_t)ap_stacks[cpu] + CPU_STACK_SIZE;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	apic_send_init(apic);
	udelay(10000);
	for (int i = 0; i < 2 && !READ_ONCE(percpu_area[cpu].online); i++) {
		apic_send_sipi(apic, (uint8_t)(page >> 12));
		udelay(200);
	}
	/* Allow up to 1 s of (possibly emulated) time for the AP to check in. */
	uint64_t end = rdtsc() + tsc_hz;
	while (!READ_ONCE(percpu_area[cpu].online) && rdtsc() < end)
		cpu_relax();
	return READ_ONCE(percpu_area[cpu].online);
}

unsigned smp_boot(const uint32_t *apic_ids, unsigned n, unsigned max_cpus, paddr_t page,
		  void (*ap_fn)(unsigned cpu))
{
	uint8_t *t = (uint8_t *)(uintptr_t)page;
	uint32_t self = apic_id();

	ap_main = ap_fn;
	unsigned next = 1;

	memcpy(t, tramp_start, (size_t)(tramp_end - tramp_start));
	TRAMP_FIELD(t, t_gdtr_base, uint32_t) = (uint32_t)(page + (t_gdt - tramp_start));
	TRAMP_FIELD(t, t_farptr, uint32_t) = (uint32_t)(page + (t_pm32 - tramp_start));
	TRAMP_FIELD(t, t_cr3, uint64_t) = read_cr3();
	TRAMP_FIELD(t, t_entry, uint64_t) = (uint64_t)ap_entry;

	for (unsigned i = 0; i < n && next < max_cpus && next < MAX_CPUS; i++) {
		if (apic_ids[i] == self)
			continue;
		/* xAPIC destinations are 8 bits, 0xff broadcast (SDM §11.6.1). */
		if (apic_ids[i] >= 0xff && !apic_is_x2apic()) {
			pr_err("smp: cpu with apic id %u needs x2APIC mode; not started\n",
			       apic_ids[i]);
			continue;
		}
		percpu_area[next].apic_id = apic_ids[i];
		if (start_one(t, page, next, apic_ids[i]))
			next++;
		else
			pr_err("smp: cpu with apic id %u did not start\n", apic_ids[i]);
	}
	return next;
}
