/* CPUID, MSR and control-register exits. */
#include "vmx/exit.h"
#include "vmx/entry.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_setup.h"
#include "vmx/cr_check.h"
#include "vmx/pat.h"
#include "vmx/caps.h"
#include "vmx/vcpu.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "vmx/kvm_pv.h"
#include "log.h"
#include "arch/x86/exc.h"

static void exit_cpuid_set(struct vmx_vcpu *v, const struct cpuid_regs *r)
{
	v->regs.rax = r->eax;
	v->regs.rbx = r->ebx;
	v->regs.rcx = r->ecx;
	v->regs.rdx = r->edx;
}

/* Not a cached basic leaf: another cached leaf, or the host's answer (CPUID
 * is not privileged; the guest's XCR0 is loaded, so leaf 0xD sizes are the
 * guest's) through the VM's filter, kept if the leaf is cacheable. */
static __attribute__((noinline)) enum exit_action exit_cpuid_miss(struct vmx_vcpu *v,
								  struct exit_info *x)
{
	uint32_t leaf = (uint32_t)v->regs.rax, sub = (uint32_t)v->regs.rcx;
	const struct cpuid_regs *c = cpuid_cache_find(&v->vm->cpuid_cache, leaf);
	uint64_t cr4 = vmcs_guest_cr4();   /* OSXSAVE and PKE are guest-owned */
	struct cpuid_vcpu cv = {
		.index = v->id,
		.cr4_osxsave = cr4 & CR4_OSXSAVE,
		.cr4_pke = cr4 & BIT(22),
		.apic_enabled = vlapic_hw_enabled(&v->lapic),
		.xcr0 = v->fpu.xcr0,
	};
	struct cpuid_regs r;

	if (c) {
		r = *c;
	} else {
		cpuid_count(leaf, sub, &r);
		cpuid_filter_apply(&v->vm->cpuid, &cv, leaf, sub, &r);
		cpuid_cache_put(&v->vm->cpuid_cache, leaf, &r);
	}
	exit_cpuid_set(v, &r);
	exit_skip_insn(x);
	return EXIT_RESUME;
}

/* Hot path: a cached basic leaf needs no host CPUID and no filtering. */
enum exit_action exit_cpuid(struct vmx_vcpu *v, struct exit_info *x)
{
	const struct cpuid_regs *c = cpuid_cache_find_basic(&v->vm->cpuid_cache,
							     (uint32_t)v->regs.rax);

	if (unlikely(!c))
		return exit_cpuid_miss(v, x);
	exit_cpuid_set(v, c);
	exit_skip_insn(x);
	return EXIT_RESUME;
}

/* IA-32e activation (SDM §10.8.5): LMA = LME && PG. cr0 is the guest's real
 * CR0 (vmcs_guest_cr0(): PG is guest-owned, the read shadow's PG is stale).
 * The "IA-32e mode guest" entry control follows LMA (SDM §26.3.1.1). */
static void update_long_mode(uint64_t cr0, uint64_t efer)
{
	uint32_t entry = vmcs_read32(VMCS_ENTRY_CTLS);

	if ((cr0 & CR0_PG) && (efer & EFER_LME)) {
		efer |= EFER_LMA;
		entry |= ENTRY_IA32E_GUEST;
	} else {
		efer &= ~EFER_LMA;
		entry &= ~ENTRY_IA32E_GUEST;
	}
	vmcs_write64(VMCS_GUEST_EFER, efer);
	vmcs_write32(VMCS_ENTRY_CTLS, entry);
}

static int efer_write(uint64_t val)
{
	uint64_t cr0 = vmcs_guest_cr0();
	bool ok;

	val = efer_write_value(vmcs_read64(VMCS_GUEST_EFER), val, cr0 & CR0_PG,
			       EFER_SCE | EFER_LME | EFER_NXE, &ok);
	if (!ok)
		return -1;
	update_long_mode(cr0, val);
	return 0;
}

