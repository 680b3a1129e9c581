/* QEMU fw_cfg subset, legacy I/O interface: selector 0x510 (16-bit write),
 * data 0x511 (byte reads advancing an offset). Keys: signature, ID, RAM size,
 * CPU count; every other key reads as zeros. No DMA (ID bit 1 clear). */
#ifndef HV_DEV_FWCFG_H
#define HV_DEV_FWCFG_H
#include "dev/dev.h"

#define FWCFG_PORT_SEL    0x510
#define FWCFG_PORT_DATA   0x511
#define FWCFG_SIGNATURE   0x00
#define FWCFG_ID          0x01
#define FWCFG_RAM_SIZE    0x03
#define FWCFG_NB_CPUS     0x05
#define FWCFG_MAX_CPUS    0x0f

struct fwcfg {
	uint16_t sel;
	uint32_t off;
	uint64_t ram_size;
	uint16_t nr_cpus;
};

void fwcfg_init(struct fwcfg *f, uint64_t ram_size, unsigned nr_cpus);
int fwcfg_pio(struct fwcfg *f, uint16_t port, unsigned size, bool write, uint32_t *val);
#endif
