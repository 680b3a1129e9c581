/* KVM PV send-IPI (KVM_HC_SEND_IPI = 10, Linux Documentation/virt/kvm/x86/
 * hypercalls.rst, KVM's kvm_pv_send_ipi()): the result is the number of
 * vCPUs that accepted the IPI. APIC IDs naming no vCPU are skipped, not an
 * error; ICR 0 (fixed, vector 0: illegal) sends nothing and returns 0; a
 * target whose LAPIC is software-disabled does not count; only a logical
 * destination or a shorthand is -EINVAL. Run with kvm=on and 2 vCPUs. */
#include "guest.h"

const char test_name[] = "kvmipi";

#define KVM_HC_SEND_IPI 10
#define KVM_FEATURE_PV_SEND_IPI 11
#define KVM_EINVAL 22
#define VEC_PV 0x50
#define ICR_FIXED(v) ((unsigned long)(v))
#define ICR_NMI 0x400ul
#define ICR_LOGICAL 0x800ul

static volatile uint32_t nmis[2];

static bool nmi_hook(unsigned vector)
{
	if (vector != 2)
		return false;
	__atomic_fetch_add(&nmis[cpu_id() & 1], 1, __ATOMIC_RELAXED);
	return true;
}

static long send_ipi(unsigned long lo, unsigned long hi, unsigned long min, unsigned long icr)
{
	long ret = -1;

	if (vmcall_safe(KVM_HC_SEND_IPI, lo, hi, min, icr, &ret))
		return -9999;
	return ret;
}

static void svr_enable(bool on)
{
	uint32_t svr = apic_read(APIC_SVR);

	apic_write(APIC_SVR, on ? svr | 0x100 : svr & ~0x100u);
}

void test_main(void)
{
	struct cpuid_regs sig = cpuid(0x40000000, 0), feat = cpuid(0x40000001, 0);
	uint32_t c;
	long r;

	exc_hook = nmi_hook;
	test_check("kvm_signature", sig.b == 0x4b4d564b && sig.c == 0x564b4d56 && sig.d == 0x4d,
		   "0x40000000: %08x %08x %08x", sig.b, sig.c, sig.d);
	test_check("feature_bit", feat.a & (1u << KVM_FEATURE_PV_SEND_IPI), "eax %#x", feat.a);
	test_check("ap_started", smp_nr_cpus() >= 2 && smp_start_ap(1, 0x08, NULL) == 0,
		   "%u vCPUs", smp_nr_cpus());

	r = send_ipi(0x3, 0, 0, 0);
	test_check("icr0_sends_nothing", r == 0, "ret %ld, want 0", r);

	c = irq_counts[VEC_PV];
	/* IDs 0, 1 exist; 5 and 64 + 3 do not and are skipped. */
	r = send_ipi(0x3 | 1ul << 5, 1ul << 3, 0, ICR_FIXED(VEC_PV));
	test_check("fixed_count", r == 2, "ret %ld, want 2", r);
	test_check("fixed_delivered", wait_count(&irq_counts[VEC_PV], c + 2, 500),
		   "%u of 2 interrupts", irq_counts[VEC_PV] - c);

	r = send_ipi(0x1, 0, 1, ICR_NMI);   /* min 1: bit 0 is APIC ID 1 */
	test_check("nmi_count", r == 1, "ret %ld, want 1", r);
	test_check("nmi_delivered", wait_count(&nmis[1], 1, 500), "vCPU 1 NMIs %u", nmis[1]);

	/* The high bitmap starts one word (32 or 64 bits) after min, min is 32
	 * bits and that start wraps there (KVM): min = -31 puts APIC ID 1 at
	 * high bit 0 for a 32-bit caller, ID 33 (none) for a 64-bit one. */
	c = irq_counts[VEC_PV];
	r = send_ipi(0, 1, (unsigned long)-31, ICR_FIXED(VEC_PV));
	test_check("word_size_cluster", r == (sizeof(long) == 4 ? 1 : 0), "ret %ld, want %d", r,
		   sizeof(long) == 4 ? 1 : 0);
	if (sizeof(long) == 4)
		wait_count(&irq_counts[VEC_PV], c + 1, 500);

	r = send_ipi(1ul << 7, 0, 0, ICR_FIXED(VEC_PV));
	test_check("invalid_only", r == 0, "ret %ld, want 0", r);

	c = irq_counts[VEC_PV];
	__asm__ volatile("cli");
	svr_enable(false);   /* our LAPIC refuses fixed interrupts (SDM 11.4.7.2) */
	r = send_ipi(0x3, 0, 0, ICR_FIXED(VEC_PV));
	svr_enable(true);
	__asm__ volatile("sti");
	test_check("disabled_target_not_counted", r == 1, "ret %ld, want 1 (vCPU 1 only)", r);
	test_check("enabled_target_delivered", wait_count(&irq_counts[VEC_PV], c + 1, 500),
		   "%u interrupts", irq_counts[VEC_PV] - c);

	r = send_ipi(0x3, 0, 0, ICR_FIXED(VEC_PV) | ICR_LOGICAL);
	test_check("logical_einval", r == -KVM_EINVAL, "ret %ld, want -%d", r, KVM_EINVAL);
}
