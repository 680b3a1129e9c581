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

/* Run-time policy switch (hv/abi.h HC_SCHED_SWITCH): "policy [name=value
 * ...]"; 0 or the hypervisor's -errno (-EPERM unless the VM is privileged),
 * or FAULT(vector) if the VMCALL faulted. */
long hv_sched_switch(const char *req)
{
	long ret = 0;
	int f = hv_call(HC_SCHED_SWITCH, (unsigned long)req, strlen(req), &ret);

	return f ? f : ret;
}

/* The current policy's name into name[n] (NUL-terminated); returns the
 * HC_SCHED_POLICY word (index | HC_SCHED_POLICY_SWITCHING | switches << 16)
 * or a negative error. */
long hv_sched_policy(char *name, size_t n)
{
	long word = 0, packed = 0;
	int f = hv_call(HC_SCHED_POLICY, (unsigned long)-1, 0, &word);

	if (f)
		return f;
	if (word < 0)
		return word;
	f = hv_call(HC_SCHED_POLICY, (unsigned long)(word & 0xff), 0, &packed);
	if (f || packed < 0)
		return f ? f : packed;
	if (n) {
		size_t i;

		for (i = 0; i < 7 && i + 1 < n && (char)(packed >> (8 * i)); i++)
			name[i] = (char)(packed >> (8 * i));
		name[i] = '\0';
	}
	return word;
}
