/* vProfile's global state (struct vp_global, trace/internal.h): the per-pCPU
 * rings, the per-VM accumulators, the sink. The helpers that index it and
 * write a timeline record are inline in internal.h, so every file of
 * hv/trace depends on this one and this one on none of them. */
#include "trace/internal.h"

struct vp_global vp_g;

uint64_t vprof_bad_ids(void)
{
	return __atomic_load_n(&vp_g.bad_ids, __ATOMIC_RELAXED);
}
