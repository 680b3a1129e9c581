/* VMCS contents (SDM vol. 3 ch. 25 "VMCS Organization", §26.2-26.3 entry checks).
 * Every control is (wanted | must-be-one) & may-be-one; fields of features the
 * CPU lacks are never written (Bochs fails such a VMWRITE with error 12). */
#include "vmx/vmcs_setup.h"
#include "vmx/vmcs.h"
#include "vmx/caps.h"
#include "vmx/apicv.h"
#include "cmdline.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "memory.h"
#include "errno.h"
#include "log.h"
#include "arch/x86/exc.h"

bool vmx_vnmi = true;
CMDLINE_BOOL(vnmi, vmx_vnmi, "virtual NMIs and NMI-window exiting where the CPU has them "
	     "(NMI blocked until IRET, one latched); off: blocking cleared at injection");

static bool opt_vpid = true;
CMDLINE_BOOL(vpid, opt_vpid, "tag guest TLB entries with a VPID where the CPU has it (SDM §28.1); "
	     "off: every VM entry and exit flushes the guest's linear mappings");

static uint16_t next_vpid = 1;

static int setup_controls(struct vmx_vcpu *v, const struct vmcs_config *cfg,
			  uint32_t *ple_window_set)
{
	const struct vmx_caps *c = &vmx_caps;
	uint32_t pin, proc, proc2 = 0, exit, entry;
	bool ple = cfg->ple;

	pin = vmx_ctl_adjust(&c->pin, PIN_EXTINT_EXIT | PIN_NMI_EXIT | PIN_PREEMPT_TIMER);
	/* Virtual NMIs (SDM §25.3) with NMI-window exiting (§26.7.6, allowed
	 * only with them, §26.2.1.1): the guest's NMI blocking is tracked by
	 * the CPU up to its IRET (vm/vcpu.c inject_nmi). */
	if (vmx_vnmi && vmx_ctl_has(&c->pin, PIN_VIRTUAL_NMI) &&
	    vmx_ctl_has(&c->proc, PROC_NMI_WINDOW))
		pin = vmx_ctl_adjust(&c->pin, pin | PIN_VIRTUAL_NMI);
	proc = vmx_ctl_adjust(&c->proc, PROC_HLT_EXIT | PROC_IO_BITMAPS | PROC_MSR_BITMAPS |
			      PROC_MWAIT_EXIT | PROC_MONITOR_EXIT |
			      (ple ? PROC_PAUSE_EXIT : 0) | PROC_SECONDARY);
	/* PAUSE exiting only as a fallback when PAUSE-loop exiting is absent. */
	if (vmx_ctl_has(&c->proc2, PROC2_PLE))
		proc &= ~PROC_PAUSE_EXIT | c->proc.must1;
	if (proc & PROC_SECONDARY)
		proc2 = vmx_ctl_adjust(&c->proc2, PROC2_EPT | (opt_vpid ? PROC2_VPID : 0) |
				       PROC2_UNRESTRICTED |
				       (ple ? PROC2_PLE : 0) | PROC2_RDTSCP);
	exit = vmx_ctl_adjust(&c->exit, EXIT_HOST_ADDR64 | EXIT_SAVE_EFER | EXIT_LOAD_EFER |
			      EXIT_SAVE_PAT | EXIT_LOAD_PAT);
	entry = vmx_ctl_adjust(&c->entry, ENTRY_LOAD_EFER | ENTRY_LOAD_PAT);
	/* TPR shadow, APIC-access/x2APIC virtualization, VID (SDM ch. 30). */
	if (apicv_vmcs_setup(v, &proc, &proc2))
		return -ENOMEM;
	/* Without the TPR shadow a 64-bit guest's MOV to/from CR8 would reach
	 * the host's own TPR (SDM §25.6.2, §26.1.3): make it exit instead. */
	if (!(proc & PROC_TPR_SHADOW))
		proc = vmx_ctl_adjust(&c->proc, proc | PROC_CR8_LOAD_EXIT | PROC_CR8_STORE_EXIT);

	vmcs_write32(VMCS_PIN_CTLS, pin);
	vmcs_write32(VMCS_PROC_CTLS, proc);
	if (proc & PROC_SECONDARY)
		vmcs_write32(VMCS_PROC_CTLS2, proc2);
	vmcs_write32(VMCS_EXIT_CTLS, exit);
	vmcs_write32(VMCS_ENTRY_CTLS, entry);
	vmcs_write32(VMCS_EXCEPTION_BITMAP, BIT(X86_EXC_MC));
	vmcs_write64(VMCS_IO_BITMAP_A, (uint64_t)cfg->io_bitmap);
	vmcs_write64(VMCS_IO_BITMAP_B, (uint64_t)cfg->io_bitmap + PAGE_SIZE);
	vmcs_write64(VMCS_MSR_BITMAP, (uint64_t)cfg->msr_bitmap);
	vmcs_write64(VMCS_LINK_POINTER, ~0ull);
	vmcs_write64(VMCS_TSC_OFFSET, 0);
	if (proc2 & PROC2_EPT)
		vmcs_write64(VMCS_EPT_POINTER, ept_pointer(cfg->ept));
	if (proc2 & PROC2_VPID)
		vmcs_write16(VMCS_VPID, __atomic_fetch_add(&next_vpid, 1, __ATOMIC_RELAXED));
	if (proc2 & PROC2_PLE) {
		/* KVM's and Xen's defaults: a gap of 128 cycles between PAUSEs
		 * belongs to one loop; 4096 cycles of spinning cause an exit. */
		vmcs_write32(VMCS_PLE_GAP, 128);
		*ple_window_set = cfg->ple_window ? cfg->ple_window : 4096;
		vmcs_write32(VMCS_PLE_WINDOW, *ple_window_set);
	}
	/* The guest owns CR0/CR4 except the bits VMX operation pins (App. A.7-A.8). */
	vmcs_writenat(VMCS_CR0_MASK, VMCS_CR0_HOST_OWNED);
	vmcs_writenat(VMCS_CR4_MASK, VMCS_CR4_HOST_OWNED);
	return 0;
}

