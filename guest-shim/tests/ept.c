/* Guest-physical addresses outside RAM and device ranges below 4 GiB: reads
 * return all ones and writes are dropped (they never reach RAM, including
 * the RAM an address would alias if high bits were truncated). Far memory
 * (above 4 GiB) is the eptfar image. */
#include "guest.h"

const char test_name[] = "ept";

#define ALIAS_OFF  0x3f000u            /* low bits of every probe: alias in free RAM */
#define SENTINEL   0xa5a5a5a5u

static uint64_t probe_addrs[8];
static unsigned nr_probes;

static void probe_add(uint64_t a)
{
	if (a < 0xfec00000ull && a >= boot.ram_top && nr_probes < ARRAY_SIZE(probe_addrs))
		probe_addrs[nr_probes++] = ((a + 0xfffffull) & ~0xfffffull) | ALIAS_OFF;
}

/* RAM the probe would hit if the top address bits were dropped. */
static volatile uint32_t *alias_of(uint64_t a)
{
	uint64_t mask = 1;

	while (mask < boot.ram_top)
		mask <<= 1;
	return (volatile uint32_t *)(uintptr_t)(a & (mask - 1) & 0xfffff);
}

static void check_probe(uint64_t a)
{
	volatile uint32_t *hole = (volatile uint32_t *)(uintptr_t)a, *alias = alias_of(a);
	uint32_t r1 = 0, r2 = 0;
	int f1, f2;
	char name[32];

	*alias = SENTINEL;
	f1 = read32_safe((uintptr_t)a, &r1);
	*hole = 0x12345678u;
	f2 = read32_safe((uintptr_t)a, &r2);
	fmt_snprintf(name, sizeof(name), "hole_%08llx", (unsigned long long)a);
	test_check(name, !f1 && !f2 && r1 == 0xffffffffu && r2 == 0xffffffffu && *alias == SENTINEL,
		   "read 0x%08x, after write 0x%08x, alias at %p 0x%08x, faults %d/%d",
		   r1, r2, (void *)alias, *alias, f1, f2);
}

void test_main(void)
{
	probe_add(boot.ram_top);               /* first byte past RAM */
	probe_add(boot.ram_top + 0x4000000);
	probe_add(0xc0000000ull);              /* GUEST_MAX_RAM: start of the MMIO hole */
	probe_add(0xd0000000ull);
	probe_add(0xe0000000ull);
	probe_add(0xfe000000ull);
	test_check("ram_size", boot.ram_top > 0x100000 && nr_probes >= 3,
		   "RAM ends at 0x%llx, %u probes", (unsigned long long)boot.ram_top, nr_probes);
	for (unsigned i = 0; i < nr_probes; i++)
		check_probe(probe_addrs[i]);
}
