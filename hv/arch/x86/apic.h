/* Physical local APIC (xAPIC MMIO or x2APIC MSRs; SDM vol. 3 ch. 11). */
#ifndef HV_ARCH_X86_APIC_H
#define HV_ARCH_X86_APIC_H
#include "types.h"

struct trap_frame;

void apic_init(bool bsp);                 /* enable on this CPU */
uint32_t apic_id(void);
bool apic_is_x2apic(void);
void apic_eoi(void);
void apic_send_ipi(uint32_t dest, uint8_t vector);
void apic_send_init(uint32_t dest);
void apic_send_sipi(uint32_t dest, uint8_t page);
void apic_stop_others(void);              /* VEC_STOP to all but self */
void apic_ipi_others(uint8_t vector);     /* a fixed IPI to all but self */
void apic_timer_oneshot(uint64_t tsc_deadline);  /* 0 = cancel */
void apic_calibrate(void);                /* BSP, against the PIT */
void apic_spurious_irq(struct trap_frame *f);   /* VEC_SPURIOUS: no EOI */
#endif
