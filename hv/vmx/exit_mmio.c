/* EPT violations and APIC-access exits: MMIO to device models, decoded from
 * the guest's instruction (SDM vol. 3 §28.2.1 Table 28-7, §30.4.4).
 * Guest-physical space policy (docs/vmx.md): RAM is mapped; below 4 GiB the
 * LAPIC/IOAPIC pages reach their models and every other address reads all
 * ones and drops writes, as on a PC; an access at or above 4 GiB stops the VM. */
#include "vmx/exit.h"
#include "vmx/vmcs.h"
#include "vmx/decode.h"
#include "vm/vm.h"
#include "vm/gmem.h"
#include "load/loader.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "errno.h"
#include "log.h"

#define AR_L  BIT(13)
#define AR_DB BIT(14)

uint64_t *vcpu_gpr(struct vcpu *v, unsigned idx);

uint64_t *vcpu_gpr(struct vcpu *v, unsigned idx)
{
	static uint64_t rsp_scratch;   /* RSP is never an MMIO operand in practice */
	uint64_t *r[16] = {
		&v->regs.rax, &v->regs.rcx, &v->regs.rdx, &v->regs.rbx, &rsp_scratch,
		&v->regs.rbp, &v->regs.rsi, &v->regs.rdi, &v->regs.r8, &v->regs.r9,
		&v->regs.r10, &v->regs.r11, &v->regs.r12, &v->regs.r13, &v->regs.r14,
		&v->regs.r15,
	};
	return r[idx & 15];
}

static enum decode_mode cpu_mode(void)
{
	uint32_t ar = vmcs_read32(VMCS_GUEST_CS_AR);

	if (!(vmcs_readnat(VMCS_GUEST_CR0) & 1))
		return DECODE_MODE_16;
	if (ar & AR_L)
		return DECODE_MODE_64;
	return (ar & AR_DB) ? DECODE_MODE_32 : DECODE_MODE_16;
}

/* The page holding the instruction is gone by the time we fetch it (a
 * sibling vCPU unmapped it after the CPU executed from it): deliver the #PF
 * the fetch takes now, as if the unmapping had come first (SDM vol. 3 §4.7:
 * not present, I/D set when execute-disable or SMEP applies, U/S from CPL).
 * The instruction is not retired: RIP stays. */
static enum exit_action mmio_fetch_fault(struct vcpu *v, uint64_t la)
{
	uint64_t efer = vmcs_read64(VMCS_GUEST_EFER), cr4 = vmcs_readnat(VMCS_GUEST_CR4);
	unsigned cpl = (vmcs_read32(VMCS_GUEST_SS_AR) >> 5) & 3;
	uint32_t err = cpl == 3 ? 4u : 0;

	if (((efer & EFER_NXE) && (cr4 & CR4_PAE)) || (cr4 & CR4_SMEP))
		err |= 0x10;
	write_cr2(la);   /* the guest's CR2 is live while its vCPU runs (fpu.c) */
	vcpu_queue_exception(v, 14, true, err);
	return EXIT_RESUME;
}

static enum exit_action mmio_emulate(struct vcpu *v, struct exit_info *x, uint64_t gpa)
{
	uint8_t buf[DECODE_MAX_LEN];
	uint64_t rip = vmcs_readnat(VMCS_GUEST_CS_BASE) + vmcs_readnat(VMCS_GUEST_RIP);
	struct mmio_insn in;
	uint64_t val = 0, *reg, rsp = 0;
	bool exit_write = x->reason == EXIT_REASON_EPT_VIOLATION ? x->qual & BIT(1)
								 : ((x->qual >> 12) & 0xf) == 1;
	int r;

	int n;

	/* The access was the CPU's delivery of an event (IDT-vectoring
	 * information valid, SDM vol. 3 §28.2.4): a gate, descriptor or stack
	 * in an MMIO hole. The instruction at RIP did not make it; decoding it
	 * would emulate the wrong access and lose the event. Hardware would
	 * read garbage and end in a triple fault: stop the VM. */
	if (vmcs_read32(VMCS_IDT_VECT_INFO) & BIT(31))
		return exit_fail(v, x, "MMIO access while delivering an event");
	n = guest_fetch_insn(v, rip, buf, sizeof(buf));

	if (n == -ENOENT)
		return mmio_fetch_fault(v, rip);
	if (n <= 0)
		return exit_fail(v, x, "cannot fetch the MMIO instruction");
	r = decode_mmio(buf, (size_t)n, cpu_mode(), &in);
	if (r)
		return exit_fail(v, x, "MMIO by an instruction the decoder does not know");
	/* The bytes are read after the CPU executed them: a sibling vCPU may
	 * have rewritten them since. The address is the exit's, never the
	 * decoder's; an instruction whose direction is not the exit's is not the
	 * one that exited, so it is not emulated: the guest re-executes what is
	 * there now (SDM vol. 3 28.2.1 Table 28-7, bit 1 = data write). */
	if (in.write != exit_write)
		return EXIT_RESUME;
	/* RSP lives in the VMCS, not in v->regs. */
	reg = in.reg == 4 ? (rsp = vmcs_readnat(VMCS_GUEST_RSP), &rsp) : vcpu_gpr(v, in.reg);
	if (in.write)
		val = in.has_imm ? in.imm : decode_store_value(&in, *reg)   /* handles AH..BH itself */;
	spin_lock(&v->vm->lock);
	r = vm_devs_mmio(v->vm, v->id, gpa, in.size, in.write, &val);
	spin_unlock(&v->vm->lock);
	if (r) {
		pr_err("%s: vcpu%u: access to guest-physical %#lx, outside RAM and devices\n",
		       v->vm->p.name, v->id, gpa);
		vm_stop(v->vm, 124, "bad-guest-physical-access");
		return EXIT_STOPPED;
	}
	if (!in.write) {
		*reg = decode_load_merge(&in, *reg, val);
		if (in.reg == 4)
			vmcs_writenat(VMCS_GUEST_RSP, rsp);
	}
	x->insn_len = in.len;
	exit_skip_insn(x);
	return v->vm->state == VM_RUNNING ? EXIT_RESUME : EXIT_STOPPED;
}

enum exit_action exit_ept_violation(struct vcpu *v, struct exit_info *x)
{
	uint64_t gpa = vmcs_read64(VMCS_GUEST_PHYS_ADDR);

	if (gpa < v->vm->ram_size)
		return exit_fail(v, x, "EPT violation inside guest RAM");
	return mmio_emulate(v, x, gpa);
}

enum exit_action exit_apic_access(struct vcpu *v, struct exit_info *x)
{
	/* Linear accesses only (type 0/1); the offset is in bits 11:0. */
	if (((x->qual >> 12) & 0xf) > 1)
		return exit_fail(v, x, "unsupported APIC-access type");
	return mmio_emulate(v, x, GUEST_LAPIC_BASE + (x->qual & 0xfff));
}