static int msr_emulate(struct vmx_vcpu *v, const struct msr_decision *d, uint32_t msr, bool write,
		       uint64_t *val)
{
	int r;

	switch (d->handler) {
	case MSR_H_CONST:
		if (!write)
			*val = d->value;
		return 0;
	case MSR_H_APIC_BASE:
	case MSR_H_X2APIC:
	case MSR_H_TSC_DEADLINE: {
		/* The vLAPIC (hv/dev) under the VM's device lock (vmx/vcpu.h).
		 * Both pointers are read once, before the lock: the lock's
		 * memory clobber would otherwise reload them through v->vm
		 * (two loads each where the embedded objects cost none). */
		spinlock_t *lock = v->vm->lock;
		struct vintc *intc = v->vm->intc;
		unsigned id = v->id;

		spin_lock(lock);
		r = write ? vintc_msr_write(intc, id, msr, *val) : vintc_msr_read(intc, id, msr, val);
		spin_unlock(lock);
		return r;
	}
	case MSR_H_EFER:
		if (!write) {
			*val = vmcs_read64(VMCS_GUEST_EFER);
			return 0;
		}
		return efer_write(*val);
	case MSR_H_PAT:
		if (write && !pat_write_ok(*val))
			return -1;   /* #GP: a reserved memory type (SDM §11.12.2) */
		if (write)
			vmcs_write64(VMCS_GUEST_PAT, *val);
		else
			*val = vmcs_read64(VMCS_GUEST_PAT);
		return 0;
	case MSR_H_TSC:
		if (!write)
			*val = rdtsc() + vmcs_read64(VMCS_TSC_OFFSET);
		else
			vmcs_write64(VMCS_TSC_OFFSET, *val - rdtsc());
		return 0;
	case MSR_H_KVM:
		return vmx_vm_ops.kvm_msr(v, msr, write, val);
	case MSR_H_MISC_ENABLE:
		if (!write)
			*val = v->misc_enable;
		return write && !msr_misc_enable_write(&v->misc_enable, *val) ? -1 : 0;
	default:
		return -1;
	}
}

static enum exit_action exit_msr(struct vmx_vcpu *v, struct exit_info *x, bool write)
{
	uint32_t msr = (uint32_t)v->regs.rcx;
	uint64_t val = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;
	struct msr_decision d;

	if (msr_filter_lookup(&v->vm->msrs, msr, write, &d) != MSR_ACT_EMUL ||
	    msr_emulate(v, &d, msr, write, &val)) {
		/* Say which MSR the guest was refused (the first few per VM). */
		if (v->vm->msr_gp_logged < 16) {
			v->vm->msr_gp_logged++;
			pr_info("%s: vcpu%u: #GP for %s of MSR %#x (value %#lx)\n", v->vm->name,
				v->id, write ? "WRMSR" : "RDMSR", msr, write ? val : 0);
		}
		vcpu_queue_exception(v, X86_EXC_GP, true, 0);   /* #GP(0) */
		return EXIT_RESUME;
	}
	if (!write) {
		v->regs.rax = (uint32_t)val;
		v->regs.rdx = val >> 32;
	}
	exit_skip_insn(x);
	return EXIT_RESUME;
}

enum exit_action exit_rdmsr(struct vmx_vcpu *v, struct exit_info *x)
{
	return exit_msr(v, x, false);
}

enum exit_action exit_wrmsr(struct vmx_vcpu *v, struct exit_info *x)
{
	return exit_msr(v, x, true);
}

/* MOV to CR0/CR4, CLTS and LMSW for the bits we own (SDM §28.2.1 Table 28-3). */
enum exit_action exit_cr_access(struct vmx_vcpu *v, struct exit_info *x)
{
	unsigned cr = x->qual & 15, type = (x->qual >> 4) & 3, gpr = (x->qual >> 8) & 15;
	uint64_t val = gpr == 4 ? vmcs_readnat(VMCS_GUEST_RSP) : *guest_gpr(&v->regs, gpr);
	uint64_t cr0 = vmcs_guest_cr0();   /* TS, PE, PG: guest-owned */

	if (type == 2) {                /* CLTS */
		val = cr0 & ~CR0_TS;
		cr = 0;
	} else if (type == 3) {         /* LMSW: bits 3:0, PE cannot be cleared */
		val = (cr0 & ~0xeull) | ((x->qual >> 16) & 0xf) | (cr0 & CR0_PE);
		cr = 0;
	} else if (type != 0) {
		return exit_fail(v, x, "unexpected MOV from CR");
	}
	if (cr == 0) {
		uint64_t efer = vmcs_read64(VMCS_GUEST_EFER);

		if (!cr0_write_ok(val, efer & EFER_LMA) ||
		    !cr0_pg_enable_ok(cr0, val, efer & EFER_LME, vmcs_guest_cr4() & CR4_PAE)) {
			vcpu_queue_exception(v, X86_EXC_GP, true, 0);
			return EXIT_RESUME;
		}
		vmcs_guest_set_cr0(val);
		if ((val ^ cr0) & CR0_PG)
			update_long_mode(val, vmcs_read64(VMCS_GUEST_EFER));
	} else if (cr == 4) {
		if (!cr4_write_ok(val, vmcs_read64(VMCS_GUEST_EFER) & EFER_LMA)) {
			vcpu_queue_exception(v, X86_EXC_GP, true, 0);
			return EXIT_RESUME;
		}
		vmcs_guest_set_cr4(val);
	} else {
		return exit_fail(v, x, "MOV to an unexpected control register");
	}
	exit_skip_insn(x);
	return EXIT_RESUME;
}
