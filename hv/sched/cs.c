/* sched=cs: hybrid co-scheduling, the baseline of seed 003 §II. Picking a
 * CON vCPU launches a co-scheduling of its VM on every online pCPU; pCPUs
 * without a vCPU of that VM fill the gap with HIT vCPUs (or idle); one CON
 * VM is co-scheduled at a time, for one credit slice. Kernel: cosched.c. */
#include "sched/cosched.h"

static const struct cosched_variant cs_variant = {
	.name = "cs", .global = true, .persist = true, .codesched = false, .strict = false,
};

static int cs_init(void)
{
	return cosched_init(&cs_variant);
}

SCHED_POLICY_REGISTER(cs) = {
	.name = "cs",
	.desc = "credit + hybrid co-scheduling, one CON VM at a time on all pCPUs (seed 003)",
	.caps = SCHED_CAP_WEIGHTS | SCHED_CAP_CAPS | SCHED_CAP_WORKCONS | SCHED_CAP_BOOST |
		SCHED_CAP_BALANCE,
	CSCHED_POLICY_OPS(cs_init),
};
