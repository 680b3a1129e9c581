/* AP start-up in a 4-vCPU guest: INIT + one SIPI per AP, AP 1 through a
 * trampoline at address 0 (SIPI vector 0), the others at 0x8000. Every AP
 * checks in with its APIC ID; then all CPUs hammer one spinlock. */
#include "guest.h"

const char test_name[] = "smp";

#define LOCK_ROUNDS 20000

static volatile uint32_t seen_id[GUEST_MAX_CPUS];
static volatile uint32_t hammer_go, hammer_done;
static glock_t lock;
static uint32_t shared_counter;        /* only touched under lock */

static void check_in(unsigned cpu)
{
	seen_id[cpu] = apic_id() + 1;
}

static void hammer(unsigned cpu)
{
	while (!hammer_go)
		cpu_pause();
	for (int i = 0; i < LOCK_ROUNDS; i++) {
		glock_lock(&lock);
		uint32_t v = shared_counter;
		cpu_pause();
		shared_counter = v + 1;
		glock_unlock(&lock);
	}
	__atomic_fetch_add(&hammer_done, 1, __ATOMIC_SEQ_CST);
}

void test_main(void)
{
	unsigned n = smp_nr_cpus(), ok = 0;
	char name[32];

	test_check("four_vcpus", n >= 4, "%u vCPUs (fw_cfg %u, MADT %u)", n, fwcfg_nr_cpus(),
		   acpi_nr_lapics());
	for (unsigned id = 1; id < n; id++) {
		uint8_t vec = id == 1 ? 0x00 : 0x08;
		int rc = smp_start_ap(id, vec, check_in);

		fmt_snprintf(name, sizeof(name), "ap%u_checkin", id);
		ok += test_check(name, rc == 0 && seen_id[id] == id + 1,
				 "SIPI vector 0x%02x, APIC ID %d", vec, (int)seen_id[id] - 1);
	}
	test_check("all_online", smp_online == n - 1 && ok == n - 1, "%u of %u APs",
		   smp_online, n - 1);
	hammer_done = 0;
	for (unsigned c = 1; c < n; c++)
		smp_run_on(c, hammer, 0);      /* posted; they wait for hammer_go */
	hammer_go = 1;
	hammer(0);
	wait_count(&hammer_done, n, 5000);
	test_check("spinlock", shared_counter == n * LOCK_ROUNDS, "counter %u want %u",
		   shared_counter, n * LOCK_ROUNDS);
}
