/* Copy what tests need out of the multiboot1 information block (spec 3.3)
 * before anything (e.g. an AP trampoline) can overwrite low memory. */
#include "guest.h"

struct boot_params boot;

struct mb_info { uint32_t flags, mem_lower, mem_upper, boot_device, cmdline, mods_count,
		 mods_addr, syms[4], mmap_length, mmap_addr, drv_len, drv_addr, config,
		 loader; };
struct mb_mmap { uint32_t size; uint64_t addr, len; uint32_t type; } __attribute__((packed));

static void str_copy(char *d, size_t n, uint32_t gpa)
{
	const char *s = (const char *)(uintptr_t)gpa;
	size_t i = 0;

	for (; gpa && i + 1 < n && s[i]; i++)
		d[i] = s[i];
	d[i] = '\0';
}

/* RAM end = end of the mmap RAM entry that contains 1 MiB (mem_upper
 * otherwise), so tests know where the hole above RAM starts. */
static void boot_parse_mmap(const struct mb_info *mi)
{
	uintptr_t p = mi->mmap_addr, end = p + mi->mmap_length;

	while (p < end) {
		const struct mb_mmap *e = (const void *)p;

		if (e->type == 1 && e->addr <= 0x100000 && e->addr + e->len > 0x100000)
			boot.ram_top = e->addr + e->len;
		boot.mmap_entries++;
		p += e->size + 4;
	}
}

void boot_parse(uint32_t magic, uint32_t info)
{
	const struct mb_info *mi = (const void *)(uintptr_t)info;

	boot.magic = magic;
	if (magic != MB1_BOOT_MAGIC || !info)
		return;
	boot.info_flags = mi->flags;
	if (mi->flags & 1) {
		boot.mem_lower_kb = mi->mem_lower;
		boot.mem_upper_kb = mi->mem_upper;
		boot.ram_top = 0x100000 + (uint64_t)mi->mem_upper * 1024;
	}
	if (mi->flags & (1u << 6))
		boot_parse_mmap(mi);
	if (mi->flags & (1u << 2))
		str_copy(boot.cmdline, sizeof(boot.cmdline), mi->cmdline);
	if (mi->flags & (1u << 9))
		str_copy(boot.loader, sizeof(boot.loader), mi->loader);
}

unsigned long boot_arg_num(const char *key, unsigned long def)
{
	size_t kl = strlen(key);

	for (const char *p = boot.cmdline; *p; p++) {
		unsigned long v = 0;

		if ((p != boot.cmdline && p[-1] != ' ') || strncmp(p, key, kl) || p[kl] != '=')
			continue;
		for (p += kl + 1; *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (unsigned long)(*p - '0');
		return v;
	}
	return def;
}
