/* Registers the scheduler's boot options with hv/cmdline: `sched=<policy>`
 * and every sched_* option of params.c (parsed by sched_option_set). */
#include "cmdline.h"
#include "sched/sched.h"

char sched_opt_policy[32];

static int sched_opt_parse(const struct cmdline_opt *o, const char *val)
{
	return sched_option_set(o->name, val);
}

/* Decimal without lib/fmt so host builds need nothing else. */
static void sched_opt_print(const struct cmdline_opt *o, char *buf, size_t size)
{
	char tmp[24];
	uint64_t v = 0;
	size_t n = 0, i = 0;

	if (!size)
		return;
	sched_option_get(o->name, &v);
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(tmp));
	while (n && i + 1 < size)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
}

#define SCHED_OPT(key, h) \
	CMDLINE_CUSTOM(key, NULL, sched_opt_parse, sched_opt_print, h)

CMDLINE_STR(sched, sched_opt_policy, "vCPU scheduler policy (credit; unknown: list + default)");
SCHED_OPT(sched_credit_tslice_ms, "credit time slice and accounting period, ms (30)");
SCHED_OPT(sched_credit_tick_ms, "credit accounting tick, ms (10)");
SCHED_OPT(sched_ratelimit_us, "minimum run time before a preemption, us (1000)");
SCHED_OPT(sched_sa_limit_us, "scheduler-activation hard limit, us (500)");
SCHED_OPT(sched_dp_us, "delayed wake-up preemption, us (0 = off; adaptive: start value)");
SCHED_OPT(sched_dp, "delayed preemption: off|fixed|adaptive (sched_dp_us alone = fixed)");
SCHED_OPT(sched_dp_min_us, "adaptive delayed preemption: lower bound, us (0)");
SCHED_OPT(sched_dp_max_us, "adaptive delayed preemption: upper bound, us (20000)");
SCHED_OPT(sched_ds_min_ms, "differential slices: minimum, ms (0 = off)");
SCHED_OPT(sched_ds_max_ms, "differential slices: maximum, ms");
SCHED_OPT(sched_seed, "seed of the scheduler's PRNG (1)");
SCHED_OPT(ple, "PAUSE-loop exiting: on|off (on)");
SCHED_OPT(ple_directed, "PLE exit yields to a preempted sibling: on|off (on)");
SCHED_OPT(ple_window, "initial per-vCPU PLE_Window, cycles (4096)");
SCHED_OPT(ple_window_min, "smallest PLE_Window, cycles (1024)");
SCHED_OPT(ple_window_max, "largest PLE_Window, cycles (16384)");
SCHED_OPT(ple_recent_us, "a directed-yield target this recent is avoided, us (1000)");
