/* I/O-instruction exits (SDM vol. 3 §28.2.1 Table 28-5 for the qualification,
 * §28.2.5 Table 28-8 for the string forms' instruction information). */
#include "vmx/exit.h"
#include "vmx/vmcs.h"
#include "vm/vm.h"
#include "vm/gmem.h"
#include "vm/sched_glue.h"
#include "arch/x86/time.h"
#include "log.h"

#define IOQ_SIZE(q)    ((unsigned)((q) & 7) + 1)
#define IOQ_IN         BIT(3)
#define IOQ_STRING     BIT(4)
#define IOQ_REP        BIT(5)
#define IOQ_PORT(q)    ((uint16_t)((q) >> 16))
#define RFLAGS_DF      BIT(10)
#define STRING_IO_MAX  65536   /* items per exit; REP continues on re-entry */

/* After an access that may move a device deadline or the 8259's output: if
 * a deadline now comes before the one the preemption timer was armed for,
 * or the 8259 asks for vCPU 0, the run loop must look before the next entry
 * (vm/vcpu_exit.c); a fast re-entry would keep the stale timer. */
static __attribute__((noinline)) void io_retimed(struct vcpu *v)
{
	stime_t dl = vm_devs_next_deadline(v->vm, v->id);

	if ((dl < STIME_NEVER && time_ns_to_tsc(dl) < v->fast_deadline_tsc) ||
	    (v->id == 0 && vpic_output(&v->vm->devs.intc.pic)))
		WRITE_ONCE(v->kicked, true);
}

/* Platform devices (PIT, RTC, PM timer) are advanced on vCPU 0's pCPU
 * (vm_devs_advance): when another vCPU's access brings their deadline
 * forward, vCPU 0's pCPU must look again at once (idle: leave its halt;
 * running vCPU 0: exit and re-arm), not at its next unrelated wake-up. */
static __attribute__((noinline)) void io_one_ap_platform(struct vcpu *v, uint16_t port,
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
		sched_glue_repoll(vm->vcpu[0]);
}

static inline void io_one(struct vcpu *v, uint16_t port, unsigned size, bool in, uint32_t *val)
{
	struct vm *vm = v->vm;
	bool retimes = vm_devs_pio_retimes(port, !in);

	if (unlikely(retimes && v->id)) {
		io_one_ap_platform(v, port, size, in, val);
	} else {
		spin_lock(&vm->lock);
		vm_devs_pio(&vm->devs, port, size, !in, val);
		spin_unlock(&vm->lock);
	}
	if (unlikely(retimes))
		io_retimed(v);
}

static uint64_t seg_base(unsigned seg)
{
	/* ES, CS, SS, DS, FS, GS: base fields are 2 encodings apart. */
	return vmcs_vmread(VMCS_GUEST_ES_BASE + 2 * seg);
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

	for (; done < count && done < STRING_IO_MAX; done++) {
		uint64_t la = seg_base(seg) + (*idx & amask);
		uint32_t val = 0;

		if (in) {
			io_one(v, port, size, true, &val);
			if (guest_write_linear(v, la, &val, size))
				return exit_fail(v, x, "string I/O to unmapped guest memory");
		} else {
			if (guest_read_linear(v, la, &val, size))
				return exit_fail(v, x, "string I/O from unmapped guest memory");
			io_one(v, port, size, false, &val);
		}
		*idx = (*idx & ~amask) | ((*idx + (uint64_t)step) & amask);
		if (v->vm->state != VM_RUNNING)
			return EXIT_STOPPED;
	}
	if (rep)
		v->regs.rcx = (v->regs.rcx & ~amask) | ((count - done) & amask);
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
