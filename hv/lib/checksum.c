/* The 8-bit byte sum ACPI and the MP specification use (a valid table sums
 * to 0); shared by the host ACPI parser and the guest table builder. */
#include "types.h"

uint8_t acpi_checksum(const void *p, size_t n);

uint8_t acpi_checksum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *b++);
	return s;
}
