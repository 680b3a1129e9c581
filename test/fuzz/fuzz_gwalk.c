/* libFuzzer harness: the guest page walker (hv/vm/gwalk.c), which follows
 * page tables the guest wrote. Input: CR0, CR3, CR4, EFER, the linear
 * address (8 bytes each), a write flag, then guest RAM from address 0 in a
 * heap block of exactly its size (a read past ram_size shows in ASan). */
#include <stdio.h>
#include "fuzz.h"
#include "errno.h"
#include "vm/gmem.h"

#define HDR 41

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpaging pg;
	uint64_t la, gpa = 0, gpa2 = 0;
	size_t n;
	uint8_t *ram;
	bool write;
	int rc;

	if (size < HDR)
		return 0;
	pg = (struct gpaging){ fuzz_rd64(data), fuzz_rd64(data + 8), fuzz_rd64(data + 16),
			       fuzz_rd64(data + 24) };
	la = fuzz_rd64(data + 32);
	write = data[40] & 1;
	n = size - HDR;
	ram = malloc(n ? n : 1);
	memcpy(ram, data + HDR, n);
	rc = gwalk(&pg, ram, n, la, write, &gpa);
	FUZZ_CHECK(rc == 0 || rc == -EFAULT || rc == -EACCES);   /* gmem.h */
	if (rc == 0) {
		/* Every page size keeps the low 12 bits; no paging is identity. */
		FUZZ_CHECK((gpa & 0xfff) == (la & 0xfff));
		if (!(pg.cr0 & (1u << 31)))
			FUZZ_CHECK(gpa == (la & 0xffffffffull));
		FUZZ_CHECK(gpa < (1ull << 52));
		FUZZ_CHECK(gwalk(&pg, ram, n, la, write, &gpa2) == 0 && gpa2 == gpa);
	}
	free(ram);
	return 0;
}
