/* Port dispatch for the registered PC devices (DEV_REGISTER): one byte of the
 * registry's port map names the model, so the common exits (UART, PIT, PM
 * timer) cost one load and one call whatever the number of models. */
#include "dev/pcdev.h"
#include "compiler.h"
#include "errno.h"
#include "lib/string.h"
#include "log.h"
#include "dev/acpipm.h"

#define KBD_CMD_RESET 0xfe

struct dev_registry pcdev_registry;
static bool pcdev_registry_ready;

static void pcdev_registry_init(void)
{
	const struct dev_model *m[DEV_MAX];
	unsigned n = dev_registry_section(m, DEV_MAX);

	if (n > DEV_MAX || dev_registry_build(&pcdev_registry, m, n))
		panic("dev: the registered device models do not fit together (see above)\n");
	if (pcdev_registry.state_size > PCDEV_STATE_BYTES)
		panic("dev: models need %zu bytes of state, PCDEV_STATE_BYTES is %u\n",
		      pcdev_registry.state_size, PCDEV_STATE_BYTES);
	pcdev_registry_ready = true;
}

void pcdev_init(struct pcdev *d, const struct dev_cfg *cfg)
{
	const struct dev_registry *r = &pcdev_registry;

	if (!pcdev_registry_ready)
		pcdev_registry_init();   /* first VM, on the boot CPU */
	memset(d, 0, sizeof(*d));
	d->host = cfg->host;
	for (unsigned i = 0; i < r->nr; i++)
		r->slot[i].model->init(d->state + r->slot[i].off, cfg);
}

int pcdev_mmio(struct pcdev *d, uint64_t gpa, unsigned size, bool write, uint64_t *val)
{
	const struct dev_registry *r = &pcdev_registry;

	for (unsigned i = 0; i < r->nr; i++) {
		const struct dev_model *m = r->slot[i].model;

		for (unsigned k = 0; k < m->nr_mmio; k++)
			if (gpa >= m->mmio_ranges[k].first && gpa <= m->mmio_ranges[k].last)
				return m->mmio(d->state + r->slot[i].off, gpa, size, write, val);
	}
	return -ENOENT;
}

void *pcdev_find(struct pcdev *d, const char *name)
{
	const struct dev_registry *r = &pcdev_registry;

	for (unsigned i = 0; i < r->nr; i++)
		if (!strcmp(r->slot[i].model->name, name))
			return d->state + r->slot[i].off;
	return NULL;
}

/* No 8042 (the FADT says so), but Linux's reboot path and some test kernels
 * write 0xFE to port 0x64; reads say "input buffer empty" so they do not spin.
 * Timed: after a reset the run loop must look at once. */
struct kbd {
	const struct dev_host *host;
};

static void kbd_init(void *dev, const struct dev_cfg *cfg)
{
	((struct kbd *)dev)->host = cfg->host;
}

static int kbd_pio(void *dev, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	const struct dev_host *host = ((struct kbd *)dev)->host;

	if (!write) {
		*val = 0;
		return 0;
	}
	if ((*val & 0xff) == KBD_CMD_RESET && host && host->vm_stop)
		host->vm_stop(host->ctx, DEV_STOP_RESET, "kbd-reset");
	return 0;
}

DEV_REGISTER(kbd, .size = sizeof(struct kbd), .init = kbd_init, .pio = kbd_pio,
	     DEV_PIO_RANGES({ PCDEV_PORT_KBD, PCDEV_PORT_KBD, DEV_PIO_TIMED }));

/* POST codes: writes dropped, reads all ones. */
static void post_init(void *dev, const struct dev_cfg *cfg)
{
}

static int post_pio(void *dev, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	if (!write)
		*val = 0xff;
	return 0;
}

DEV_REGISTER(post, .init = post_init, .pio = post_pio,
	     DEV_PIO_RANGES({ PCDEV_PORT_POST, PCDEV_PORT_POST, 0 }));
