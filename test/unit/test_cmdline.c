/* Unit tests for hv/cmdline.c: tokenizer, value parsers, registered options. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <string.h>
#include "cmdline.h"
#include "errno.h"
#include "log.h"
#include "shim.h"

static bool t_flag;
static int t_int = 7;
static uint64_t t_mem = 64 << 20;
static char t_name[8] = "dflt";
static int t_mode = 1;
static uint32_t t_set;
static int t_custom_calls;
static const char *const t_modes[] = { "alpha", "beta", "gamma", NULL };

static int t_custom_parse(const struct cmdline_opt *o, const char *val)
{
	t_custom_calls++;
	return val && strcmp(val, "ok") == 0 ? 0 : -EINVAL;
}

CMDLINE_BOOL(t_flag, t_flag, "test flag");
CMDLINE_INT(t_int, t_int, -5, 100, "test int");
CMDLINE_U64(t_mem, t_mem, 1 << 20, 1ULL << 40, "test size");
CMDLINE_STR(t_name, t_name, "test string");
CMDLINE_ENUM(t_mode, t_mode, t_modes, "test enum");
CMDLINE_LIST(t_set, t_set, t_modes, "test list");
CMDLINE_CUSTOM(t_custom, NULL, t_custom_parse, NULL, "test custom");

static void reset(void)
{
	t_flag = false;
	t_int = 7;
	t_mem = 64 << 20;
	strcpy(t_name, "dflt");
	t_mode = 1;
	t_set = 0;
	t_custom_calls = 0;
	log_level = LOG_WARN;
	opt_console = CONSOLE_COM1;
	opt_maxcpus = 0;
	shim_reset_logs();
}

START_TEST(test_tokenizer)
{
	const char *s = "  vm=0 kind=linux  vcpus=4 mem=256M cmdline=\"console=ttyS0 quiet\" flag "
			"x=a\"b c\"d e= ";
	struct cmdline_cursor c;
	char k[16], v[64];

	cmdline_cursor_init(&c, s, 1000);
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(k, "vm");
	ck_assert_str_eq(v, "0");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(v, "linux");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(k, "mem");
	ck_assert_str_eq(v, "256M");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(k, "cmdline");
	ck_assert_str_eq(v, "console=ttyS0 quiet");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_FLAG);
	ck_assert_str_eq(k, "flag");
	ck_assert_str_eq(v, "");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(v, "ab cd");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(k, "e");
	ck_assert_str_eq(v, "");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_END);
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_END);
}
END_TEST

START_TEST(test_tokenizer_limits)
{
	struct cmdline_cursor c;
	char k[4], v[4];

	/* Key too long, value too long, unterminated quote; the cursor moves on. */
	cmdline_cursor_init(&c, "abcd=1 ab=1234 ok=12 q=\"x y", 1000);
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), -E2BIG);
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), -E2BIG);
	ck_assert_str_eq(k, "ab");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(v, "12");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), -EINVAL);
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_END);
	/* The max bound is honoured even without a NUL inside it. */
	cmdline_cursor_init(&c, "key=value", 3);
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_FLAG);
	ck_assert_str_eq(k, "key");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_END);
	cmdline_cursor_init(&c, NULL, 3);
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_END);
}
END_TEST

START_TEST(test_value_parsers)
{
	uint64_t u;
	int64_t i;
	bool b;
	uint32_t m;
	static const char *const nm[] = { "com1", "e9", "com2", NULL };

	ck_assert_int_eq(cmdline_parse_size("256M", &u), 0);
	ck_assert_uint_eq(u, 256ULL << 20);
	ck_assert_int_eq(cmdline_parse_size("4k", &u), 0);
	ck_assert_uint_eq(u, 4096);
	ck_assert_int_eq(cmdline_parse_size("2GiB", &u), 0);
	ck_assert_uint_eq(u, 2ULL << 30);
	ck_assert_int_eq(cmdline_parse_size("0x1000", &u), 0);
	ck_assert_uint_eq(u, 0x1000);
	ck_assert_int_eq(cmdline_parse_size("12", &u), 0);
	ck_assert_uint_eq(u, 12);
	ck_assert_int_eq(cmdline_parse_size("", &u), -EINVAL);
	ck_assert_int_eq(cmdline_parse_size("M", &u), -EINVAL);
	ck_assert_int_eq(cmdline_parse_size("12Q", &u), -EINVAL);
	ck_assert_int_eq(cmdline_parse_size("1MX", &u), -EINVAL);
	ck_assert_int_eq(cmdline_parse_size("-1", &u), -EINVAL);
	ck_assert_int_eq(cmdline_parse_size("99999999999999999999", &u), -ERANGE);
	ck_assert_int_eq(cmdline_parse_size("17179869184G", &u), -ERANGE);

	ck_assert_int_eq(cmdline_parse_int("-5", -5, 5, &i), 0);
	ck_assert_int_eq(i, -5);
	ck_assert_int_eq(cmdline_parse_int("0x10", 0, 100, &i), 0);
	ck_assert_int_eq(i, 16);
	ck_assert_int_eq(cmdline_parse_int("6", -5, 5, &i), -ERANGE);
	ck_assert_int_eq(cmdline_parse_int("-9223372036854775808", INT64_MIN, 0, &i), 0);
	ck_assert(i == INT64_MIN);
	ck_assert_int_eq(cmdline_parse_int("9223372036854775808", INT64_MIN, INT64_MAX, &i),
			 -ERANGE);
	ck_assert_int_eq(cmdline_parse_int("1x", 0, 5, &i), -EINVAL);
	ck_assert_int_eq(cmdline_parse_int("-", -5, 5, &i), -EINVAL);

	ck_assert_int_eq(cmdline_parse_bool("on", &b), 0);
	ck_assert(b);
	ck_assert_int_eq(cmdline_parse_bool("0", &b), 0);
	ck_assert(!b);
	ck_assert_int_eq(cmdline_parse_bool("maybe", &b), -EINVAL);

	ck_assert_int_eq(cmdline_parse_enum("e9", nm), 1);
	ck_assert_int_eq(cmdline_parse_enum("e", nm), -EINVAL);
	ck_assert_int_eq(cmdline_parse_list("com1,e9", nm, &m), 0);
	ck_assert_uint_eq(m, 3);
	ck_assert_int_eq(cmdline_parse_list("com2", nm, &m), 0);
	ck_assert_uint_eq(m, 4);
	m = 77;
	ck_assert_int_eq(cmdline_parse_list("com1,,e9", nm, &m), -EINVAL);
	ck_assert_int_eq(cmdline_parse_list("com1,e99", nm, &m), -EINVAL);
	ck_assert_uint_eq(m, 77);
}
END_TEST

