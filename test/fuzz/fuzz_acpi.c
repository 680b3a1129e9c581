/* libFuzzer harness: ACPI table parsing (hv/arch/x86/acpi.c). The input is
 * physical memory from 0xE0000 (the BIOS area the RSDP scan covers) with the
 * RSDP at its start: RSDP -> XSDT/RSDT -> MADT, FADT -> DSDT (\_S5), then the
 * table lookup and the BIOS-area RSDP scan over the same memory. */
#include <stdio.h>
#define FUZZ_PHYS_BASE 0xe0000u
#include "fuzz_platform.h"

static struct platform_info pi;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sigs[] = { "APIC", "FACP", "DSDT", "HPET", "MCFG", "SSDT" };

	if (size > (1u << 20))
		return 0;
	fuzz_mem_set(data, size);
	if (acpi_parse_rsdp(fuzz_mem, size < 36 ? size : 36, &pi) == 0) {
		fuzz_platform_check(&pi);
		for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			for (unsigned k = 0; k < 3; k++)
				(void)acpi_find_table(sigs[i], k);
	}
	if (acpi_parse(FUZZ_PHYS_BASE, &pi) == 0)
		fuzz_platform_check(&pi);
	(void)acpi_rsdp_scan();
	fuzz_mem_free();
	return 0;
}
