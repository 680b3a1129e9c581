/* SMP bring-up: INIT-SIPI-SIPI to every AP named by the MADT/MP table. */
#ifndef HV_ARCH_X86_SMP_H
#define HV_ARCH_X86_SMP_H
#include "types.h"
/* Start APs with the given APIC ids (the BSP's own id is skipped), using a
 * page below 1 MiB for the trampoline. Returns the number of CPUs online. */
unsigned smp_boot(const uint32_t *apic_ids, unsigned n, unsigned max_cpus, paddr_t tramp_page);
#endif
