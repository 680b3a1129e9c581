/* Recognise this hypervisor (CPUID 0x40000000, or 0x40000100 when a KVM
 * signature comes first: hv/abi.h) and make hypercalls. */
#include "guest.h"
#include "abi.h"

static bool sig_at(uint32_t leaf)
{
	struct cpuid_regs r = cpuid(leaf, 0);

	return r.b == HV_CPUID_SIG_EBX && r.c == HV_CPUID_SIG_ECX && r.d == HV_CPUID_SIG_EDX;
}

bool hv_is_ours(void)
{
	if (!(cpuid(1, 0).c & (1u << 31)))
		return false;
	return sig_at(0x40000000) || sig_at(0x40000100);
}

int hv_call(unsigned long nr, unsigned long a0, unsigned long a1, long *ret)
{
	return vmcall_safe(nr, a0, a1, 0, 0, ret);
}
