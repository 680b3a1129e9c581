/* The C half of every VM exit (called by hv/vmx/entry.asm): dispatch it,
 * then either go straight back into the guest (the fast re-entry) or return
 * to vcpu_run()'s loop, which polls the scheduler and devices and injects
 * events before the next entry. */
#include "vm/vm.h"
#include "vmx/entry.h"
#include "vm/exit_route.h"
#include "vmx/vmcs.h"
#include "vmx/vcpu_state.h"
#include "vmx/caps.h"
#include "vm/kvm_pv_vcpu.h"
#include "vmx/apicv.h"
#include "vm/sched_platform.h"
#include "vm/bstamp.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/time.h"
#include "arch/x86/percpu.h"
#include "cmdline.h"

/* Issue 17: TSC-deadline WRMSRs re-enter at once (vcpu_tscdl_lower). */
static bool vcpu_opt_fast_tscdl = true;
CMDLINE_BOOL(fast_tscdl, vcpu_opt_fast_tscdl,
	     "re-enter at once after a TSC-deadline WRMSR (off: through the run loop, as before)");

/* Exits that may re-enter at once. CPUID, I/O and RDMSR handlers are short
 * and never wait for another pCPU, so they run with interrupts off: a host
 * interrupt (kick, timer IPI) that arrives meanwhile stays pending and exits
 * the guest right after the next entry, so nothing it asks for is missed.
 * VMCALL is vcpu_exit_vmcall()'s. All are exits of instructions, which never
 * happen during event delivery, so the IDT-vectoring information is never
 * valid for them (SDM §28.2.4). */
#define EXIT_FAST_REASONS (BIT(EXIT_REASON_CPUID) | BIT(EXIT_REASON_IO) | \
			   BIT(EXIT_REASON_RDMSR) | BIT(EXIT_REASON_VMCALL))
_Static_assert(EXIT_REASON_CPUID < 64 && EXIT_REASON_IO < 64 && EXIT_REASON_RDMSR < 64 &&
	       EXIT_REASON_VMCALL < 64, "EXIT_FAST_REASONS is a 64-bit mask");

static inline bool exit_reason_fast(uint32_t raw)
{
	/* raw, not the basic reason: a failed VM entry (bit 31) is never fast. */
	return raw < 64 && ((EXIT_FAST_REASONS >> raw) & 1);
}

/* Nothing can be pending that the loop top would deliver: no kick (IPIs,
 * interrupts raised by device models, scheduler vectors, deadline-moving
 * port writes, a stopped VM all set it), no queued exception, the
 * scheduler not asking for the pCPU, the armed deadline not reached. The
 * preemption timer then gets the remaining time (it does not count while
 * the host runs). */
static inline bool vcpu_fast_reentry(struct vcpu *v)
{
	uint64_t now, dl = v->fast_deadline_tsc;

	if (flag_once(&v->kicked) || v->vmx.pending_exc.valid || flag_once(v->resched))
		return false;
	now = rdtsc();
	if (now >= dl)
		return false;
	/* arm_preemption_timer() capped dl: the shifted rest fits the 32-bit field. */
	vmx_preempt_timer_set((dl - now) >> vmx_caps.preempt_timer_shift);
	return true;
}

/* Every other exit: let the host take the interrupt that caused it (no
 * acknowledge-on-exit); the handler may run long. */
/* An ICR write (APIC-write exit at offset 0x300 with APICv, WRMSR of the
 * x2APIC ICR 0x830): sending an IPI changes nothing the loop top would
 * deliver to the sender itself (a self IPI kicks it), nor its own timers, so
 * it may re-enter at once like a hypercall. Issue 19: the sender of every
 * wake-up IPI went through the whole loop top (~1000 cycles). */
static inline bool exit_is_icr_write(struct vcpu *v, uint32_t raw)
{
	if (raw == EXIT_REASON_APIC_WRITE)
		return (vmx_exit_qual() & 0xfff) == 0x300;
	return raw == EXIT_REASON_WRMSR && (uint32_t)v->vmx.regs.rcx == 0x830;
}

_Static_assert((int)EXIT_REENTERED == VMX_EXIT_REENTER, "a handler's re-entry is the stub's");

/* Nothing waits that only the loop top delivers or clears: no NMI latched
 * or NMI window, no 8259 output (ExtINT is injected there), no PV unhalt,
 * no scheduler vectors. With vcpu_fast_reentry() (no kick, queued
 * exception or reschedule, deadline ahead), the loop top would change
 * nothing but RVI before the next entry. */
