/* The checked set of registered device models (DEV_REGISTER in dev/dev.h):
 * sorted by their lowest port, with each model's state offset and a port map
 * that gives model and flags in one byte load on the I/O exit path. */
#ifndef HV_DEV_REGISTRY_H
#define HV_DEV_REGISTRY_H
#include "dev/dev.h"

#define DEV_MAX        63       /* model numbers fit the port map's low 6 bits */
#define DEV_PORT_IDX   0x3f     /* port map: model number + 1, 0 = none */
#define DEV_STATE_ALIGN 16

struct dev_slot {
	dev_pio_fn pio;
	size_t off;                     /* of the model's state in the bundle */
	const struct dev_model *model;
};

struct dev_timed {                  /* the timer sweep's copy, one line each */
	dev_deadline_fn next_deadline;
	dev_advance_fn advance;
	size_t off;
};

struct dev_registry {
	struct dev_slot slot[DEV_MAX];
	unsigned nr, nr_timed;
	uint8_t timed_slot[DEV_MAX];    /* slots with a timer, in port order */
	struct dev_timed timed[DEV_MAX];
	size_t state_size;              /* bytes of state for all models */
	uint8_t port[65536];            /* model number + 1 | DEV_PIO_* flags */
};

/* Checks and indexes models[0..n): 0, or -EEXIST for overlapping port or
 * MMIO ranges or a duplicate name, -EINVAL for an empty/reversed range or too
 * many models; the error is logged naming the models. */
int dev_registry_build(struct dev_registry *r, const struct dev_model *const *models, unsigned n);
/* The models in the hv_dev section (every DEV_REGISTER linked in). */
unsigned dev_registry_section(const struct dev_model **out, unsigned max);
#endif
