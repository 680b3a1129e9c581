/* The device sweep of blocked vCPUs (vm/dev_sweep.c), for the per-pCPU loop
 * (vm/pcpu_loop.c). dev_sweep_poll(), which runs it at each loop top, and
 * dev_sweep_vectors_pending() are declared in vm/sched_platform.h. */
#ifndef HV_VM_DEV_SWEEP_H
#define HV_VM_DEV_SWEEP_H
#include "cpu.h"

/* Blocked or balloon-sleeping vCPUs whose runqueue is c: advance their device
 * timers, wake those with an interrupt to take; sets c's blocked deadline. */
void dev_sweep_blocked(struct cpu *c, stime_t now);
#endif
