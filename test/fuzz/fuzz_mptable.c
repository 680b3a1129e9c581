/* libFuzzer harness: the MP table (hv/arch/x86/mptable.c). The input is
 * physical memory from 0xF0000 with the floating pointer at its start; the
 * floating-pointer scan (BDA, base memory, BIOS ROM) runs over it as well. */
#include <stdio.h>
#define FUZZ_PHYS_BASE 0xf0000u
#include "fuzz_platform.h"
#include "arch/x86/mptable.h"

static struct platform_info pi;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	paddr_t f;

	if (size > (1u << 20))
		return 0;
	fuzz_mem_set(data, size);
	if (mptable_parse(FUZZ_PHYS_BASE, &pi) == 0)
		fuzz_platform_check(&pi);
	f = mptable_find();
	if (f && mptable_parse(f, &pi) == 0)
		fuzz_platform_check(&pi);
	fuzz_mem_free();
	return 0;
}
