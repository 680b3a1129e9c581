/* Per-VM cache of filtered CPUID answers (the CPUID exit's fast path). Only
 * leaves whose filtered answer depends on nothing but the VM's policy are
 * kept: not on the vCPU (APIC IDs), the subleaf, guest state (CR4.OSXSAVE,
 * APIC enable) or the loaded XCR0 (leaf 0xD). Filled lazily on the first
 * miss of each leaf; concurrent fills of one leaf store the same value. */
#ifndef HV_VMX_CPUID_CACHE_H
#define HV_VMX_CPUID_CACHE_H
#include "vmx/cpuid_filter.h"

#define CPUID_CACHE_SLOTS 64

struct cpuid_cache {
	uint64_t valid;                               /* bit per filled slot */
	struct cpuid_regs slot[CPUID_CACHE_SLOTS];
};

/* Slot of a cacheable leaf, or -1 (see cpuid_cache.c for the list). */
int cpuid_cache_slot(uint32_t leaf);

/* The cached answer for leaf, or NULL. */
static inline const struct cpuid_regs *cpuid_cache_find(const struct cpuid_cache *c,
							uint32_t leaf)
{
	int s = cpuid_cache_slot(leaf);

	if (s < 0 || !((__atomic_load_n(&c->valid, __ATOMIC_ACQUIRE) >> s) & 1))
		return NULL;
	return &c->slot[s];
}

/* The same for basic leaves only (slot = leaf): a comparison and a bit test,
 * no call, for the CPUID exit's hot path. */
static inline const struct cpuid_regs *cpuid_cache_find_basic(const struct cpuid_cache *c,
							      uint32_t leaf)
{
	if (leaf >= 32 || !((__atomic_load_n(&c->valid, __ATOMIC_ACQUIRE) >> leaf) & 1))
		return NULL;
	return &c->slot[leaf];
}

/* r is the filtered answer for leaf; kept if the leaf is cacheable. */
void cpuid_cache_put(struct cpuid_cache *c, uint32_t leaf, const struct cpuid_regs *r);
#endif
