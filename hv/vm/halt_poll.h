/* Halt polling on the vCPU's own pCPU (halt_poll.c; hv/sched/haltpoll.c). */
#ifndef HV_VM_HALT_POLL_H
#define HV_VM_HALT_POLL_H
#include "vm/vcpu.h"

enum halt_poll_end {
	HALT_POLL_BLOCK,     /* no wake-up in the window (or other work): block */
	HALT_POLL_WOKEN,     /* an interrupt to take: resume the guest */
	HALT_POLL_RECHECK,   /* a device deadline or the scheduler's: back to the loop top */
};
/* Has halted v an interrupt to take? vcpu_has_wakeup(), with a lock-free
 * positive answer first for a vCPU that halted with IF = 1 (halt_poll.c). */
bool vcpu_halt_woken(struct vcpu *v);
/* v is halted with nothing to take; `now` was read at the loop top. */
enum halt_poll_end vcpu_halt_poll(struct vcpu *v, stime_t now);
#endif
