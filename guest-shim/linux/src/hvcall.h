/* User-space probes of this hypervisor from a Linux guest: is it there, and
 * the CPL3 hypercalls (hv/abi.h). Shared by stealcheck and irsprobe. */
#ifndef WL_HVCALL_H
#define WL_HVCALL_H
#include <stdint.h>
#include "../../../hv/abi.h"

/* This hypervisor's signature at 0x40000000, or at 0x40000100 behind KVM's
 * (hv/abi.h): elsewhere a VMCALL would raise #UD. */
static inline int hv_present(void)
{
	static const uint32_t leaves[] = { 0x40000000u, 0x40000100u };
	uint32_t a, b, c, d;

	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	if (!(c & (1u << 31)))
		return 0;
	for (unsigned i = 0; i < 2; i++) {
		__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(leaves[i]), "c"(0));
		if (b == HV_CPUID_SIG_EBX && c == HV_CPUID_SIG_ECX && d == HV_CPUID_SIG_EDX)
			return 1;
	}
	return 0;
}

/* HC_VPROF_START / HC_VPROF_STOP and other CPL3 calls with no argument. */
static inline long vprof_call(uint64_t nr)
{
	long ret;

	__asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(0) : "rcx", "rdx", "rsi", "memory");
	return ret;
}
#endif
