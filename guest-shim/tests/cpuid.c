/* CPUID as the hypervisor must filter it: hypervisor bit, the signature of
 * hv/abi.h at 0x40000000 (or 0x40000100 behind a KVM signature), VMX hidden,
 * topology consistent with the vCPU count on every vCPU. */
#include "guest.h"
#include "abi.h"

const char test_name[] = "cpuid";

static volatile uint32_t cpuid_apic[GUEST_MAX_CPUS], lapic_id[GUEST_MAX_CPUS];

static void record_ids(unsigned cpu)
{
	cpuid_apic[cpu] = cpuid(1, 0).b >> 24;
	lapic_id[cpu] = apic_id();
}

static void check_signature(void)
{
	struct cpuid_regs r = cpuid(0x40000000, 0), s = cpuid(0x40000100, 0);
	bool at0 = r.b == HV_CPUID_SIG_EBX && r.c == HV_CPUID_SIG_ECX && r.d == HV_CPUID_SIG_EDX;
	bool at100 = s.b == HV_CPUID_SIG_EBX && s.c == HV_CPUID_SIG_ECX && s.d == HV_CPUID_SIG_EDX;

	test_check("signature", at0 || at100, "0x40000000: eax 0x%x %.4s%.4s%.4s",
		   r.a, (char *)&r.b, (char *)&r.c, (char *)&r.d);
	test_check("hv_max_leaf", r.a >= 0x40000000 && r.a < 0x40010000, "eax 0x%x", r.a);
}

static void check_topology(unsigned n)
{
	struct cpuid_regs l1 = cpuid(1, 0), l0 = cpuid(0, 0);
	unsigned logical = (l1.d & (1u << 28)) ? (l1.b >> 16) & 0xff : 1;

	test_check("leaf1_count", logical >= n, "leaf 1 EBX[23:16]=%u HTT=%u, %u vCPUs",
		   (l1.b >> 16) & 0xff, !!(l1.d & (1u << 28)), n);
	if (l0.a < 0xb) {
		test_check("leaf_b", false, "max basic leaf 0x%x < 0xb", l0.a);
		return;
	}
	struct cpuid_regs b0 = cpuid(0xb, 0), b1 = cpuid(0xb, 1);
	test_check("leaf_b_count", (b1.b & 0xffff) == n && ((b1.c >> 8) & 0xff) == 2,
		   "level 1: type %u logical %u (SMT level %u); %u vCPUs",
		   (b1.c >> 8) & 0xff, b1.b & 0xffff, b0.b & 0xffff, n);
	test_check("leaf_b_x2apic_id", b0.d == apic_id(), "EDX %u, LAPIC ID %u", b0.d, apic_id());
}

static void check_ap_ids(unsigned n)
{
	bool ok = smp_start_all(record_ids) == 0;
	unsigned bad = 0;

	record_ids(cpu_id());
	for (unsigned i = 0; i < n; i++)
		if (cpuid_apic[i] != i || lapic_id[i] != i)
			bad++;
	test_check("apic_ids", ok && !bad, "%u vCPUs started %s, %u with CPUID/LAPIC ID mismatch",
		   n, ok ? "ok" : "FAILED", bad);
}

void test_main(void)
{
	struct cpuid_regs l1 = cpuid(1, 0);
	unsigned n = smp_nr_cpus();

	test_check("hypervisor_bit", l1.c & (1u << 31), "leaf 1 ECX 0x%x", l1.c);
	test_check("vmx_hidden", !(l1.c & (1u << 5)), "leaf 1 ECX 0x%x", l1.c);
	test_check("x2apic", l1.c & (1u << 21), "leaf 1 ECX bit 21");
	test_check("tsc_deadline", l1.c & (1u << 24), "leaf 1 ECX bit 24");
	check_signature();
	check_topology(n);
	if (n > 1)
		check_ap_ids(n);
}
