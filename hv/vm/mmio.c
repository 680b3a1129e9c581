/* EPT violations and APIC-access exits: MMIO to device models, decoded from
 * the guest's instruction (SDM vol. 3 §28.2.1 Table 28-7, §30.4.4). Routed
 * in hv/vm (issue 11; vm/exit_route.c registers the two handlers): the
 * accesses reach the devices under the VM lock and string elements move
 * through guest memory; hv/vmx gives the decoder (vmx/decode.c), the
 * segment checks and the VMCS state (vmx/vcpu_state.h).
 * Guest-physical space policy (docs/vmx.md): RAM is mapped; below 4 GiB the
 * LAPIC/IOAPIC pages reach their models and every other address reads all
 * ones and drops writes, as on a PC; an access at or above 4 GiB stops the VM. */
#include "vm/exit_route.h"
#include "vmx/vcpu_state.h"
#include "vmx/decode.h"
#include "vmx/seg_check.h"
#include "vm/vm.h"
#include "vm/gmem.h"
#include "load/loader.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "errno.h"
#include "log.h"
#include "errno.h"
#include "lib/fmt.h"
#include "vm_status.h"
#include "arch/x86/exc.h"

#define AR_L  BIT(13)
#define AR_DB BIT(14)

static uint64_t vcpu_gpr_read(struct vcpu *v, unsigned idx)
{
	return (idx & 15) == 4 ? vmx_guest_rsp() : *guest_gpr(&v->vmx.regs, idx);
}

static void vcpu_gpr_write(struct vcpu *v, unsigned idx, uint64_t val)
{
	if ((idx & 15) == 4)
		vmx_guest_rsp_set(val);
	else
		*guest_gpr(&v->vmx.regs, idx) = val;
}

static enum decode_mode cpu_mode(void)
{
	uint32_t ar = vmx_guest_cs_ar();

	if (!(vmx_guest_cr0() & 1))
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
	uint64_t efer = vmx_guest_efer(), cr4 = vmx_guest_cr4();
	unsigned cpl = vmx_guest_cpl();
	uint32_t err = cpl == 3 ? X86_PF_USER : 0;

	if (((efer & EFER_NXE) && (cr4 & CR4_PAE)) || (cr4 & CR4_SMEP))
		err |= X86_PF_FETCH;
	write_cr2(la);   /* the guest's CR2 is live while its vCPU runs (fpu.c) */
	vcpu_queue_exception(&v->vmx, X86_EXC_PF, true, err);
	return EXIT_RESUME;
}

