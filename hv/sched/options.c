/* Scheduler options: the core parser over the options registered with
 * SCHED_OPT_* (sched/option.h, section hv_sched_opt) next to the code that
 * reads them, `sched=<policy>`, and the core's own option (sched_seed). */
#include "cmdline.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"
#include "sched/policy.h"
#include "sched/option.h"

char sched_opt_policy[32];
/* Storage of the options declared before registrations existed; every
 * default is in its registration (sched_options_defaults). */
struct sched_options sched_opts;
static bool sched_opts_ready;

CMDLINE_STR(sched, sched_opt_policy, "vCPU scheduler policy (credit; unknown: list + default)");
SCHED_OPT_U64(sched_seed, sched_opts.seed, 1, "seed of the scheduler's PRNG (1)");

static unsigned sched_option_count(void)
{
	return __start_hv_sched_opt ? (unsigned)(__stop_hv_sched_opt - __start_hv_sched_opt) : 0;
}

const struct sched_opt *sched_option_at(unsigned i)
{
	return i < sched_option_count() ? &__start_hv_sched_opt[i] : NULL;
}

static const struct sched_opt *sched_option_find(const char *name)
{
	const struct sched_opt *o;

	for (unsigned i = 0; (o = sched_option_at(i)); i++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static void sched_option_write(const struct sched_opt *o, int64_t v)
{
	switch (o->kind) {
	case SCHED_OPT_K_INT:  *(stime_t *)o->var = v; break;
	case SCHED_OPT_K_U64:  *(uint64_t *)o->var = (uint64_t)v; break;
	case SCHED_OPT_K_ENUM: *(uint8_t *)o->var = (uint8_t)v; break;
	case SCHED_OPT_K_OFF:  *(bool *)o->var = v != 0; break;
	}
}

void sched_options_defaults(void)
{
	const struct sched_opt *o;

	memset(&sched_opts, 0, sizeof(sched_opts));
	for (unsigned i = 0; (o = sched_option_at(i)); i++)
		sched_option_write(o, o->def);
	sched_opts_ready = true;
}

void sched_options_ensure(void)
{
	if (!sched_opts_ready)
		sched_options_defaults();
}

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

static const char *sched_option_unit(const struct sched_opt *o)
{
	return o->unit == 1000000 ? " ms" : o->unit == 1000 ? " us" : "";
}

/* Log what o accepts: "sched: <what> for name=: expected ...". */
static void sched_option_complain(const struct sched_opt *o, const char *what, const char *value)
{
	switch (o->kind) {
	case SCHED_OPT_K_INT:
		pr_warn("sched: %s '%s' for %s=: expected an integer in [%lld, %lld]%s\n", what,
			value ? value : "", o->name, (long long)(o->min / o->unit),
			(long long)(o->max / o->unit), sched_option_unit(o));
		break;
	case SCHED_OPT_K_U64:
		pr_warn("sched: %s '%s' for %s=: expected an unsigned integer\n", what,
			value ? value : "", o->name);
		break;
	case SCHED_OPT_K_ENUM: {
		char list[96];
		size_t n = 0;

		list[0] = '\0';
		for (const char *const *nm = o->names; *nm; nm++) {
			if (nm != o->names && n + 1 < sizeof(list))
				list[n++] = '|';
			for (const char *c = *nm; *c && n + 1 < sizeof(list); c++)
				list[n++] = *c;
		}
		list[n] = '\0';
		pr_warn("sched: %s '%s' for %s=: expected one of %s\n", what, value ? value : "",
			o->name, list);
		break;
	}
	case SCHED_OPT_K_OFF:
		pr_warn("sched: %s '%s' for %s=: expected on|off\n", what, value ? value : "",
			o->name);
		break;
	}
}

static int sched_option_reject(const struct sched_opt *o, const char *what, const char *value,
			       int rc)
{
	sched_option_complain(o, what, value);
	return rc;
}

static int sched_option_apply(const struct sched_opt *o, const char *value)
{
	uint64_t v;

	sched_options_ensure();
	switch (o->kind) {
	case SCHED_OPT_K_ENUM:
		for (size_t m = 0; o->names[m]; m++)
			if (value && !strcmp(value, o->names[m])) {
				sched_option_write(o, (int64_t)m);
				goto done;
			}
		return sched_option_reject(o, "bad value", value, trace_error(-EINVAL));
	case SCHED_OPT_K_OFF:
		if (value && (!strcmp(value, "on") || !strcmp(value, "off"))) {
			sched_option_write(o, value[1] == 'f');
			goto done;
		}
		return sched_option_reject(o, "bad value", value, trace_error(-EINVAL));
	default:
		break;
	}
	if (sched_parse_u64(value, &v)) {
		return sched_option_reject(o, "bad value", value, trace_error(-EINVAL));
	}
	if (o->kind == SCHED_OPT_K_INT &&
	    (v > (uint64_t)(o->max / o->unit) || (int64_t)v * o->unit < o->min)) {
		return sched_option_reject(o, "out of range:", value, trace_error(-ERANGE));
	}
	sched_option_write(o, o->kind == SCHED_OPT_K_INT ? (int64_t)v * o->unit : (int64_t)v);
done:
	if (o->after_set)
		o->after_set();
	return 0;
}

int sched_option_next(char **cur, char **key, char **val)
{
	char *s = *cur, *e, *eq;

	while (*s == ' ' || *s == '\t' || *s == ',')
		s++;
	if (!*s) {
		*cur = s;
		return 0;
	}
	for (e = s; *e && *e != ' ' && *e != '\t' && *e != ','; e++)
		;
	if (*e)
		*e++ = '\0';
	*cur = e;
	eq = strchr(s, '=');
	if (!eq)
		return -EINVAL;
	*eq = '\0';
	*key = s;
	*val = eq + 1;
	return 1;
}

/* Before sched_init(). Returns 0, -ENOENT (not ours) or -EINVAL/-ERANGE;
 * every failure is logged with what the option accepts. */
int sched_option_set(const char *name, const char *value)
{
	const struct sched_opt *o = sched_option_find(name);

	if (!o) {
		pr_warn("sched: unknown option '%s' (%u options registered; see docs/sched.md)\n",
			name, sched_option_count());
		return -ENOENT;
	}
	return sched_option_apply(o, value);
}

/* Current value of an option in its own unit (ms, us, ...; on|off as 1|0). */
int sched_option_get(const char *name, uint64_t *val)
{
	const struct sched_opt *o = sched_option_find(name);

	if (!o)
		return -ENOENT;
	sched_options_ensure();
	switch (o->kind) {
	case SCHED_OPT_K_INT:  *val = (uint64_t)(*(stime_t *)o->var / o->unit); break;
	case SCHED_OPT_K_U64:  *val = *(uint64_t *)o->var; break;
	case SCHED_OPT_K_ENUM: *val = *(uint8_t *)o->var; break;
	case SCHED_OPT_K_OFF:  *val = !*(bool *)o->var; break;
	}
	return 0;
}

int sched_opt_cmdline_parse(const struct cmdline_opt *o, const char *val)
{
	return sched_option_apply(o->var, val);
}

/* Decimal without lib/fmt so host builds need nothing else. */
void sched_opt_cmdline_print(const struct cmdline_opt *o, char *buf, size_t size)
{
	char tmp[24];
	uint64_t v = 0;
	size_t n = 0, i = 0;

	if (!size)
		return;
	sched_option_get(((const struct sched_opt *)o->var)->name, &v);
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(tmp));
	while (n && i + 1 < size)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
}
