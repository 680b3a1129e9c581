/* isa-debug-exit (QEMU's test-exit device) at port 0xF4: a write of v ends the
 * VM with status (v << 1) | 1, so a guest can never report 0 through it. */
#ifndef HV_DEV_DEBUGEXIT_H
#define HV_DEV_DEBUGEXIT_H
#include "dev/dev.h"

#define DEBUGEXIT_PORT 0xf4

struct debugexit {
	const struct dev_host *host;
	uint16_t port;
	bool fired;
};

void debugexit_init(struct debugexit *d, const struct dev_host *host, uint16_t port);
int debugexit_pio(struct debugexit *d, uint16_t port, unsigned size, bool write, uint32_t *val);
/* The status a write of v produces (QEMU hw/misc/debugexit.c semantics). */
static inline int debugexit_status(uint32_t v)
{
	return (int)((v << 1) | 1u);
}
#endif
