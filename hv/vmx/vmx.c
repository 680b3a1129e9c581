/* VT-x enablement: detection, IA32_FEATURE_CONTROL, capability MSRs and
 * VMXON/VMXOFF on each CPU (SDM vol. 3 §24.6 "Discovering Support for VMX",
 * §24.7 "Enabling and Entering VMX Operation", App. A). */
#include "vmx/caps.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/percpu.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

struct vmx_caps vmx_caps;
static uint8_t vmxon_regions[MAX_CPUS][4096] __aligned(4096);

int vmx_detect(const char **why)
{
	struct cpuid_regs r;
	uint64_t fc;

	cpuid_count(0, 0, &r);
	if (r.ebx != 0x756e6547 /* "Genu" */) {
		*why = "not an Intel CPU (VT-x is Intel's; this CPU reports another vendor)";
		return -ENODEV;
	}
	if (!cpu_has(1, CPUID_ECX, 5)) {
		*why = "CPUID.1:ECX.VMX[bit 5] is 0 (the CPU or emulator offers no VT-x)";
		return -ENODEV;
	}
	fc = rdmsr(MSR_IA32_FEATURE_CONTROL);
	if (!(fc & FEATURE_CONTROL_LOCK)) {
		/* Unlocked: enable VMX outside SMX and lock (§24.7). */
		wrmsr(MSR_IA32_FEATURE_CONTROL,
		      fc | FEATURE_CONTROL_VMX | FEATURE_CONTROL_LOCK);
		fc = rdmsr(MSR_IA32_FEATURE_CONTROL);
	}
	if (!(fc & FEATURE_CONTROL_VMX)) {
		*why = "IA32_FEATURE_CONTROL is locked with VMX disabled (enable VT-x in the firmware setup)";
		return -ENODEV;
	}
	return 0;
}

static struct vmx_ctl ctl_read(uint32_t msr)
{
	uint64_t v = rdmsr(msr);
	return (struct vmx_ctl){ .must1 = (uint32_t)v, .may1 = (uint32_t)(v >> 32) };
}

void vmx_caps_read(void)
{
	struct vmx_caps *c = &vmx_caps;

	c->basic = rdmsr(MSR_IA32_VMX_BASIC);
	c->revision = (uint32_t)c->basic & 0x7fffffff;
	c->true_ctls = c->basic & BIT(55);
	c->pin = ctl_read(c->true_ctls ? MSR_IA32_VMX_TRUE_PINBASED_CTLS : MSR_IA32_VMX_PINBASED_CTLS);
	c->proc = ctl_read(c->true_ctls ? MSR_IA32_VMX_TRUE_PROCBASED_CTLS : MSR_IA32_VMX_PROCBASED_CTLS);
	c->exit = ctl_read(c->true_ctls ? MSR_IA32_VMX_TRUE_EXIT_CTLS : MSR_IA32_VMX_EXIT_CTLS);
	c->entry = ctl_read(c->true_ctls ? MSR_IA32_VMX_TRUE_ENTRY_CTLS : MSR_IA32_VMX_ENTRY_CTLS);
	if (c->proc.may1 & PROC_SECONDARY)
		c->proc2 = ctl_read(MSR_IA32_VMX_PROCBASED_CTLS2);
	if (c->proc2.may1 & (PROC2_EPT | PROC2_VPID))
		c->ept_vpid = rdmsr(MSR_IA32_VMX_EPT_VPID_CAP);
	c->misc = rdmsr(MSR_IA32_VMX_MISC);
	c->preempt_timer_shift = (unsigned)(c->misc & 0x1f);
	c->cr0_fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0);
	c->cr0_fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1);
	c->cr4_fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0);
	c->cr4_fixed1 = rdmsr(MSR_IA32_VMX_CR4_FIXED1);
}

static const char *yn(bool b)
{
	return b ? "yes" : "no";
}