static inline bool loop_top_idle(struct vcpu *v)
{
	return !(READ_ONCE(v->vmx.lapic.nmi_pending) || v->vmx.nmi_window ||
		 (v->vmx.id == 0 && vpic_output(&v->vm->devs.intc.pic)) ||
		 kvm_pv_unhalt_pending(v) || dev_sweep_vectors_pending(v));
}

/* Issue 18: the VID gate (vmx/apicv.c) held a vector back at the last entry
 * because the guest had IF = 0 or an STI/MOV-SS shadow, and asked for an
 * interrupt window (v->vid_window). Two exits say the guest can take it now:
 *  - the interrupt-window exit itself (SDM §26.7.5: it happens only with
 *    RFLAGS.IF = 1 and no blocking by STI or MOV SS);
 *  - HLT with RFLAGS.IF = 1 (`sti; hlt`: HLT runs in the STI shadow, so the
 *    window could not open before it; exit_skip_insn() ended the shadow,
 *    which covers only the instruction after STI, SDM §25.4.2 Table 25-3).
 * Then RVI is released and the guest re-entered at once: with IF = 1 the CPU
 * delivers the virtual interrupt at the entry (§30.2.1), and the HLT ends as
 * the run loop would have ended it (vcpu_has_wakeup() true: no block, no
 * scheduler pass; the halt-poll window update for a halt of 0 ns keeps the
 * window, so it is skipped). Only when nothing else waits for the loop top:
 * no kick since it ran (vcpu_fast_reentry()), no NMI latched or NMI window,
 * no 8259 output (ExtINT is injected there), no PV unhalt to clear, no
 * scheduler vectors. The gate's guarantee holds: RVI is entered only with
 * IF = 1, no shadow and no injected event. Cost before: the HLT exit went
 * through the run loop's HLT path (make bench-exits "ICR write -> halted
 * peer's handler" 3880 with the gate against 2450 without). Called by the
 * HLT and interrupt-window handlers when v->vid_window is set (no test on
 * any other exit's path): returns EXIT_REENTERED with interrupts off, or
 * act. */
static inline __attribute__((always_inline)) enum exit_action
vid_gate_reenter(struct vcpu *v, uint32_t reason, enum exit_action act)
{
	int rvi;

	if (reason == EXIT_REASON_HLT) {
		uint64_t fl = vmx_guest_rflags();

		if (!(fl & BIT(9)))   /* HLT with IF = 0: the run loop's HLT path */
			return act;
		v->dbg.halt_rflags = fl;   /* the watchdog dump's "last HLT" */
		v->dbg.halt_rip = vmx_guest_rip();
	}
	if (!loop_top_idle(v))
		return act;
	irq_disable();
	/* At the HLT, the released vector must also be one the entry delivers
	 * (TPR or an in-service vector may mask it: the gate held it for IF
	 * alone; released, RVI is then 0): else re-entering would end the HLT
	 * with no interrupt taken (SDM §30.2.1, §30.2.2); the run loop's HLT
	 * path blocks instead. After a window exit the guest just goes on. */
	if (vcpu_fast_reentry(v) && (rvi = apicv_gate_release(&v->vmx)) >= 0 &&
	    (rvi || reason != EXIT_REASON_HLT)) {
		vmx_proc_ctls_set(vmx_proc_ctls() & ~PROC_INTR_WINDOW);
		v->vid_released++;
		return EXIT_REENTERED;
	}
	irq_enable();
	return act;
}

/* One copy per exit, the reason tests compiled out (make bench-exits
 * "IPI held while IF=0" rows with the gate). */
enum exit_action vcpu_vid_gate_reenter(struct vmx_vcpu *vx, uint32_t reason, enum exit_action act)
{
	struct vcpu *v = vcpu_of(vx);
	return reason == EXIT_REASON_HLT ? vid_gate_reenter(v, EXIT_REASON_HLT, act) :
					   vid_gate_reenter(v, EXIT_REASON_INTERRUPT_WINDOW, act);
}

