/* One simulated machine for scheduler unit tests that drive hvsim's engine
 * (tools/sim): parse a workload, pick the policy, run to a time. Include once
 * per test file, after check.h. */
#ifndef TEST_UNIT_SIM_FIXTURE_H
#define TEST_UNIT_SIM_FIXTURE_H
#include <stdio.h>
#include "../../tools/sim/sim.h"

static struct sim S;

static void setup(const char *policy, const char *text)
{
	char err[256];

	ck_assert_msg(sim_parse(&S, text, err, sizeof(err)) == 0, "parse: %s", err);
	snprintf(S.policy, sizeof(S.policy), "%s", policy);
	ck_assert_int_eq(sim_setup(&S), 0);
}

static void run_to(stime_t t)
{
	S.duration = t;
	sim_run(&S);
}
#endif
