/* Host platform discovery: ACPI (RSDP handed over by the boot loader, then
 * the BIOS areas), else the MP table. Its own file so that acpi.c and
 * mptable.c, which both fill struct platform_info, do not depend on each
 * other. */
#include "arch/x86/acpi.h"
#include "arch/x86/mptable.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

int platform_discover(const void *rsdp_copy, size_t len, struct platform_info *pi)
{
	paddr_t pa;

	if (rsdp_copy && acpi_parse_rsdp(rsdp_copy, len, pi) == 0)
		return 0;
	if ((pa = acpi_rsdp_scan()) && acpi_parse(pa, pi) == 0)
		return 0;
	if ((pa = mptable_find()) && mptable_parse(pa, pi) == 0)
		return 0;
	memset(pi, 0, sizeof(*pi));
	pr_err("platform: neither ACPI MADT nor MP table found\n");
	return -ENODEV;
}
