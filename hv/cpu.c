/* The per-CPU objects (hv/cpu.h). */
#include "cpu.h"

struct cpu cpus[MAX_CPUS];
