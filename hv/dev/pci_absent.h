/* No PCI: the type-1 configuration ports 0xCF8 (address) and 0xCFC-0xCFF (data)
 * read all ones and ignore writes, so guests find no host bridge. A byte access
 * to 0xCF9 is the reset control register (dev/acpipm.h), not PCI. */
#ifndef HV_DEV_PCI_ABSENT_H
#define HV_DEV_PCI_ABSENT_H
#include "dev/dev.h"

#define PCI_CONF_ADDR 0xcf8
#define PCI_CONF_DATA 0xcfc

int pci_absent_pio(uint16_t port, unsigned size, bool write, uint32_t *val);
#endif
