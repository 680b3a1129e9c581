/* vprofctl: control vProfile from a guest's user space (seed 001 §2, §2.3).
 *   vprofctl start | stop | dedicated N | mark V | version   [--dry-run]
 * The hypercalls are VMCALLs from CPL 3 (allowed for HC_VPROF_* only, see
 * hv/abi.h). Before calling, CPUID leaf 0x40000000 (or 0x40000100 when a KVM
 * signature is shown first) must carry this hypervisor's signature, so the
 * tool fails cleanly on bare metal or another hypervisor. Static binary. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "abi.h"

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

static void cpuid(uint32_t leaf, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}

static int hv_present(void)
{
	static const uint32_t leaves[] = { 0x40000000u, 0x40000100u };
	uint32_t r[4];

	cpuid(1, r);
	if (!(r[2] & (1u << 31)))      /* CPUID.1:ECX.hypervisor */
		return 0;
	for (unsigned i = 0; i < 2; i++) {
		cpuid(leaves[i], r);
		if (r[1] == HV_CPUID_SIG_EBX && r[2] == HV_CPUID_SIG_ECX && r[3] == HV_CPUID_SIG_EDX)
			return 1;
	}
	return 0;
}

static long vmcall(uint64_t nr, uint64_t arg)
{
	uint64_t ret;

	__asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(arg) : "rcx", "rdx", "rsi", "memory");
	return (long)ret;
}

static int usage(void)
{
	fprintf(stderr, "usage: vprofctl [--dry-run] start|stop|dedicated EPOCHS|mark VALUE|version\n");
	return 1;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return s[0] && !*end && !errno && s[0] != '-';
}

/* Map a command line to a hypercall number and argument. */
static int parse(int argc, char **argv, uint64_t *nr, uint64_t *arg)
{
	*arg = 0;
	if (argc == 1 && !strcmp(argv[0], "start"))
		*nr = HC_VPROF_START;
	else if (argc == 1 && !strcmp(argv[0], "stop"))
		*nr = HC_VPROF_STOP;
	else if (argc == 1 && !strcmp(argv[0], "version"))
		*nr = HC_VERSION;
	else if (argc == 2 && !strcmp(argv[0], "dedicated") && parse_u64(argv[1], arg))
		*nr = HC_VPROF_DEDICATED;
	else if (argc == 2 && !strcmp(argv[0], "mark") && parse_u64(argv[1], arg))
		*nr = HC_VPROF_MARK;
	else
		return 0;
	return 1;
}

static int call(uint64_t nr, uint64_t arg)
{
	struct sigaction sa = { .sa_handler = on_fault };
	long ret;
	int sig;

	if (!hv_present()) {
		fprintf(stderr, "vprofctl: not running under the HVresearch hypervisor "
			"(CPUID 0x40000000 signature absent)\n");
		return 2;
	}
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sig = sigsetjmp(fault_jmp, 1);
	if (sig) {
		fprintf(stderr, "vprofctl: VMCALL faulted (%s): hypervisor refused a CPL 3 call\n",
			strsignal(sig));
		return 2;
	}
	ret = vmcall(nr, arg);
	if (ret < 0) {
		fprintf(stderr, "vprofctl: hypercall failed: %s\n", strerror((int)-ret));
		return 3;
	}
	printf("%ld\n", ret);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t nr, arg;
	int dry = argc > 1 && !strcmp(argv[1], "--dry-run");

	if (!parse(argc - 1 - dry, argv + 1 + dry, &nr, &arg))
		return usage();
	if (dry) {
		printf("vmcall rax=%#llx rbx=%#llx\n", (unsigned long long)nr, (unsigned long long)arg);
		return 0;
	}
	return call(nr, arg);
}
