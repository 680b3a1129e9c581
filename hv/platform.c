/* Host platform discovery: the RSDP from multiboot2 (or a BIOS-area scan),
 * then MADT, falling back to the MP table. */
#include "platform.h"
#include "arch/x86/apic.h"
#include "log.h"

struct platform_info host_platform;
uint32_t host_apic_ids[MAX_CPUS];
unsigned host_nr_apic_ids;

void host_platform_init(const struct boot_info *bi)
{
	struct platform_info *pi = &host_platform;

	if (platform_discover(bi->rsdp_len ? bi->rsdp : NULL, bi->rsdp_len, pi) ||
	    pi->nr_cpus_enabled == 0) {
		pr_warn("platform: no ACPI MADT or MP table lists the CPUs; using the boot CPU only\n");
		host_apic_ids[0] = 0;   /* fixed up by boot_cpus() from the running APIC */
		host_nr_apic_ids = 1;
		return;
	}
	platform_print(pi);
	for (unsigned i = 0; i < pi->nr_cpus && host_nr_apic_ids < MAX_CPUS; i++)
		if (pi->cpus[i].flags & PLATFORM_CPU_ENABLED)
			host_apic_ids[host_nr_apic_ids++] = pi->cpus[i].apic_id;
	if (pi->nr_cpus_enabled > MAX_CPUS)
		pr_warn("platform: %u CPUs, only %u supported\n", pi->nr_cpus_enabled, MAX_CPUS);
}
