/* log.h backend for host programs built from hv/ sources (hvsim, bzload):
 * lines up to log_level to stderr, panic names the program and aborts. */
#include <stdio.h>
#include <stdlib.h>
#include "log.h"

/* glibc's; <errno.h> would be hv/errno.h here (-Ihv) */
extern char *program_invocation_short_name;

int log_level = LOG_WARN;

/* HVSIM_LOG=N sets the level (2: info, e.g. sched=auto's decision lines). */
__attribute__((constructor)) static void hostlog_env(void)
{
	const char *l = getenv("HVSIM_LOG");

	if (l)
		log_level = atoi(l);
}

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
	fprintf(stderr, "%s: PANIC at %s:%d: ", program_invocation_short_name, file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}
