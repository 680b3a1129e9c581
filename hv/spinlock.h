/* Ticket spinlock usable in both the image and host builds. */
#ifndef HV_SPINLOCK_H
#define HV_SPINLOCK_H
#include "compiler.h"

typedef struct { volatile uint32_t next, owner; } spinlock_t;
#define SPINLOCK_INIT { 0, 0 }

static inline void cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ volatile("pause" ::: "memory");
#endif
}

static inline void spin_lock(spinlock_t *l)
{
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		cpu_relax();
}

static inline bool spin_trylock(spinlock_t *l)
{
	uint32_t o = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	uint32_t n = o;
	return __atomic_compare_exchange_n(&l->next, &n, o + 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return READ_ONCE(l->next) != READ_ONCE(l->owner);
}
#endif