/* Issue 18 without the VID gate (a correct CPU: `auto`'s choice where the
 * boot self-test sees no bug): `sti; hlt` with a vector pending since IF was
 * 0 (Linux's idle entry with an IPI that came meanwhile). HLT runs in the
 * STI shadow, so the CPU could not deliver before it (SDM §30.2.1, Table
 * 25-3), and the HLT exits. exit_hlt() saw RVI set; when the next entry
 * delivers it (apicv_rvi_deliverable: RVI above VPPR), with RFLAGS.IF = 1
 * (HLT with IF = 0 waits for an NMI: the run loop's path) and the STI
 * shadow ended by exit_skip_insn(), the entry delivers it (§27.3.2.5,
 * §30.2.1), so the HLT ends as the run loop would end it (vcpu_has_wakeup()
 * true: no block, no scheduler pass; the halt-poll update of a 0 ns halt
 * keeps the window). Only when the loop top has nothing else to do
 * (loop_top_idle, vcpu_fast_reentry). Without this the exit took the run
 * loop's HLT path: make bench-exits "IPI held while IF=0, sti; hlt" 1500
 * cycles (00fedc3: 1470). The test comes before any other work, so an HLT
 * that blocks pays only the RVI test (the lead's earlier attempt ran the
 * gate's RVI recomputation first and cost the blocking rows ~350). */
enum exit_action vcpu_hlt_deliver_reenter(struct vmx_vcpu *vx)
{
	struct vcpu *v = vcpu_of(vx);
	uint64_t fl = vmx_guest_rflags();

	if (!(fl & BIT(9)) || !apicv_rvi_deliverable(&v->vmx.apic_page) || !loop_top_idle(v))
		return EXIT_BLOCK;
	v->dbg.halt_rflags = fl;   /* the watchdog dump's "last HLT" */
	v->dbg.halt_rip = vmx_guest_rip();
	irq_disable();
	if (vcpu_fast_reentry(v)) {
		v->hlt_delivered++;
		return EXIT_REENTERED;
	}
	irq_enable();
	return EXIT_BLOCK;
}

static inline bool exit_is_tscdl_write(struct vcpu *v, uint32_t raw)
{
	return raw == EXIT_REASON_WRMSR && (uint32_t)v->vmx.regs.rcx == MSR_IA32_TSC_DEADLINE;
}

/* Issue 17: a TSC-deadline WRMSR (Linux re-arms its tick with one from its
 * timer interrupt, 100-1000/s) re-enters at once. vcpu_fast_reentry() may
 * let the guest run until fast_deadline_tsc, so that must stay at or before
 * every deadline the loop top would arm the preemption timer for
 * (arm_preemption_timer: device timers, this pCPU's scheduler and
 * blocked-sweep deadlines). The write can only have moved two of them:
 * - the vCPU's own vLAPIC timer (SDM §11.5.4.1). A deadline in the future:
 *   lowered to it here, so the preemption timer (SDM §26.5.1) exits at or
 *   before it and the loop top fires it. In the past (or now): the write
 *   fired it at once (vlapic_tscdl_write), which set `kicked`
 *   (accept_fixed -> sched_plat_notify), so the loop top injects it. Zero
 *   (disarm), or a later deadline: fast_deadline_tsc is never raised, so at
 *   worst one early exit that finds nothing to fire.
 * - the scheduler's deadline, if another pCPU re-armed it (plat_timer_arm)
 *   and its kick IPI was taken while the handler ran with interrupts on:
 *   read again once they are off (a later IPI stays pending and exits the
 *   guest after the entry).
 * Lowering is always safe (a deadline read too early only costs an exit);
 * the entry's preemption-timer value is computed from this deadline and
 * the TSC after both (vcpu_fast_reentry), so a deadline that passes in
 * between gives 0 ticks: an exit before the first guest instruction.
 * Nothing here touches RVI or injects, so the VID gate's invariant (no RVI
 * the guest cannot take at once, docs/vmx.md) holds as for the other fast
 * exits: only the slow path changes RVI. The 2026-11-21 attempt (769f00a,
 * then d8cb1d3 with the handler's interrupts on; reverted in 492f43d after
 * two Linux hangs) was root-caused by replay in session 9: the Bochs 2.7
 * bug that delivers a virtual interrupt with IF=0 (SDM §6.8.1, §30.2.1), on
 * a runqueue lock; 492f43d, without the fast re-entry, hangs the same way
 * (docs/linux-guest.md "Replaying the backed-out hangs"). d8cb1d3 also kept
 * a deadline a kick had lowered meanwhile (only a later exit); the re-read
 * above covers that. */
static inline void vcpu_tscdl_lower(struct vcpu *v)
{
	stime_t dl = MIN(vintc_timer_next(&v->vm->devs.intc, v->vmx.id),
			 pcpu_deadline(cpu_this()));
	uint64_t t;

	if (dl >= STIME_NEVER)
		return;
	t = dl > 0 ? time_ns_to_tsc(dl) : 0;
	if (t < v->fast_deadline_tsc)
		v->fast_deadline_tsc = t;
}

