/* Boot command line: tokenizer, typed value parsers and the registry of
 * options that subsystems place in section hv_cmdline (see cmdline.h). */
#include "cmdline.h"
#include "errno.h"
#include "log.h"
#include "lib/fmt.h"
#include "lib/string.h"

HV_SECTION_BOUNDS(const struct cmdline_opt, cmdline);

/* ------------------------------------------------------------ core options */
static const char *const loglvl_names[] = { "err", "warn", "info", "debug", NULL };
static const char *const console_names[] = { "com1", "e9", "com2", NULL };
uint32_t opt_console = CONSOLE_COM1;
int opt_maxcpus;

_Static_assert(LOG_ERR == 0 && LOG_DEBUG == 3, "loglvl_names follows enum log_level");
CMDLINE_ENUM(loglvl, log_level, loglvl_names, "log level: err|warn|info|debug");
CMDLINE_LIST(console, opt_console, console_names, "consoles, comma list of com1,e9,com2");
CMDLINE_INT(maxcpus, opt_maxcpus, 0, 4096, "bring up at most N CPUs (0: all)");

/* ------------------------------------------------------------ tokenizer */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void cmdline_cursor_init(struct cmdline_cursor *c, const char *s, size_t max)
{
	c->p = s;
	c->end = s ? s + strnlen(s, max) : s;
}

/* Copy one character into a bounded buffer; false once it overflows. */
static bool buf_put(char *buf, size_t size, size_t *n, char ch)
{
	if (*n + 1 >= size) {
		*n = size;   /* sticky overflow */
		return false;
	}
	buf[(*n)++] = ch;
	return true;
}

static void buf_end(char *buf, size_t size, size_t n)
{
	if (size)
		buf[n < size ? n : size - 1] = '\0';
}

/*
 * One word: up to unquoted whitespace. A double quote toggles grouping
 * anywhere in the word (GRUB re-quotes a word with a space as "key=a b")
 * and is removed; a backslash makes the next \, " or ' literal (outside
 * quotes, any character). The word splits at its first '=' into key and
 * value. Returns CMDLINE_KV_FLAG/PAIR, -E2BIG (key or value too long) or
 * -EINVAL (unterminated quote: the rest of the line is consumed).
 */
int cmdline_next_kv(struct cmdline_cursor *c, char *key, size_t keylen,
		    char *val, size_t vallen)
{
	size_t nk = 0, nv = 0;
	bool quoted = false, in_val = false, key_ok = true, val_ok = true;

	buf_end(key, keylen, 0);
	buf_end(val, vallen, 0);
	while (c->p < c->end && is_space(*c->p))
		c->p++;
	if (c->p >= c->end)
		return CMDLINE_KV_END;
	while (c->p < c->end && (quoted || !is_space(*c->p))) {
		char ch = *c->p++;

		if (ch == '"') {
			quoted = !quoted;
			continue;
		}
		if (ch == '\\' && c->p < c->end &&
		    (!quoted || *c->p == '\\' || *c->p == '"' || *c->p == '\''))
			ch = *c->p++;
		else if (ch == '=' && !in_val) {
			in_val = true;
			continue;
		}
		if (in_val)
			val_ok = buf_put(val, vallen, &nv, ch) && val_ok;
		else
			key_ok = buf_put(key, keylen, &nk, ch) && key_ok;
	}
	buf_end(key, keylen, nk);
	buf_end(val, vallen, nv);
	if (quoted)
		return -EINVAL;
	if (!key_ok || !val_ok)
		return -E2BIG;
	return in_val ? CMDLINE_KV_PAIR : CMDLINE_KV_FLAG;
}

/* ------------------------------------------------------------ value parsers */
static int digit_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return 99;
}

/* Unsigned number with optional 0x prefix; *endp at the first non-digit. */
static int parse_uint(const char *s, uint64_t *out, const char **endp)
{
	unsigned base = 10;
	uint64_t v = 0;
	int d, n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; (d = digit_value(*s)) < (int)base; s++, n++) {
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	*endp = s;
	*out = v;
	return n ? 0 : -EINVAL;
}

int cmdline_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	bool neg = s[0] == '-';
	const char *end;
	uint64_t u;
	int64_t v;
	int rc = parse_uint(s + (neg ? 1 : 0), &u, &end);

	if (rc)
		return rc;
	if (*end)
		return -EINVAL;
	if (u > (uint64_t)INT64_MAX + (neg ? 1 : 0))
		return -ERANGE;
	v = neg ? (int64_t)(0 - u) : (int64_t)u;
	if (v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

static unsigned size_shift(char ch)
{
	switch (ch) {
	case 'k': case 'K': return 10;
	case 'm': case 'M': return 20;
	case 'g': case 'G': return 30;
	case 't': case 'T': return 40;
	default: return 0;
	}
}

int cmdline_parse_size(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	unsigned sh;
	int rc = parse_uint(s, &v, &end);

	if (rc)
		return rc;
	sh = size_shift(*end);
	if (sh) {
		end++;
		if (*end == 'i' && end[1] == 'B')   /* 256MiB */
			end += 2;
		else if (*end == 'B')               /* 256MB (binary anyway) */
			end++;
		if (v > (UINT64_MAX >> sh))
			return -ERANGE;
		v <<= sh;
	}
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int cmdline_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "on", "yes", "true", "y", NULL };
	static const char *const no[] = { "0", "off", "no", "false", "n", NULL };

	if (cmdline_parse_enum(s, yes) >= 0)
		*out = true;
	else if (cmdline_parse_enum(s, no) >= 0)
		*out = false;
	else
		return -EINVAL;
	return 0;
}

