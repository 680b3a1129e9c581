/* Per-pCPU record rings (see ring.h): drop-newest, counted, never silent. */
#include "trace/ring.h"
#include "lib/string.h"

void vp_ring_init(struct vp_ring *r, struct vp_rec *buf, uint32_t cap)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->cap = cap;
}

/* Returns false when the record was dropped (ring full or absent). */
bool vp_ring_put(struct vp_ring *r, const struct vp_rec *rec)
{
	bool ok;

	spin_lock(&r->lock);
	r->recorded++;
	ok = r->head < r->cap;
	if (ok)
		r->buf[r->head++] = *rec;
	else
		r->lost++;
	spin_unlock(&r->lock);
	return ok;
}

/* Empty the ring; an idle pCPU's idle period restarts at now. */
void vp_ring_reset(struct vp_ring *r, stime_t now)
{
	spin_lock(&r->lock);
	r->head = 0;
	r->recorded = 0;
	r->lost = 0;
	r->idle_ns = 0;
	r->idle_since = now;
	spin_unlock(&r->lock);
}

/* Records below the returned count are complete and immutable until a reset. */
uint32_t vp_ring_used(struct vp_ring *r)
{
	uint32_t n;

	spin_lock(&r->lock);
	n = r->head;
	spin_unlock(&r->lock);
	return n;
}
