/* Shared by the libFuzzer harnesses (test/fuzz/fuzz_*.c): the entry point
 * libFuzzer calls, and quiet logging (a parser's pr_err lines are expected on
 * bad input; a panic() aborts, which libFuzzer reports as a crash). */
#ifndef TEST_FUZZ_H
#define TEST_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant of the parser's result, checked after a successful parse. */
#define FUZZ_CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz: %s:%d: %s\n", \
	__FILE__, __LINE__, #c); abort(); } } while (0)

static inline void fuzz_quiet(void)
{
	log_level = getenv("HV_TEST_VERBOSE") ? LOG_DEBUG : -1;
}

static inline uint64_t fuzz_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}
#endif