int cmdline_parse_enum(const char *s, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -EINVAL;
}

/* Match [s, s+len) against names; index or -EINVAL. */
static int list_item(const char *s, size_t len, const char *const *names)
{
	for (int i = 0; names[i] && i < 32; i++)
		if (strlen(names[i]) == len && strncmp(s, names[i], len) == 0)
			return i;
	return -EINVAL;
}

int cmdline_parse_list(const char *s, const char *const *names, uint32_t *mask)
{
	uint32_t m = 0;

	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		int i = list_item(s, len, names);
		if (i < 0)
			return -EINVAL;
		m |= (uint32_t)BIT(i);
		if (!comma)
			break;
		s = comma + 1;
	}
	*mask = m;
	return 0;
}

/* ------------------------------------------------------------ registry */
static size_t opt_count(void)
{
	return (size_t)(__stop_hv_cmdline - __start_hv_cmdline);
}

const struct cmdline_opt *cmdline_find(const char *name)
{
	for (size_t i = 0; i < opt_count(); i++)
		if (strcmp(__start_hv_cmdline[i].name, name) == 0)
			return &__start_hv_cmdline[i];
	return NULL;
}

/* "a|b|c" from a names list. */
static void names_format(const char *const *names, const char *sep, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; names[i] && n < size; i++)
		n += (size_t)fmt_snprintf(buf + n, size - n, "%s%s", i ? sep : "", names[i]);
}

static int names_count(const char *const *names)
{
	int n = 0;

	while (names[n])
		n++;
	return n;
}

/* "com1,e9" from a mask. */
static void list_format(const char *const *names, uint32_t mask, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; names[i] && i < 32 && n < size; i++)
		if (mask & BIT(i))
			n += (size_t)fmt_snprintf(buf + n, size - n, "%s%s", n ? "," : "", names[i]);
	if (!mask)
		fmt_snprintf(buf, size, "(none)");
}

/* The expected form of a value, for error messages. */
static void opt_expect(const struct cmdline_opt *o, char *buf, size_t size)
{
	char names[160];

	switch (o->type) {
	case CMDLINE_T_BOOL:
		fmt_snprintf(buf, size, "a bare flag or =0|1|on|off|yes|no|true|false");
		break;
	case CMDLINE_T_INT:
		fmt_snprintf(buf, size, "an integer in [%lld, %lld]", (long long)o->min,
			     (long long)o->max);
		break;
	case CMDLINE_T_U64:
		fmt_snprintf(buf, size, "a size in [%llu, %llu] with optional K/M/G/T suffix",
			     (unsigned long long)o->min, (unsigned long long)o->max);
		break;
	case CMDLINE_T_STR:
		fmt_snprintf(buf, size, "a string of at most %zu characters", o->size - 1);
		break;
	case CMDLINE_T_ENUM:
		names_format(o->names, "|", names, sizeof(names));
		fmt_snprintf(buf, size, "one of %s", names);
		break;
	case CMDLINE_T_LIST:
		names_format(o->names, ",", names, sizeof(names));
		fmt_snprintf(buf, size, "a comma list of %s", names);
		break;
	default:
		fmt_snprintf(buf, size, "%s", o->help ? o->help : "a valid value");
		break;
	}
}

static int opt_set_int(const struct cmdline_opt *o, const char *val)
{
	int64_t v;
	int rc = cmdline_parse_int(val, o->min, o->max, &v);

	if (!rc)
		*(int *)o->var = (int)v;
	return rc;
}

static int opt_set_u64(const struct cmdline_opt *o, const char *val)
{
	uint64_t v;
	int rc = cmdline_parse_size(val, &v);

	if (!rc && (v < (uint64_t)o->min || v > (uint64_t)o->max))
		rc = -ERANGE;
	if (!rc)
		*(uint64_t *)o->var = v;
	return rc;
}

static int opt_set_str(const struct cmdline_opt *o, const char *val)
{
	size_t len = strlen(val);

	if (len >= o->size)
		return -E2BIG;
	memcpy(o->var, val, len + 1);
	return 0;
}

static int opt_set_enum(const struct cmdline_opt *o, const char *val)
{
	int i = cmdline_parse_enum(val, o->names);

	if (i >= 0)
		*(int *)o->var = i;
	return i < 0 ? i : 0;
}

