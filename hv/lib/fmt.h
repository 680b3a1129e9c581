/* printf-style formatting into a buffer: %d %i %u %x %X %o %c %s %p %% with
 * width, '0', '-', precision for %s, and l/ll/z/h/hh length modifiers. */
#ifndef HV_LIB_FMT_H
#define HV_LIB_FMT_H
#include "compiler.h"
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
#endif
