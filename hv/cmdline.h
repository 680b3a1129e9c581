/* Boot command line: options registered by each subsystem in section
 * hv_cmdline, a key=value tokenizer reusable for module strings, and typed
 * value parsers (bool, int with range, sizes with K/M/G/T, enum, name lists). */
#ifndef HV_CMDLINE_H
#define HV_CMDLINE_H
#include "compiler.h"

#define CMDLINE_MAX      4096   /* longest command line accepted */
#define CMDLINE_KEY_MAX  64     /* longest key, including the NUL */
#define CMDLINE_VAL_MAX  512    /* longest value, including the NUL */

enum cmdline_type {
	CMDLINE_T_BOOL,     /* bool: bare "key", key=1|0|on|off|yes|no|true|false */
	CMDLINE_T_INT,      /* int in [min, max] (decimal, 0x hex, leading '-') */
	CMDLINE_T_U64,      /* uint64_t in [min, max] with K/M/G/T suffixes */
	CMDLINE_T_STR,      /* copied into a char[size] (value must fit) */
	CMDLINE_T_ENUM,     /* int index into names[] */
	CMDLINE_T_LIST,     /* uint32_t mask: comma list of names[] (bit i = names[i]) */
	CMDLINE_T_CUSTOM,   /* parse(opt, value) decides */
};

struct cmdline_opt;
/* A custom parser returns 0 or a negative errno (the caller logs the problem
 * and keeps the default); print writes the effective value. */
typedef int (*cmdline_parse_fn)(const struct cmdline_opt *o, const char *val);
typedef void (*cmdline_print_fn)(const struct cmdline_opt *o, char *buf, size_t size);

struct cmdline_opt {
	const char *name;
	const char *help;
	void *var;
	const char *const *names;      /* ENUM/LIST: NULL-terminated */
	int64_t min, max;              /* INT (signed), U64 (as uint64_t) */
	size_t size;                   /* STR: buffer size */
	cmdline_parse_fn parse;        /* CUSTOM */
	cmdline_print_fn print;        /* CUSTOM (optional) */
	uint32_t type;                 /* enum cmdline_type */
	uint32_t pad;
};
_Static_assert(sizeof(struct cmdline_opt) % 8 == 0, "section array stride");

#define CMDLINE__CHECK(var, T) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(var), T), \
		       "option variable " #var " must be " #T)
#define CMDLINE__DEF(key) \
	static const struct cmdline_opt cmdline_opt_##key HV_REGISTER(cmdline)

/* Registration macros: the key is a C identifier and becomes the option name. */
#define CMDLINE_BOOL(key, v, h) CMDLINE__CHECK(v, bool); CMDLINE__DEF(key) = { \
	.name = #key, .help = h, .var = &(v), .type = CMDLINE_T_BOOL }
#define CMDLINE_INT(key, v, lo, hi, h) CMDLINE__CHECK(v, int); CMDLINE__DEF(key) = { \
	.name = #key, .help = h, .var = &(v), .min = (lo), .max = (hi), .type = CMDLINE_T_INT }
#define CMDLINE_U64(key, v, lo, hi, h) CMDLINE__CHECK(v, uint64_t); CMDLINE__DEF(key) = { \
	.name = #key, .help = h, .var = &(v), .min = (int64_t)(lo), .max = (int64_t)(hi), \
	.type = CMDLINE_T_U64 }
#define CMDLINE_STR(key, buf, h) CMDLINE__DEF(key) = { \
	.name = #key, .help = h, .var = (buf), .size = sizeof(buf), .type = CMDLINE_T_STR }
#define CMDLINE_ENUM(key, v, nm, h) CMDLINE__CHECK(v, int); CMDLINE__DEF(key) = { \
	.name = #key, .help = h, .var = &(v), .names = (nm), .type = CMDLINE_T_ENUM }
#define CMDLINE_LIST(key, v, nm, h) CMDLINE__CHECK(v, uint32_t); CMDLINE__DEF(key) = { \
	.name = #key, .help = h, .var = &(v), .names = (nm), .type = CMDLINE_T_LIST }
#define CMDLINE_CUSTOM(key, v, fn, pfn, h) CMDLINE__DEF(key) = { \
	.name = #key, .help = h, .var = (v), .parse = (fn), .print = (pfn), \
	.type = CMDLINE_T_CUSTOM }

/* Options provided by the core (defined in cmdline.c). */
#define CONSOLE_COM1  BIT(0)
#define CONSOLE_E9    BIT(1)
#define CONSOLE_COM2  BIT(2)
extern uint32_t opt_console;   /* console=com1,e9 (default com1) */
extern int opt_maxcpus;        /* maxcpus=N (default 0: all CPUs) */
/* loglvl=err|warn|info|debug sets log_level from log.h. */

/*
 * Parse the whole command line against every registered option. Unknown keys
 * are warned about; malformed values are reported naming the key and the
 * expected form, and leave the default. Returns 0, or -EINVAL if anything was
 * reported (the line is still applied as far as it could be).
 */
int cmdline_parse(const char *line);
/* Log every option's effective value (pr_info). */
void cmdline_print_effective(void);
/* Log every option with its help text and expected form (pr_info). */
void cmdline_print_help(void);
/* Look up a registered option (NULL if none). */
const struct cmdline_opt *cmdline_find(const char *name);
/* Apply one value to one option; val NULL means a bare flag. Logs on error. */
int cmdline_opt_set(const struct cmdline_opt *o, const char *val);
/* Format an option's current value. */
void cmdline_opt_format(const struct cmdline_opt *o, char *buf, size_t size);

/* Tokenizer: `k=v k2="quoted value" flag`. The cursor never passes `end`. */
struct cmdline_cursor { const char *p, *end; };
enum { CMDLINE_KV_END = 0, CMDLINE_KV_FLAG = 1, CMDLINE_KV_PAIR = 2 };
void cmdline_cursor_init(struct cmdline_cursor *c, const char *s, size_t max);
/*
 * Next token into key[keylen] and val[vallen] (quotes removed).
 * Returns CMDLINE_KV_FLAG (bare key, val = ""), CMDLINE_KV_PAIR, CMDLINE_KV_END,
 * -E2BIG (key or value too long: token skipped, key holds its truncated
 * start) or -EINVAL (unterminated quote: rest of the line consumed).
 */
int cmdline_next_kv(struct cmdline_cursor *c, char *key, size_t keylen,
		    char *val, size_t vallen);

/* Value parsers shared with module-string code; 0 or -EINVAL / -ERANGE. */
int cmdline_parse_bool(const char *s, bool *out);
int cmdline_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out);
int cmdline_parse_size(const char *s, uint64_t *out);   /* 256M, 4K, 0x1000, 1G */
int cmdline_parse_enum(const char *s, const char *const *names);   /* index */
int cmdline_parse_list(const char *s, const char *const *names, uint32_t *mask);
#endif
