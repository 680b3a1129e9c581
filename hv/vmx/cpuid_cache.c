/* Which CPUID leaves the per-VM cache keeps, and where (cpuid_cache.h).
 * Pure logic: builds on the host for unit tests. */
#include "vmx/cpuid_cache.h"
#include "compiler.h"

/* Basic leaves that cpuid_filter_apply() answers from the VM policy and the
 * host alone, with no subleaf (SDM vol. 2A CPUID): 0 (vendor, max leaf),
 * 2 (TLB/cache descriptors), 3, 5 (zeroed), 6 (ARAT only), 0xA (zeroed),
 * 0x15/0x16 (TSC and frequency). Not 1 (APIC ID, OSXSAVE, APIC), 4/7/0xB/
 * 0xD/0xF/0x10/0x12/0x14/0x1F (subleaves; 0xD also XCR0). */
#define CACHE_BASIC (BIT(0x0) | BIT(0x2) | BIT(0x3) | BIT(0x5) | BIT(0x6) | BIT(0xa) | \
		     BIT(0x15) | BIT(0x16))
#define EXT_BASE    0x80000000u
#define EXT_N       9u            /* 0x80000000..0x80000008: no subleaves on Intel */
#define HV_BASE     0x40000000u
#define HV_ALT      0x40000100u
#define SLOT_EXT    32
#define SLOT_HV     (SLOT_EXT + EXT_N)
_Static_assert(SLOT_HV + 3 <= CPUID_CACHE_SLOTS, "cpuid cache slots");

int cpuid_cache_slot(uint32_t leaf)
{
	if (leaf < 32)
		return (int)leaf;
	if (leaf - EXT_BASE < EXT_N)
		return SLOT_EXT + (int)(leaf - EXT_BASE);
	if (leaf - HV_BASE < 2)   /* signature, KVM features: policy only */
		return SLOT_HV + (int)(leaf - HV_BASE);
	if (leaf == HV_ALT)
		return SLOT_HV + 2;
	return -1;
}

static bool cpuid_cache_keeps(uint32_t leaf)
{
	return leaf < 32 ? (CACHE_BASIC >> leaf) & 1 : cpuid_cache_slot(leaf) >= 0;
}

void cpuid_cache_put(struct cpuid_cache *c, uint32_t leaf, const struct cpuid_regs *r)
{
	int s = cpuid_cache_slot(leaf);

	if (s < 0 || !cpuid_cache_keeps(leaf))
		return;
	c->slot[s] = *r;
	__atomic_fetch_or(&c->valid, 1ull << s, __ATOMIC_RELEASE);
}
