/* ACPI fixed hardware of the guest platform (QEMU "pc" port layout):
 * PM1a event block at 0x600 (PM1_STS, PM1_EN), PM1a control at 0x604,
 * 24-bit PM timer at 0x608 (3.579545 MHz), and the reset control register at
 * port 0xCF9. SCI is GSI 9. S5 sleep type is 0 (the \_S5 the DSDT declares;
 * also QEMU's, so `outw(0x604, 0x2000)` powers off). Not locked: the caller
 * serialises. */
#ifndef HV_DEV_ACPIPM_H
#define HV_DEV_ACPIPM_H
#include "dev/dev.h"
#include "vm_status.h"

#define ACPIPM_PM1A_EVT   0x600
#define ACPIPM_PM1A_CNT   0x604
#define ACPIPM_PM_TMR     0x608
#define ACPIPM_RESET_PORT 0xcf9
#define ACPIPM_RESET_VAL  0x06
#define ACPIPM_SCI_IRQ    9
#define ACPIPM_SLP_TYP_S5 0
#define ACPIPM_TMR_HZ     3579545ULL
#define ACPIPM_TMR_BITS   24

/* vm_stop statuses: power-off is 0; reset is even and nonzero, so it can never
 * be confused with an isa-debug-exit status (always odd). */
#define DEV_STOP_POWEROFF VM_STOP_POWEROFF
#define DEV_STOP_RESET    VM_STOP_RESET

struct acpipm {
	const struct dev_host *host;
	irq_line_fn irq;
	void *irqctx;
	uint16_t sts, en, cnt;
	uint8_t reset_reg;
	uint64_t tmr_ovf_seen;   /* timer overflow periods already reported in TMR_STS */
	bool sci_level;
	bool stopped;
};

void acpipm_init(struct acpipm *p, const struct dev_host *host, irq_line_fn irq, void *irqctx);
int acpipm_pio(struct acpipm *p, uint16_t port, unsigned size, bool write, uint32_t *val);
/* The PM timer value at a time (ns since boot). */
uint32_t acpipm_timer_read(const struct acpipm *p, stime_t now);
/* Pull-model timer: TMR_STS/SCI on timer overflow when TMR_EN is set. */
stime_t acpipm_next_deadline(const struct acpipm *p);
void acpipm_advance(struct acpipm *p, stime_t now);
#endif
