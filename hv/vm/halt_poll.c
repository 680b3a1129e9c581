/* The hypervisor half of halt polling (policy and window: hv/sched/haltpoll.c).
 * A vCPU that halts with nothing to take spins on its own pCPU, VMCS still
 * loaded, until a wake-up, its own device deadline, the pCPU's scheduler
 * deadline or the end of its window; a wake-up in the window resumes it
 * without sched_block, idle, kick IPI, schedule and vcpu_put/vcpu_load.
 * While v->halt_polling is set, sched_plat_notify() sends no kick IPI: the
 * notifier stores v->kicked, fences and reads halt_polling; the poller
 * stores halt_polling, fences and reads kicked (Dekker), and after clearing
 * halt_polling looks once more, so a skipped kick is never lost. */
#include "vm/halt_poll.h"
#include "vm/sched_platform.h"
#include "vm/devs.h"
#include "vm/bstamp.h"
#include "sched/sched.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/time.h"

/* The poller's wake-up test after a kick. A vector above PPR in the vLAPIC
 * of a vCPU that halted with IF = 1 is found without the VM and vintc locks
 * first: while it halts its TPR, ISR and APIC state do not change (only its
 * own execution changes them) and other pCPUs only set IRR bits, so a
 * vector found stays deliverable (issue 19: make bench-blockpath "poll
 * sees it", ~290 cycles of VM lock, vintc lock and scans before). The 8259's
 * ExtINT (vCPU 0 while the 8259 has output), NMIs, PV unhalts, scheduler
 * vectors and every negative answer take vcpu_has_wakeup(). */
bool vcpu_halt_woken(struct vcpu *v)
{
	if (v->halt_if && (v->vmx.id != 0 || !vpic_output(&v->vm->devs.intc.pic)) &&
	    vlapic_pending_peek(&v->vmx.lapic) >= 0)
		return true;
	return vcpu_has_wakeup(v);
}

static bool poll_must_stop(struct vcpu *v, struct cpu *c, stime_t t, stime_t end)
{
	return t >= end || t >= pcpu_deadline(c) || !sched_halt_poll_continue(&v->sv);
}

enum halt_poll_end vcpu_halt_poll(struct vcpu *v, stime_t now)
{
	struct cpu *c = cpu_this();
	stime_t win = sched_halt_poll_begin(&v->sv, now), t = now, dl = 0;
	/* From the HLT, not from this call: a device deadline that brings the
	 * vCPU back here (RECHECK) without an interrupt does not extend it. */
	stime_t end = (v->halt_since ? v->halt_since : now) + win;
	enum halt_poll_end r = HALT_POLL_BLOCK;

	if (!win)
		return HALT_POLL_BLOCK;
	WRITE_ONCE(v->halt_polling, true);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	WRITE_ONCE(v->kicked, true);   /* look at the vLAPIC once before spinning */
	/* The loop is what a wake-up waits for (make bench-blockpath "poll_seen"):
	 * the vLAPIC and the device deadline are read again only after a kick.
	 * Whatever changes them sets `kicked` (an interrupt: sched_plat_notify;
	 * a device deadline moved by another pCPU: sched_plat_repoll). */
	for (;;) {
		if (READ_ONCE(v->kicked)) {
			WRITE_ONCE(v->kicked, false);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			if (vcpu_halt_woken(v)) {
				r = HALT_POLL_WOKEN;
				break;
			}
			dl = vm_devs_next_deadline(v->vm, v->vmx.id);
		}
		/* Its own timer (the loop top advances it), a stopped VM or an
		 * INIT (the loop top ends the run; blocking here would leave an
		 * INIT to a halted vCPU unseen: it is no wake-up). */
		if (t >= dl || v->vm->state != VM_RUNNING || READ_ONCE(v->init_pending)) {
			r = HALT_POLL_RECHECK;
			break;
		}
		if (poll_must_stop(v, c, t, end))
			break;
		cpu_relax();
		t = time_now();
	}
	WRITE_ONCE(v->halt_polling, false);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (r == HALT_POLL_BLOCK && vcpu_has_wakeup(v))
		r = HALT_POLL_WOKEN;   /* a kick skipped just before the flag went */
	if (r != HALT_POLL_BLOCK)
		WRITE_ONCE(v->kicked, true);   /* no fast re-entry before the loop top */
	if (r == HALT_POLL_WOKEN)
		BSTAMP_HERE(BS_T_POLL);
	sched_halt_poll_end(&v->sv, now, time_now(), r != HALT_POLL_BLOCK);
	return r;
}
