/* ACPI PM1 fixed registers, PM timer and reset register (ACPI 6.5 §4.8.3
 * "PM1 Event Grouping", §4.8.3.3 "Power Management Timer", §4.8.4.6 reset
 * register). SCI_EN always reads 1: the platform is born in ACPI mode, the
 * FADT has SMI_CMD = 0, so no OS ever tries the legacy-to-ACPI transition. */
#include "dev/acpipm.h"
#include "compiler.h"
#include "errno.h"
#include "lib/string.h"

#define PM1_STS_TMR     BIT(0)
#define PM1_STS_WAK     BIT(15)
#define PM1_EN_TMR      BIT(0)
#define PM1_CNT_SCI_EN  BIT(0)
#define PM1_CNT_SLP_TYP_SHIFT 10
#define PM1_CNT_SLP_EN  BIT(13)
#define PM1_STS_MASK    0x8f31   /* TMR BM GBL PWRBTN SLPBTN RTC WAK */
#define PM1_EN_MASK     0x0721
#define RST_CNT_SYS_RST BIT(1)
#define RST_CNT_RST_CPU BIT(2)
#define RST_CNT_FULL    BIT(3)

#define NS_PER_S 1000000000ULL
#define TMR_PERIOD_TICKS (1ULL << (ACPIPM_TMR_BITS - 1))   /* TMR_STS on bit 23 toggling */

void acpipm_init(struct acpipm *p, const struct dev_host *host, irq_line_fn irq, void *irqctx)
{
	memset(p, 0, sizeof(*p));
	p->host = host;
	p->irq = irq;
	p->irqctx = irqctx;
	p->cnt = PM1_CNT_SCI_EN;
}

static stime_t acpipm_now(const struct acpipm *p)
{
	return p->host && p->host->now ? p->host->now(p->host->ctx) : 0;
}

/* ticks = ns * f / 1e9, split so the product cannot overflow. */
static uint64_t acpipm_ticks(stime_t now)
{
	uint64_t ns = now > 0 ? (uint64_t)now : 0;

	return (ns / NS_PER_S) * ACPIPM_TMR_HZ + (ns % NS_PER_S) * ACPIPM_TMR_HZ / NS_PER_S;
}

static stime_t acpipm_ticks_to_ns(uint64_t t)
{
	uint64_t ns = (t / ACPIPM_TMR_HZ) * NS_PER_S +
		      ((t % ACPIPM_TMR_HZ) * NS_PER_S + ACPIPM_TMR_HZ - 1) / ACPIPM_TMR_HZ;

	return ns > (uint64_t)INT64_MAX ? STIME_NEVER : (stime_t)ns;
}

uint32_t acpipm_timer_read(const struct acpipm *p, stime_t now)
{
	return (uint32_t)(acpipm_ticks(now) & ((1ULL << ACPIPM_TMR_BITS) - 1));
}

static void acpipm_sci_update(struct acpipm *p)
{
	bool level = (p->cnt & PM1_CNT_SCI_EN) && (p->sts & p->en & PM1_EN_MASK);

	if (level == p->sci_level)
		return;
	p->sci_level = level;
	if (p->irq)
		p->irq(p->irqctx, ACPIPM_SCI_IRQ, level);
}

/* Latch TMR_STS if the timer's top bit toggled since the last look. */
static void acpipm_tmr_sync(struct acpipm *p, stime_t now)
{
	uint64_t periods = acpipm_ticks(now) / TMR_PERIOD_TICKS;

	if (periods > p->tmr_ovf_seen) {
		p->sts |= PM1_STS_TMR;
		p->tmr_ovf_seen = periods;
	}
}

stime_t acpipm_next_deadline(const struct acpipm *p)
{
	if (!(p->en & PM1_EN_TMR) || (p->sts & PM1_STS_TMR))
		return STIME_NEVER;
	return acpipm_ticks_to_ns((p->tmr_ovf_seen + 1) * TMR_PERIOD_TICKS);
}

void acpipm_advance(struct acpipm *p, stime_t now)
{
	acpipm_tmr_sync(p, now);
	acpipm_sci_update(p);
}

static void acpipm_stop(struct acpipm *p, int status, const char *why)
{
	p->stopped = true;
	if (p->host && p->host->vm_stop)
		p->host->vm_stop(p->host->ctx, status, why);
}

