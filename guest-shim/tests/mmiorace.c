/* Regression test for issue 10 (the MMIO instruction fetch overflow): vCPU 0
 * loops over `mov eax,[rbx]; ret` with rbx in an unbacked hole, so every run
 * is an EPT-violation exit whose instruction the hypervisor fetches from
 * guest memory, at page offset 0xC00 of a page filled with 0x41; vCPU 1
 * toggles the present bit of that page's PTE meanwhile. A hypervisor that
 * re-reads the page with a length taken from the first failure writes the
 * 0x41 bytes over its own stack and returns to 0x4141414141414141 (its pCPU
 * halts, the VM beside this one stops). The fixed one fetches at most 15
 * bytes, and a fetch that finds the page gone makes this vCPU take the #PF.
 * 64-bit only (needs 4 KiB pages). Command line: iters=N (default 5000). */
#include "guest.h"

const char test_name[] = "mmiorace";

#define RACE_VA     (5ull << 30)      /* PDPT slot 5: unused by the library's tables */
#define INSN_OFF    0xc00
#define HOLE_ADDR   0xd0000000u       /* below 4 GiB, outside RAM and devices */

static uint8_t code_page[4096] __attribute__((aligned(4096)));
static uint64_t race_pd[512] __attribute__((aligned(4096)));
static uint64_t race_pt[512] __attribute__((aligned(4096)));
static volatile uint32_t stop, toggles, pfs;

static inline uint64_t cr3_read(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

/* vCPU 0 fetching the code while its PTE is clear: retry the instruction. */
static bool on_fault(unsigned vector)
{
	if (vector != 14)
		return false;
	pfs++;
	return true;
}

/* vCPU 1: clear the present bit for a short, varying window, set it again. */
static void toggler(unsigned cpu)
{
	uint32_t n = 0;

	while (!stop) {
		__atomic_fetch_and(&race_pt[0], ~1ull, __ATOMIC_SEQ_CST);
		for (volatile uint32_t i = 0; i < (n & 7); i++)
			;
		__atomic_fetch_or(&race_pt[0], 1ull, __ATOMIC_SEQ_CST);
		for (volatile uint32_t i = 0; i < ((n >> 3) & 15); i++)
			;
		n = n * 1103515245u + 12345u;
		toggles++;
	}
}

static uint32_t run_once(void)
{
	uint64_t fn = RACE_VA + INSN_OFF, val;

	__asm__ volatile("call *%[f]" : "=&a"(val) : [f] "r"(fn), "b"((uint64_t)HOLE_ADDR)
			 : "memory", "cc");
	return (uint32_t)val;
}

void test_main(void)
{
	unsigned long iters = boot_arg_num("iters", 5000), bad = 0;
	uint32_t want;
	uint64_t *pdpt = (uint64_t *)(uintptr_t)(((uint64_t *)(uintptr_t)(cr3_read() & ~0xfffull))[0] &
						 0x000ffffffffff000ull);

	memset(code_page, 0x41, sizeof(code_page));
	code_page[INSN_OFF] = 0x8b;        /* mov eax, [rbx] */
	code_page[INSN_OFF + 1] = 0x03;
	code_page[INSN_OFF + 2] = 0xc3;    /* ret */
	race_pt[0] = (uintptr_t)code_page | 3;
	race_pd[0] = (uintptr_t)race_pt | 3;
	pdpt[5] = (uintptr_t)race_pd | 3;
	__asm__ volatile("mov %0, %%cr3" :: "r"(cr3_read()) : "memory");
	/* Our hypervisor reads all ones from a hole; bare QEMU reads 0. */
	want = run_once();
	test_check("mapped", want == 0xffffffffu || !hv_is_ours(), "hole reads %#x", want);

	exc_hook = on_fault;
	test_check("two_vcpus", smp_nr_cpus() >= 2 && smp_start_ap(1, 0x08, NULL) == 0, "%u vCPUs",
		   smp_nr_cpus());
	smp_run_on(1, toggler, 0);
	for (unsigned long i = 0; i < iters; i++)
		bad += run_once() != want;
	stop = 1;
	__atomic_fetch_or(&race_pt[0], 1ull, __ATOMIC_SEQ_CST);
	test_check("race", bad == 0, "%lu runs, %lu wrong values, %u toggles, %u #PF taken",
		   iters, bad, toggles, pfs);
	exc_hook = NULL;
}
