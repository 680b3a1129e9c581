/* sched=gang: strict co-scheduling (VMware ESX 2.x, seed 000 §2): all vCPUs
 * of a CON VM run together or none does. An operation reserves the pCPUs
 * holding the VM's vCPUs for one credit slice; a CON vCPU never runs outside
 * its VM's operation (its pCPU runs HIT work or idles instead), and when one
 * member stops the others are descheduled. Not work conserving by design.
 * A CON VM with more vCPUs than pCPUs cannot be ganged and is run as HIT. */
#include "sched/cosched.h"

static const struct cosched_variant gang_variant = {
	.name = "gang", .global = false, .persist = true, .codesched = true, .strict = true,
};

static int gang_init(void)
{
	return cosched_init(&gang_variant);
}

SCHED_POLICY_REGISTER(gang) = {
	.name = "gang",
	.desc = "credit + strict gang scheduling of CON VMs (idles rather than run a partial gang)",
	.caps = SCHED_CAP_WEIGHTS | SCHED_CAP_CAPS | SCHED_CAP_BOOST,
	CSCHED_POLICY_OPS(gang_init),
};
