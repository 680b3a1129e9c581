/* Fixed-size pCPU bitmaps for affinity, idlers and work masks (up to
 * SCHED_MAX_PCPUS). Word updates that race between pCPUs use atomics. */
#ifndef HV_SCHED_CPUMASK_H
#define HV_SCHED_CPUMASK_H
#include "compiler.h"

#define SCHED_MAX_PCPUS 256
#define CPUMASK_WORDS   (SCHED_MAX_PCPUS / 64)

struct cpumask {
	uint64_t w[CPUMASK_WORDS];
};

static inline void cpumask_zero(struct cpumask *m)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		m->w[i] = 0;
}

/* All pCPUs 0..n-1 set. */
static inline void cpumask_fill(struct cpumask *m, unsigned n)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++) {
		unsigned lo = i * 64;
		m->w[i] = n >= lo + 64 ? ~0ULL : n > lo ? BIT(n - lo) - 1 : 0;
	}
}

static inline bool cpumask_test(const struct cpumask *m, unsigned c)
{
	return c < SCHED_MAX_PCPUS && (READ_ONCE(m->w[c / 64]) & BIT(c % 64));
}

static inline void cpumask_set(struct cpumask *m, unsigned c)
{
	if (c < SCHED_MAX_PCPUS)
		__atomic_fetch_or(&m->w[c / 64], BIT(c % 64), __ATOMIC_RELAXED);
}

static inline void cpumask_clear(struct cpumask *m, unsigned c)
{
	if (c < SCHED_MAX_PCPUS)
		__atomic_fetch_and(&m->w[c / 64], ~BIT(c % 64), __ATOMIC_RELAXED);
}

static inline bool cpumask_empty(const struct cpumask *m)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		if (READ_ONCE(m->w[i]))
			return false;
	return true;
}

static inline unsigned cpumask_weight(const struct cpumask *m)
{
	unsigned n = 0;

	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		n += (unsigned)__builtin_popcountll(READ_ONCE(m->w[i]));
	return n;
}

/* First set bit >= from in (a & b), no wrap; SCHED_MAX_PCPUS if none.
 * b may be NULL (= all ones). */
static inline unsigned cpumask_next_and(const struct cpumask *a, const struct cpumask *b,
					unsigned from)
{
	for (unsigned i = from / 64; i < CPUMASK_WORDS; i++) {
		uint64_t x = READ_ONCE(a->w[i]) & (b ? READ_ONCE(b->w[i]) : ~0ULL);

		if (i == from / 64)
			x &= ~0ULL << (from % 64);
		if (x)
			return i * 64 + (unsigned)__builtin_ctzll(x);
	}
	return SCHED_MAX_PCPUS;
}

/* Same, but searching from `from` upwards and then wrapping to 0. */
static inline unsigned cpumask_next_and_wrap(const struct cpumask *a, const struct cpumask *b,
					     unsigned from)
{
	unsigned c = from < SCHED_MAX_PCPUS ? cpumask_next_and(a, b, from) : SCHED_MAX_PCPUS;

	return c < SCHED_MAX_PCPUS ? c : cpumask_next_and(a, b, 0);
}

#define for_each_cpu(c, m) \
	for ((c) = cpumask_next_and((m), NULL, 0); (c) < SCHED_MAX_PCPUS; \
	     (c) = cpumask_next_and((m), NULL, (c) + 1))

/* The same set word by word: a few instructions per set bit and none per
 * clear one (for wide masks, e.g. a co-scheduling signal to every pCPU).
 * Each word is read once; the body must not `break` (it would leave only
 * the word's loop). */
#define for_each_cpu_word(c, m)                                                  \
	for (unsigned c##_w = 0; c##_w < CPUMASK_WORDS; c##_w++)                   \
		for (uint64_t c##_x = READ_ONCE((m)->w[c##_w]);                    \
		     c##_x && ((c) = c##_w * 64 + (unsigned)__builtin_ctzll(c##_x), 1); \
		     c##_x &= c##_x - 1)
#endif
