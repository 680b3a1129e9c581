/* Compiler helpers shared by every subsystem. */
#ifndef HV_COMPILER_H
#define HV_COMPILER_H
#include "types.h"

#define BIT(n)            (1ULL << (n))
#define ARRAY_SIZE(a)     (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)    (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a)  ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)  (((x) & ((a) - 1)) == 0)
#define MIN(a, b)         ((a) < (b) ? (a) : (b))
#define MAX(a, b)         ((a) > (b) ? (a) : (b))
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

#define likely(x)         __builtin_expect(!!(x), 1)
#define unlikely(x)       __builtin_expect(!!(x), 0)
#define __packed          __attribute__((packed))
#define __aligned(n)      __attribute__((aligned(n)))
#define __noreturn        __attribute__((noreturn))
#define __unused          __attribute__((unused))
#define __used            __attribute__((used))
#define __printf(a, b)    __attribute__((format(printf, a, b)))
#define __section(s)      __attribute__((section(s)))

#define READ_ONCE(x)      (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)  (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()         __asm__ volatile("" ::: "memory")
/* READ_ONCE(*p) != 0 for a bool another CPU sets, as one CMP with memory:
 * GCC loads a volatile into a register before testing it (one more
 * instruction on every fast VM exit, where each counts: make bench-exits). */
static inline bool flag_once(const volatile bool *p)
{
	bool set;

	__asm__ volatile("cmpb $0, %1" : "=@ccne"(set) : "m"(*p));
	return set;
}

#define KiB(x) ((uint64_t)(x) << 10)
#define MiB(x) ((uint64_t)(x) << 20)
#define GiB(x) ((uint64_t)(x) << 30)
#define PAGE_SIZE 4096ULL
#define PAGE_SHIFT 12

/*
 * Registration sections: an object placed in section "hv_<name>" is found at
 * run time between __start_hv_<name> and __stop_hv_<name>. GNU ld provides
 * these symbols on the host; linker.ld provides them in the image. Declare the
 * bounds weak so an empty set links.
 */
#define HV_SECTION_BOUNDS(type, name) \
	extern type __start_hv_##name[] __attribute__((weak)); \
	extern type __stop_hv_##name[] __attribute__((weak))
#define HV_REGISTER(name) __attribute__((used, section("hv_" #name), aligned(8)))

#endif
