/* Hypervisor-wide entry points: init order and how a run ends. */
#ifndef HV_HV_H
#define HV_HV_H
#include "compiler.h"

/* How the run ends, set by exit= (qemu: isa-debug-exit at 0xf4; bochs: the
 * 0x8900 shutdown port; none: halt). Always prints the HVRUN-EXIT line. */
enum hv_exit_mode { HV_EXIT_HALT, HV_EXIT_QEMU, HV_EXIT_BOCHS, HV_EXIT_ACPI };

__noreturn void hv_exit(int status, const char *reason);
void hv_main(uint32_t magic, uint32_t mbi);
void hv_ap_main(unsigned cpu);
#endif
