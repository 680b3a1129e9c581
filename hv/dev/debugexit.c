/* isa-debug-exit: QEMU's exit-with-status port, used by test kernels. */
#include "dev/debugexit.h"
#include "errno.h"

void debugexit_init(struct debugexit *d, const struct dev_host *host, uint16_t port)
{
	d->host = host;
	d->port = port;
	d->fired = false;
}

/* QEMU's device is iosize 1 by default; wider writes are masked to the access size. */
int debugexit_pio(struct debugexit *d, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	uint32_t v;

	if (port != d->port)
		return -ENOENT;
	if (!write) {
		*val = 0;
		return 0;
	}
	v = size >= 4 ? *val : *val & ((1u << (8 * size)) - 1);
	d->fired = true;
	if (d->host && d->host->vm_stop)
		d->host->vm_stop(d->host->ctx, debugexit_status(v), "debug-exit");
	return 0;
}

static void debugexit_dev_init(void *dev, const struct dev_cfg *cfg)
{
	debugexit_init(dev, cfg->host, DEBUGEXIT_PORT);
}

DEV_REGISTER(debugexit, .size = sizeof(struct debugexit), .init = debugexit_dev_init,
	     .pio = DEV_PIO_OP(struct debugexit, debugexit_pio),
	     DEV_PIO_RANGES({ DEBUGEXIT_PORT, DEBUGEXIT_PORT, 0 }));
