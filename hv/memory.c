/* Host memory bring-up: the page allocator gets usable RAM below the end of
 * the 1:1 map, minus the image, the boot information, the modules (guest
 * images are used in place), the firmware's ACPI tables, every non-RAM range
 * of the memory map, and the first MiB except a window for the AP trampoline. */
#include "memory.h"
#include "platform.h"
#include "mm/pmm.h"
#include "mm/pmm_boot.h"
#include "lib/string.h"
#include "arch/x86/cpu.h"
#include "errno.h"
#include "log.h"

extern char __image_start[], __image_end[], __ro_end[];
extern uint64_t boot_pdpt[512];

paddr_t hv_direct_map_end = HV_LOW_MAP_END;

#define PTE_P  BIT(0)
#define PTE_W  BIT(1)
#define PTE_PWT BIT(3)
#define PTE_PCD BIT(4)
#define PTE_PS BIT(7)
#define PTE_ADDR 0x000ffffffffff000ull

static paddr_t ram_top(const struct boot_info *bi)
{
	paddr_t top = 0;

	for (unsigned i = 0; i < bi->nr_mmap; i++)
		if (bi->mmap[i].type == MB2_MMAP_AVAILABLE)
			top = MAX(top, bi->mmap[i].addr + bi->mmap[i].len);
	return top;
}

/* Map [4 GiB, top) 1:1 write-back (SDM vol. 3 §4.5): 1 GiB pages where the
 * CPU has them (CPUID.80000001H:EDX.Page1GB[bit 26]), else 2 MiB pages in
 * page directories taken below 4 GiB. Non-RAM holes up there get mapped
 * too but nothing touches them (the allocator never hands them out). */
static paddr_t map_high(paddr_t top)
{
	bool gb = cpu_has(0x80000001, CPUID_EDX, 26);
	unsigned g, end = (unsigned)(MIN(ALIGN_UP(top, GiB(1)), HV_MAP_MAX) >> 30);

	for (g = 4; g < end; g++) {
		uint64_t *pd;

		if (gb) {
			boot_pdpt[g] = GiB(g) | PTE_P | PTE_W | PTE_PS;
			continue;
		}
		pd = page_alloc_zeroed(1);
		if (!pd)
			break;
		for (unsigned i = 0; i < 512; i++)
			pd[i] = (GiB(g) + (uint64_t)i * MiB(2)) | PTE_P | PTE_W | PTE_PS;
		boot_pdpt[g] = (uint64_t)(uintptr_t)pd | PTE_P | PTE_W;
	}
	write_cr3(read_cr3());   /* nothing was mapped there: no stale entries, but be plain */
	pr_info("mm: 1:1 map extended to %u GiB with %s pages\n", g, gb ? "1 GiB" : "2 MiB");
	return GiB(g);
}

/* One page near the top of the RAM above 4 GiB, written and read back
 * through the new map: proves the map before guests rely on it. */
static void probe_high(void)
{
	paddr_t pa = pmm_alloc_pages(1, 0, hv_direct_map_end);
	volatile uint64_t *p = (volatile uint64_t *)(uintptr_t)pa;
	bool ok;

	if (pa < HV_LOW_MAP_END) {
		if (pa)
			pmm_free_pages(pa, 1);
		return;
	}
	p[0] = 0x5a5a5a5a12345678ull ^ pa;
	p[511] = ~pa;
	ok = p[0] == (0x5a5a5a5a12345678ull ^ pa) && p[511] == ~pa;
	pmm_free_pages(pa, 1);
	pr_info("mm: RAM above 4 GiB in use: probe of page 0x%llx %s\n",
		(unsigned long long)pa, ok ? "ok" : "FAILED");
}

/* Page tables for the 2 MiB pages that hold the image's code and read-only
 * data (one today: text and rodata end near 2.3 MiB). */
#define RO_PT_MAX 2
static uint64_t ro_pt[RO_PT_MAX][512] __aligned(PAGE_SIZE);

/* Map the image's code and read-only data [__image_start, __ro_end)
 * read-only (issue 11): the exit table, vmx_vm_ops and every other const
 * object (registration sections, ops tables) cannot be changed by a stray
 * hypervisor write; the write faults instead. With CR0.WP = 1 (boot/entry.asm)
 * a supervisor write to a page whose PTE has R/W = 0 is a #PF (SDM vol. 3
 * §4.6.1). The boot map uses 2 MiB pages, so each one the range touches is
 * split into 4 KiB pages with the same attributes (SDM §4.5 Table 4-17/19:
 * P, R/W, PWT, PCD; PAT stays 0), R/W cleared inside the range. BSP, before
 * the APs start (they load the same CR3, smp.c), so reloading CR3 here is the
 * whole TLB flush (no global pages: CR4.PGE is off). */
static void protect_image(void)
{
	paddr_t lo = (paddr_t)__image_start, hi = (paddr_t)__ro_end, big;
	unsigned n = 0;

	for (big = ALIGN_DOWN(lo, MiB(2)); big < hi; big += MiB(2), n++) {
		uint64_t *pd = (uint64_t *)(uintptr_t)(boot_pdpt[big >> 30] & PTE_ADDR);
		uint64_t *pde = &pd[(big >> 21) & 511];

		if (n >= RO_PT_MAX || big >= HV_LOW_MAP_END || !(*pde & PTE_PS)) {
			pr_err("mm: cannot write-protect the image at %#lx (2 MiB page %u)\n",
			       (uint64_t)big, n);
			break;
		}
		for (unsigned i = 0; i < 512; i++) {
			paddr_t pa = big + (paddr_t)i * PAGE_SIZE;

			ro_pt[n][i] = pa | (*pde & (PTE_P | PTE_W | PTE_PWT | PTE_PCD));
			if (pa >= lo && pa < hi)
				ro_pt[n][i] &= ~PTE_W;
		}
		*pde = (uint64_t)(uintptr_t)ro_pt[n] | PTE_P | PTE_W;
	}
	write_cr3(read_cr3());
	pr_info("mm: image code and read-only data %#lx-%#lx mapped read-only\n", (uint64_t)lo,
		(uint64_t)hi);
}

/* Conventional memory a PC leaves free below the EBDA. */
#define LOW_WINDOW_START 0x1000
#define LOW_WINDOW_END   0x80000

int mm_init(const struct boot_info *bi)
{
	struct pmm_boot_args a = {
		.bi = bi,
		.image_start = (paddr_t)__image_start,
		.image_end = (paddr_t)__image_end,
		.pi = &host_platform,
		.low_start = LOW_WINDOW_START,
		.low_len = LOW_WINDOW_END - LOW_WINDOW_START,
		.ram_limit = HV_MAP_MAX,
	};
	paddr_t top = ram_top(bi);

	/* The allocator takes all RAM (to 512 GiB); nothing is handed out above
	 * 4 GiB before map_high() (page_alloc_zeroed stays low; guest RAM comes
	 * after mm_init). */
	if (pmm_init_from_boot(&a)) {
		pr_err("mm: cannot build the page allocator (no usable RAM in the memory map?)\n");
		return -ENOMEM;
	}
	if (top > HV_LOW_MAP_END) {
		hv_direct_map_end = map_high(top);
		probe_high();
	}
	pmm_print();
	protect_image();
	return 0;
}

void *page_alloc_zeroed(unsigned n)
{
	paddr_t pa = pmm_alloc_pages(n, 0, HV_LOW_MAP_END);

	if (!pa)
		return NULL;
	memset((void *)(uintptr_t)pa, 0, (size_t)n * PAGE_SIZE);
	return (void *)(uintptr_t)pa;
}
