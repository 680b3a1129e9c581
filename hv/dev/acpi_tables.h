/* Guest firmware tables: ACPI (RSDP, RSDT, XSDT, FADT, FACS, DSDT, MADT) and
 * an Intel MP floating pointer + MP configuration table, built into a buffer
 * that stands for guest-physical 0xE0000-0xFFFFF (GUEST_BIOS_START..END).
 * The RSDP is at 0xE0000 (Linux and test kernels scan that area on 16-byte
 * boundaries); the MP floating pointer at 0xF0000 (MP spec 1.4 §4: BIOS ROM). */
#ifndef HV_DEV_ACPI_TABLES_H
#define HV_DEV_ACPI_TABLES_H
#include "types.h"

#define ACPI_TABLES_AREA_SIZE 0x20000u   /* GUEST_BIOS_END - GUEST_BIOS_START */
#define ACPI_TABLES_MAX_CPUS  255        /* xAPIC MADT/MP entries; APIC ID = index */

struct acpi_tables_cfg {
	unsigned nr_vcpus;      /* 1..ACPI_TABLES_MAX_CPUS, APIC IDs 0..n-1 */
	uint8_t ioapic_id;      /* must not collide with a LAPIC ID in the MP table */
	uint64_t ioapic_base;   /* GUEST_IOAPIC_BASE */
	uint64_t lapic_base;    /* GUEST_LAPIC_BASE */
};

/* Guest-physical addresses of what was built. */
struct acpi_tables_info {
	uint64_t rsdp, rsdt, xsdt, fadt, facs, dsdt, madt;
	uint64_t mpfp, mpc;
	uint32_t used;          /* bytes of the area used */
};

/* Fill cfg with the platform defaults for n vCPUs (IOAPIC ID = n). */
void acpi_tables_cfg_default(struct acpi_tables_cfg *cfg, unsigned nr_vcpus);
/* area must be ACPI_TABLES_AREA_SIZE bytes (it is zeroed first). Returns 0,
 * -EINVAL for a bad configuration, -ENOSPC if the tables do not fit. */
int acpi_tables_build(uint8_t *area, size_t size, const struct acpi_tables_cfg *cfg,
		      struct acpi_tables_info *info);
/* 8-bit sum of a byte range (a valid table sums to 0). */
uint8_t acpi_checksum(const void *p, size_t n);
#endif
