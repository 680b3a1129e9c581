/* Byte layouts of the ACPI and MP tables the builder writes (ACPI 6.5 ch. 5,
 * Intel MP spec 1.4 ch. 4). Private to acpi_tables*.c and its unit test. */
#ifndef HV_DEV_ACPI_LAYOUT_H
#define HV_DEV_ACPI_LAYOUT_H
#include "compiler.h"

struct acpi_rsdp {
	char sig[8];
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t ext_checksum;
	uint8_t reserved[3];
} __packed;
_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP is 36 bytes (ACPI 5.2.5.3)");

struct acpi_header {
	char sig[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	char creator_id[4];
	uint32_t creator_revision;
} __packed;
_Static_assert(sizeof(struct acpi_header) == 36, "SDT header is 36 bytes (ACPI 5.2.6)");

struct acpi_gas {
	uint8_t space_id, bit_width, bit_offset, access_size;
	uint64_t address;
} __packed;
_Static_assert(sizeof(struct acpi_gas) == 12, "GAS is 12 bytes (ACPI 5.2.3.2)");

/* FADT revision 3 layout (ACPI 2.0-era 244-byte table; Linux accepts it). */
struct acpi_fadt {
	struct acpi_header h;
	uint32_t facs, dsdt;
	uint8_t reserved0, preferred_pm_profile;
	uint16_t sci_int;
	uint32_t smi_cmd;
	uint8_t acpi_enable, acpi_disable, s4bios_req, pstate_cnt;
	uint32_t pm1a_evt_blk, pm1b_evt_blk, pm1a_cnt_blk, pm1b_cnt_blk;
	uint32_t pm2_cnt_blk, pm_tmr_blk, gpe0_blk, gpe1_blk;
	uint8_t pm1_evt_len, pm1_cnt_len, pm2_cnt_len, pm_tmr_len;
	uint8_t gpe0_blk_len, gpe1_blk_len, gpe1_base, cst_cnt;
	uint16_t p_lvl2_lat, p_lvl3_lat, flush_size, flush_stride;
	uint8_t duty_offset, duty_width, day_alrm, mon_alrm, century;
	uint16_t iapc_boot_arch;
	uint8_t reserved1;
	uint32_t flags;
	struct acpi_gas reset_reg;
	uint8_t reset_value;
	uint8_t reserved2[3];
	uint64_t x_facs, x_dsdt;
	struct acpi_gas x_pm1a_evt_blk, x_pm1b_evt_blk, x_pm1a_cnt_blk, x_pm1b_cnt_blk;
	struct acpi_gas x_pm2_cnt_blk, x_pm_tmr_blk, x_gpe0_blk, x_gpe1_blk;
} __packed;
_Static_assert(sizeof(struct acpi_fadt) == 244, "FADT rev 3 is 244 bytes");
_Static_assert(offsetof(struct acpi_fadt, reset_reg) == 116, "FADT RESET_REG at 116");
_Static_assert(offsetof(struct acpi_fadt, x_dsdt) == 140, "FADT X_DSDT at 140");

#define FADT_F_WBINVD        BIT(0)
#define FADT_F_PROC_C1       BIT(2)
#define FADT_F_PWR_BUTTON    BIT(4)   /* no fixed power button */
#define FADT_F_SLP_BUTTON    BIT(5)   /* no fixed sleep button */
#define FADT_F_RESET_REG_SUP BIT(10)
#define FADT_BOOT_LEGACY_DEVICES BIT(0)
#define FADT_BOOT_NO_VGA     BIT(2)

struct acpi_facs {
	char sig[4];
	uint32_t length;
	uint32_t hw_signature;
	uint32_t waking_vector;
	uint32_t global_lock;
	uint32_t flags;
	uint64_t x_waking_vector;
	uint8_t version;
	uint8_t reserved[3];
	uint32_t ospm_flags;
	uint8_t reserved2[24];
} __packed;
_Static_assert(sizeof(struct acpi_facs) == 64, "FACS is 64 bytes (ACPI 5.2.10)");

struct acpi_madt {
	struct acpi_header h;
	uint32_t lapic_addr;
	uint32_t flags;
} __packed;
_Static_assert(sizeof(struct acpi_madt) == 44, "MADT fixed part is 44 bytes");
#define MADT_PCAT_COMPAT BIT(0)

enum { MADT_LAPIC = 0, MADT_IOAPIC = 1, MADT_ISO = 2, MADT_LAPIC_NMI = 4 };

struct madt_lapic {
	uint8_t type, length, uid, apic_id;
	uint32_t flags;
} __packed;
_Static_assert(sizeof(struct madt_lapic) == 8, "MADT LAPIC entry");

struct madt_ioapic {
	uint8_t type, length, id, reserved;
	uint32_t addr, gsi_base;
} __packed;
_Static_assert(sizeof(struct madt_ioapic) == 12, "MADT IOAPIC entry");

struct madt_iso {
	uint8_t type, length, bus, source;
	uint32_t gsi;
	uint16_t flags;
} __packed;
_Static_assert(sizeof(struct madt_iso) == 10, "MADT ISO entry");

struct madt_lapic_nmi {
	uint8_t type, length, uid;
	uint16_t flags;
	uint8_t lint;
} __packed;
_Static_assert(sizeof(struct madt_lapic_nmi) == 6, "MADT LAPIC NMI entry");

/* MPS INTI flags: polarity bits 1:0, trigger bits 3:2 (01 high/edge, 11 low/level). */
#define MPS_ACTIVE_HIGH   0x1
#define MPS_LEVEL_TRIGGER 0xc

/* Intel MP spec 1.4 Table 4-1 and 4-2..4-8. */
struct mp_fp {
	char sig[4];
	uint32_t config;
	uint8_t length, spec_rev, checksum;
	uint8_t feature[5];
} __packed;
_Static_assert(sizeof(struct mp_fp) == 16, "MP floating pointer is 16 bytes");

struct mp_config {
	char sig[4];
	uint16_t length;
	uint8_t spec_rev, checksum;
	char oem_id[8];
	char product_id[12];
	uint32_t oem_table;
	uint16_t oem_table_size, entry_count;
	uint32_t lapic_addr;
	uint16_t ext_length;
	uint8_t ext_checksum, reserved;
} __packed;
_Static_assert(sizeof(struct mp_config) == 44, "MP config header is 44 bytes");

enum { MP_PROC = 0, MP_BUS = 1, MP_IOAPIC = 2, MP_IOINT = 3, MP_LINT = 4 };

struct mp_proc {
	uint8_t type, apic_id, apic_ver, flags;
	uint32_t signature, features;
	uint32_t reserved[2];
} __packed;
_Static_assert(sizeof(struct mp_proc) == 20, "MP processor entry");
#define MP_PROC_EN BIT(0)
#define MP_PROC_BP BIT(1)

struct mp_bus {
	uint8_t type, id;
	char name[6];
} __packed;
_Static_assert(sizeof(struct mp_bus) == 8, "MP bus entry");

struct mp_ioapic {
	uint8_t type, id, ver, flags;
	uint32_t addr;
} __packed;
_Static_assert(sizeof(struct mp_ioapic) == 8, "MP IOAPIC entry");

struct mp_irq {
	uint8_t type, irq_type;
	uint16_t flags;
	uint8_t src_bus, src_irq, dst_id, dst_pin;
} __packed;
_Static_assert(sizeof(struct mp_irq) == 8, "MP interrupt entry");

enum { MP_INT = 0, MP_NMI = 1, MP_EXTINT = 3 };
#endif
