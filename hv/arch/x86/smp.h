/* SMP bring-up: INIT-SIPI-SIPI to every AP named by the MADT/MP table. */
#ifndef HV_ARCH_X86_SMP_H
#define HV_ARCH_X86_SMP_H
#include "types.h"
/* Start APs with the given APIC ids (the BSP's own id is skipped), using a
 * page below 1 MiB for the trampoline. Returns the number of CPUs online. */
/* Starts the APs; each runs ap_fn(its cpu index) and must not return. */
unsigned smp_boot(const uint32_t *apic_ids, unsigned n, unsigned max_cpus, paddr_t tramp_page,
		  void (*ap_fn)(unsigned cpu));
#endif
