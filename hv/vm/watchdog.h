/* Hang watchdog (issue 17): notices a vCPU runnable but not run, a VM that
 * makes no progress, or a pCPU that stops scheduling, for watchdog_ms of
 * hypervisor time, and prints a state dump (scheduler, pending interrupts,
 * timers, vProfile), then lets the run go on. docs/running.md "Watchdog". */
#ifndef HV_VM_WATCHDOG_H
#define HV_VM_WATCHDOG_H
#include "types.h"
#include "compiler.h"

/* First instant watchdog_poll_slow() has something to do (a check, the
 * debug stall, the first "watchdog: on|off" line); INT64_MAX: never. */
extern stime_t watchdog_next;
void watchdog_poll_slow(unsigned cpu, stime_t now);

/* From every pCPU's scheduler poll (one compare on the exit path); one pCPU
 * at a time checks, at most every watchdog_ms / 4. */
static inline void watchdog_poll(unsigned cpu, stime_t now)
{
	if (unlikely(now >= READ_ONCE(watchdog_next)))
		watchdog_poll_slow(cpu, now);
}

/* When an idle pCPU must wake to check (pCPU 0 only; INT64_MAX otherwise). */
static inline stime_t watchdog_deadline(unsigned cpu)
{
	return cpu == 0 ? READ_ONCE(watchdog_next) : INT64_MAX;
}
/* A vProfile dump line written by this pCPU (vm/vprof_platform.c's sink): a
 * pCPU writing a dump is busy, not stalled (vm/watchdog.c). */
void watchdog_dump_line(unsigned cpu);
/* The full dump now (the `w` console key, hvrun's timeout): `why` names the
 * trigger. Rate-limited to one a second. */
void watchdog_dump(const char *why, stime_t now);
#endif
