/* Checks and indexes the registered device models (see dev/registry.h). */
#include "dev/registry.h"
#include "errno.h"
#include "lib/string.h"
#include "log.h"

HV_SECTION_BOUNDS(const struct dev_model, dev);

unsigned dev_registry_section(const struct dev_model **out, unsigned max)
{
	unsigned n = 0;

	for (const struct dev_model *m = __start_hv_dev; m && m < __stop_hv_dev; m++)
		if (n < max)
			out[n++] = m;
		else
			return max + 1;
	return n;
}

/* Lowest address a model answers at: ports first, then MMIO. */
static uint64_t model_key(const struct dev_model *m)
{
	uint64_t k = UINT64_MAX;

	for (unsigned i = 0; i < m->nr_pio; i++)
		k = MIN(k, (uint64_t)m->pio_ranges[i].first);
	for (unsigned i = 0; i < m->nr_mmio; i++)
		k = MIN(k, (1ull << 16) + m->mmio_ranges[i].first);
	return k;
}

static int check_model(const struct dev_model *m)
{
	for (unsigned i = 0; i < m->nr_pio; i++)
		if (m->pio_ranges[i].first > m->pio_ranges[i].last || !m->pio ||
		    (m->pio_ranges[i].flags & DEV_PORT_IDX)) {
			pr_err("dev: %s: port range %#x-%#x without a handler, reversed or with bad flags\n",
			       m->name, m->pio_ranges[i].first, m->pio_ranges[i].last);
			return -EINVAL;
		}
	for (unsigned i = 0; i < m->nr_mmio; i++)
		if (m->mmio_ranges[i].first > m->mmio_ranges[i].last || !m->mmio) {
			pr_err("dev: %s: MMIO range %#lx-%#lx without a handler or reversed\n", m->name,
			       m->mmio_ranges[i].first, m->mmio_ranges[i].last);
			return -EINVAL;
		}
	if (!m->init || !m->next_deadline != !m->advance) {
		pr_err("dev: %s: needs init, and next_deadline with advance or neither\n", m->name);
		return -EINVAL;
	}
	return 0;
}

static int check_pair(const struct dev_model *a, const struct dev_model *b)
{
	if (!strcmp(a->name, b->name)) {
		pr_err("dev: model %s registered twice\n", a->name);
		return -EEXIST;
	}
	for (unsigned i = 0; i < a->nr_pio; i++)
		for (unsigned j = 0; j < b->nr_pio; j++) {
			const struct dev_pio_range *x = &a->pio_ranges[i], *y = &b->pio_ranges[j];

			if (x->first <= y->last && y->first <= x->last) {
				pr_err("dev: ports %#x-%#x of %s overlap ports %#x-%#x of %s\n", x->first,
				       x->last, a->name, y->first, y->last, b->name);
				return -EEXIST;
			}
		}
	for (unsigned i = 0; i < a->nr_mmio; i++)
		for (unsigned j = 0; j < b->nr_mmio; j++) {
			const struct dev_mmio_range *x = &a->mmio_ranges[i], *y = &b->mmio_ranges[j];

			if (x->first <= y->last && y->first <= x->last) {
				pr_err("dev: MMIO %#lx-%#lx of %s overlaps MMIO %#lx-%#lx of %s\n",
				       x->first, x->last, a->name, y->first, y->last, b->name);
				return -EEXIST;
			}
		}
	return 0;
}

int dev_registry_build(struct dev_registry *r, const struct dev_model *const *models, unsigned n)
{
	const struct dev_model *m[DEV_MAX];
	int err;

	if (n > DEV_MAX) {
		pr_err("dev: %u models registered, at most %u\n", n, DEV_MAX);
		return -EINVAL;
	}
	for (unsigned i = 0; i < n; i++) {
		if ((err = check_model(models[i])))
			return err;
		for (unsigned j = 0; j < i; j++)
			if ((err = check_pair(models[j], models[i])))
				return err;
	}
	/* Port order, whatever the link order: the timer sweep advances the
	 * models in that order (PIT, RTC, ACPI PM), as the hand-written sweep did. */
	memcpy(m, models, n * sizeof(m[0]));
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && model_key(m[j]) < model_key(m[j - 1]); j--) {
			const struct dev_model *t = m[j];

			m[j] = m[j - 1];
			m[j - 1] = t;
		}
	memset(r, 0, sizeof(*r));
	/* Unclaimed ports (interrupt controllers, nothing) count as timed on write. */
	memset(r->port, DEV_PIO_TIMED, sizeof(r->port));
	for (unsigned i = 0; i < n; i++) {
		struct dev_slot *s = &r->slot[i];

		s->model = m[i];
		s->pio = m[i]->pio;
		s->off = r->state_size;
		r->state_size += (m[i]->size + DEV_STATE_ALIGN - 1) & ~(size_t)(DEV_STATE_ALIGN - 1);
		if (m[i]->next_deadline) {
			r->timed[r->nr_timed] = (struct dev_timed){
				.next_deadline = m[i]->next_deadline, .advance = m[i]->advance,
				.off = s->off,
			};
			r->timed_slot[r->nr_timed++] = (uint8_t)i;
		}
		for (unsigned k = 0; k < m[i]->nr_pio; k++)
			for (uint32_t p = m[i]->pio_ranges[k].first; p <= m[i]->pio_ranges[k].last; p++)
				r->port[p] = (uint8_t)((i + 1) | m[i]->pio_ranges[k].flags);
	}
	r->nr = n;
	return 0;
}
