/* Multiboot 1 loader (spec 0.6.96): finds the header in the first 8 KiB,
 * loads by the a.out-kludge address fields (flag 16) or by the ELF program
 * headers (ELF32, or ELF64 below 4 GiB as GRUB accepts), builds the boot
 * information block and the 32-bit entry state. */
#include "load/mb1.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

/* ELF (System V gABI) headers, only the fields a loader needs. */
struct elf32_ehdr {
	uint8_t ident[16]; uint16_t type, machine; uint32_t version, entry, phoff, shoff, flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf32_phdr { uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align; };
struct elf64_ehdr {
	uint8_t ident[16]; uint16_t type, machine; uint32_t version;
	uint64_t entry, phoff, shoff; uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf64_phdr { uint32_t type, flags; uint64_t offset, vaddr, paddr, filesz, memsz, align; };
_Static_assert(sizeof(struct elf32_ehdr) == 52 && sizeof(struct elf32_phdr) == 32, "elf32");
_Static_assert(sizeof(struct elf64_ehdr) == 64 && sizeof(struct elf64_phdr) == 56, "elf64");

#define ELF_CLASS32 1
#define ELF_CLASS64 2
#define ELF_DATA_LSB 1
#define ELF_ET_EXEC 2
#define ELF_EM_386 3
#define ELF_EM_X86_64 62
#define ELF_PT_LOAD 1
#define ELF_MAX_PHDRS 64

#define MB1_AOUT_HDR_LEN 32   /* magic .. entry_addr; video fields only with flag 2 */

/* One program header in class-independent form. */
struct seg { uint64_t offset, vaddr, paddr, filesz, memsz; };

static int mb1_header_find(const struct guest_image *img, struct mb1_header *hdr, size_t *off)
{
	size_t lim = MIN(img->size, (size_t)MB1_SEARCH_LEN);

	for (size_t o = 0; o + 12 <= lim; o += 4) {
		memset(hdr, 0, sizeof(*hdr));
		memcpy(hdr, img->data + o, MIN(sizeof(*hdr), img->size - o));
		if (hdr->magic == MB1_HEADER_MAGIC &&
		    (uint32_t)(hdr->magic + hdr->flags + hdr->checksum) == 0) {
			*off = o;
			return 0;
		}
	}
	pr_err("load: mb1: no multiboot header (magic and checksum) in the first 8 KiB\n");
	return -ENOEXEC;
}

/* Copy filesz bytes from the image and zero the rest up to memsz. */
static int mb1_seg_load(const struct guest_ram *ram, const struct guest_image *img,
			struct load_used *used, const struct seg *s)
{
	int rc;

	if (s->filesz > s->memsz || s->offset > img->size ||
	    s->filesz > img->size - s->offset) {
		pr_err("load: mb1: segment at 0x%llx: file range 0x%llx+0x%llx past the "
		       "image end (%zu bytes) or larger than its memory size\n",
		       (unsigned long long)s->paddr, (unsigned long long)s->offset,
		       (unsigned long long)s->filesz, img->size);
		return -ENOEXEC;
	}
	rc = load_range_claim(ram, used, s->paddr, s->memsz, "mb1 kernel segment");
	if (rc)
		return rc;
	memcpy(ram->base + s->paddr, img->data + s->offset, s->filesz);
	memset(ram->base + s->paddr + s->filesz, 0, s->memsz - s->filesz);
	return 0;
}

/* Spec 3.1.3: the image from load_addr..load_end_addr is the file from the
 * header's offset less (header_addr - load_addr); bss up to bss_end_addr. */
static int mb1_load_aout(const struct guest_ram *ram, const struct guest_image *img,
			 const struct mb1_header *h, size_t hoff, struct load_used *used,
			 uint32_t *entry)
{
	struct seg s = { .paddr = h->load_addr };
	uint64_t back = (uint64_t)h->header_addr - h->load_addr;

	if (hoff + MB1_AOUT_HDR_LEN > img->size || h->header_addr < h->load_addr || back > hoff ||
	    (h->load_end_addr && h->load_end_addr <= h->load_addr) ||
	    (h->bss_end_addr && h->bss_end_addr < MAX(h->load_end_addr, h->load_addr))) {
		pr_err("load: mb1: inconsistent a.out-kludge addresses (header 0x%x load "
		       "0x%x-0x%x bss 0x%x)\n", h->header_addr, h->load_addr,
		       h->load_end_addr, h->bss_end_addr);
		return -ENOEXEC;
	}
	s.offset = hoff - back;
	s.filesz = h->load_end_addr ? h->load_end_addr - h->load_addr : img->size - s.offset;
	s.memsz = h->bss_end_addr ? h->bss_end_addr - h->load_addr : s.filesz;
	if (h->entry_addr < s.paddr || h->entry_addr >= s.paddr + s.filesz) {
		pr_err("load: mb1: entry 0x%x outside the loaded image\n", h->entry_addr);
		return -ENOEXEC;
	}
	*entry = h->entry_addr;
	return mb1_seg_load(ram, img, used, &s);
}

static int elf_seg_read(const struct guest_image *img, int cls, uint64_t at, struct seg *s)
{
	if (cls == ELF_CLASS32) {
		struct elf32_phdr p;

		memcpy(&p, img->data + at, sizeof(p));
		*s = (struct seg){ p.offset, p.vaddr, p.paddr, p.filesz, p.memsz };
		return p.type == ELF_PT_LOAD && p.memsz;
	}
	struct elf64_phdr p;

	memcpy(&p, img->data + at, sizeof(p));
	*s = (struct seg){ p.offset, p.vaddr, p.paddr, p.filesz, p.memsz };
	return p.type == ELF_PT_LOAD && p.memsz;
}

struct elf_info { int cls; uint64_t entry, phoff; unsigned phnum, phentsize; };

static int elf_header_parse(const struct guest_image *img, struct elf_info *ei)
{
	static const uint8_t magic[4] = { 0x7f, 'E', 'L', 'F' };
	struct elf64_ehdr e64;
	struct elf32_ehdr e32;

	if (img->size < sizeof(e32) || memcmp(img->data, magic, 4) ||
	    img->data[5] != ELF_DATA_LSB) {
		pr_err("load: mb1: not a little-endian ELF file (or shorter than its "
		       "header) and no a.out-kludge flag\n");
		return -ENOEXEC;
	}
	ei->cls = img->data[4];
	if (ei->cls == ELF_CLASS32) {
		memcpy(&e32, img->data, sizeof(e32));
		*ei = (struct elf_info){ ELF_CLASS32, e32.entry, e32.phoff, e32.phnum, e32.phentsize };
		if (e32.type == ELF_ET_EXEC && e32.machine == ELF_EM_386 &&
		    ei->phentsize == sizeof(struct elf32_phdr))
			return 0;
	} else if (ei->cls == ELF_CLASS64 && img->size >= sizeof(e64)) {
		memcpy(&e64, img->data, sizeof(e64));
		*ei = (struct elf_info){ ELF_CLASS64, e64.entry, e64.phoff, e64.phnum, e64.phentsize };
		if (e64.type == ELF_ET_EXEC && e64.machine == ELF_EM_X86_64 &&
		    ei->phentsize == sizeof(struct elf64_phdr))
			return 0;
	}
	pr_err("load: mb1: ELF header truncated or not an x86 executable\n");
	return -ENOEXEC;
}

/* The entry point may be virtual: translate through the segment holding it
 * (as GRUB does), so kernels linked high with low p_paddr work. */
static void elf_entry_translate(const struct seg *s, uint64_t entry, uint64_t *phys)
{
	if (entry >= s->vaddr && entry - s->vaddr < s->memsz)
		*phys = s->paddr + (entry - s->vaddr);
}

static int mb1_load_elf(const struct guest_ram *ram, const struct guest_image *img,
			struct load_used *used, uint32_t *entry)
{
	uint64_t phys = UINT64_MAX;
	struct elf_info ei;
	struct seg s;
	unsigned loaded = 0;
	int rc = elf_header_parse(img, &ei);

