/* sched=cds: hybrid co-scheduling plus co-descheduling (seed 003 §II): as cs,
 * and when one vCPU of the co-scheduled VM is descheduled (preempted,
 * blocked, yielded) its running siblings are descheduled too and the
 * operation ends. Kernel: cosched.c. */
#include "sched/cosched.h"

static const struct cosched_variant cds_variant = {
	.name = "cds", .global = true, .persist = true, .codesched = true, .strict = false,
};

static int cds_init(void)
{
	return cosched_init(&cds_variant);
}

SCHED_POLICY_REGISTER(cds) = {
	.name = "cds",
	.desc = "credit + hybrid co-scheduling with co-descheduling (seed 003)",
	.caps = SCHED_CAP_WEIGHTS | SCHED_CAP_CAPS | SCHED_CAP_WORKCONS | SCHED_CAP_BOOST |
		SCHED_CAP_BALANCE,
	CSCHED_POLICY_OPS(cds_init),
};
