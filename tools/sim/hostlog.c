/* hvsim's log.h backend: warnings and errors to stderr, panic aborts. */
#include <stdio.h>
#include <stdlib.h>
#include "log.h"

int log_level = LOG_WARN;

void log_vprintf(int level, const char *fmt, va_list ap)
{
	if (level <= log_level)
		vfprintf(stderr, fmt, ap);
}

void log_printf(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprintf(level, fmt, ap);
	va_end(ap);
}

void panic_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hvsim: PANIC at %s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}
