/* Basic types for both the freestanding image and host builds (unit tests, simulator). */
#ifndef HV_TYPES_H
#define HV_TYPES_H
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>

typedef uint64_t paddr_t;   /* host-physical address */
typedef uint64_t gpa_t;     /* guest-physical address */
typedef int64_t  stime_t;   /* system time in nanoseconds since boot */
#endif
