/* Time keeping: the TSC, calibrated against the PIT, converted to ns. */
#ifndef HV_ARCH_X86_TIME_H
#define HV_ARCH_X86_TIME_H
#include "types.h"
extern uint64_t tsc_hz;
void time_init(void);                     /* BSP: measure the TSC */
stime_t time_now(void);                   /* ns since boot */
uint64_t time_ns_to_tsc(stime_t ns);      /* absolute ns -> absolute TSC */
stime_t time_tsc_to_ns(uint64_t tsc);
void pit_wait_start(unsigned us);         /* channel 2 one-shot, gate on */
bool pit_wait_done(void);
void udelay(unsigned us);
#endif
