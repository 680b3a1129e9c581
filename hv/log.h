/* Logging, assertions and panic. In host builds test/unit/shim.c provides these. */
#ifndef HV_LOG_H
#define HV_LOG_H
#include "compiler.h"

enum log_level { LOG_ERR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

extern int log_level;   /* messages above this level are dropped; loglvl= */

void log_printf(int level, const char *fmt, ...) __printf(2, 3);
void log_vprintf(int level, const char *fmt, va_list ap);
__noreturn void panic_at(const char *file, int line, const char *fmt, ...) __printf(3, 4);

#define pr_err(...)   log_printf(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)  log_printf(LOG_WARN, __VA_ARGS__)
#define pr_info(...)  log_printf(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) log_printf(LOG_DEBUG, __VA_ARGS__)
#define panic(...)    panic_at(__FILE__, __LINE__, __VA_ARGS__)

#define ASSERT(c) do { if (unlikely(!(c))) panic("assertion failed: %s", #c); } while (0)

/* Log where an error is detected and return it (Jailhouse's trace_error). */
#define trace_error(e) ({ int __e = (e); \
	pr_debug("%s:%d: returning error %d\n", __FILE__, __LINE__, __e); __e; })
#endif
