/* bareload planning: arguments, modules and where they live while the guest
 * RAM is built. Pure logic, also built on the host for its unit test. */
#include "bareload.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

static const char *const bl_mod_names[BL_MOD_NR] = { "bzImage", "initrd", "cmdline" };

/* Parse a decimal number with an optional K/M/G suffix (default: mult). */
static int bl_num_parse(const char *s, size_t n, uint64_t mult, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return -EINVAL;
	if (i + 1 == n && (s[i] == 'K' || s[i] == 'M' || s[i] == 'G'))
		mult = s[i] == 'K' ? 1ULL << 10 : s[i] == 'M' ? 1ULL << 20 : 1ULL << 30;
	else if (i != n)
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

static int bl_word_apply(const char *w, size_t n, struct bl_cfg *c)
{
	uint64_t v;

	if (n > 6 && !strncmp(w, "vcpus=", 6)) {
		if (bl_num_parse(w + 6, n - 6, 1, &v) || v < 1 || v > 255)
			goto bad;
		c->vcpus = (unsigned)v;
	} else if (n > 4 && !strncmp(w, "mem=", 4)) {
		if (bl_num_parse(w + 4, n - 4, 1ULL << 20, &v) || v < MiB(16) ||
		    v > BL_IMAGE_BASE)
			goto bad;
		c->mem = v;
	}
	return 0;
bad:
	pr_err("bareload: bad argument '%.*s' (vcpus=1..255, mem=16M..%lluM)\n", (int)n, w,
	       (unsigned long long)(BL_IMAGE_BASE >> 20));
	return -EINVAL;
}

int bl_args_parse(const char *s, struct bl_cfg *c)
{
	c->vcpus = 1;
	c->mem = BL_MEM_DEFAULT;
	while (s && *s) {
		size_t n = 0;

		while (*s == ' ')
			s++;
		while (s[n] && s[n] != ' ')
			n++;
		if (n && bl_word_apply(s, n, c))
			return -EINVAL;
		s += n;
	}
	return 0;
}

/* The first word of a module string is its name ("initrd", or a path). */
static bool bl_name_is(const char *s, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(s, name, n) && (s[n] == '\0' || s[n] == ' ');
}

int bl_mods_find(const struct boot_info *bi, struct bl_mods *m)
{
	memset(m, 0, sizeof(*m));
	for (unsigned k = 0; k < BL_MOD_NR; k++) {
		unsigned i;

		for (i = 0; i < bi->nr_modules; i++)
			if (bl_name_is(bi->modules[i].string, bl_mod_names[k]))
				break;
		if (i == bi->nr_modules) {
			pr_err("bareload: no module named '%s'\n", bl_mod_names[k]);
			return -ENOENT;
		}
		m->src[k] = m->start[k] = bi->modules[i].start;
		m->len[k] = bi->modules[i].end - bi->modules[i].start;
	}
	return 0;
}

static bool bl_range_available(const struct boot_info *bi, uint64_t start, uint64_t len)
{
	for (unsigned i = 0; i < bi->nr_mmap; i++) {
		const struct bootinfo_range *r = &bi->mmap[i];

		if (r->type == MB2_MMAP_AVAILABLE && r->addr <= start &&
		    start + len <= r->addr + r->len)
			return true;
	}
	return false;
}

int bl_mods_place(const struct boot_info *bi, struct bl_mods *m, uint64_t guest_end,
		  uint64_t image_end)
{
	uint64_t next = MAX(guest_end, image_end);

	for (unsigned i = 0; i < bi->nr_modules; i++)
		next = MAX(next, bi->modules[i].end);
	next = ALIGN_UP(next, PAGE_SIZE);
	for (unsigned k = 0; k < BL_MOD_NR; k++) {
		if (m->src[k] < guest_end) {
			m->start[k] = next;
			next = ALIGN_UP(next + m->len[k], PAGE_SIZE);
		}
		if (!bl_range_available(bi, m->start[k], m->len[k])) {
			pr_err("bareload: no RAM for module '%s' at 0x%llx (+%llu B): "
			       "give Bochs more memory\n", bl_mod_names[k],
			       (unsigned long long)m->start[k], (unsigned long long)m->len[k]);
			return -ENOMEM;
		}
	}
	return 0;
}

int bl_cmdline_copy(const char *src, size_t n, char *dst, size_t room)
{
	while (n && (src[n - 1] == '\n' || src[n - 1] == '\r' || src[n - 1] == ' ' ||
		     src[n - 1] == '\t'))
		n--;
	if (n >= room) {
		pr_err("bareload: command line of %zu B, at most %zu\n", n, room - 1);
		return -E2BIG;
	}
	for (size_t i = 0; i < n; i++)
		if (src[i] == '\0' || src[i] == '\n' || src[i] == '\r') {
			pr_err("bareload: the command line file has a NUL or line break at %zu\n", i);
			return -EINVAL;
		}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}
