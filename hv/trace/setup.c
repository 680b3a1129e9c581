/* vProfile's setup (seed 001 §2): the rings carved from the platform's
 * memory, the detectors' and dedicated mode's reset, the sink and the exit
 * trace switch. Above spin.c and dedicated_period.c, which record through
 * record.c's state (tools/check_layers.py). */
#include "trace/internal.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

size_t vprof_mem_size(unsigned npcpus, size_t recs_per_pcpu)
{
	return (size_t)npcpus * recs_per_pcpu * sizeof(struct vp_rec);
}

int vprof_init(unsigned npcpus, void *mem, size_t len)
{
	size_t per;

	if (npcpus == 0 || npcpus > VPROF_MAX_PCPUS || !mem || !IS_ALIGNED((uintptr_t)mem, 8))
		return trace_error(-EINVAL);
	per = len / npcpus / sizeof(struct vp_rec);
	if (per == 0)
		return trace_error(-EINVAL);
	if (per > UINT32_MAX)
		per = UINT32_MAX;
	memset(&vp_g, 0, sizeof(vp_g));
	vp_ded_reset();
	vp_spin_reset();
	vp_g.npcpus = npcpus;
	for (unsigned v = 0; v < VPROF_MAX_VMS; v++)
		for (unsigned c = 0; c < VPROF_MAX_VCPUS; c++)
			vp_g.vm[v].vcpu[c].s.state = VP_OFFLINE;   /* until the core says */
	for (unsigned i = 0; i < npcpus; i++)
		vp_ring_init(&vp_g.ring[i], (struct vp_rec *)mem + i * per, (uint32_t)per);
	return 0;
}

void vprof_set_sink(vprof_sink_t sink, void *ctx)
{
	vp_g.sink_ctx = ctx;
	vp_g.sink = sink;
}

void vprof_set_exit_trace(bool on)
{
	WRITE_ONCE(vp_g.exit_trace, on);
}
