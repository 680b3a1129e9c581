/* Intel MultiProcessor Specification 1.4 table: the fallback when a BIOS
 * machine has no ACPI. Reads through acpi_phys_map() like the ACPI code. */
#ifndef HV_ARCH_X86_MPTABLE_H
#define HV_ARCH_X86_MPTABLE_H
#include "arch/x86/acpi.h"

/* MP floating pointer structure (MPS 1.4, 4.1). */
struct mp_floating {
	char signature[4];            /* "_MP_" */
	uint32_t config_addr;         /* physical address of the configuration table */
	uint8_t length;               /* in 16-byte units: 1 */
	uint8_t spec_rev;
	uint8_t checksum;
	uint8_t feature[5];           /* feature[0] != 0: a default configuration */
} __packed;
_Static_assert(sizeof(struct mp_floating) == 16, "MPS 4.1");

/* MP configuration table header (MPS 1.4, 4.2). */
struct mp_config {
	char signature[4];            /* "PCMP" */
	uint16_t base_length;
	uint8_t spec_rev, checksum;
	char oem_id[8], product_id[12];
	uint32_t oem_table, oem_table_size_entry_count;  /* size u16, entry count u16 */
	uint32_t lapic_addr;
	uint16_t ext_length;
	uint8_t ext_checksum, reserved;
} __packed;
_Static_assert(sizeof(struct mp_config) == 44, "MPS 4.2");

/* Find the floating pointer: EBDA's first KiB, the last KiB of base memory,
 * then the BIOS ROM 0xF0000-0xFFFFF. 0 if none. */
paddr_t mptable_find(void);
/* Enumerate processors, IOAPICs and ISA interrupt routing into pi (reset
 * first). 0, -ENODEV (no table) or -EINVAL (corrupt; one pr_err line). */
int mptable_parse(paddr_t floating, struct platform_info *pi);
#endif
