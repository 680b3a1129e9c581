/* libFuzzer harness: the boot command line (hv/cmdline.c) as GRUB hands it
 * over, with one registered option of every type besides the built-in ones,
 * then the effective-configuration printer over whatever was set. */
#include <stdio.h>
#include "fuzz.h"
#include "cmdline.h"
#include "errno.h"

static bool f_flag;
static int f_int = 7;
static uint64_t f_mem = 64 << 20;
static char f_name[8] = "dflt";
static int f_mode = 1;
static uint32_t f_set;
static const char *const f_modes[] = { "alpha", "beta", "gamma", NULL };

static int f_custom_parse(const struct cmdline_opt *o, const char *val)
{
	return val && strcmp(val, "ok") == 0 ? 0 : -EINVAL;
}

CMDLINE_BOOL(f_flag, f_flag, "fuzz flag");
CMDLINE_INT(f_int, f_int, -5, 100, "fuzz int");
CMDLINE_U64(f_mem, f_mem, 1 << 20, 1ULL << 40, "fuzz size");
CMDLINE_STR(f_name, f_name, "fuzz string");
CMDLINE_ENUM(f_mode, f_mode, f_modes, "fuzz enum");
CMDLINE_LIST(f_set, f_set, f_modes, "fuzz list");
CMDLINE_CUSTOM(f_custom, NULL, f_custom_parse, NULL, "fuzz custom");

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct cmdline_cursor c;
	char key[CMDLINE_KEY_MAX], val[CMDLINE_VAL_MAX];
	int64_t i64;
	uint64_t u64;
	uint32_t mask;
	bool b;

	memcpy(line, data, size);
	line[size] = '\0';
	/* loglvl= would switch the parser's log on (40 MB of stderr in 5 s);
	 * its enum parsing is f_mode='s. */
	for (char *p = line; (p = strstr(p, "loglvl")); p++)
		*p = 'L';
	(void)cmdline_parse(line);
	fuzz_quiet();      /* "lo""glvl=debug" gets past the renaming */
	FUZZ_CHECK(f_int >= -5 && f_int <= 100);
	FUZZ_CHECK(f_mem >= (1 << 20) && f_mem <= (1ULL << 40));
	FUZZ_CHECK(memchr(f_name, '\0', sizeof(f_name)) != NULL);
	FUZZ_CHECK(f_mode >= 0 && f_mode <= 2);
	FUZZ_CHECK((f_set & ~7u) == 0);
	/* The typed value parsers and the tokenizer on their own. */
	cmdline_cursor_init(&c, line, size);
	for (size_t n = 0;; n++) {
		int rc = cmdline_next_kv(&c, key, sizeof(key), val, sizeof(val));

		FUZZ_CHECK(n <= size + 1);      /* every token consumes input */
		if (rc == CMDLINE_KV_END || rc == -EINVAL)
			break;
		FUZZ_CHECK(memchr(key, '\0', sizeof(key)) && memchr(val, '\0', sizeof(val)));
	}
	(void)cmdline_parse_bool(line, &b);
	(void)cmdline_parse_int(line, INT64_MIN, INT64_MAX, &i64);
	(void)cmdline_parse_size(line, &u64);
	(void)cmdline_parse_enum(line, f_modes);
	(void)cmdline_parse_list(line, f_modes, &mask);
	if (size && data[0] == 0x01)    /* now and then: formatting every option is slow */
		cmdline_print_effective();
	free(line);
	return 0;
}
