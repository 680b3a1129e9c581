/* Fake dev_host for device-model unit tests: a settable clock, a console
 * capture buffer, a vm_stop recorder and an IRQ line recorder. */
#ifndef TEST_DEVFAKE_H
#define TEST_DEVFAKE_H
#include "check_run.h"
#include <string.h>
#include "dev/dev.h"
#include "errno.h"

struct devfake {
	stime_t now;
	char out[4096];
	size_t out_len;
	int stops;
	int stop_status;
	char stop_why[64];
	bool line[16];
	int rises[16];
	int falls[16];
};

static inline stime_t devfake_now(void *ctx)
{
	return ((struct devfake *)ctx)->now;
}

static inline void devfake_console(void *ctx, const char *s, size_t n)
{
	struct devfake *f = ctx;

	for (size_t i = 0; i < n && f->out_len + 1 < sizeof(f->out); i++)
		f->out[f->out_len++] = s[i];
	f->out[f->out_len] = '\0';
}

static inline void devfake_stop(void *ctx, int status, const char *why)
{
	struct devfake *f = ctx;

	f->stops++;
	f->stop_status = status;
	strncpy(f->stop_why, why, sizeof(f->stop_why) - 1);
}

static inline void devfake_irq(void *ctx, unsigned gsi, bool level)
{
	struct devfake *f = ctx;

	if (gsi >= 16)
		return;
	if (level && !f->line[gsi])
		f->rises[gsi]++;
	if (!level && f->line[gsi])
		f->falls[gsi]++;
	f->line[gsi] = level;
}

static inline void devfake_setup(struct devfake *f, struct dev_host *h)
{
	memset(f, 0, sizeof(*f));
	memset(h, 0, sizeof(*h));
	h->ctx = f;
	h->now = devfake_now;
	h->console_write = devfake_console;
	h->vm_stop = devfake_stop;
}

static inline int devfake_run(Suite *s)
{
	return check_run(s);
}
#endif