/* Drop cached guest-physical translations of the VM's EPT on this pCPU
 * (INVEPT, SDM §31.3): a pCPU may have cached the EPT root's previous user. */
void vmx_flush_ept(const struct ept *e)
{
	struct { uint64_t eptp, rsvd; } __packed desc = { ept_pointer(e), 0 };
	uint64_t type;

	if (!(vmcs_read32(VMCS_PROC_CTLS2) & PROC2_EPT) || !(vmx_caps.ept_vpid & EPTCAP_INVEPT))
		return;
	/* Single-context (type 1) if offered, else global (type 2). */
	type = (vmx_caps.ept_vpid & EPTCAP_INVEPT_SINGLE) ? 1 : 2;
	__asm__ volatile("invept %0, %1" : : "m"(desc), "r"(type) : "cc", "memory");
}

void vmx_flush_vpid(void)
{
	struct { uint64_t vpid, addr; } __packed desc = { 0, 0 };
	uint64_t type;

	if (!(vmcs_read32(VMCS_PROC_CTLS2) & PROC2_VPID) || !(vmx_caps.ept_vpid & VPIDCAP_INVVPID))
		return;
	desc.vpid = vmcs_read16(VMCS_VPID);
	/* Single-context (type 1) if offered, else all contexts (type 2). */
	type = (vmx_caps.ept_vpid & VPIDCAP_INVVPID_SINGLE) ? 1 : 2;
	__asm__ volatile("invvpid %0, %1" : : "m"(desc), "r"(type) : "cc", "memory");
}

int vmcs_setup(struct vmx_vcpu *v, const struct vmcs_config *cfg, paddr_t *vmcs,
	       uint32_t *ple_window_set)
{
	uint32_t *region = page_alloc_zeroed(1);
	int err;

	if (!region)
		return -ENOMEM;
	region[0] = vmx_caps.revision;
	*vmcs = (paddr_t)region;
	*ple_window_set = 0;
	if ((err = vmcs_clear(*vmcs)) || (err = vmcs_load(*vmcs))) {
		pr_err("vmx: VMCLEAR/VMPTRLD failed (%d)\n", err);
		return -EIO;
	}
	if ((err = setup_controls(v, cfg, ple_window_set)))
		return err;
	vmcs_host_refresh();
	return 0;
}

void vmcs_setup_pmu(bool ctls, uint64_t global_ctrl, const void *entry_load,
		    const void *exit_load)
{
	/* The counters are the host's: RDPMC would show a guest other VMs' counts. */
	if (vmx_ctl_has(&vmx_caps.proc, PROC_RDPMC_EXIT))
		vmcs_write32(VMCS_PROC_CTLS, vmcs_read32(VMCS_PROC_CTLS) | PROC_RDPMC_EXIT);
	if (ctls) {
		vmcs_write32(VMCS_ENTRY_CTLS, vmcs_read32(VMCS_ENTRY_CTLS) | ENTRY_LOAD_PERF_GLOBAL);
		vmcs_write32(VMCS_EXIT_CTLS, vmcs_read32(VMCS_EXIT_CTLS) | EXIT_LOAD_PERF_GLOBAL);
		vmcs_write64(VMCS_GUEST_PERF_GLOBAL_CTRL, global_ctrl);
		vmcs_write64(VMCS_HOST_PERF_GLOBAL_CTRL, 0);
		return;
	}
	vmcs_write64(VMCS_ENTRY_MSR_LOAD, (uint64_t)(uintptr_t)entry_load);
	vmcs_write32(VMCS_ENTRY_MSR_LOAD_COUNT, 1);
	vmcs_write64(VMCS_EXIT_MSR_LOAD, (uint64_t)(uintptr_t)exit_load);
	vmcs_write32(VMCS_EXIT_MSR_LOAD_COUNT, 1);
}
