/* The per-CPU objects (hv/cpu.h). */
#include "cpu.h"

struct cpu cpus[MAX_CPUS];

/* Called on each CPU after percpu_init(): GS now reaches its object. */
void cpu_bind(unsigned id)
{
	percpu_area[id].cpu = &cpus[id];
}
