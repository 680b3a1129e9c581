/* libFuzzer harness: the multiboot1 loader (ELF32, ELF64, a.out kludge) and
 * the flat-binary loader (hv/load/mb1.c, mb1_info.c, flat.c) on a kernel
 * image as a boot module hands it over, into a 4 MiB guest. */
#include <stdio.h>
#include "fuzz.h"
#include "load/loader.h"

#define RAM_SIZE (4u << 20)      /* room for 3 MiB above 1 MiB: bss memsets stay cheap */
static uint8_t *ram_mem;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	ram_mem = calloc(1, RAM_SIZE);
	return 0;
}

static void check_entry(const struct guest_entry *e)
{
	FUZZ_CHECK(e->mode == GUEST_MODE_PROT32 || e->mode == GUEST_MODE_LONG64 ||
		   e->mode == GUEST_MODE_REAL16);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct guest_ram ram = { ram_mem, RAM_SIZE, 1 };
	struct guest_image img = { NULL, size, "console=ttyS0 test=1", NULL, 0 };
	struct guest_entry e;
	uint8_t *copy = malloc(size ? size : 1);   /* exact size for ASan */

	memcpy(copy, data, size);
	img.data = copy;
	if (load_multiboot1(&ram, &img, &e) == 0)
		check_entry(&e);
	if (load_flat(&ram, &img, &e) == 0)
		check_entry(&e);
	free(copy);
	return 0;
}