START_TEST(test_parse_good)
{
	reset();
	ck_assert_int_eq(cmdline_parse("t_flag t_int=-5 t_mem=1G t_name=\"a b\" t_mode=gamma "
				       "t_set=beta,alpha t_custom=ok loglvl=debug "
				       "console=com1,e9 maxcpus=2"), 0);
	ck_assert(t_flag);
	ck_assert_int_eq(t_int, -5);
	ck_assert_uint_eq(t_mem, 1ULL << 30);
	ck_assert_str_eq(t_name, "a b");
	ck_assert_int_eq(t_mode, 2);
	ck_assert_uint_eq(t_set, 3);
	ck_assert_int_eq(t_custom_calls, 1);
	ck_assert_int_eq(log_level, LOG_DEBUG);
	ck_assert_uint_eq(opt_console, CONSOLE_COM1 | CONSOLE_E9);
	ck_assert_int_eq(opt_maxcpus, 2);
	ck_assert_int_eq(shim_log_count[LOG_ERR] + shim_log_count[LOG_WARN], 0);
	/* Repeated keys: the last one wins; flags take explicit values too. */
	ck_assert_int_eq(cmdline_parse("t_int=1 t_int=2 t_flag=off loglvl=err loglvl=info"), 0);
	ck_assert_int_eq(t_int, 2);
	ck_assert(!t_flag);
	ck_assert_int_eq(log_level, LOG_INFO);
	ck_assert_int_eq(cmdline_parse(""), 0);
	ck_assert_int_eq(cmdline_parse(NULL), 0);
	ck_assert_int_eq(cmdline_parse("   \t "), 0);
}
END_TEST

START_TEST(test_parse_unknown)
{
	reset();
	ck_assert_int_eq(cmdline_parse("bogus=1 t_int=3 alsobogus"), -EINVAL);
	ck_assert_int_eq(shim_log_count[LOG_WARN], 2);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "alsobogus"));
	ck_assert_int_eq(t_int, 3);
}
END_TEST

START_TEST(test_parse_malformed)
{
	reset();
	ck_assert_int_eq(cmdline_parse("t_int=abc"), -EINVAL);
	ck_assert_int_eq(t_int, 7);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "t_int="));
	ck_assert_ptr_nonnull(strstr(shim_last_log, "[-5, 100]"));
	ck_assert_int_eq(cmdline_parse("t_int=101"), -EINVAL);
	ck_assert_int_eq(cmdline_parse("t_int"), -EINVAL);   /* needs a value */
	ck_assert_int_eq(t_int, 7);
	ck_assert_int_eq(cmdline_parse("t_mem=12"), -EINVAL);  /* below min */
	ck_assert_int_eq(cmdline_parse("t_mem=3X"), -EINVAL);
	ck_assert_uint_eq(t_mem, 64 << 20);
	ck_assert_int_eq(cmdline_parse("t_name=toolongvalue"), -EINVAL);
	ck_assert_str_eq(t_name, "dflt");
	ck_assert_int_eq(cmdline_parse("t_mode=delta"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "alpha|beta|gamma"));
	ck_assert_int_eq(t_mode, 1);
	ck_assert_int_eq(cmdline_parse("loglvl=loud"), -EINVAL);
	ck_assert_int_eq(log_level, LOG_WARN);
	ck_assert_int_eq(cmdline_parse("console=com3"), -EINVAL);
	ck_assert_uint_eq(opt_console, CONSOLE_COM1);
	ck_assert_int_eq(cmdline_parse("maxcpus=-1"), -EINVAL);
	ck_assert_int_eq(opt_maxcpus, 0);
	ck_assert_int_eq(cmdline_parse("t_flag=maybe"), -EINVAL);
	ck_assert(!t_flag);
	ck_assert_int_eq(cmdline_parse("t_custom=bad"), -EINVAL);
	ck_assert_int_eq(cmdline_parse("t_name=\"open t_int=5"), -EINVAL);
	ck_assert_int_eq(t_int, 7);
	/* An error does not stop the rest of the line. */
	ck_assert_int_eq(cmdline_parse("t_int=zz t_mode=alpha"), -EINVAL);
	ck_assert_int_eq(t_mode, 0);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 14);
}
END_TEST

