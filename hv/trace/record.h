/* vProfile binary record: what a per-pCPU ring holds and what RECS frames
 * carry to the host decoder (tools/vprof unpacks it as '<qQHHBBH'). */
#ifndef HV_TRACE_RECORD_H
#define HV_TRACE_RECORD_H
#include "types.h"

enum vp_rec_kind {
	VPR_STATE = 1,   /* code = enum vp_state entered; arg = 1 for the start snapshot */
	VPR_EVENT = 2,   /* code = enum vp_event; arg = event argument */
	VPR_PMU   = 3,   /* code = enum vp_pmu_counter; arg = delta */
};

struct vp_rec {
	int64_t  t;      /* ns, the scheduler core's clock */
	uint64_t arg;
	uint16_t vm;     /* VPROF_VM_NONE for pCPU-only records */
	uint16_t vcpu;
	uint8_t  kind;
	uint8_t  code;
	uint16_t pcpu;   /* pCPU the vCPU is on (runs on, for VP_RUNNING) */
};
_Static_assert(sizeof(struct vp_rec) == 24, "vp_rec is part of the dump format");
#endif