	if (rc)
		return rc;
	if (ei.phnum == 0 || ei.phnum > ELF_MAX_PHDRS || ei.phoff > img->size ||
	    (uint64_t)ei.phnum * ei.phentsize > img->size - ei.phoff) {
		pr_err("load: mb1: %u ELF program headers at 0x%llx do not fit the %zu-byte image\n",
		       ei.phnum, (unsigned long long)ei.phoff, img->size);
		return -ENOEXEC;
	}
	for (unsigned i = 0; i < ei.phnum; i++) {
		if (!elf_seg_read(img, ei.cls, ei.phoff + (uint64_t)i * ei.phentsize, &s))
			continue;
		rc = mb1_seg_load(ram, img, used, &s);
		if (rc)
			return rc;
		elf_entry_translate(&s, ei.entry, &phys);
		loaded++;
	}
	if (!loaded || phys >= GUEST_MAX_RAM) {
		pr_err("load: mb1: entry 0x%llx is not inside a loadable segment\n",
		       (unsigned long long)ei.entry);
		return -ENOEXEC;
	}
	*entry = (uint32_t)phys;
	return 0;
}

void mb1_entry_init(struct guest_entry *out, uint32_t entry, uint32_t info_gpa,
		    uint32_t gdt_gpa)
{
	memset(out, 0, sizeof(*out));
	out->mode = GUEST_MODE_PROT32;
	out->rip = entry;
	out->rflags = 0x2;           /* IF clear, reserved bit 1 set */
	out->rax = MB1_BOOT_MAGIC;
	out->rbx = info_gpa;
	out->cr0 = 0x11;             /* PE | ET; PG off */
	out->cs = MB1_ENTRY_CS;      /* flat code/data, also in the GDT (mb1_info.c) */
	out->ds = MB1_ENTRY_DS;
	out->gdt_base = gdt_gpa;
	out->gdt_limit = MB1_ENTRY_GDT_LIMIT;
}

int load_multiboot1(const struct guest_ram *ram, const struct guest_image *img,
		    struct guest_entry *out)
{
	struct load_used used = { 0 };
	struct mb1_header h;
	uint32_t entry, info, gdt;
	size_t hoff;
	int rc = mb1_header_find(img, &h, &hoff);

	if (rc)
		return rc;
	if ((h.flags & 0xffff) & ~MB1_HDR_REQ_KNOWN) {
		pr_err("load: mb1: header requires unsupported features (flags 0x%x)\n", h.flags);
		return -ENOTSUP;
	}
	if (h.flags & MB1_HDR_AOUT)
		rc = mb1_load_aout(ram, img, &h, hoff, &used, &entry);
	else
		rc = mb1_load_elf(ram, img, &used, &entry);
	if (!rc)
		rc = mb1_info_build(ram, img, &used, &info, &gdt);
	if (rc)
		return rc;
	mb1_entry_init(out, entry, info, gdt);
	return 0;
}
