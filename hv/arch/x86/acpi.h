/* ACPI discovery (ACPI 6.4: 5.2.5 RSDP, 5.2.7/5.2.8 RSDT/XSDT, 5.2.9 FADT,
 * 5.2.12 MADT) and the platform description it and the MP table fill.
 * All reads go through acpi_phys_map(), so tests feed tables from buffers. */
#ifndef HV_ARCH_X86_ACPI_H
#define HV_ARCH_X86_ACPI_H
#include "compiler.h"

#define PLATFORM_MAX_CPUS    256
#define PLATFORM_MAX_IOAPICS 16
#define PLATFORM_MAX_ISOS    32
#define PLATFORM_MAX_TABLES  16

#define PLATFORM_CPU_ENABLED     BIT(0)   /* usable now */
#define PLATFORM_CPU_ONLINE_CAP  BIT(1)   /* disabled but may be brought online */
#define PLATFORM_CPU_X2APIC      BIT(2)   /* from an x2APIC entry (MADT type 9) */
#define PLATFORM_CPU_BSP         BIT(3)   /* MP table says boot processor */

struct platform_cpu {
	uint32_t apic_id;
	uint32_t acpi_uid;        /* processor UID (MP table: index) */
	uint32_t flags;           /* PLATFORM_CPU_* */
};

struct platform_ioapic {
	uint32_t id;
	uint32_t addr;            /* MMIO base */
	uint32_t gsi_base;
};

/* ISA IRQ -> GSI override (MADT type 2); flags as in MPS INTI (polarity 1:0,
 * trigger 3:2). */
struct platform_iso {
	uint8_t bus, irq;
	uint16_t flags;
	uint32_t gsi;
};

struct platform_range { uint64_t addr, len; };

enum platform_source { PLATFORM_NONE = 0, PLATFORM_ACPI = 1, PLATFORM_MPTABLE = 2 };

struct platform_info {
	enum platform_source source;
	uint8_t acpi_revision;                /* RSDP revision (0: ACPI 1.0) */
	bool pcat_compat;                     /* dual 8259s present (MADT flag 0) */
	uint64_t lapic_addr;                  /* after any type-5 override */
	unsigned nr_cpus;                     /* entries in cpus[] */
	unsigned nr_cpus_enabled;
	struct platform_cpu cpus[PLATFORM_MAX_CPUS];
	unsigned nr_ioapics;
	struct platform_ioapic ioapics[PLATFORM_MAX_IOAPICS];
	unsigned nr_isos;
	struct platform_iso isos[PLATFORM_MAX_ISOS];
	/* FADT (zero when absent) */
	bool has_fadt;
	bool hw_reduced;                      /* FADT flag 20 */
	uint16_t sci_irq;
	uint16_t boot_arch;                   /* IAPC_BOOT_ARCH */
	uint32_t smi_cmd;
	uint8_t acpi_enable;
	uint32_t pm1a_cnt, pm1b_cnt;          /* I/O ports; power off writes here */
	uint32_t pm_tmr;                      /* PM timer port (3.579545 MHz) */
	bool pm_tmr_32bit;
	bool reset_supported;                 /* FADT flag 10 */
	uint8_t reset_space;                  /* GAS space: 0 memory, 1 I/O */
	uint64_t reset_addr;
	uint8_t reset_value;
	bool has_s5;                          /* \_S5 found in the DSDT */
	uint8_t s5_typ_a, s5_typ_b;           /* SLP_TYP values for power off */
	/* Tables read, so the caller can keep the allocator off them. */
	unsigned nr_tables;
	struct platform_range tables[PLATFORM_MAX_TABLES];
};

/* System description table header (ACPI 5.2.6). */
struct acpi_sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem_id[6], oem_table_id[8];
	uint32_t oem_revision, creator_id, creator_revision;
} __packed;
_Static_assert(sizeof(struct acpi_sdt_header) == 36, "ACPI 5.2.6");

struct acpi_rsdp {
	char signature[8];                    /* "RSD PTR " */
	uint8_t checksum;                     /* first 20 bytes */
	char oem_id[6];
	uint8_t revision;                     /* 0: ACPI 1.0, 2: ACPI 2.0+ */
	uint32_t rsdt_addr;
	uint32_t length;                      /* 2.0+: whole structure */
	uint64_t xsdt_addr;
	uint8_t ext_checksum;                 /* all `length` bytes */
	uint8_t reserved[3];
} __packed;
_Static_assert(sizeof(struct acpi_rsdp) == 36, "ACPI 5.2.5.3");

/*
 * Read physical memory [pa, pa+len): identity in the hypervisor; tests point
 * it at buffers. NULL means "not readable" and is treated as a bad table.
 */
extern const void *(*acpi_phys_map)(paddr_t pa, size_t len);

/* Validate an RSDP (signature, checksums) from a copy (multiboot2 tags 14/15)
 * or in memory, then walk XSDT (preferred) or RSDT and parse MADT and FADT.
 * Returns 0 or a negative errno after a pr_err line; pi is reset first. */
int acpi_parse_rsdp(const void *rsdp, size_t len, struct platform_info *pi);
int acpi_parse(paddr_t rsdp_pa, struct platform_info *pi);
/* Search the EBDA's first KiB and 0xE0000-0xFFFFF for the RSDP (BIOS boot). */
paddr_t acpi_rsdp_scan(void);
/* The instance-th table with this signature under the root table of the last
 * successful acpi_parse*, checksum verified; 0 if none. */
paddr_t acpi_find_table(const char sig[4], unsigned instance);
/* MADT and FADT parsers, exposed for tests and re-use. */
int acpi_madt_parse(paddr_t madt, struct platform_info *pi);
int acpi_fadt_parse(paddr_t fadt, struct platform_info *pi);

/* Everything at once: RSDP copy (may be NULL) or BIOS scan, else the MP
 * table. 0 with pi->source set, or -ENODEV. */
int platform_discover(const void *rsdp_copy, size_t len, struct platform_info *pi);
void platform_print(const struct platform_info *pi);
/* Index of the CPU with this APIC ID in pi->cpus, or -1. */
int platform_cpu_find(const struct platform_info *pi, uint32_t apic_id);

/* Helpers shared with mptable.c. */
uint8_t acpi_checksum(const void *p, size_t len);
void platform_table_note(struct platform_info *pi, paddr_t addr, uint64_t len);
int platform_cpu_add(struct platform_info *pi, uint32_t apic_id, uint32_t uid, uint32_t flags);
int platform_ioapic_add(struct platform_info *pi, uint32_t id, uint32_t addr, uint32_t gsi);
#endif
