/* Port dispatch for the simple PC devices: a switch on the port range keeps
 * the common exits (UART, PIT, PM timer) to one comparison chain. */
#include "dev/pcdev.h"
#include "dev/pci_absent.h"
#include "compiler.h"
#include "errno.h"
#include "lib/string.h"

#define KBD_CMD_RESET 0xfe

void pcdev_init(struct pcdev *d, const struct pcdev_cfg *cfg)
{
	memset(d, 0, sizeof(*d));
	d->host = cfg->host;
	uart_init(&d->com1, cfg->host, cfg->irq, cfg->irqctx, UART_COM1_BASE, UART_COM1_IRQ);
	debugexit_init(&d->dbgexit, cfg->host, DEBUGEXIT_PORT);
	fwcfg_init(&d->fwcfg, cfg->ram_size, cfg->nr_vcpus);
	pit_init(&d->pit, cfg->host, cfg->irq, cfg->irqctx);
	rtc_init(&d->rtc, cfg->host, cfg->irq, cfg->irqctx, cfg->epoch_secs, cfg->ram_size,
		 cfg->nr_vcpus);
	acpipm_init(&d->pm, cfg->host, cfg->irq, cfg->irqctx);
}

/* No 8042 (the FADT says so), but Linux's reboot path and some test kernels
 * write 0xFE to port 0x64; reads say "input buffer empty" so they do not spin. */
static int pcdev_kbd_pio(struct pcdev *d, bool write, uint32_t *val)
{
	if (!write) {
		*val = 0;
		return 0;
	}
	if ((*val & 0xff) == KBD_CMD_RESET && d->host && d->host->vm_stop)
		d->host->vm_stop(d->host->ctx, DEV_STOP_RESET, "kbd-reset");
	return 0;
}

static int pcdev_sink_pio(bool write, uint32_t *val)
{
	if (!write)
		*val = 0xff;
	return 0;
}

static int pcdev_dispatch(struct pcdev *d, uint16_t port, unsigned size, bool write,
			  uint32_t *val)
{
	if (port >= UART_COM1_BASE && port < UART_COM1_BASE + UART_NR_PORTS)
		return uart_pio(&d->com1, port, size, write, val);
	if ((port >= PIT_PORT_CH0 && port <= PIT_PORT_CMD) || port == PIT_PORT_61)
		return pit_pio(&d->pit, port, size, write, val);
	if (port >= ACPIPM_PM1A_EVT && port < ACPIPM_PM_TMR + 4)
		return acpipm_pio(&d->pm, port, size, write, val);
	if (port == RTC_PORT_INDEX || port == RTC_PORT_DATA)
		return rtc_pio(&d->rtc, port, size, write, val);
	if (port == ACPIPM_RESET_PORT && size == 1)
		return acpipm_pio(&d->pm, port, size, write, val);
	if (port >= PCI_CONF_ADDR && port <= PCI_CONF_DATA + 3)
		return pci_absent_pio(port, size, write, val);
	if (port == FWCFG_PORT_SEL || port == FWCFG_PORT_DATA)
		return fwcfg_pio(&d->fwcfg, port, size, write, val);
	if (port == DEBUGEXIT_PORT)
		return debugexit_pio(&d->dbgexit, port, size, write, val);
	if (port == PCDEV_PORT_POST)
		return pcdev_sink_pio(write, val);
	if (port == PCDEV_PORT_KBD)
		return pcdev_kbd_pio(d, write, val);
	return -ENOENT;
}

int pcdev_pio(struct pcdev *d, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	int rc = pcdev_dispatch(d, port, size, write, val);

	d->pio_count++;
	if (rc == -ENOENT)
		d->pio_unclaimed++;
	return rc;
}

stime_t pcdev_next_deadline(const struct pcdev *d)
{
	stime_t dl = pit_next_deadline(&d->pit);

	dl = MIN(dl, rtc_next_deadline(&d->rtc));
	return MIN(dl, acpipm_next_deadline(&d->pm));
}

void pcdev_advance(struct pcdev *d, stime_t now)
{
	pit_advance(&d->pit, now);
	rtc_advance(&d->rtc, now);
	acpipm_advance(&d->pm, now);
}