static uint64_t size_mask(unsigned size)
{
	return size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

/* The register operand at the instruction's size (AH..BH shifted down). */
static uint64_t reg_operand(struct vcpu *v, const struct mmio_insn *in)
{
	return decode_store_value(in, vcpu_gpr_read(v, in->reg));
}

/* Write a result to the register operand with the x86 merge rules. */
static void reg_result(struct vcpu *v, const struct mmio_insn *in, uint64_t val)
{
	vcpu_gpr_write(v, in->reg, decode_load_merge(in, vcpu_gpr_read(v, in->reg), val));
}

static int dev_rw(struct vcpu *v, uint64_t gpa, unsigned size, bool write, uint64_t *val)
{
	return vm_devs_mmio(v->vm, v->vmx.id, gpa, size, write, val);
}

/* One non-string instruction on device memory at gpa. The VM lock is held
 * across the read and the write, so a read-modify-write is atomic towards
 * the other vCPUs' MMIO, as LOCK (and XCHG) promise. Arithmetic flags go to
 * the guest's RFLAGS (decode_alu: SDM vol. 2 per instruction). */
static int mmio_exec(struct vcpu *v, const struct mmio_insn *in, uint64_t gpa)
{
	uint64_t mem = 0, val, fl;
	int r;

	if (in->kind == MMIO_MOV) {
		val = in->write ? (in->has_imm ? in->imm : reg_operand(v, in)) : 0;
		if ((r = dev_rw(v, gpa, in->size, in->write, &val)))
			return r;
		if (!in->write)
			reg_result(v, in, val);
		return 0;
	}
	if ((r = dev_rw(v, gpa, in->size, false, &mem)))
		return r;
	fl = vmx_guest_rflags();
	switch (in->kind) {
	case MMIO_ALU:
		val = in->has_imm ? in->imm : reg_operand(v, in);
		if (in->reg_dst) {       /* op reg, r/m: reg is the destination */
			val = decode_alu(in->op, in->size, val, mem, &fl);
			if (decode_alu_writes(in->op))
				reg_result(v, in, val);
		} else {
			val = decode_alu(in->op, in->size, mem, val, &fl);
		}
		break;
	case MMIO_XCHG:
		val = reg_operand(v, in);
		reg_result(v, in, mem);
		break;
	case MMIO_CMPXCHG: {
		/* SDM vol. 2 CMPXCHG: flags of CMP rAX, mem; the destination is
		 * written either way (the old value when unequal, as on the
		 * CPU's locked cycle and in KVM's emulator). */
		struct mmio_insn acc = *in;

		acc.reg = 0;
		acc.high8 = false;
		decode_alu(ALU_CMP, in->size, vcpu_gpr_read(v, 0), mem, &fl);
		if (fl & RFLAGS_ZF) {
			val = reg_operand(v, in);
		} else {
			val = mem;
			reg_result(v, &acc, mem);
		}
		break;
	}
	case MMIO_XADD:
		val = decode_alu(ALU_ADD, in->size, mem, reg_operand(v, in), &fl);
		reg_result(v, in, mem);
		break;
	case MMIO_BT:
		/* With a register bit offset the CPU already chose the operand
		 * holding the bit (EA + offset / width): gpa is that operand. */
		val = decode_bt(in->op, in->size, mem, in->has_imm ? in->imm : reg_operand(v, in), &fl);
		break;
	default:
		return -EINVAL;
	}
	vmx_guest_rflags_set(fl);
	if (in->write)
		r = dev_rw(v, gpa, in->size, true, &val);
	return r;
}

/* ------------------------------------------------------------ strings */

/* Elements one exit emulates; a REP with more re-executes the instruction
 * with the counts updated (interruptible, like the CPU's own REP, SDM vol. 2
 * "REP"), so one exit's work stays bounded. */
#define MMIO_STRING_BATCH 64

/* One element at a linear address: RAM through the guest's page tables,
 * anything else to the device models. */
static int elem_rw(struct vcpu *v, uint64_t la, unsigned size, bool write, uint64_t *val)
{
	uint64_t gpa;

	if (guest_linear_to_gpa(v, la, write, &gpa))
		return -EFAULT;
	if (gpa < v->vm->ram_size)
		return write ? guest_write_linear(v, la, val, size) : guest_read_linear(v, la, val, size);
	return dev_rw(v, gpa, size, write, val);
}

/* rSI/rDI/rCX at the address size: 16-bit keeps the upper bits, 32-bit
 * zero-extends (SDM vol. 1 §3.4.1.1). */
static uint64_t addr_merge(uint64_t old, uint64_t val, unsigned asize)
{
	if (asize == 2)
		return (old & ~0xffffULL) | (val & 0xffff);
	return val & size_mask(asize);
}

/* MOVS/STOS/LODS with or without REP, either direction (RFLAGS.DF). Each
 * element's operands are checked against their segments before either is
 * accessed (SDM vol. 3 §5.3; 64-bit mode: no checks, vol. 1 §3.4.2.1): a
 * fault is queued (#GP(0), #SS(0) for SS) with rSI/rDI/rCX counting the
 * elements done, and RIP stays, as for the CPU's own REP. Returns the
 * elements left (the instruction is re-executed for them, or faults), or
 * -EFAULT for an unmapped linear address, -ENOENT outside RAM and devices. */
static int64_t mmio_string(struct vcpu *v, const struct mmio_insn *in)
{
	uint64_t am = size_mask(in->addr_size), mask = size_mask(in->size);
	uint64_t count = in->rep ? v->vmx.regs.rcx & am : 1, n = MIN(count, (uint64_t)MMIO_STRING_BATCH);
	int64_t step = (vmx_guest_rflags() & RFLAGS_DF) ? -(int64_t)in->size : in->size;
	uint64_t si = v->vmx.regs.rsi, di = v->vmx.regs.rdi, i;
	struct seg_view src, dst;
	int r = 0;

	if (in->kind != MMIO_STOS)
		seg_view_read(in->seg, &src);
	if (in->kind != MMIO_LODS)
		seg_view_read(SEG_ES, &dst);
	spin_lock(&v->vm->lock);
	for (i = 0; i < n; i++) {
		uint64_t val = v->vmx.regs.rax & mask, sla = 0, dla = 0;
		int f = 0;

		if (in->kind != MMIO_STOS)
			f = seg_linear(&src, si & am, in->size, false, &sla);
		if (!f && in->kind != MMIO_LODS)
			f = seg_linear(&dst, di & am, in->size, true, &dla);
		if (f) {
			vcpu_queue_exception(&v->vmx, (uint8_t)f, true, 0);
			break;
		}
		if (in->kind != MMIO_STOS && (r = elem_rw(v, sla, in->size, false, &val)))
			break;
		if (in->kind == MMIO_LODS)
			v->vmx.regs.rax = decode_load_merge(in, v->vmx.regs.rax, val);
		else if ((r = elem_rw(v, dla, in->size, true, &val)))
			break;
		if (in->kind != MMIO_STOS)
			si += (uint64_t)step;
		if (in->kind != MMIO_LODS)
			di += (uint64_t)step;
	}
	spin_unlock(&v->vm->lock);
	v->vmx.regs.rsi = addr_merge(v->vmx.regs.rsi, si, in->addr_size);
	v->vmx.regs.rdi = addr_merge(v->vmx.regs.rdi, di, in->addr_size);
	if (in->rep)
		v->vmx.regs.rcx = addr_merge(v->vmx.regs.rcx, count - i, in->addr_size);
	return r ? r : (int64_t)(count - i);
}

/* ------------------------------------------------------------ exits */

static enum exit_action mmio_unknown(struct vcpu *v, struct exit_info *x, const uint8_t *buf,
				     int n, uint64_t gpa)
{
	char hex[3 * DECODE_MAX_LEN + 1];
	int k = 0;

	for (int i = 0; i < n && i < DECODE_MAX_LEN; i++)
		k += fmt_snprintf(hex + k, sizeof(hex) - (size_t)k, "%s%02x", i ? " " : "", buf[i]);
	hex[k] = 0;
	pr_err("%s: vcpu%u: MMIO at guest-physical %#lx by an instruction the decoder does not "
	       "know: bytes %s\n", v->vm->p.name, v->vmx.id, gpa, hex);
	return exit_fail(&v->vmx, x, "MMIO by an instruction the decoder does not know");
}

static enum exit_action mmio_emulate(struct vcpu *v, struct exit_info *x, uint64_t gpa)
{
	uint8_t buf[DECODE_MAX_LEN];
	uint64_t rip = vmx_guest_cs_base() + vmx_guest_rip();
	enum decode_mode mode = cpu_mode();
	struct mmio_insn in;
	int64_t left = 0;
	bool exit_write = x->reason == EXIT_REASON_EPT_VIOLATION ? x->qual & BIT(1)
								 : ((x->qual >> 12) & 0xf) == 1;
	int r, n;

	/* The access was the CPU's delivery of an event (IDT-vectoring
	 * information valid, SDM vol. 3 §28.2.4): a gate, descriptor or stack
	 * in an MMIO hole. The instruction at RIP did not make it; decoding it
	 * would emulate the wrong access and lose the event. Hardware would
	 * read garbage and end in a triple fault: stop the VM. */
	if (vmx_idt_vectoring() & BIT(31))
		return exit_fail(&v->vmx, x, "MMIO access while delivering an event");
	n = guest_fetch_insn(v, rip, buf, sizeof(buf));
	if (n == -ENOENT)
		return mmio_fetch_fault(v, rip);
	if (n <= 0)
		return exit_fail(&v->vmx, x, "cannot fetch the MMIO instruction");
	r = decode_mmio(buf, (size_t)n, mode, &in);
	/* The same race for an instruction that straddles two pages (found by
	 * make fuzz, guest hvfuzz): the fetch stopped at the end of the first
	 * page because the second is gone now; its #PF is the one to take. */
	if (r == -EAGAIN && n < (int)sizeof(buf))
		return mmio_fetch_fault(v, rip + (uint64_t)n);
	if (r)
		return mmio_unknown(v, x, buf, n, gpa);
	/* The bytes are read after the CPU executed them: a sibling vCPU may
	 * have rewritten them since. The address is the exit's, never the
	 * decoder's; a MOV whose direction is not the exit's is not the one
	 * that exited, so it is not emulated: the guest re-executes what is
	 * there now (SDM vol. 3 28.2.1 Table 28-7, bit 1 = data write). The
	 * read-modify-write and string forms access memory both ways. */
	if (in.kind == MMIO_MOV && in.write != exit_write)
		return EXIT_RESUME;
	if (in.kind >= MMIO_MOVS) {
		left = mmio_string(v, &in);
		r = left < 0 ? (int)left : 0;
	} else {
		spin_lock(&v->vm->lock);
		r = mmio_exec(v, &in, gpa);
		spin_unlock(&v->vm->lock);
	}
	if (r == -EFAULT)
		return exit_fail(&v->vmx, x, "MMIO string instruction: linear address not mapped");
	if (r) {
		pr_err("%s: vcpu%u: access to guest-physical %#lx, outside RAM and devices\n",
		       v->vm->p.name, v->vmx.id, gpa);
		vm_stop(v->vm, VM_STOP_BAD_GPA, "bad-guest-physical-access");
		return EXIT_STOPPED;
	}
	if (!left) {
		x->insn_len = in.len;
		exit_skip_insn(x);
	}
	return v->vm->state == VM_RUNNING ? EXIT_RESUME : EXIT_STOPPED;
}

enum exit_action exit_ept_violation(struct vmx_vcpu *vx, struct exit_info *x)
{
	struct vcpu *v = vcpu_of(vx);
	uint64_t gpa = vmx_exit_gpa();

	if (gpa < v->vm->ram_size)
		return exit_fail(&v->vmx, x, "EPT violation inside guest RAM");
	return mmio_emulate(v, x, gpa);
}

enum exit_action exit_apic_access(struct vmx_vcpu *vx, struct exit_info *x)
{
	struct vcpu *v = vcpu_of(vx);
	/* Linear accesses only (type 0/1); the offset is in bits 11:0. */
	if (((x->qual >> 12) & 0xf) > 1)
		return exit_fail(&v->vmx, x, "unsupported APIC-access type");
	return mmio_emulate(v, x, GUEST_LAPIC_BASE + (x->qual & 0xfff));
}
