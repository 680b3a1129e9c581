/* Scheduler options: one registration next to the code that reads them
 * (issue 11). A registration puts a descriptor in section hv_sched_opt (the
 * core parser, options.c, walks it: sched_option_set/get, defaults) and the
 * matching `key=` entry in hv/cmdline's section, so adding an option touches
 * one file:
 *
 *   static stime_t my_limit;
 *   SCHED_OPT_INT(sched_my_limit_us, my_limit, SCHED_US(1), 0, SCHED_MS(10),
 *                 SCHED_US(500),
 *                 "what it limits, us (500)");
 *
 * The variable may be a file-static of the policy or a field of sched_opts.
 * Defaults live only in the registration: sched_options_defaults() writes
 * them (the image applies them before the first option is set or read). */
#ifndef HV_SCHED_OPTION_H
#define HV_SCHED_OPTION_H
#include "compiler.h"
#include "cmdline.h"
#include "sched/sched.h"

#define SCHED_MS(x) ((stime_t)(x) * 1000000)
#define SCHED_US(x) ((stime_t)(x) * 1000)

enum sched_opt_kind {
	SCHED_OPT_K_INT,     /* stime_t = value * unit, in [min, max] (after scaling) */
	SCHED_OPT_K_U64,     /* uint64_t, any value */
	SCHED_OPT_K_ENUM,    /* uint8_t index into names[] */
	SCHED_OPT_K_OFF,     /* bool set by "off", cleared by "on" (read back as 1 = on) */
};

struct sched_opt {
	const char *name;
	void *var;
	const char *const *names;   /* ENUM: NULL-terminated */
	int64_t unit, min, max;     /* INT: ns (or 1) per unit, bounds after scaling */
	int64_t def;                /* default (INT: scaled; ENUM: index; OFF: 1 = off) */
	void (*after_set)(void);    /* optional, after a successful set */
	uint32_t kind;              /* enum sched_opt_kind */
	uint32_t pad;
};
_Static_assert(sizeof(struct sched_opt) % 8 == 0, "section array stride");
HV_SECTION_BOUNDS(const struct sched_opt, sched_opt);

/* hv/cmdline glue (options.c): key= goes to the descriptor in o->var. */
int sched_opt_cmdline_parse(const struct cmdline_opt *o, const char *val);
void sched_opt_cmdline_print(const struct cmdline_opt *o, char *buf, size_t size);

#define SCHED_OPT__CHECK(var, T) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(var), T), \
		       "scheduler option variable " #var " must be " #T)
#define SCHED_OPT__DEF(key, h, ...) \
	static const struct sched_opt sched_opt_##key HV_REGISTER(sched_opt) = { \
		.name = #key, __VA_ARGS__ }; \
	CMDLINE_CUSTOM(key, (void *)&sched_opt_##key, sched_opt_cmdline_parse, \
		       sched_opt_cmdline_print, h)

/* key=N: v = N * u (u = SCHED_MS(1), SCHED_US(1) or 1), lo <= v <= hi, default d (scaled). */
#define SCHED_OPT_INT(key, v, u, lo, hi, d, h) SCHED_OPT__CHECK(v, stime_t); \
	SCHED_OPT__DEF(key, h, .var = &(v), .unit = (u), .min = (lo), .max = (hi), \
		       .def = (d), .kind = SCHED_OPT_K_INT)
/* Same, calling fn() after each successful set. */
#define SCHED_OPT_INT_FN(key, v, u, lo, hi, d, fn, h) SCHED_OPT__CHECK(v, stime_t); \
	SCHED_OPT__DEF(key, h, .var = &(v), .unit = (u), .min = (lo), .max = (hi), \
		       .def = (d), .after_set = (fn), .kind = SCHED_OPT_K_INT)
/* key=N: any 64-bit unsigned (decimal or 0x hex). */
#define SCHED_OPT_U64(key, v, d, h) SCHED_OPT__CHECK(v, uint64_t); \
	SCHED_OPT__DEF(key, h, .var = &(v), .unit = 1, .def = (int64_t)(d), \
		       .kind = SCHED_OPT_K_U64)
/* key=name: v = index of name in nm[] (NULL-terminated), default index d. */
#define SCHED_OPT_ENUM(key, v, nm, d, h) SCHED_OPT__CHECK(v, uint8_t); \
	SCHED_OPT__DEF(key, h, .var = &(v), .names = (nm), .def = (d), \
		       .kind = SCHED_OPT_K_ENUM)
/* key=on|off, default on; v is the "off" flag. */
#define SCHED_OPT_ON_OFF(key, v, h) SCHED_OPT__CHECK(v, bool); \
	SCHED_OPT__DEF(key, h, .var = &(v), .def = 0, .kind = SCHED_OPT_K_OFF)

/* Registered options in link order; NULL past the end. */
const struct sched_opt *sched_option_at(unsigned i);
#endif
