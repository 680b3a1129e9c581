/* Module-string parser (see modstr.h). */
#include "vm/modstr.h"
#include "cmdline.h"
#include "lib/string.h"
#include "lib/fmt.h"
#include "errno.h"
#include "log.h"

int modstr_next_word(const char **cursor, char *out, size_t outlen)
{
	const char *s = *cursor;
	bool quoted = false;
	size_t n = 0;
	bool overflow = false;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*cursor = s;
		return 0;
	}
	for (; *s && (quoted || (*s != ' ' && *s != '\t')); s++) {
		char c = *s;
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\' && s[1] && (!quoted || s[1] == '\\' || s[1] == '"' || s[1] == '\''))
			c = *++s;
		if (n + 1 < outlen)
			out[n++] = c;
		else
			overflow = true;
	}
	out[n] = '\0';
	*cursor = s;
	return overflow ? -E2BIG : (int)(n ? n : 1);
}

static const char *const kind_names[] = { "multiboot", "flat", "linux", NULL };
static const char *const role_names[] = { "kernel", "initrd", NULL };

static int parse_pcpus(const char *v, struct vm_params *p)
{
	unsigned i = 0;

	while (*v && i < VM_MAX_VCPUS) {
		int64_t x;
		char num[12];
		size_t n = 0;

		while (*v && *v != ',' && n + 1 < sizeof(num))
			num[n++] = *v++;
		num[n] = '\0';
		if (cmdline_parse_int(num, 0, 4095, &x))
			return -EINVAL;
		p->pcpus[i++] = (int)x;
		if (*v == ',')
			v++;
	}
	return *v ? -EINVAL : 0;
}

static int set_param(struct vm_params *p, const char *k, const char *v)
{
	int64_t x;
	int r;

	if (!strcmp(k, "vm"))
		return cmdline_parse_int(v, 0, 7, &x) ? -EINVAL : (p->vm = (int)x, 0);
	if (!strcmp(k, "role"))
		return (r = cmdline_parse_enum(v, role_names)) < 0 ? -EINVAL : (p->role = r, 0);
	if (!strcmp(k, "kind"))
		return (r = cmdline_parse_enum(v, kind_names)) < 0 ? -EINVAL : (p->kind = r, 0);
	if (!strcmp(k, "vcpus"))
		return cmdline_parse_int(v, 1, VM_MAX_VCPUS, &x) ? -EINVAL : (p->vcpus = (unsigned)x, 0);
	if (!strcmp(k, "mem")) {
		uint64_t m;
		if (cmdline_parse_size(v, &m) || m < MiB(2) || m > GiB(3))
			return -ERANGE;
		p->mem = ALIGN_UP(m, MiB(2));
		return 0;
	}
	if (!strcmp(k, "weight"))
		return cmdline_parse_int(v, 1, 65535, &x) ? -EINVAL : (p->weight = (unsigned)x, 0);
	if (!strcmp(k, "cap"))
		return cmdline_parse_int(v, 0, 100 * 64, &x) ? -EINVAL : (p->cap = (unsigned)x, 0);
	if (!strcmp(k, "pcpus"))
		return parse_pcpus(v, p);
	if (!strcmp(k, "apicv"))
		return cmdline_parse_bool(v, &p->apicv) ? -EINVAL : (p->apicv_set = true, 0);
	if (!strcmp(k, "type")) {
		static const char *const types[] = { "hit", "con", NULL };
		return (r = cmdline_parse_enum(v, types)) < 0 ? -EINVAL : (p->con = r == 1, 0);
	}
	if (!strcmp(k, "sa"))
		return cmdline_parse_bool(v, &p->sa) ? -EINVAL : 0;
	if (!strcmp(k, "priv"))
		return cmdline_parse_bool(v, &p->priv) ? -EINVAL : 0;
	if (!strcmp(k, "vprof")) {   /* seed 001 §2.3: who may freeze the others */
		static const char *const modes[] = { "normal", "dedicated", NULL };
		return (r = cmdline_parse_enum(v, modes)) < 0 ? -EINVAL :
		       (p->vprof_dedicated = r == 1, 0);
	}
	if (!strcmp(k, "ple"))
		return cmdline_parse_bool(v, &p->ple) ? -EINVAL : (p->ple_set = true, 0);
	if (!strcmp(k, "kvm"))
		return cmdline_parse_bool(v, &p->kvm_pv) ? -EINVAL : (p->kvm_set = true, 0);
	if (!strcmp(k, "name")) {
		if (strlen(v) >= sizeof(p->name))
			return -E2BIG;
		memcpy(p->name, v, strlen(v) + 1);
		return 0;
	}
	if (!strcmp(k, "cmdline")) {
		if (strlen(v) >= sizeof(p->cmdline))
			return -E2BIG;
		memcpy(p->cmdline, v, strlen(v) + 1);
		return 0;
	}
	return -ENOENT;
}

static void params_default(struct vm_params *p)
{
	memset(p, 0, sizeof(*p));
	p->vm = -1;
	p->vcpus = 1;
	p->mem = MiB(64);
	p->weight = 256;
	p->apicv = true;
	for (unsigned i = 0; i < VM_MAX_VCPUS; i++)
		p->pcpus[i] = -1;
}

int modstr_parse(const char *s, struct vm_params *p)
{
	char word[VM_CMDLINE_MAX + 16];
	int n;

	params_default(p);
	while ((n = modstr_next_word(&s, word, sizeof(word))) != 0) {
		char *eq;
		int r;

		if (n < 0) {
			pr_err("vm: module string word too long (limit %zu bytes)\n", sizeof(word) - 1);
			return -E2BIG;
		}
		eq = strchr(word, '=');
		if (!eq) {
			pr_err("vm: module string word \"%s\" is not key=value\n", word);
			return -EINVAL;
		}
		*eq = '\0';
		r = set_param(p, word, eq + 1);
		if (r == -ENOENT) {
			pr_warn("vm: unknown module string key \"%s\" ignored\n", word);
			continue;
		}
		if (r) {
			pr_err("vm: bad value \"%s\" for module string key \"%s\"\n", eq + 1, word);
			return r;
		}
	}
	if (p->vm < 0) {
		pr_err("vm: module string lacks vm=<n>\n");
		return -EINVAL;
	}
	if (!p->name[0])
		fmt_snprintf(p->name, sizeof(p->name), "vm%d", p->vm);
	return 0;
}
