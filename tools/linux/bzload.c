/* bzload: run the hypervisor's load_bzimage() and guest ACPI/MP table builder
 * (hv/dev/acpi_tables.c) on the host and hand the result to QEMU TCG: guest
 * RAM as pieces for QEMU's generic loader, and a 128 KiB "BIOS" holding the
 * tables for 0xE0000-0xFFFFF with romstub.bin (the long-mode entry, patched
 * with struct guest_entry) in its top 4 KiB. QEMU then boots Linux exactly
 * as the hypervisor would hand it over, minus VT-x.
 * usage: bzload ROMSTUB VCPUS RAM_MIB KERNEL INITRD CMDLINE OUTDIR
 * prints the QEMU arguments (-bios, -device loader,...) on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dev/acpi_tables.h"
#include "load/loader.h"
#include "log.h"

#define STUB_SIZE 0x1000
#define BIOS_SIZE ACPI_TABLES_AREA_SIZE          /* 0xE0000-0xFFFFF */
#define STUB_OFF  (BIOS_SIZE - STUB_SIZE)        /* stub at 0xFF000 */
#define STUB_MAGIC 0x6275747320756862ULL
#define LOW_END   0x30000    /* GDT, page tables, zero page, command line */

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0) {
		perror(path);
		exit(2);
	}
	rewind(f);
	*n = (size_t)len;
	b = malloc(*n ? *n : 1);
	if (!b || fread(b, 1, *n, f) != *n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	return b;
}

/* Write guest RAM [gpa, gpa+len) to OUTDIR/name and print its QEMU option. */
static void piece_write(const char *dir, const char *name, const uint8_t *ram,
			uint64_t gpa, uint64_t len, bool bios)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(ram + gpa, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(2);
	}
	if (bios)
		printf("-bios %s\n", path);
	else
		printf("-device loader,file=%s,addr=0x%llx,force-raw=on\n", path,
		       (unsigned long long)gpa);
}

/* The tables for 0xE0000-0xFFFFF with the stub over their unused top page. */
static uint8_t *bios_build(const uint8_t *stub, unsigned vcpus)
{
	struct acpi_tables_cfg cfg;
	struct acpi_tables_info info;
	uint8_t *bios = calloc(1, BIOS_SIZE);

	acpi_tables_cfg_default(&cfg, vcpus);
	if (!bios || acpi_tables_build(bios, BIOS_SIZE, &cfg, &info)) {
		fprintf(stderr, "bzload: acpi_tables_build failed\n");
		exit(1);
	}
	for (size_t i = STUB_OFF; i < BIOS_SIZE; i++)
		if (bios[i]) {
			fprintf(stderr, "bzload: tables reach the stub page at 0x%zx\n", i);
			exit(1);
		}
	memcpy(bios + STUB_OFF, stub, STUB_SIZE);
	fprintf(stderr, "bzload: %u vCPUs, RSDP 0x%llx, MADT 0x%llx, MP 0x%llx\n", vcpus,
		(unsigned long long)info.rsdp, (unsigned long long)info.madt,
		(unsigned long long)info.mpfp);
	return bios;
}

static void stub_patch(uint8_t *rom, const struct guest_entry *e)
{
	uint64_t magic;

	memcpy(&magic, rom, 8);
	if (magic != STUB_MAGIC) {
		fprintf(stderr, "bzload: romstub has no parameter block\n");
		exit(2);
	}
	memcpy(rom + 8, &e->cr3, 8);
	memcpy(rom + 16, &e->rip, 8);
	memcpy(rom + 24, &e->rsi, 8);
	memcpy(rom + 32, &e->rsp, 8);
	memcpy(rom + 40, &e->gdt_limit, 2);
	memcpy(rom + 42, &e->gdt_base, 8);
	memcpy(rom + 50, &e->cs, 2);
	memcpy(rom + 52, &e->ds, 2);
}

int main(int argc, char **argv)
{
	struct guest_ram ram;
	struct guest_image img;

	log_level = LOG_INFO;   /* tools/sim/hostlog.c: the loader's lines are the point */
	struct guest_entry e;
	size_t stub_n, pm;
	uint32_t rd, rs;
	uint8_t *stub, *bios;

	if (argc != 8) {
		fprintf(stderr, "usage: bzload ROMSTUB VCPUS RAM_MIB KERNEL INITRD CMDLINE OUTDIR\n");
		return 64;
	}
	stub = slurp(argv[1], &stub_n);
	if (stub_n != STUB_SIZE)
		return 2;
	ram.nr_vcpus = (unsigned)strtoul(argv[2], NULL, 0);
	ram.size = strtoull(argv[3], NULL, 0) << 20;
	ram.base = calloc(1, ram.size);
	img.data = slurp(argv[4], &img.size);
	img.initrd = slurp(argv[5], &img.initrd_size);
	img.cmdline = argv[6];
	if (!ram.base || load_bzimage(&ram, &img, &e))
		return 1;
	stub_patch(stub, &e);
	bios = bios_build(stub, ram.nr_vcpus);
	memcpy(ram.base + GUEST_BIOS_START, bios, BIOS_SIZE);
	piece_write(argv[7], "bios.bin", ram.base, GUEST_BIOS_START, BIOS_SIZE, true);
	pm = img.size - (img.data[0x1f1] + 1u) * 512;
	memcpy(&rd, ram.base + e.rsi + 0x218, 4);
	memcpy(&rs, ram.base + e.rsi + 0x21c, 4);
	piece_write(argv[7], "low.bin", ram.base, 0, LOW_END, false);
	piece_write(argv[7], "kernel.bin", ram.base, GUEST_HIGHMEM_START, pm, false);
	piece_write(argv[7], "initrd.bin", ram.base, rd, rs, false);
	return 0;
}
