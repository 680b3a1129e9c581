/* Scheduler parameters: global options from the command line (Xen spelling)
 * and per-VM / per-vCPU parameters changed at run time. */
#include "sched/policy.h"
#include "log.h"
#include "errno.h"
#include "lib/string.h"

#define MS(x) ((stime_t)(x) * 1000000)
#define US(x) ((stime_t)(x) * 1000)

struct sched_options sched_opts = {
	.credit_tslice = MS(30), .credit_tick = MS(10), .ratelimit = US(1000),
	.sa_limit = US(500), .seed = 1, .dp_max = MS(20),
	.relaxed_skew = US(3000), .relaxed_costop = 1,
	.ple_window = 4096, .ple_window_min = 1024, .ple_window_max = 16384,
	.ple_recent = US(1000),
};

void sched_options_defaults(void)
{
	sched_opts = (struct sched_options){
		.credit_tslice = MS(30), .credit_tick = MS(10), .ratelimit = US(1000),
		.sa_limit = US(500), .seed = 1, .dp_max = MS(20),
		.relaxed_skew = US(3000), .relaxed_costop = 1,
		.ple_window = 4096, .ple_window_min = 1024, .ple_window_max = 16384,
		.ple_recent = US(1000),
	};
}

struct sched_option {
	const char *name;
	stime_t *ns;          /* time option */
	stime_t unit;         /* ns per unit of the value */
	stime_t min, max;     /* in ns */
};

static const struct sched_option sched_option_tab[] = {
	{ "sched_credit_tslice_ms", &sched_opts.credit_tslice, MS(1), MS(1), MS(1000) },
	{ "sched_credit_tick_ms", &sched_opts.credit_tick, MS(1), MS(1), MS(100) },
	{ "sched_ratelimit_us", &sched_opts.ratelimit, US(1), 0, MS(500) },
	{ "sched_sa_limit_us", &sched_opts.sa_limit, US(1), 0, MS(100) },
	{ "sched_dp_us", &sched_opts.dp_delay, US(1), 0, MS(100) },
	{ "sched_dp_min_us", &sched_opts.dp_min, US(1), 0, MS(100) },
	{ "sched_dp_max_us", &sched_opts.dp_max, US(1), 0, MS(100) },
	{ "sched_ds_min_ms", &sched_opts.ds_min, MS(1), 0, MS(1000) },
	{ "sched_ds_max_ms", &sched_opts.ds_max, MS(1), 0, MS(1000) },
	{ "sched_seed", NULL, 1, 0, 0 },
	{ "sched_relaxed_skew_us", &sched_opts.relaxed_skew, US(1), US(100), MS(1000) },
	{ "sched_relaxed_costop", &sched_opts.relaxed_costop, 1, 0, 1 },
	{ "ple_window", &sched_opts.ple_window, 1, 1, 0x7fffffff },
	{ "ple_window_min", &sched_opts.ple_window_min, 1, 1, 0x7fffffff },
	{ "ple_window_max", &sched_opts.ple_window_max, 1, 1, 0x7fffffff },
	{ "ple_recent_us", &sched_opts.ple_recent, US(1), 0, MS(1000) },
};

const char *const sched_option_names[] = {
	"sched_credit_tslice_ms", "sched_credit_tick_ms", "sched_ratelimit_us",
	"sched_sa_limit_us", "sched_dp_us", "sched_ds_min_ms", "sched_ds_max_ms",
	"sched_seed", "sched_relaxed_skew_us", "sched_relaxed_costop", "sched_dp",
	"sched_dp_min_us", "sched_dp_max_us", "ple", "ple_directed",
	"ple_window", "ple_window_min", "ple_window_max", "ple_recent_us", NULL,
};

/* Decimal (or 0x hex) unsigned integer; -EINVAL on junk. */
static int sched_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++) {
		unsigned d = *s >= '0' && *s <= '9' ? (unsigned)(*s - '0') :
			     *s >= 'a' && *s <= 'f' ? (unsigned)(*s - 'a' + 10) :
			     *s >= 'A' && *s <= 'F' ? (unsigned)(*s - 'A' + 10) : 99;
		if (d >= base || v > (UINT64_MAX - d) / base)
			return -EINVAL;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

static const char *const sched_dp_modes[] = { "off", "fixed", "adaptive" };

/* Before sched_init(). Returns 0, -ENOENT (not ours) or -EINVAL/-ERANGE. */
int sched_option_set(const char *name, const char *value)
{
	if (!strcmp(name, "sched_dp")) {
		for (size_t m = 0; m < ARRAY_SIZE(sched_dp_modes); m++)
			if (value && !strcmp(value, sched_dp_modes[m])) {
				sched_opts.dp_mode = (uint8_t)m;
				return 0;
			}
		return trace_error(-EINVAL);
	}
	if (!strcmp(name, "ple") || !strcmp(name, "ple_directed")) {
		bool *off = name[3] ? &sched_opts.ple_undirected : &sched_opts.ple_off;

		if (value && !strcmp(value, "on"))
			*off = false;
		else if (value && !strcmp(value, "off"))
			*off = true;
		else
			return trace_error(-EINVAL);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sched_option_tab); i++) {
		const struct sched_option *o = &sched_option_tab[i];
		uint64_t v;

		if (strcmp(o->name, name))
			continue;
		if (sched_parse_u64(value, &v))
			return trace_error(-EINVAL);
		if (!o->ns) {
			sched_opts.seed = v;
			return 0;
		}
		if (v > (uint64_t)(o->max / o->unit) || (stime_t)v * o->unit < o->min) {
			pr_warn("sched: %s=%s out of range\n", name, value);
			return trace_error(-ERANGE);
		}
		*o->ns = (stime_t)v * o->unit;
		/* sched_dp_us=N alone asks for fixed DP (sched_dp=adaptive keeps
		 * its mode and takes N as every vCPU's starting delay). */
		if (o->ns == &sched_opts.dp_delay && sched_opts.dp_mode == SCHED_DP_OFF)
			sched_opts.dp_mode = SCHED_DP_FIXED;
		return 0;
	}
	return -ENOENT;
}