/* Issue 17 replay, debug only (off by default): the backed-out 2026-11-21
 * TSC-deadline fast re-entry, as it was, to replay its hangs on this tree.
 *  1: 769f00a. Every WRMSR handler runs with interrupts off (x2APIC ICR
 *     writes included); a TSC-deadline write lowers fast_deadline_tsc to the
 *     vCPU's new timer only, any other write sets `kicked` (run loop first).
 *  2: d8cb1d3 (two minutes later; the binary of the stress runs that hung):
 *     the same with the handler's interrupts on, and no second look at this
 *     pCPU's scheduler deadline once they are off (vcpu_tscdl_lower's). */
static int vcpu_opt_debug_tscdl_old;
CMDLINE_INT(debug_tscdl_old, vcpu_opt_debug_tscdl_old, 0, 2,
	    "debug (issue 17 replay): 1 = 769f00a's WRMSR fast re-entry (irqs off), "
	    "2 = d8cb1d3's (irqs on, no scheduler-deadline re-read); 0 = off");

static __attribute__((noinline)) int vcpu_exit_wrmsr_old(struct vcpu *v, uint32_t raw)
{
	enum exit_action act;
	bool irqon = vcpu_opt_debug_tscdl_old == 2;

	if (irqon)
		irq_enable();
	act = exit_dispatch(v, raw);
	if (act == EXIT_RESUME && !v->vmx.pending_exc.valid) {
		if ((uint32_t)v->vmx.regs.rcx == MSR_IA32_TSC_DEADLINE) {
			stime_t dl = vintc_timer_next(&v->vm->devs.intc, v->vmx.id);
			uint64_t t = dl > 0 ? time_ns_to_tsc(dl) : 0;

			if (dl < STIME_NEVER && t < v->fast_deadline_tsc)
				v->fast_deadline_tsc = t;
		} else {
			WRITE_ONCE(v->kicked, true);
		}
	}
	if (irqon)
		irq_disable();
	if (act == EXIT_RESUME && vcpu_fast_reentry(v))
		return VMX_EXIT_REENTER;
	irq_enable();
	return (int)act;
}

static __attribute__((noinline)) int vcpu_exit_slow(struct vcpu *v, uint32_t raw)
{
	enum exit_action act;
	bool icr = exit_is_icr_write(v, raw);
	bool tscdl = vcpu_opt_fast_tscdl && exit_is_tscdl_write(v, raw);

	if (unlikely(vcpu_opt_debug_tscdl_old) && raw == EXIT_REASON_WRMSR)
		return vcpu_exit_wrmsr_old(v, raw);
	irq_enable();
	act = exit_dispatch(v, raw);
	if ((icr || tscdl) && act == EXIT_RESUME) {
		irq_disable();
		if (tscdl)
			vcpu_tscdl_lower(v);
		if (vcpu_fast_reentry(v))
			return VMX_EXIT_REENTER;
		irq_enable();
	}
	return (int)act;
}

/* Hypercalls may run long and reach the scheduler and other pCPUs: they run
 * with interrupts on, as before the fast path (with them off, Linux guests'
 * PV-spinlock kicks deadlocked under Bochs; see docs/vmx.md). Interrupts go
 * off again before the re-entry test. As before, a scheduler deadline that a
 * hypercall or a kick taken meanwhile moved is not looked at here (doing so
 * breaks test-vprof-system's dedicated-mode accounting; docs/vmx.md). */
static __attribute__((noinline)) int vcpu_exit_vmcall(struct vcpu *v, uint32_t raw)
{
	enum exit_action act;

	irq_enable();
	act = exit_dispatch(v, raw);
	irq_disable();
	if (act == EXIT_RESUME && vcpu_fast_reentry(v))
		return VMX_EXIT_REENTER;
	irq_enable();
	return (int)act;
}

int vcpu_exit_handle(struct guest_regs *regs)
{
	struct vcpu *v = container_of(regs, struct vcpu, vmx.regs);
	uint32_t raw = vmx_exit_reason_raw();
	enum exit_action act;

	BSTAMP_EXIT(raw);

	/* A PV EOI the guest signalled in memory is performed before any
	 * handler can read ISR/PPR or inject (one flag test when not armed). */
	kvm_pv_eoi_after_exit(v, &v->kvm);
	if (!exit_reason_fast(raw))
		return vcpu_exit_slow(v, raw);
	if (raw == EXIT_REASON_VMCALL)
		return vcpu_exit_vmcall(v, raw);
	act = exit_dispatch(v, raw);
	if (act == EXIT_RESUME && vcpu_fast_reentry(v))
		return VMX_EXIT_REENTER;
	irq_enable();
	return (int)act;
}
