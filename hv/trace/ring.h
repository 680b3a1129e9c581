/* Fixed-size per-pCPU record rings. When full, new records are dropped and
 * counted (`lost`): the records already stored never change, so a dump can
 * read them while the pCPU keeps tracing. Lock order: vm lock -> ring lock. */
#ifndef HV_TRACE_RING_H
#define HV_TRACE_RING_H
#include "spinlock.h"
#include "trace/record.h"

struct vp_ring {
	spinlock_t lock;
	uint32_t cap;            /* records in buf */
	uint32_t head;           /* records stored */
	uint64_t recorded;       /* records offered since the last reset */
	uint64_t lost;           /* records dropped because the ring was full */
	stime_t idle_since;      /* pCPU idle accounting (VPE_IDLE_BEGIN/END) */
	uint64_t idle_ns;
	bool idle;
	struct vp_rec *buf;
};

void vp_ring_init(struct vp_ring *r, struct vp_rec *buf, uint32_t cap);
bool vp_ring_put(struct vp_ring *r, const struct vp_rec *rec);
void vp_ring_reset(struct vp_ring *r, stime_t now);
uint32_t vp_ring_used(struct vp_ring *r);
#endif