/* Current value of an option in its own unit (ms, us, ...). */
int sched_option_get(const char *name, uint64_t *val)
{
	if (!strcmp(name, "sched_dp")) {
		*val = sched_opts.dp_mode;
		return 0;
	}
	if (!strcmp(name, "ple") || !strcmp(name, "ple_directed")) {
		*val = !(name[3] ? sched_opts.ple_undirected : sched_opts.ple_off);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sched_option_tab); i++) {
		const struct sched_option *o = &sched_option_tab[i];

		if (strcmp(o->name, name))
			continue;
		*val = o->ns ? (uint64_t)(*o->ns / o->unit) : sched_opts.seed;
		return 0;
	}
	return -ENOENT;
}

/* Privileged hypercall. Takes the policy's locks through vm_adjust. */
int sched_vm_param_set(struct sched_vm *vm, enum sched_param which, uint64_t val)
{
	struct sched_vm_params np = vm->params;

	switch (which) {
	case SCHED_PARAM_WEIGHT:
		if (!val || val > 65535)
			return trace_error(-EINVAL);
		np.weight = (uint32_t)val;
		break;
	case SCHED_PARAM_CAP:
		if (val > 100ULL * SCHED_MAX_PCPUS)
			return trace_error(-EINVAL);
		np.cap = (uint32_t)val;
		break;
	case SCHED_PARAM_TYPE:
		if (val > SCHED_TYPE_CON)
			return trace_error(-EINVAL);
		np.type = (uint8_t)val;
		break;
	case SCHED_PARAM_SA:
		np.sa = val != 0;
		break;
	default:
		return trace_error(-EINVAL);
	}
	if (READ_ONCE(sched_sys.switching))
		return -EBUSY;   /* run-time policy switch under way (switch.c) */
	vm->params = np;
	if (sched_sys.ops->vm_adjust)
		sched_sys.ops->vm_adjust(vm);
	return 0;
}

int sched_vm_param_get(const struct sched_vm *vm, enum sched_param which, uint64_t *val)
{
	switch (which) {
	case SCHED_PARAM_WEIGHT: *val = vm->params.weight; return 0;
	case SCHED_PARAM_CAP:    *val = vm->params.cap; return 0;
	case SCHED_PARAM_TYPE:   *val = vm->params.type; return 0;
	case SCHED_PARAM_SA:     *val = vm->params.sa; return 0;
	default:                 return trace_error(-EINVAL);
	}
}

/* Wider affinity: idle pCPUs newly allowed look for work (steal). */
static void sched_affinity_tickle(const struct cpumask *ok)
{
	unsigned c;

	for_each_cpu(c, ok)
		if (!READ_ONCE(sched_sys.pcpu[c]->curr))
			sched_cpu_resched(c);
}

/* Takes v's runqueue lock. A running or queued vCPU that loses its pCPU is
 * paused and restarted so the policy places it again. */
int sched_vcpu_affinity_set(struct sched_vcpu *v, const struct cpumask *m, stime_t now)
{
	struct cpumask ok;
	struct sched_pcpu *p;
	bool move;

	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		ok.w[i] = m->w[i] & sched_sys.online.w[i];
	if (cpumask_empty(&ok))
		return trace_error(-EINVAL);
	if (READ_ONCE(sched_sys.switching))
		return -EBUSY;
	p = sched_vcpu_lock(v);
	v->affinity = *m;
	if (v->state == SCHED_RUNNABLE)
		sched_affinity_tickle(&ok);
	move = !cpumask_test(m, v->pcpu);
	if (move && v->state == SCHED_RUNNING)
		sched_cpu_resched(v->pcpu);
	if (move && v->state == SCHED_RUNNABLE && p->curr != v) {
		sched_sys.ops->sleep(v, now);
		sched_vcpu_unlock(p);
		/* Re-place: unqueued RUNNABLE vCPUs are moved only by their owner. */
		p = sched_pcpu_get(cpumask_next_and(&ok, NULL, 0));
		sched_lock_pair(sched_pcpu_get(v->pcpu), p);
		{
			struct sched_pcpu *old = sched_pcpu_get(v->pcpu);
			sched_vcpu_migrate(v, p->id, now);
			sched_sys.ops->wake(v, now);
			sched_unlock_pair(old, p);
		}
		return 0;
	}
	sched_vcpu_unlock(p);
	return 0;
}
