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
