/* Flat binary loader. Choice (docs/guest-tests.md): the image is copied to
 * 1 MiB and entered there exactly like a multiboot1 kernel (32-bit protected
 * mode, paging off, EAX=0x2BADB002, EBX=boot information), so a flat build of
 * a test kernel (objcopy -O binary, entry at its first byte) runs unchanged. */
#include "load/mb1.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

#define FLAT_LOAD_GPA GUEST_HIGHMEM_START

int load_flat(const struct guest_ram *ram, const struct guest_image *img,
	      struct guest_entry *out)
{
	uint64_t top = MIN(ram->size, GUEST_MAX_RAM);
	struct load_used used = { 0 };
	uint32_t info, gdt;
	int rc;

	if (!img->data || img->size == 0) {
		pr_err("load: flat: empty image\n");
		return -ENOEXEC;
	}
	if (top <= FLAT_LOAD_GPA || img->size > top - FLAT_LOAD_GPA) {
		pr_err("load: flat: %zu-byte image does not fit guest RAM above 1 MiB "
		       "(%llu KiB)\n", img->size, (unsigned long long)(ram->size >> 10));
		return -E2BIG;
	}
	rc = load_range_claim(ram, &used, FLAT_LOAD_GPA, img->size, "flat image");
	if (rc)
		return rc;
	memcpy(ram->base + FLAT_LOAD_GPA, img->data, img->size);
	rc = mb1_info_build(ram, img, &used, &info, &gdt);
	if (rc)
		return rc;
	mb1_entry_init(out, (uint32_t)FLAT_LOAD_GPA, info, gdt);
	return 0;
}
