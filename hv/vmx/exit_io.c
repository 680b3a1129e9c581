/* I/O-instruction exits (SDM vol. 3 §28.2.1 Table 28-5 for the qualification,
 * §28.2.5 Table 28-8 for the string forms' instruction information). */
#include "vmx/exit.h"
#include "vmx/vmcs.h"
#include "vmx/seg_check.h"
#include "vm/vm.h"
#include "vm/gmem.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "errno.h"
#include "log.h"
#include "vm_status.h"
#include "arch/x86/exc.h"

#define IOQ_SIZE(q)    ((unsigned)((q) & 7) + 1)
#define IOQ_IN         BIT(3)
#define IOQ_STRING     BIT(4)
#define IOQ_REP        BIT(5)
#define IOQ_PORT(q)    ((uint16_t)((q) >> 16))
#define RFLAGS_DF      BIT(10)
/* Items per exit: each may reach a device under vm->lock with interrupts off
 * (a UART byte can flush a console line), so a REP with RCX = 65536 is done
 * 16 at a time. RCX and RSI/RDI are updated and RIP stays, so the guest
 * re-executes the rest, as the CPU does when it takes an interrupt between
 * iterations (SDM vol. 2 REP). */
#define STRING_IO_MAX  16

/* An access that may move a device deadline or an interrupt output goes
 * through the VM layer (vm/io.c: vm_io_pio_ap_platform, vm_io_retimed). */
static inline void io_one(struct vcpu *v, uint16_t port, unsigned size, bool in, uint32_t *val)
{
	struct vm *vm = v->vm;
	bool retimes = vm_devs_pio_retimes(port, !in);

	if (unlikely(retimes && v->id)) {
		vm_io_pio_ap_platform(v, port, size, in, val);
	} else {
		spin_lock(&vm->lock);
		vm_devs_pio(&vm->devs, port, size, !in, val);
		spin_unlock(&vm->lock);
	}
	if (unlikely(retimes))
		vm_io_retimed(v);
}

/* One INS/OUTS element outside plain guest RAM, byte by byte: a guest-physical
 * address outside RAM is an access like any other (devices, or all ones and
 * dropped writes below 4 GiB, docs/vmx.md), a linear address that does not
 * translate raises #PF. Returns 0, 1 (fault queued) or -EFAULT (at or above
 * 4 GiB: the VM is stopped, as for an EPT violation there). */
static __attribute__((noinline)) int io_string_slow(struct vcpu *v, uint64_t la, uint8_t *b,
						    unsigned size, bool write)
{
	bool lm = vmcs_read64(VMCS_GUEST_EFER) & EFER_LMA;
	struct gpaging pg = {
		.cr0 = vmcs_readnat(VMCS_GUEST_CR0), .cr3 = vmcs_readnat(VMCS_GUEST_CR3),
		.cr4 = vmcs_readnat(VMCS_GUEST_CR4), .efer = vmcs_read64(VMCS_GUEST_EFER),
		.user = ((vmcs_read32(VMCS_GUEST_SS_AR) >> 5) & 3) == 3,
	};

	pg.smap = !pg.user && (pg.cr4 & X86_CR4_SMAP) &&
		  gpaging_smap(pg.cr4, vmcs_readnat(VMCS_GUEST_RFLAGS));

	for (unsigned i = 0; i < size; i++) {
		uint64_t a = lm ? la + i : (la + i) & 0xffffffffull, gpa, val = b[i];
		uint8_t *h;
		int r;

		if (lm && (int64_t)(a << 16) >> 16 != (int64_t)a) {
			vcpu_queue_exception(v, X86_EXC_GP, true, 0);   /* non-canonical: #GP(0) */
			return 1;
		}
		if ((r = gwalk(&pg, v->vm->ram, v->vm->ram_size, a, write, &gpa))) {
			/* #PF error code (SDM vol. 3 §5.7): P when present but not
			 * allowed, W/R, U/S. */
			write_cr2(a);   /* the guest's CR2 is live while its vCPU runs (fpu.c) */
			vcpu_queue_exception(v, X86_EXC_PF, true, (r == -EACCES ? X86_PF_PRESENT : 0) |
					     (write ? X86_PF_WRITE : 0) | (pg.user ? X86_PF_USER : 0));
			return 1;
		}
		if ((h = gpa_to_hva(v->vm, gpa, 1))) {
			write ? (void)(*h = b[i]) : (void)(b[i] = *h);
			continue;
		}
		spin_lock(&v->vm->lock);
		r = vm_devs_mmio(v->vm, v->id, gpa, 1, write, &val);
		spin_unlock(&v->vm->lock);
		if (r) {
			pr_err("%s: vcpu%u: string I/O at guest-physical %#lx, outside RAM and devices\n",
			       v->vm->p.name, v->id, gpa);
			vm_stop(v->vm, VM_STOP_BAD_GPA, "bad-guest-physical-access");
			return -EFAULT;
		}
		b[i] = (uint8_t)val;
	}
	return 0;
}

