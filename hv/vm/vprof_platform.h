/* vProfile platform (issue 5, docs/vprofile.md "Integration"): boots the
 * recorder in hv/trace with memory and the serial sink, declares each VM of
 * the boot modules, counts VM exits, and ends profiles when a VM or the run
 * ends.
 * The HC_VPROF_* hypercalls are registered here too (hv/hypercall.h). */
#ifndef HV_VM_VPROF_PLATFORM_H
#define HV_VM_VPROF_PLATFORM_H
#include "bootinfo.h"

struct vm;
struct vcpu;

/* Records per pCPU ring (24 bytes each): 16 Ki = 384 KiB per pCPU. */
#define VPROF_GLUE_RECS_PER_PCPU 16384u

/* BSP, once, after sched_plat_init() and before any vCPU runs: recorder
 * memory, sink, PLE window, dedicated-mode hook, and one vprof_vm_config()
 * per role=kernel module (permission from the `vprof=dedicated` key).
 * Failure only leaves tracing off: the hypercalls then return -ENODEV. */
void vprof_plat_init(const struct boot_info *bi);
/* exit_dispatch(): one VM exit of v with basic reason `reason`; called only
 * while *vprof_plat_exit_flag(v's VM) is set. */
void vprof_plat_exit(struct vcpu *v, uint32_t reason);
/* vcpu_create(): the flag exit_dispatch() polls for VM id vm (never set
 * when tracing is off). vprof_plat_init() has run by then. */
const volatile bool *vprof_plat_exit_flag(unsigned vm);
/* vm_stop(): vm ended; dumps its trace if a profile was running. */
void vprof_plat_vm_end(struct vm *vm);
/* vm_finish(), before hv_exit(): dumps every running profile. */
void vprof_plat_shutdown(void);
#endif
