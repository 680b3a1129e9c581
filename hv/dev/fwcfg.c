/* fw_cfg legacy interface (QEMU docs/specs/fw_cfg.rst): write a key to the
 * selector, then read its little-endian blob a byte at a time; reading past
 * the end of an item returns 0. */
#include "dev/fwcfg.h"
#include "errno.h"

void fwcfg_init(struct fwcfg *f, uint64_t ram_size, unsigned nr_cpus)
{
	f->sel = 0;
	f->off = 0;
	f->ram_size = ram_size;
	f->nr_cpus = (uint16_t)nr_cpus;
}

static uint64_t fwcfg_le_byte(uint64_t v, unsigned len, uint32_t off)
{
	return off < len ? (v >> (8 * off)) & 0xff : 0;
}

static uint8_t fwcfg_byte(const struct fwcfg *f, uint32_t off)
{
	switch (f->sel) {
	case FWCFG_SIGNATURE:
		return off < 4 ? (uint8_t)"QEMU"[off] : 0;
	case FWCFG_ID:
		return (uint8_t)fwcfg_le_byte(1, 4, off);   /* traditional interface only */
	case FWCFG_RAM_SIZE:
		return (uint8_t)fwcfg_le_byte(f->ram_size, 8, off);
	case FWCFG_NB_CPUS:
	case FWCFG_MAX_CPUS:
		return (uint8_t)fwcfg_le_byte(f->nr_cpus, 2, off);
	default:
		return 0;
	}
}

/* A data read of size n returns n consecutive bytes, first byte lowest. */
static uint32_t fwcfg_data_read(struct fwcfg *f, unsigned size)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < size && i < 4; i++) {
		v |= (uint32_t)fwcfg_byte(f, f->off) << (8 * i);
		if (f->off < UINT32_MAX)
			f->off++;
	}
	return v;
}

int fwcfg_pio(struct fwcfg *f, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	if (port == FWCFG_PORT_SEL) {
		if (write) {
			f->sel = (uint16_t)*val;
			f->off = 0;
		} else {
			*val = 0;
		}
		return 0;
	}
	if (port != FWCFG_PORT_DATA)
		return -ENOENT;
	if (!write)
		*val = fwcfg_data_read(f, size);
	return 0;   /* data writes are ignored (QEMU 2.4+) */
}

static void fwcfg_dev_init(void *dev, const struct dev_cfg *cfg)
{
	fwcfg_init(dev, cfg->ram_size, cfg->nr_vcpus);
}

DEV_REGISTER(fwcfg, .size = sizeof(struct fwcfg), .init = fwcfg_dev_init,
	     .pio = DEV_PIO_OP(struct fwcfg, fwcfg_pio),
	     DEV_PIO_RANGES({ FWCFG_PORT_SEL, FWCFG_PORT_DATA, 0 }));