/* Out of line: keeps the common single-port path free of its registers. */
static __attribute__((noinline)) enum exit_action io_string(struct vcpu *v, struct exit_info *x,
							    uint16_t port, unsigned size,
							    bool in, bool rep)
{
	uint32_t info = vmcs_read32(VMCS_EXIT_INSN_INFO);
	unsigned asz = (info >> 7) & 7;               /* 0: 16, 1: 32, 2: 64 bit */
	uint64_t amask = asz == 0 ? 0xffff : asz == 1 ? 0xffffffffull : ~0ull;
	unsigned seg = in ? 0 /* ES */ : (info >> 15) & 7;
	uint64_t *idx = in ? &v->regs.rdi : &v->regs.rsi;
	int64_t step = (vmcs_readnat(VMCS_GUEST_RFLAGS) & RFLAGS_DF) ? -(int64_t)size : (int64_t)size;
	uint64_t count = rep ? (v->regs.rcx & amask) : 1;
	uint64_t done = 0;
	struct seg_view sv;

	seg_view_read(seg, &sv);
	for (; done < count && done < STRING_IO_MAX; done++) {
		uint64_t la;
		uint32_t val = 0;
		int r;

		/* Segmentation first, before the port is touched (SDM vol. 3
		 * §5.3): an element past the limit, or INS into a read-only
		 * segment, faults with RCX/RSI/RDI counting the elements done
		 * and RIP at the instruction, as the CPU's REP leaves them. */
		if ((r = seg_linear(&sv, *idx & amask, size, in, &la))) {
			vcpu_queue_exception(v, (uint8_t)r, true, 0);
			break;
		}
		if (in) {
			io_one(v, port, size, true, &val);
			if (guest_write_linear(v, la, &val, size) &&
			    (r = io_string_slow(v, la, (uint8_t *)&val, size, true)))
				break;
		} else {
			if (guest_read_linear(v, la, &val, size) &&
			    (r = io_string_slow(v, la, (uint8_t *)&val, size, false)))
				break;
			io_one(v, port, size, false, &val);
		}
		*idx = (*idx & ~amask) | ((*idx + (uint64_t)step) & amask);
		if (v->vm->state != VM_RUNNING)
			return EXIT_STOPPED;
	}
	if (rep)
		v->regs.rcx = (v->regs.rcx & ~amask) | ((count - done) & amask);
	if (v->vm->state != VM_RUNNING)
		return EXIT_STOPPED;
	if (done == count)
		exit_skip_insn(x);
	return EXIT_RESUME;
}

/* IN: a 32-bit IN zero-extends into RAX; 8/16-bit INs merge (SDM IN). */
static __attribute__((noinline)) enum exit_action io_in(struct vcpu *v, struct exit_info *x,
							uint16_t port, unsigned size)
{
	uint64_t mask = size == 4 ? 0xffffffffull : (1ull << (8 * size)) - 1;
	uint32_t val = 0;

	io_one(v, port, size, true, &val);
	v->regs.rax = size == 4 ? val : (v->regs.rax & ~mask) | (val & mask);
	if (v->vm->state != VM_RUNNING)
		return EXIT_STOPPED;
	exit_skip_insn(x);
	return EXIT_RESUME;
}

/* The common case, OUT, kept short: it is what a guest's console costs. */
enum exit_action exit_io(struct vcpu *v, struct exit_info *x)
{
	uint16_t port = IOQ_PORT(x->qual);
	unsigned size = IOQ_SIZE(x->qual);
	uint32_t val;

	if (x->qual & IOQ_STRING)
		return io_string(v, x, port, size, x->qual & IOQ_IN, x->qual & IOQ_REP);
	if (x->qual & IOQ_IN)
		return io_in(v, x, port, size);
	val = (uint32_t)v->regs.rax;
	io_one(v, port, size, false, &val);
	if (v->vm->state != VM_RUNNING)
		return EXIT_STOPPED;
	exit_skip_insn(x);
	return EXIT_RESUME;
}
