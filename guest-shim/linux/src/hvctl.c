/* hvctl: control the hypervisor's scheduler from a guest's user space.
 *   hvctl [--dry-run] sched                       current policy, switches so far
 *   hvctl [--dry-run] sched list                  the policies the hypervisor has
 *   hvctl [--dry-run] [--no-wait] sched POLICY [name=value ...]
 *                    switch the whole host to POLICY with those options
 *                    (docs/sched.md "Run-time policy switch"), then wait up
 *                    to 5 s until it is installed
 *   hvctl [--dry-run] sched vm ID                 VM ID's policy, moves so far
 *   hvctl [--dry-run] sched vm ID POLICY [sched_dp_us=N] [sched_ds_min_ms=A sched_ds_max_ms=B]
 *                    move that VM alone to POLICY of the host's family, with
 *                    its own DP/DS (docs/sched.md "Moving one VM between
 *                    policies"); done when the call returns
 * The switch is HC_SCHED_SWITCH (hv/abi.h): only a privileged VM (module
 * string priv=on) may make it (-EPERM otherwise); HC_SCHED_POLICY reads the
 * policy. Both are allowed from CPL 3. CPUID must show this hypervisor
 * first, so the tool fails cleanly elsewhere. --dry-run prints the calls
 * without making them (host tests). Static binary. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hvcall.h"

static sigjmp_buf fault_jmp;
static int dry;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

static long hc(uint64_t nr, uint64_t a0, uint64_t a1)
{
	long ret;

	if (dry) {
		printf("vmcall rax=%#llx rbx=%#llx rcx=%#llx\n", (unsigned long long)nr,
		       (unsigned long long)a0, (unsigned long long)a1);
		return nr == HC_SCHED_POLICY && (a0 == (uint64_t)-1 ||
						 (a0 & ~0xffffull) == HC_SCHED_POLICY_VM) ? 0 :
		       nr == HC_SCHED_POLICY ? (a0 == 0 ? 0x746964657263 : -ENOENT) : 0;
	}
	__asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(a0), "c"(a1) : "rdx", "rsi", "memory");
	return ret;
}

static int usage(void)
{
	fprintf(stderr, "usage: hvctl [--dry-run] [--no-wait] sched [list | POLICY [name=value ...] |\n"
			"                                           vm ID [POLICY [name=value ...]]]\n");
	return 1;
}

/* Name of policy i (HC_SCHED_POLICY packs up to 7 bytes); 0 or -errno. */
static long policy_name(unsigned i, char name[8])
{
	long p = hc(HC_SCHED_POLICY, i, 0);

	if (p < 0)
		return p;
	for (unsigned k = 0; k < 8; k++)
		name[k] = k < 7 ? (char)(p >> (8 * k)) : '\0';
	return 0;
}

static int show(void)
{
	long w = hc(HC_SCHED_POLICY, (uint64_t)-1, 0);
	char name[8] = "?";

	if (w < 0) {
		fprintf(stderr, "hvctl: HC_SCHED_POLICY: %s\n", strerror((int)-w));
		return 3;
	}
	policy_name((unsigned)(w & 0xff), name);
	printf("policy %s%s switches %ld\n", name,
	       w & HC_SCHED_POLICY_SWITCHING ? " (switch under way)" : "", w >> 16);
	return 0;
}

static int show_vm(unsigned id)
{
	long w = hc(HC_SCHED_POLICY, HC_SCHED_POLICY_VM | id, 0);
	char name[8] = "?";

	if (w < 0) {
		fprintf(stderr, "hvctl: vm %u: %s\n", id, strerror((int)-w));
		return 3;
	}
	policy_name((unsigned)(w & 0xff), name);
	printf("vm %u policy %s%s moves %ld\n", id, name,
	       w & HC_SCHED_POLICY_OWN ? " (its own)" : "", w >> 16);
	return 0;
}

static int list(void)
{
	char name[8];

	for (unsigned i = 0; i < 256 && policy_name(i, name) == 0; i++)
		printf("%u %s\n", i, name);
	return 0;
}

static int do_switch(int argc, char **argv, int wait, int vm)
{
	char req[256];
	size_t n = 0;
	long r, w0, w;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]);

		if (i == 1 && vm >= 0) {   /* "POLICY vm=ID name=value ..." */
			int k = snprintf(req + n, sizeof(req) - n, " vm=%d", vm);

			if (k < 0 || (size_t)k >= sizeof(req) - n)
				return 1;
			n += (size_t)k;
		}

		if (n + l + 2 > sizeof(req)) {
			fprintf(stderr, "hvctl: request longer than %zu bytes\n", sizeof(req) - 1);
			return 1;
		}
		if (n)
			req[n++] = ' ';
		memcpy(req + n, argv[i], l);
		n += l;
	}
	if (vm >= 0 && argc == 1)
		n += (size_t)snprintf(req + n, sizeof(req) - n, " vm=%d", vm);
	req[n] = '\0';
	w0 = hc(HC_SCHED_POLICY, (uint64_t)-1, 0);
	if (dry)
		printf("request \"%s\" (%zu bytes)\n", req, n);
	r = hc(HC_SCHED_SWITCH, (uint64_t)(uintptr_t)req, n);
	if (r < 0) {
		fprintf(stderr, "hvctl: switch to \"%s\" refused: %s\n", req, strerror((int)-r));
		return 3;
	}
	if (vm >= 0)   /* a VM's move is done when the call returns */
		return dry ? 0 : show_vm((unsigned)vm);
	if (!wait || dry)
		return 0;
	for (int i = 0; i < 500; i++) {
		w = hc(HC_SCHED_POLICY, (uint64_t)-1, 0);
		if (w >= 0 && !(w & HC_SCHED_POLICY_SWITCHING) && (w >> 16) > (w0 >> 16))
			return show();
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "hvctl: switch not installed after 5 s\n");
	return 4;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_fault };
	volatile int wait = 1, i = 1;
	int sig;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--dry-run"))
			dry = 1;
		else if (!strcmp(argv[i], "--no-wait"))
			wait = 0;
		else
			return usage();
	}
	if (i >= argc || strcmp(argv[i], "sched"))
		return usage();
	i++;
	if (!dry) {
		if (!hv_present()) {
			fprintf(stderr, "hvctl: not running under the HVresearch hypervisor "
				"(CPUID 0x40000000 signature absent)\n");
			return 2;
		}
		sigaction(SIGILL, &sa, NULL);
		sigaction(SIGSEGV, &sa, NULL);
		sig = sigsetjmp(fault_jmp, 1);
		if (sig) {
			fprintf(stderr, "hvctl: VMCALL faulted (%s): hypervisor refused a CPL 3 call\n",
				strsignal(sig));
			return 2;
		}
	}
	if (i == argc)
		return show();
	if (i + 1 == argc && !strcmp(argv[i], "list"))
		return list();
	if (!strcmp(argv[i], "vm")) {
		char *end;
		long id = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;

		if (id < 0 || id > 0xffff || *end)
			return usage();
		if (i + 2 == argc)
			return show_vm((unsigned)id);
		return do_switch(argc - i - 2, argv + i + 2, 0, (int)id);
	}
	return do_switch(argc - i, argv + i, wait, -1);
}