static void acpipm_cnt_write(struct acpipm *p, uint16_t v)
{
	unsigned typ = (v >> PM1_CNT_SLP_TYP_SHIFT) & 7;

	p->cnt = (uint16_t)((v & ~PM1_CNT_SLP_EN) | PM1_CNT_SCI_EN);
	if (!(v & PM1_CNT_SLP_EN))
		return;
	if (typ == ACPIPM_SLP_TYP_S5)
		acpipm_stop(p, DEV_STOP_POWEROFF, "acpi-poweroff");
	/* other sleep states are not offered by the DSDT: ignore */
}

/* Registers as 16-bit words; byte accesses read or merge into them. */
static uint16_t acpipm_word_read(struct acpipm *p, unsigned off, stime_t now)
{
	switch (off) {
	case 0: acpipm_tmr_sync(p, now); return p->sts;
	case 2: return p->en;
	case 4: return p->cnt;
	case 8: return (uint16_t)acpipm_timer_read(p, now);
	case 10: return (uint16_t)(acpipm_timer_read(p, now) >> 16);
	default: return 0;
	}
}

static void acpipm_word_write(struct acpipm *p, unsigned off, uint16_t v, uint16_t mask)
{
	switch (off) {
	case 0: p->sts &= (uint16_t)~(v & mask & PM1_STS_MASK); break;   /* write 1 to clear */
	case 2: p->en = (uint16_t)((p->en & ~mask) | (v & mask & PM1_EN_MASK)); break;
	case 4: acpipm_cnt_write(p, (uint16_t)((p->cnt & ~mask) | (v & mask))); break;
	default: break;   /* PM timer is read-only */
	}
}

/* Byte-granular: a word access is two byte accesses at the same instant
 * (SLP_TYP and SLP_EN share PM1_CNT's high byte, so order does not matter). */
static int acpipm_block_access(struct acpipm *p, unsigned off, unsigned size, bool write,
			       uint32_t *val)
{
	stime_t now = acpipm_now(p);
	uint32_t r = 0;

	for (unsigned i = 0; i < size; i++) {
		unsigned w = (off + i) & ~1u, sh = ((off + i) & 1) * 8;

		if (write)
			acpipm_word_write(p, w, (uint16_t)(((*val >> (8 * i)) & 0xff) << sh),
					  (uint16_t)(0xff << sh));
		else
			r |= (uint32_t)((acpipm_word_read(p, w, now) >> sh) & 0xff) << (8 * i);
	}
	if (!write)
		*val = r;
	acpipm_sci_update(p);
	return 0;
}

static int acpipm_reset_access(struct acpipm *p, bool write, uint32_t *val)
{
	if (!write) {
		*val = p->reset_reg;
		return 0;
	}
	p->reset_reg = (uint8_t)(*val & (RST_CNT_SYS_RST | RST_CNT_FULL));
	if (*val & RST_CNT_RST_CPU)
		acpipm_stop(p, DEV_STOP_RESET, "reset");
	return 0;
}

int acpipm_pio(struct acpipm *p, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	if (port == ACPIPM_RESET_PORT && size == 1)
		return acpipm_reset_access(p, write, val);
	if (port < ACPIPM_PM1A_EVT || port + size > ACPIPM_PM_TMR + 4 || size > 4 || !size)
		return -ENOENT;
	return acpipm_block_access(p, port - ACPIPM_PM1A_EVT, size, write, val);
}

static void acpipm_dev_init(void *dev, const struct dev_cfg *cfg)
{
	acpipm_init(dev, cfg->host, cfg->irq, cfg->irqctx);
}

/* The PM1a block and PM timer, and the byte-wide reset register at 0xCF9
 * inside the PCI configuration ports (wider accesses there return -ENOENT
 * and reach the absent-PCI handler, hv/vm/devs.c). */
DEV_REGISTER(acpipm, .size = sizeof(struct acpipm), .init = acpipm_dev_init,
	     .pio = DEV_PIO_OP(struct acpipm, acpipm_pio),
	     .next_deadline = DEV_DEADLINE_OP(struct acpipm, acpipm_next_deadline),
	     .advance = DEV_ADVANCE_OP(struct acpipm, acpipm_advance),
	     DEV_PIO_RANGES({ ACPIPM_PM1A_EVT, ACPIPM_PM_TMR + 3, DEV_PIO_TIMED },
			    { ACPIPM_RESET_PORT, ACPIPM_RESET_PORT, 0 }));
