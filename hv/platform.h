/* The host platform as the hypervisor uses it: CPUs and power control from
 * ACPI (MADT/FADT) or the MP table (hv/arch/x86/acpi.h holds the parsers). */
#ifndef HV_PLATFORM_H
#define HV_PLATFORM_H
#include "bootinfo.h"
#include "arch/x86/acpi.h"
#include "arch/x86/percpu.h"

extern struct platform_info host_platform;
/* APIC ids of the usable CPUs, BSP included. */
extern uint32_t host_apic_ids[MAX_CPUS];
extern unsigned host_nr_apic_ids;

/* Discover the platform; without ACPI or an MP table, runs on the boot CPU. */
void host_platform_init(const struct boot_info *bi);
#endif
