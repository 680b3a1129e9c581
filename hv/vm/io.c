/* Port I/O exits, routed (issue 11: hv/vmx decodes, hv/vm routes): an
 * I/O-instruction exit's accesses reach the VM's device models under the VM
 * lock, INS/OUTS elements move through guest memory, and an access that
 * moved a device deadline or the 8259's output makes the right pCPU look
 * again. hv/vmx gives the decode (vmx/exit_io.h) and owns the VMCS; hv/vm
 * routes I/O exits here (vm/exit_route.c). */
#include "vmx/exit_io.h"
#include "vm/exit_route.h"
#include "vmx/vcpu_state.h"
#include "vm/vm.h"
#include "vm/gmem.h"
#include "vm/sched_platform.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/time.h"
#include "arch/x86/exc.h"
#include "errno.h"
#include "log.h"
#include "vm_status.h"

/* Items per exit: each may reach a device under vm->lock with interrupts off
 * (a UART byte can flush a console line), so a REP with RCX = 65536 is done
 * 16 at a time. RCX and RSI/RDI are updated and RIP stays, so the guest
 * re-executes the rest, as the CPU does when it takes an interrupt between
 * iterations (SDM vol. 2 REP). */
#define STRING_IO_MAX  16

/* After an access that may move a device deadline or the 8259's output: if
 * a deadline now comes before the one the preemption timer was armed for,
 * or the 8259 asks for vCPU 0, the run loop must look before the next entry
 * (vm/vcpu_exit.c); a fast re-entry would keep the stale timer. Out of
 * line, like vm_io_pio_ap_platform: io_one stays small enough to inline. */
static __attribute__((noinline)) void vm_io_retimed(struct vcpu *v)
{
	stime_t dl = vm_devs_next_deadline(v->vm, v->vmx.id);

	if ((dl < STIME_NEVER && time_ns_to_tsc(dl) < v->fast_deadline_tsc) ||
	    (v->vmx.id == 0 && vpic_output(&v->vm->devs.intc.pic)))
		WRITE_ONCE(v->kicked, true);
}

/* Platform devices (PIT, RTC, PM timer) are advanced on vCPU 0's pCPU
 * (vm_devs_advance): when another vCPU's access brings their deadline
 * forward, vCPU 0's pCPU must look again at once (idle: leave its halt;
 * running vCPU 0: exit and re-arm), not at its next unrelated wake-up. */
static __attribute__((noinline)) void vm_io_pio_ap_platform(struct vcpu *v, uint16_t port,
							    unsigned size, bool in, uint32_t *val)
{
	struct vm *vm = v->vm;
	stime_t before, after;

	spin_lock(&vm->lock);
	before = pcdev_next_deadline(&vm->devs.pc);
	vm_devs_pio(&vm->devs, port, size, !in, val);
	after = pcdev_next_deadline(&vm->devs.pc);
	spin_unlock(&vm->lock);
	if (after < before)
		sched_plat_repoll(vm->vcpu[0]);
}

/* One port access; one that may move a device deadline or an interrupt
 * output goes through vm_io_pio_ap_platform (an AP) and vm_io_retimed. */
static inline void io_one(struct vcpu *v, uint16_t port, unsigned size, bool in, uint32_t *val)
{
	struct vm *vm = v->vm;
	bool retimes = vm_devs_pio_retimes(port, !in);

	if (unlikely(retimes && v->vmx.id)) {
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
	struct gpaging pg;
	bool lm;

	guest_paging(&pg);
	lm = pg.efer & EFER_LMA;
	for (unsigned i = 0; i < size; i++) {
		uint64_t a = lm ? la + i : (la + i) & 0xffffffffull, gpa, val = b[i];
		uint8_t *h;
		int r;

		if (lm && (int64_t)(a << 16) >> 16 != (int64_t)a) {
			vcpu_queue_exception(&v->vmx, X86_EXC_GP, true, 0);   /* non-canonical: #GP(0) */
			return 1;
		}
		if ((r = gwalk(&pg, v->vm->ram, v->vm->ram_size, a, write, &gpa))) {
			/* #PF error code (SDM vol. 3 §5.7): P when present but not
			 * allowed, W/R, U/S. */
			write_cr2(a);   /* the guest's CR2 is live while its vCPU runs (fpu.c) */
			vcpu_queue_exception(&v->vmx, X86_EXC_PF, true, (r == -EACCES ? X86_PF_PRESENT : 0) |
					     (write ? X86_PF_WRITE : 0) | (pg.user ? X86_PF_USER : 0));
			return 1;
		}
		if ((h = gpa_to_hva(v->vm, gpa, 1))) {
			write ? (void)(*h = b[i]) : (void)(b[i] = *h);
			continue;
		}
		spin_lock(&v->vm->lock);
		r = vm_devs_mmio(v->vm, v->vmx.id, gpa, 1, write, &val);
		spin_unlock(&v->vm->lock);
		if (r) {
			pr_err("%s: vcpu%u: string I/O at guest-physical %#lx, outside RAM and devices\n",
			       v->vm->p.name, v->vmx.id, gpa);
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
	struct io_string_info s;
	uint64_t *idx = in ? &v->vmx.regs.rdi : &v->vmx.regs.rsi;
	uint64_t count, done = 0;

	exit_io_string_decode(in, size, &s);
	count = rep ? (v->vmx.regs.rcx & s.amask) : 1;
	for (; done < count && done < STRING_IO_MAX; done++) {
		uint64_t la;
		uint32_t val = 0;
		int r;

		/* Segmentation first, before the port is touched (SDM vol. 3
		 * §5.3): an element past the limit, or INS into a read-only
		 * segment, faults with RCX/RSI/RDI counting the elements done
		 * and RIP at the instruction, as the CPU's REP leaves them. */
		if ((r = seg_linear(&s.sv, *idx & s.amask, size, in, &la))) {
			vcpu_queue_exception(&v->vmx, (uint8_t)r, true, 0);
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
		*idx = (*idx & ~s.amask) | ((*idx + (uint64_t)s.step) & s.amask);
		if (v->vm->state != VM_RUNNING)
			return EXIT_STOPPED;
	}
	if (rep)
		v->vmx.regs.rcx = (v->vmx.regs.rcx & ~s.amask) | ((count - done) & s.amask);
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
	v->vmx.regs.rax = size == 4 ? val : (v->vmx.regs.rax & ~mask) | (val & mask);
	if (v->vm->state != VM_RUNNING)
		return EXIT_STOPPED;
	exit_skip_insn(x);
	return EXIT_RESUME;
}

/* The I/O-instruction exit handler (vmx/exit.c's table). The common case,
 * OUT, kept short: it is what a guest's console costs. */
enum exit_action exit_io(struct vmx_vcpu *vx, struct exit_info *x)
{
	struct vcpu *v = vcpu_of(vx);
	uint16_t port = IOQ_PORT(x->qual);
	unsigned size = IOQ_SIZE(x->qual);
	uint32_t val;

	if (x->qual & IOQ_STRING)
		return io_string(v, x, port, size, x->qual & IOQ_IN, x->qual & IOQ_REP);
	if (x->qual & IOQ_IN)
		return io_in(v, x, port, size);
	val = (uint32_t)v->vmx.regs.rax;
	io_one(v, port, size, false, &val);
	if (v->vm->state != VM_RUNNING)
		return EXIT_STOPPED;
	exit_skip_insn(x);
	return EXIT_RESUME;
}
