/* Absent PCI configuration mechanism #1 (PCI Local Bus spec 3.0 §3.2.2.3.2). */
#include "dev/pci_absent.h"
#include "errno.h"

int pci_absent_pio(uint16_t port, unsigned size, bool write, uint32_t *val)
{
	if (port < PCI_CONF_ADDR || port > PCI_CONF_DATA + 3)
		return -ENOENT;
	if (port == PCI_CONF_ADDR + 1 && size == 1)
		return -ENOENT;   /* 0xCF9: reset control register */
	if (!write)
		*val = size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	return 0;
}

static void pci_absent_dev_init(void *dev, const struct dev_cfg *cfg)
{
}

static int pci_absent_dev_pio(void *dev, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	return pci_absent_pio(port, size, write, val);
}

/* 0xCF9 (reset control) belongs to the ACPI PM model. */
DEV_REGISTER(pci_absent, .init = pci_absent_dev_init, .pio = pci_absent_dev_pio,
	     DEV_PIO_RANGES({ PCI_CONF_ADDR, PCI_CONF_ADDR, 0 },
			    { PCI_CONF_ADDR + 2, PCI_CONF_DATA + 3, 0 }));
