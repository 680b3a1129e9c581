/* sched=pcs: Partial Co-Scheduling, seed 003 §IV, Algorithm 1. A CON VM's
 * co-scheduling signals only its CoCPUs (the pCPUs holding its vCPUs, kept
 * apart by scatter); CoWorkers/CoPartners let several CON VMs be
 * co-scheduled at once on disjoint pCPU sets. The kernel is hv/sched/cosched.c. */
#include "sched/cosched.h"

static const struct cosched_variant pcs_variant = {
	.name = "pcs", .global = false, .persist = false, .codesched = false, .strict = false,
};

static int pcs_init(void)
{
	return cosched_init(&pcs_variant);
}

SCHED_POLICY_REGISTER(pcs) = {
	.name = "pcs",
	.desc = "credit + partial co-scheduling of CON VMs (seed 003 Alg. 1)",
	.caps = SCHED_CAP_WEIGHTS | SCHED_CAP_CAPS | SCHED_CAP_WORKCONS | SCHED_CAP_BOOST |
		SCHED_CAP_BALANCE,
	CSCHED_POLICY_OPS(pcs_init),
};
