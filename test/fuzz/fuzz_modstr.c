/* libFuzzer harness: module strings (hv/vm/modstr.c), the GRUB module2
 * arguments that say what each boot module is and how its VM looks. */
#include <stdio.h>
#include "fuzz.h"
#include "vm/modstr.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), word[64];
	const char *cur;
	struct vm_params p;
	int rc;

	memcpy(s, data, size);
	s[size] = '\0';
	if (modstr_parse(s, &p) == 0) {
		FUZZ_CHECK(p.vcpus >= 1 && p.vcpus <= VM_MAX_VCPUS);
		FUZZ_CHECK(memchr(p.name, '\0', sizeof(p.name)) != NULL);
		FUZZ_CHECK(memchr(p.cmdline, '\0', sizeof(p.cmdline)) != NULL);
		for (unsigned i = 0; i < VM_MAX_VCPUS; i++)
			FUZZ_CHECK(p.pcpus[i] >= -1);
	}
	cur = s;
	for (size_t n = 0; (rc = modstr_next_word(&cur, word, sizeof(word))) != 0; n++) {
		FUZZ_CHECK(n <= size && cur >= s && cur <= s + size);
		FUZZ_CHECK(memchr(word, '\0', sizeof(word)) != NULL);
		if (rc > 0)
			FUZZ_CHECK((size_t)rc < sizeof(word) && strlen(word) <= (size_t)rc);
	}
	free(s);
	return 0;
}
