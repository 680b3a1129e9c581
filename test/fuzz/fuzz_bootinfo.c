/* libFuzzer harness: the multiboot2 boot information (hv/bootinfo.c) as the
 * boot loader leaves it. total_size is the loader's word for how much there
 * is; the harness makes it at most what it was given (bytes past the end of
 * the input do not exist), in a heap block of exactly that size. */
#include <stdio.h>
#include "fuzz.h"
#include "bootinfo.h"

static struct boot_info bi;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *mbi;
	uint32_t total;

	if (size < 8 || size > (1u << 20))
		return 0;
	mbi = malloc(size);                /* malloc: 16-byte aligned, as the spec's 8 */
	memcpy(mbi, data, size);
	memcpy(&total, mbi, 4);
	if (total > size) {
		total = (uint32_t)size;
		memcpy(mbi, &total, 4);
	}
	if (bootinfo_parse(MB2_BOOTLOADER_MAGIC, mbi, &bi) == 0) {
		FUZZ_CHECK(bi.nr_mmap <= BOOTINFO_MMAP_MAX);
		FUZZ_CHECK(bi.nr_modules <= BOOTINFO_MODULES_MAX);
		FUZZ_CHECK(bi.rsdp_len == 0 || bi.rsdp_len == 20 || bi.rsdp_len == 36);
		/* Strings point into the information and end inside it. */
		FUZZ_CHECK(bi.cmdline[0] == '\0' || ((const uint8_t *)bi.cmdline >= mbi &&
			   (const uint8_t *)bi.cmdline + strlen(bi.cmdline) < mbi + total));
		for (unsigned i = 0; i < bi.nr_modules; i++)
			FUZZ_CHECK((const uint8_t *)bi.modules[i].string >= mbi &&
				   (const uint8_t *)bi.modules[i].string +
				   strlen(bi.modules[i].string) < mbi + total);
		bootinfo_print(&bi);
		(void)bootinfo_ram_bytes(&bi);
	}
	free(mbi);
	return 0;
}