/* Apply a value (val NULL: bare flag); 0 or a negative errno, nothing logged. */
static int opt_apply(const struct cmdline_opt *o, const char *val)
{
	if (!val && o->type != CMDLINE_T_BOOL)
		return -EINVAL;
	switch (o->type) {
	case CMDLINE_T_BOOL:
		if (!val) {
			*(bool *)o->var = true;
			return 0;
		}
		return cmdline_parse_bool(val, (bool *)o->var);
	case CMDLINE_T_INT:    return opt_set_int(o, val);
	case CMDLINE_T_U64:    return opt_set_u64(o, val);
	case CMDLINE_T_STR:    return opt_set_str(o, val);
	case CMDLINE_T_ENUM:   return opt_set_enum(o, val);
	case CMDLINE_T_LIST:   return cmdline_parse_list(val, o->names, (uint32_t *)o->var);
	case CMDLINE_T_CUSTOM: return o->parse ? o->parse(o, val) : -ENOSYS;
	default:               return -EINVAL;
	}
}

int cmdline_opt_set(const struct cmdline_opt *o, const char *val)
{
	char expect[224];
	int rc = opt_apply(o, val);

	if (rc) {
		opt_expect(o, expect, sizeof(expect));
		pr_err("cmdline: bad value '%s' for %s= (expected %s); keeping the default\n",
		       val ? val : "", o->name, expect);
	}
	return rc;
}

void cmdline_opt_format(const struct cmdline_opt *o, char *buf, size_t size)
{
	const char *const *nm = o->names;
	int i;

	switch (o->type) {
	case CMDLINE_T_BOOL:
		fmt_snprintf(buf, size, "%s", *(bool *)o->var ? "on" : "off");
		break;
	case CMDLINE_T_INT:
		fmt_snprintf(buf, size, "%d", *(int *)o->var);
		break;
	case CMDLINE_T_U64:
		fmt_snprintf(buf, size, "%llu", (unsigned long long)*(uint64_t *)o->var);
		break;
	case CMDLINE_T_STR:
		fmt_snprintf(buf, size, "\"%s\"", (const char *)o->var);
		break;
	case CMDLINE_T_ENUM:
		i = *(int *)o->var;
		fmt_snprintf(buf, size, "%s", i >= 0 && i < names_count(nm) ? nm[i] : "?");
		break;
	case CMDLINE_T_LIST:
		list_format(nm, *(uint32_t *)o->var, buf, size);
		break;
	default:
		if (o->print)
			o->print(o, buf, size);
		else
			fmt_snprintf(buf, size, "(set)");
		break;
	}
}

/* Warn once about two registrations of one name (the first one wins). */
static void registry_check(void)
{
	for (size_t i = 0; i < opt_count(); i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(__start_hv_cmdline[i].name, __start_hv_cmdline[j].name) == 0)
				pr_warn("cmdline: option %s= registered twice\n",
					__start_hv_cmdline[i].name);
}

/* Handle one tokenizer result; returns 0 or a negative errno (logged). */
static int parse_token(int kind, const char *key, const char *val)
{
	const struct cmdline_opt *o;

	if (kind == -E2BIG) {
		pr_err("cmdline: option '%.40s...' too long (key max %d, value max %d chars); "
		       "ignored\n", key, CMDLINE_KEY_MAX - 1, CMDLINE_VAL_MAX - 1);
		return kind;
	}
	if (kind == -EINVAL) {
		pr_err("cmdline: unterminated quote in value of %s=; ignored\n", key);
		return kind;
	}
	o = cmdline_find(key);
	if (!o) {
		pr_warn("cmdline: unknown option '%s' ignored\n", key);
		return -ENOENT;
	}
	return cmdline_opt_set(o, kind == CMDLINE_KV_FLAG ? NULL : val);
}

int cmdline_parse(const char *line)
{
	static char key[CMDLINE_KEY_MAX], val[CMDLINE_VAL_MAX];
	struct cmdline_cursor c;
	int kind, bad = 0;

	if (!line)
		return 0;
	registry_check();
	cmdline_cursor_init(&c, line, CMDLINE_MAX);
	if (line[c.end - line]) {
		pr_err("cmdline: longer than %d bytes; the rest is ignored\n", CMDLINE_MAX);
		while (c.end > line && !is_space(c.end[-1]))   /* drop the cut token */
			c.end--;
		bad++;
	}
	while ((kind = cmdline_next_kv(&c, key, sizeof(key), val, sizeof(val))) != CMDLINE_KV_END)
		if (parse_token(kind, key, val))
			bad++;
	return bad ? -EINVAL : 0;
}

void cmdline_print_effective(void)
{
	char buf[CMDLINE_VAL_MAX + 8];

	pr_info("cmdline: effective configuration (%zu options):\n", opt_count());
	for (size_t i = 0; i < opt_count(); i++) {
		const struct cmdline_opt *o = &__start_hv_cmdline[i];
		cmdline_opt_format(o, buf, sizeof(buf));
		pr_info("  %s=%s\n", o->name, buf);
	}
}

void cmdline_print_help(void)
{
	char expect[224];

	pr_info("cmdline: %zu options:\n", opt_count());
	for (size_t i = 0; i < opt_count(); i++) {
		const struct cmdline_opt *o = &__start_hv_cmdline[i];
		opt_expect(o, expect, sizeof(expect));
		pr_info("  %s=: %s (%s)\n", o->name, o->help ? o->help : "", expect);
	}
}
