/* Placement of vCPUs on pCPUs and the simple per-pCPU round robin used until
 * the scheduler framework (hv/sched) drives the run loop. */
#ifndef HV_VM_PLACE_H
#define HV_VM_PLACE_H
#include "vm/vm.h"

unsigned place_vcpu(int requested);         /* -1: next pCPU round robin */
void place_commit(struct vm *vm);           /* link its vCPUs into the run lists */
struct vcpu *place_first(unsigned pcpu);
/* Next vCPU on pcpu that can make progress, after `last` (round robin). */
struct vcpu *place_pick(unsigned pcpu, struct vcpu *last);
bool vcpu_has_wakeup(struct vcpu *v);
void vm_print_exits(struct vm *vm);
#endif
