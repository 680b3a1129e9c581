/* MSRs: the allowlisted ones read and write back; unknown MSRs, reserved
 * bits and x2APIC MSRs in xAPIC mode raise #GP (SDM Vol. 4 and Vol. 3
 * 10.12.1.2); the APIC can be disabled and re-enabled via IA32_APIC_BASE. */
#include "guest.h"

const char test_name[] = "msr";

#define MSR_TSC            0x10
#define MSR_SYSENTER_CS    0x174
#define MSR_SYSENTER_ESP   0x175
#define MSR_SYSENTER_EIP   0x176
#define MSR_MISC_ENABLE    0x1a0
#define MSR_PAT            0x277
#define MSR_KERNEL_GS_BASE 0xc0000102
#define MSR_UNKNOWN        0x4e0badu    /* architecturally unassigned */
#define EFER_LMA           (1u << 10)

static void check_rw(const char *name, uint32_t msr, uint64_t val)
{
	uint64_t old = 0, got = 0;
	int f1 = rdmsr_safe(msr, &old), f2 = wrmsr_safe(msr, val), f3 = rdmsr_safe(msr, &got);

	wrmsr_safe(msr, old);
	test_check(name, !f1 && !f2 && !f3 && got == val, "msr 0x%x faults %d/%d/%d wrote 0x%llx read 0x%llx",
		   msr, f1, f2, f3, (unsigned long long)val, (unsigned long long)got);
}

static void check_reads(void)
{
	uint64_t base = 0, t = 0, misc = 0, efer = 0;
	uint64_t t0 = rdtsc();
	int f = rdmsr_safe(MSR_APIC_BASE, &base);

	test_check("apic_base", !f && (base & APIC_BASE_BSP) && (base & APIC_BASE_EN) &&
		   (base & ~0xfffULL) == LAPIC_MMIO, "0x%llx", (unsigned long long)base);
	f = rdmsr_safe(MSR_TSC, &t);
	test_check("tsc", !f && t >= t0 && t <= rdtsc(), "IA32_TSC 0x%llx rdtsc 0x%llx",
		   (unsigned long long)t, (unsigned long long)t0);
	f = rdmsr_safe(MSR_MISC_ENABLE, &misc);
	test_check("misc_enable", !f, "0x%llx fault %d", (unsigned long long)misc, f);
	f = rdmsr_safe(MSR_EFER, &efer);
	test_check("efer", !f && !!(efer & EFER_LMA) == (sizeof(void *) == 8),
		   "0x%llx", (unsigned long long)efer);
}

static void check_faults(void)
{
	uint64_t v, efer = rdmsr(MSR_EFER);
	int f;

	f = rdmsr_safe(MSR_UNKNOWN, &v);
	test_check("unknown_read_gp", f == FAULT(X86_GP), "rdmsr 0x%x -> fault %d", MSR_UNKNOWN, f);
	f = wrmsr_safe(MSR_UNKNOWN, 0x1234);
	test_check("unknown_write_gp", f == FAULT(X86_GP), "wrmsr 0x%x -> fault %d", MSR_UNKNOWN, f);
	f = wrmsr_safe(MSR_EFER, efer | (1ULL << 63));
	test_check("efer_reserved_gp", f == FAULT(X86_GP), "fault %d", f);
	f = rdmsr_safe(0x802, &v);             /* x2APIC ID while in xAPIC mode */
	test_check("x2apic_msr_in_xapic_gp", f == FAULT(X86_GP), "rdmsr 0x802 -> fault %d", f);
	f = wrmsr_safe(MSR_PAT, 0x0007010600070102ULL);   /* type 2 is reserved (SDM 13.12.2) */
	test_check("pat_reserved_gp", f == FAULT(X86_GP), "fault %d", f);
}

/* SDM Vol. 3 10.4.3: clearing the global enable disables the APIC; set it
 * again and the xAPIC registers answer (in their reset state). */
static void check_apic_toggle(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	uint32_t id = apic_id(), ver;
	int f1 = wrmsr_safe(MSR_APIC_BASE, base & ~(uint64_t)(APIC_BASE_EN | APIC_BASE_X2));
	int f2 = wrmsr_safe(MSR_APIC_BASE, base);

	ver = apic_read(APIC_VERSION);
	apic_init();
	test_check("apic_disable_enable", !f1 && !f2 && apic_id() == id && (ver & 0xff) >= 0x10 &&
		   (ver & 0xff) < 0x20, "faults %d/%d version 0x%x id %u", f1, f2, ver, apic_id());
}

void test_main(void)
{
	check_reads();
	check_rw("pat", MSR_PAT, 0x0007010600070106ULL);
	check_rw("sysenter_cs", MSR_SYSENTER_CS, 0x10);
	check_rw("sysenter_esp", MSR_SYSENTER_ESP, 0x12345000);
	check_rw("sysenter_eip", MSR_SYSENTER_EIP, 0x00abc000);
	if (cpuid(0x80000001, 0).d & (1u << 29))
		check_rw("kernel_gs_base", MSR_KERNEL_GS_BASE, 0xffff800012345000ULL);
	if (cpuid(0x80000001, 0).d & (1u << 27))   /* RDTSCP */
		check_rw("tsc_aux", 0xc0000103, 7);
	check_faults();
	check_apic_toggle();
}
