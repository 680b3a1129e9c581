/* KVM PV sched-yield (KVM_HC_SCHED_YIELD = 11, Linux
 * Documentation/virt/kvm/x86/hypercalls.rst; hv/kvm_hcall.c). Run with
 * kvm=on and both vCPUs on ONE pCPU: vCPU 1 counts in a loop that never
 * exits, so vCPU 0's directed yield to APIC ID 1 is the only way the counter
 * can move between two instructions of vCPU 0 (short of a slice end, which
 * three rounds in a row do not all hit). A yield to an unknown APIC ID or to
 * itself returns 0 and changes nothing, as in KVM. */
#include "guest.h"

const char test_name[] = "kvmyield";

#define KVM_HC_SCHED_YIELD 11
#define KVM_FEATURE_PV_SCHED_YIELD 13

static volatile uint32_t ap_count;

static void ap_loop(unsigned cpu)
{
	for (;;)
		ap_count++;
}

static long yield_to(unsigned long apic_id)
{
	long ret = -1;

	if (hv_call(KVM_HC_SCHED_YIELD, apic_id, 0, &ret))
		return -9999;
	return ret;
}

void test_main(void)
{
	struct cpuid_regs sig = cpuid(0x40000000, 0), feat = cpuid(0x40000001, 0);
	unsigned moved = 0;
	uint32_t c0;
	char name[32];

	test_check("kvm_signature", sig.b == 0x4b4d564b && sig.c == 0x564b4d56 && sig.d == 0x4d,
		   "0x40000000: %08x %08x %08x", sig.b, sig.c, sig.d);
	test_check("feature_bit", feat.a & (1u << KVM_FEATURE_PV_SCHED_YIELD), "eax %#x", feat.a);
	test_check("ap_started", smp_nr_cpus() >= 2 && smp_start_ap(1, 0x08, NULL) == 0,
		   "%u vCPUs", smp_nr_cpus());
	smp_run_on(1, ap_loop, 0);   /* never returns on vCPU 1: do not wait */
	for (uint64_t end = tsc_after_ms(200); !ap_count && !tsc_passed(end);)
		cpu_pause();
	test_check("ap_counting", ap_count != 0, "count %u", ap_count);
	test_check("bad_target", yield_to(77) == 0, "apic 77");
	test_check("self_target", yield_to(0) == 0, "apic 0");
	for (int i = 0; i < 3; i++) {
		long r;

		c0 = ap_count;
		r = yield_to(1);
		fmt_snprintf(name, sizeof(name), "directed_yield_%d", i);
		moved += test_check(name, r == 0 && ap_count != c0, "ret %ld, vcpu1 count %u -> %u",
				    r, c0, ap_count);
	}
	test_check("yield_lets_target_run", moved == 3, "%u of 3", moved);
}