void vmx_caps_print(void)
{
	const struct vmx_caps *c = &vmx_caps;
	const struct vmx_ctl *p2 = &c->proc2;

	pr_info("vmx: capabilities: revision %#x, %s controls, VMCS %lu bytes\n",
		c->revision, c->true_ctls ? "TRUE" : "legacy", (c->basic >> 32) & 0x1fff);
	pr_info("vmx:   EPT %s (4-level %s, WB %s, 2M %s, 1G %s, A/D %s)  VPID %s  unrestricted guest %s\n",
		yn(vmx_ctl_has(p2, PROC2_EPT)), yn(c->ept_vpid & EPTCAP_PWL4),
		yn(c->ept_vpid & EPTCAP_WB), yn(c->ept_vpid & EPTCAP_2M), yn(c->ept_vpid & EPTCAP_1G),
		yn(c->ept_vpid & EPTCAP_AD), yn(vmx_ctl_has(p2, PROC2_VPID)),
		yn(vmx_ctl_has(p2, PROC2_UNRESTRICTED)));
	pr_info("vmx:   PAUSE-loop exiting %s  APIC-register virt %s  virtual-interrupt delivery %s  posted interrupts %s\n",
		yn(vmx_ctl_has(p2, PROC2_PLE)), yn(vmx_ctl_has(p2, PROC2_APIC_REG_VIRT)),
		yn(vmx_ctl_has(p2, PROC2_VIRT_INTR_DELIV)), yn(vmx_ctl_has(&c->pin, PIN_POSTED_INTR)));
	pr_info("vmx:   TPR shadow %s  virtualize x2APIC %s  APIC-access %s  preemption timer %s (TSC>>%u)  MTF %s\n",
		yn(vmx_ctl_has(&c->proc, PROC_TPR_SHADOW)), yn(vmx_ctl_has(p2, PROC2_VIRT_X2APIC)),
		yn(vmx_ctl_has(p2, PROC2_VIRT_APIC_ACCESS)), yn(vmx_ctl_has(&c->pin, PIN_PREEMPT_TIMER)),
		c->preempt_timer_shift, yn(vmx_ctl_has(&c->proc, PROC_MTF)));
	pr_info("vmx:   TSC offsetting %s  TSC scaling %s  MSR bitmaps %s  I/O bitmaps %s  VMCS shadowing %s  INVEPT %s  INVVPID %s\n",
		yn(vmx_ctl_has(&c->proc, PROC_TSC_OFFSET)), yn(vmx_ctl_has(p2, PROC2_TSC_SCALING)),
		yn(vmx_ctl_has(&c->proc, PROC_MSR_BITMAPS)), yn(vmx_ctl_has(&c->proc, PROC_IO_BITMAPS)),
		yn(vmx_ctl_has(p2, PROC2_VMCS_SHADOW)), yn(c->ept_vpid & EPTCAP_INVEPT),
		yn(c->ept_vpid & VPIDCAP_INVVPID));
}

static uint64_t fix_bits(uint64_t v, uint64_t fixed0, uint64_t fixed1)
{
	/* Bits set in FIXED0 must be 1, bits clear in FIXED1 must be 0 (App. A.7, A.8). */
	return (v | fixed0) & fixed1;
}

int vmx_cpu_on(void)
{
	struct percpu *p = this_cpu();
	uint8_t *region = vmxon_regions[p->id];
	uint64_t pa = (uint64_t)region;
	uint8_t fail_invalid, fail_valid;

	memset(region, 0, 4096);
	*(uint32_t *)region = vmx_caps.revision;
	write_cr0(fix_bits(read_cr0(), vmx_caps.cr0_fixed0, vmx_caps.cr0_fixed1));
	write_cr4(fix_bits(read_cr4() | CR4_VMXE, vmx_caps.cr4_fixed0, vmx_caps.cr4_fixed1));
	__asm__ volatile("vmxon %2; setc %0; setz %1"
			 : "=q"(fail_invalid), "=q"(fail_valid) : "m"(pa) : "cc", "memory");
	if (fail_invalid || fail_valid) {
		pr_err("vmx: cpu%u VMXON failed (%s)\n", p->id,
		       fail_invalid ? "VMfailInvalid" : "VMfailValid");
		return -EIO;
	}
	p->vmxon_region = region;
	pr_info("vmx: cpu%u VMXON ok\n", p->id);
	return 0;
}

void vmx_cpu_off(void)
{
	if (!this_cpu()->vmxon_region)
		return;
	__asm__ volatile("vmxoff" ::: "cc", "memory");
	write_cr4(read_cr4() & ~CR4_VMXE);
	this_cpu()->vmxon_region = NULL;
}
