/* Host shim: what hv/ code expects from the image (logging, panic) for unit tests. */
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include "log.h"
#include "shim.h"

int log_level = LOG_WARN;
int shim_log_count[4];
char shim_last_log[1024];

void log_vprintf(int level, const char *fmt, va_list ap)
{
	va_list cp;

	va_copy(cp, ap);
	vsnprintf(shim_last_log, sizeof(shim_last_log), fmt, cp);
	va_end(cp);
	if (level >= 0 && level < 4)
		shim_log_count[level]++;
	if (level <= log_level || getenv("HV_TEST_VERBOSE"))
		vfprintf(stderr, fmt, ap);
}

void log_printf(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprintf(level, fmt, ap);
	va_end(ap);
}

jmp_buf *shim_panic_jmp;
char shim_panic_msg[1024];

void panic_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(shim_panic_msg, sizeof(shim_panic_msg), fmt, ap);
	va_end(ap);
	if (shim_panic_jmp)
		longjmp(*shim_panic_jmp, 1);
	fprintf(stderr, "PANIC at %s:%d: %s\n", file, line, shim_panic_msg);
	abort();
}

void shim_reset_logs(void)
{
	for (int i = 0; i < 4; i++)
		shim_log_count[i] = 0;
	shim_last_log[0] = '\0';
}
