/* Binary min-heap of events ordered by (time, insertion sequence): equal-time
 * events pop in FIFO order, which keeps runs deterministic. */
#include <stdlib.h>
#include "sim.h"

static bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void simq_push(struct sim_eventq *q, stime_t t, int kind, int idx, uint64_t gen)
{
	size_t i;

	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 256;
		q->h = realloc(q->h, q->cap * sizeof(*q->h));
		if (!q->h)
			abort();
	}
	i = q->n++;
	q->h[i] = (struct sim_event){ t, q->seq++, kind, idx, gen };
	while (i && ev_before(&q->h[i], &q->h[(i - 1) / 2])) {
		struct sim_event tmp = q->h[i];

		q->h[i] = q->h[(i - 1) / 2];
		q->h[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

bool simq_pop(struct sim_eventq *q, struct sim_event *out)
{
	size_t i = 0;

	if (!q->n)
		return false;
	*out = q->h[0];
	q->h[0] = q->h[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < q->n && ev_before(&q->h[l], &q->h[m]))
			m = l;
		if (r < q->n && ev_before(&q->h[r], &q->h[m]))
			m = r;
		if (m == i)
			break;
		struct sim_event tmp = q->h[i];
		q->h[i] = q->h[m];
		q->h[m] = tmp;
		i = m;
	}
	return true;
}
