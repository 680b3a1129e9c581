/* Fabricated physical memory for the ACPI and MP table tests: the first
 * 2 MiB of "physical" space live in a host buffer behind acpi_phys_map. */
#ifndef TEST_ACPI_FAKE_H
#define TEST_ACPI_FAKE_H
#include <string.h>
#include "arch/x86/acpi.h"

#define FAKE_MEM (2u << 20)
static uint8_t *fake;

static const void *fake_map(paddr_t pa, size_t len)
{
	if (pa >= FAKE_MEM || len > FAKE_MEM - pa)
		return NULL;
	return fake + pa;
}

static void fake_reset(void)
{
	static uint8_t mem[FAKE_MEM] __attribute__((aligned(4096)));

	fake = mem;
	memset(fake, 0, FAKE_MEM);
	acpi_phys_map = fake_map;
}

static void fake_fix_checksum(uint32_t pa, uint32_t len, uint32_t sum_off)
{
	fake[pa + sum_off] = 0;
	fake[pa + sum_off] = (uint8_t)(0x100 - acpi_checksum(fake + pa, len));
}

static void put16(uint32_t pa, uint16_t v) { memcpy(fake + pa, &v, 2); }
static void put32(uint32_t pa, uint32_t v) { memcpy(fake + pa, &v, 4); }
static void put64(uint32_t pa, uint64_t v) { memcpy(fake + pa, &v, 8); }
#endif
