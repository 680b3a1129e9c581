/* The hvfuzz guest's page-table race (see hvfuzz.h; 64-bit build only). */
#include "hvfuzz.h"

/* ---------------------------------------------------------------- page-table race */
#ifdef __x86_64__
/* Issue 10's race: vCPU 0 runs `mov eax,[rbx]; ret` (rbx in a hole: an MMIO
 * exit every time) at offset 0xC00 of an aliased page and an instruction
 * split across two aliased pages, while vCPU 1 flips the present bit of those
 * pages' PTEs. The hypervisor's instruction fetch must see either mapping
 * and never write past its buffer; the guest sees at most a #PF. */
#define RACE_VA_S "0x140000000"                /* 5 GiB, PDPT[5]: unused by the library */
#define RACE_VA   0x140000000ull
static uint8_t race_page[2][4096] __attribute__((aligned(4096)));
static uint64_t race_pd[512] __attribute__((aligned(4096)));
static uint64_t race_pt[512] __attribute__((aligned(4096)));
uint32_t race_pf, race_calls;
static volatile uint32_t race_go, race_stop;

bool race_setup(void)
{
	uint64_t cr3, *pml4, *pdpt;

	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	pml4 = (uint64_t *)(uintptr_t)(cr3 & ~0xfffull);

	pdpt = (uint64_t *)(uintptr_t)(pml4[0] & 0x000ffffffffff000ull);
	if (pdpt[5] & 1)
		return false;
	memset(race_page, 0x41, sizeof(race_page));
	race_page[0][0xc00] = 0x8b;                   /* mov eax, [rbx] */
	race_page[0][0xc01] = 0x03;
	race_page[0][0xc02] = 0xc3;                   /* ret */
	race_page[0][0xfff] = 0x8b;                   /* the same, split at the page end */
	race_page[1][0x000] = 0x03;
	race_page[1][0x001] = 0xc3;
	race_pt[0] = (uintptr_t)race_page[0] | 3;
	race_pt[1] = (uintptr_t)race_page[1] | 3;
	race_pd[0] = (uintptr_t)race_pt | 3;
	pdpt[5] = (uintptr_t)race_pd | 3;
	return true;
}

static void race_call(uint64_t target, uint64_t hole)
{
	uintptr_t fault = 0;
	uint64_t ax = 0;

	__asm__ volatile("call *%[t]\n\t"
			 "jmp 2f\n"
			 "1: add $8, %%rsp\n"
			 "2:\n\t"
			 ".pushsection ex_table, \"a\"\n\t"
			 ".quad " RACE_VA_S " + 0xc00, 1b\n\t.quad " RACE_VA_S " + 0xc02, 1b\n\t"
			 ".quad " RACE_VA_S " + 0xfff, 1b\n\t.quad " RACE_VA_S " + 0x1001, 1b\n\t"
			 ".popsection"
			 : "+D"(fault), "+b"(hole), "+a"(ax)
			 : [t] "r"(target)
			 : "memory", "cc");
	race_calls++;
	if (fault)
		race_pf++;
}

void race_run(struct fz *f)
{
	if (f->cpu == 0) {
		while (!race_go)
			cpu_pause();
		for (unsigned long i = 0; i < opt_race; i++)
			race_call(RACE_VA + (one_in(f, 2) ? 0xc00 : 0xfff),
				  0xd0000000u + (below(f, 0x1000) & ~3u));
		race_stop = 1;
	} else {
		race_go = 1;
		while (!race_stop) {
			unsigned i = below(f, 2);

			__atomic_xor_fetch(&race_pt[i], 1ull, __ATOMIC_SEQ_CST);
			__asm__ volatile("invlpg (%0)" :: "r"(RACE_VA + 4096 * i) : "memory");
		}
		race_pt[0] |= 1;
		race_pt[1] |= 1;
	}
}
#endif
