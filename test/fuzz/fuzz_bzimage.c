/* libFuzzer harness: the Linux bzImage loader (hv/load/bzimage.c): setup
 * header checks, placement, zero page, command line and initrd, into a
 * 32 MiB guest. */
#include <stdio.h>
#include "fuzz.h"
#include "load/loader.h"

#define RAM_SIZE (32u << 20)
static uint8_t *ram_mem;
static uint8_t initrd[4096 + 123];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	ram_mem = calloc(1, RAM_SIZE);
	for (unsigned i = 0; i < sizeof(initrd); i++)
		initrd[i] = (uint8_t)(i ^ 0x5a);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct guest_ram ram = { ram_mem, RAM_SIZE, 1 };
	struct guest_image img = { NULL, size, "console=ttyS0,115200 quiet", initrd,
				   size && (data[0] & 1) ? sizeof(initrd) : 0 };
	struct guest_entry e;
	uint8_t *copy = malloc(size ? size : 1);   /* exact size for ASan */

	memcpy(copy, data, size);
	img.data = copy;
	if (load_bzimage(&ram, &img, &e) == 0) {
		FUZZ_CHECK(e.mode == GUEST_MODE_LONG64);
		FUZZ_CHECK(e.rip >= GUEST_HIGHMEM_START && e.rip < RAM_SIZE);
		FUZZ_CHECK(e.rsi < RAM_SIZE);
	}
	free(copy);
	return 0;
}
