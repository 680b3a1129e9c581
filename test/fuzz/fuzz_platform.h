/* Fake physical memory for the ACPI and MP table harnesses: the fuzz input is
 * the memory at FUZZ_PHYS_BASE (a heap block of exactly its size, so ASan
 * sees any read past it), nothing else is readable. Checksums always pass
 * (the strong acpi_checksum below overrides acpi.c's weak one) so the fuzzer
 * spends its time on structure, not on arithmetic it cannot guess; the sum is
 * still computed over the whole range so an out-of-range length shows. */
#ifndef TEST_FUZZ_PLATFORM_H
#define TEST_FUZZ_PLATFORM_H
#include "fuzz.h"
#include "arch/x86/acpi.h"

static uint8_t *fuzz_mem;
static size_t fuzz_mem_size;
static volatile uint8_t fuzz_sum_sink;

static const void *fuzz_phys_map(paddr_t pa, size_t len)
{
	if (pa < FUZZ_PHYS_BASE || pa - FUZZ_PHYS_BASE > fuzz_mem_size ||
	    len > fuzz_mem_size - (pa - FUZZ_PHYS_BASE))
		return NULL;
	return fuzz_mem + (pa - FUZZ_PHYS_BASE);
}

uint8_t acpi_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum = (uint8_t)(sum + *b++);
	fuzz_sum_sink = sum;
	return 0;
}

static void fuzz_mem_set(const uint8_t *data, size_t size)
{
	fuzz_mem = malloc(size ? size : 1);
	memcpy(fuzz_mem, data, size);
	fuzz_mem_size = size;
	acpi_phys_map = fuzz_phys_map;
}

static void fuzz_mem_free(void)
{
	free(fuzz_mem);
	fuzz_mem = NULL;
	fuzz_mem_size = 0;
}

/* What any successful parse must leave. */
static void fuzz_platform_check(const struct platform_info *pi)
{
	FUZZ_CHECK(pi->nr_cpus <= PLATFORM_MAX_CPUS);
	FUZZ_CHECK(pi->nr_cpus_enabled <= pi->nr_cpus);
	FUZZ_CHECK(pi->nr_ioapics <= PLATFORM_MAX_IOAPICS);
	FUZZ_CHECK(pi->nr_isos <= PLATFORM_MAX_ISOS);
	FUZZ_CHECK(pi->nr_tables <= PLATFORM_MAX_TABLES);
	for (unsigned i = 0; i < pi->nr_cpus; i++)
		FUZZ_CHECK(platform_cpu_find(pi, pi->cpus[i].apic_id) >= 0);
	platform_print(pi);
}
#endif
