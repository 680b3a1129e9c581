/* Host check: load real guest images with the hypervisor's loaders
 * (hv/load, built for the host) and compare guest RAM at 1 MiB with the
 * image's flat bytes (objcopy -O binary); check the entry state and the
 * multiboot information block a test kernel will parse.
 * usage: loadcheck mb1|flat IMAGE FLAT_REFERENCE ... (triples) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "load/mb1.h"

#define RAM_SIZE (64u << 20)
#define CMDLINE  "loadcheck=1"

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;

	if (!f || fseek(f, 0, SEEK_END) || (long)(*n = (size_t)ftell(f)) < 0) {
		perror(path);
		exit(2);
	}
	rewind(f);
	b = malloc(*n ? *n : 1);
	if (fread(b, 1, *n, f) != *n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	return b;
}

static int info_ok(const uint8_t *ram, const struct guest_entry *e)
{
	struct mb1_info mi;

	if (e->rbx + sizeof(mi) > RAM_SIZE)
		return 0;
	memcpy(&mi, ram + e->rbx, sizeof(mi));
	return (mi.flags & (MB1_INFO_MEM | MB1_INFO_MMAP | MB1_INFO_CMDLINE)) ==
		       (MB1_INFO_MEM | MB1_INFO_MMAP | MB1_INFO_CMDLINE) &&
	       mi.mem_upper == (RAM_SIZE >> 10) - 1024 && mi.mmap_length % 24 == 0 &&
	       !strcmp((const char *)ram + mi.cmdline, CMDLINE);
}

static int check_one(const char *mode, const char *path, const char *ref_path)
{
	size_t n, rn;
	uint8_t *data = slurp(path, &n), *ref = slurp(ref_path, &rn);
	uint8_t *ram = calloc(1, RAM_SIZE);
	struct guest_ram gr = { ram, RAM_SIZE, 1 };
	struct guest_image gi = { data, n, CMDLINE, NULL, 0 };
	struct guest_entry e;
	int rc = strcmp(mode, "flat") ? load_multiboot1(&gr, &gi, &e) : load_flat(&gr, &gi, &e);
	int ok = rc == 0 && e.rip == 0x100000 && e.rax == MB1_BOOT_MAGIC &&
		 e.mode == GUEST_MODE_PROT32 && !memcmp(ram + 0x100000, ref, rn) && info_ok(ram, &e);

	printf("  %-4s %-32s %s (rc %d, entry 0x%llx, info 0x%llx)\n", mode, path,
	       ok ? "ok" : "BAD", rc, (unsigned long long)e.rip, (unsigned long long)e.rbx);
	free(data);
	free(ref);
	free(ram);
	return ok;
}

int main(int argc, char **argv)
{
	int bad = 0, total = 0;

	for (int i = 1; i + 2 < argc; i += 3, total++)
		bad += !check_one(argv[i], argv[i + 1], argv[i + 2]);
	printf("guest-load: %d loads ok, %d bad\n", total - bad, bad);
	return bad ? 1 : 0;
}