START_TEST(test_parse_overlong)
{
	static char line[CMDLINE_MAX * 2];
	char key[CMDLINE_KEY_MAX + 10];

	reset();
	/* An overlong key and an overlong value are each one clear error. */
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	snprintf(line, sizeof(line), "%s=1 t_int=9", key);
	ck_assert_int_eq(cmdline_parse(line), -EINVAL);
	ck_assert_int_eq(t_int, 9);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "too long"));
	memset(line, 0, sizeof(line));
	strcpy(line, "t_name=");
	memset(line + 7, 'v', CMDLINE_VAL_MAX + 5);
	strcat(line, " t_int=11");
	ck_assert_int_eq(cmdline_parse(line), -EINVAL);
	ck_assert_int_eq(t_int, 11);
	ck_assert_str_eq(t_name, "dflt");
	/* A line beyond CMDLINE_MAX: the head is applied, the cut token dropped. */
	memset(line, ' ', sizeof(line));
	memcpy(line, "t_int=12", 8);
	memcpy(line + CMDLINE_MAX - 6, "t_int=13", 8);
	line[sizeof(line) - 1] = '\0';
	shim_reset_logs();
	ck_assert_int_eq(cmdline_parse(line), -EINVAL);
	ck_assert_int_eq(t_int, 12);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 1);
}
END_TEST

START_TEST(test_print_effective)
{
	char buf[64];

	reset();
	ck_assert_int_eq(cmdline_parse("t_set=alpha,gamma t_mem=2M t_mode=beta"), 0);
	cmdline_opt_format(cmdline_find("t_set"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "alpha,gamma");
	cmdline_opt_format(cmdline_find("t_mem"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "2097152");
	cmdline_opt_format(cmdline_find("t_mode"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "beta");
	cmdline_opt_format(cmdline_find("loglvl"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "warn");
	cmdline_opt_format(cmdline_find("t_name"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"dflt\"");
	t_mode = 42;   /* out of range never indexes past the names */
	cmdline_opt_format(cmdline_find("t_mode"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "?");
	ck_assert_ptr_null(cmdline_find("nope"));
	shim_reset_logs();
	log_level = LOG_INFO;
	cmdline_print_effective();
	/* header + 3 core options + 7 test options */
	ck_assert_int_eq(shim_log_count[LOG_INFO], 11);
	cmdline_print_help();
	ck_assert_int_eq(shim_log_count[LOG_INFO], 22);
	ck_assert_ptr_nonnull(strstr(shim_last_log, "loglvl=: log level"));
}
END_TEST

/* GRUB re-quotes a word containing a space as a whole ("key=a b") and
 * backslash-escapes \, " and ' (docs/running.md); the tokenizer must read
 * the word as the user wrote it. */
START_TEST(test_grub_requoted_words)
{
	const char *line = "\"note=a b\" \"cmdline=init=\\\"/bin/sh -c x\\\"\" who=it\\'s flag";
	struct cmdline_cursor c;
	char k[64], v[128];

	cmdline_cursor_init(&c, line, 1000);
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(k, "note");
	ck_assert_str_eq(v, "a b");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(k, "cmdline");
	ck_assert_str_eq(v, "init=\"/bin/sh -c x\"");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_PAIR);
	ck_assert_str_eq(k, "who");
	ck_assert_str_eq(v, "it's");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_FLAG);
	ck_assert_str_eq(k, "flag");
	ck_assert_int_eq(cmdline_next_kv(&c, k, sizeof(k), v, sizeof(v)), CMDLINE_KV_END);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cmdline");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_tokenizer);
	tcase_add_test(tc, test_grub_requoted_words);
	tcase_add_test(tc, test_tokenizer_limits);
	tcase_add_test(tc, test_value_parsers);
	tcase_add_test(tc, test_parse_good);
	tcase_add_test(tc, test_parse_unknown);
	tcase_add_test(tc, test_parse_malformed);
	tcase_add_test(tc, test_parse_overlong);
	tcase_add_test(tc, test_print_effective);
	suite_add_tcase(s, tc);

	return check_run(s);
}
