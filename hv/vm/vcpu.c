/* vCPU run loop: inject pending events, arm the preemption timer for the
 * next device deadline or slice end, enter, dispatch the exit, repeat. */
#include "vm/vm.h"
#include "vmx/vmcs.h"
#include "vmx/vcpu_state.h"
#include "vmx/vmcs_setup.h"
#include "vmx/exit.h"
#include "vmx/entry.h"
#include "vmx/caps.h"
#include "vmx/apicv.h"
#include "vmx/exc_class.h"
#include "vm/sched_platform.h"
#include "vm/vprof_platform.h"
#include "vm/kvm_pv_vcpu.h"
#include "vm/vcpu_pmu.h"
#include "vm/halt_poll.h"
#include "vm/bstamp.h"
#include "vm/gmem.h"
#include "vm/vcpu_setup.h"
#include "arch/x86/cpu.h"
#include "arch/x86/time.h"
#include "arch/x86/percpu.h"
#include "arch/x86/apic.h"
#include "arch/x86/trap.h"
#include "errno.h"
#include "memory.h"
#include "lib/string.h"
#include "log.h"
#include "vm_status.h"
#include "arch/x86/exc.h"

#define RFLAGS_IF_BIT BIT(9)

static void nmi_unblock(uint32_t intr)
{
	if (intr & INTERRUPTIBILITY_NMI)
		vmx_guest_intr_state_set(intr & ~INTERRUPTIBILITY_NMI);
}

/* Re-inject an event whose delivery the exit interrupted (SDM §28.2.4, §27.6.1). */
static bool reinject_vectoring(void)
{
	uint32_t idt = vmx_idt_vectoring();

	if (!(idt & INTR_INFO_VALID))
		return false;
	vmx_entry_event(idt & ~BIT(12));
	/* An NMI whose delivery the exit interrupted is delivered again: it
	 * needs blocking by NMI clear (entry check, SDM §26.3.1.5), as KVM's
	 * __vmx_complete_interrupts() does. */
	if ((idt & (7u << 8)) == INTR_TYPE_NMI)
		nmi_unblock(vmx_guest_intr_state());
	if (idt & INTR_INFO_ERR_VALID)
		vmx_entry_event_err(vmx_idt_vectoring_err());
	if (((idt >> 8) & 7) >= 4)   /* software interrupts/exceptions need the length */
		vmx_entry_insn_len(vmx_exit_insn_len());
	return true;
}

static inline __attribute__((always_inline)) void set_proc_ctl(uint32_t bit, bool on)
{
	uint32_t proc = vmx_proc_ctls();
	uint32_t want = on ? proc | bit : proc & ~bit;

	if (want != proc)
		vmx_proc_ctls_set(want);
}

static void set_intr_window(bool on)
{
	set_proc_ctl(PROC_INTR_WINDOW, on);
}

/* Virtual NMIs (SDM §25.3, §26.7.6): the CPU keeps blocking by NMI from an
 * injected NMI until the guest's IRET, and an NMI-window exit tells when an
 * NMI can be delivered again. vmcs_setup() turns both on where the CPU has
 * them. */
static inline bool vnmi_on(void)
{
	return vmx_vnmi && vmx_ctl_has(&vmx_caps.pin, PIN_VIRTUAL_NMI) &&
	       vmx_ctl_has(&vmx_caps.proc, PROC_NMI_WINDOW);
}

/* Ask for an NMI-window exit while an NMI is latched but cannot be injected
 * now. In an STI or MOV SS shadow (which may or may not hold off an
 * NMI-window exit, depending on the CPU, SDM §26.7.6) wait for the interrupt
 * window instead, as KVM's vmx_enable_nmi_window() does for STI: returns true
 * to ask for it. */
static __attribute__((noinline)) bool nmi_window_set(struct vcpu *v, uint32_t intr)
{
	bool pending, sti;

	if (!vnmi_on())
		return false;
	pending = READ_ONCE(v->vmx.lapic.nmi_pending) != 0;
	/* Blocking by MOV SS is handled like blocking by STI: it ends after one
	 * guest instruction, at the latest at the next exit. (80c978d did this
	 * for the hostile guest's millions of NMI-window exits; their cause
	 * was the guest's own PIT-as-NMI storm, docs/interrupts.md, so this is
	 * caution, not a known Bochs behaviour.) */
	sti = pending && (intr & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOVSS)) &&
	      !(intr & INTERRUPTIBILITY_NMI);
	if (v->vmx.nmi_window != (pending && !sti)) {   /* cached: no VMREAD on the common path */
		v->vmx.nmi_window = pending && !sti;
		set_proc_ctl(PROC_NMI_WINDOW, v->vmx.nmi_window);
	}
	return sti;
}

/* nmi_window_set() when it can change anything: with no NMI latched and no
 * window asked for it does nothing, and that is the case on almost every
 * entry (one test here instead of a call and the vnmi_on() tests: the
 * apicv=off rows of make bench-exits). */
static inline bool nmi_window_update(struct vcpu *v, uint32_t intr)
{
	if (likely(!READ_ONCE(v->vmx.lapic.nmi_pending) && !v->vmx.nmi_window))
		return false;
	return nmi_window_set(v, intr);
}

/* Deliver a latched NMI if the guest can take one (SDM §26.3.1.5: entry
 * with an NMI needs no blocking by NMI or MOV SS, and depending on the CPU
 * none by STI). With virtual NMIs a blocked NMI stays latched, at most one
 * while the guest is in its handler (KVM's process_nmi()), and the
 * NMI-window exit brings it in after IRET. Without them the blocking that an
 * injected NMI leaves cannot be seen to end at IRET (§25.3: with NMI
 * exiting IRET does not touch it), so it is cleared here, and an NMI may
 * nest in the guest's NMI handler. Called with the VM lock; true when an
 * NMI was injected. */
static __attribute__((noinline)) bool inject_nmi(struct vcpu *v, uint32_t intr)
{
	struct vintc *ic = &v->vm->devs.intc;
	bool vnmi = vnmi_on();

	if (vnmi && (intr & INTERRUPTIBILITY_NMI)) {
		vintc_nmi_take(ic, v->vmx.id, true);   /* trims the latch to one */
		return false;
	}
	if ((intr & (INTERRUPTIBILITY_MOVSS | INTERRUPTIBILITY_STI)) ||
	    !vintc_nmi_take(ic, v->vmx.id, false))
		return false;
	if (!vnmi)
		nmi_unblock(intr);
	v->nmi_injected = vnmi;
	vmx_entry_event(INTR_INFO_VALID | INTR_TYPE_NMI | X86_EXC_NMI);
	return true;
}

/* Lock-free "could anything need injecting?": an NMI, the 8259 output for
 * the vCPU that takes ExtINT, or (without virtual-interrupt delivery) any IRR
 * bit. A change made after this look kicks the vCPU, so nothing is lost;
 * false positives only take the locked path below. */
static bool intr_maybe_pending(struct vcpu *v, bool vid)
{
	const volatile uint32_t *irr = (const uint32_t *)v->vmx.apic_page + APIC_IRR / 4;

	if (READ_ONCE(v->vmx.lapic.nmi_pending))
		return true;
	if (v->vmx.id == 0 && vpic_output(&v->vm->devs.intc.pic))
		return true;
	return !vid && (irr[0] | irr[4] | irr[8] | irr[12] | irr[16] | irr[20] | irr[24] | irr[28]);
}

/* With virtual-interrupt delivery the CPU delivers what the vLAPIC's IRR
 * holds (RVI, SDM §30.2); only ExtINT from the 8259 is injected. */
static int pending_vector(struct vcpu *v, bool vid)
{
	int vec = vintc_pending(&v->vm->devs.intc, v->vmx.id);

	if (vid && vec >= 0 && vlapic_vec_test(&v->vmx.lapic, APIC_IRR, (uint8_t)vec))
		return -1;
	return vec;
}

/* Choose what the next entry delivers: a re-injected event, a queued
 * exception, then an external interrupt from the vLAPIC when the guest can
 * take one, else ask for an interrupt-window exit (SDM §26.6.5). APIC
 * virtualization state (RVI/SVI, TPR threshold) is refreshed first.
 * Returns whether virtual-interrupt delivery is on for this entry. */
static bool inject_events(struct vcpu *v)
{
	__typeof__(v->vmx.pending_exc) *e = &v->vmx.pending_exc;
	struct vintc *ic = &v->vm->devs.intc;
	bool vid = apicv_entry(&v->vmx);
	uint32_t intr, info;
	bool nmi_sti, after_exit = v->exit_unconsumed;
	int vec;

	v->exit_unconsumed = false;
	if (after_exit && reinject_vectoring()) {
		if (vid)
			apicv_hold_rvi(&v->vmx);   /* the handler runs with IF=0 (vmx/apicv_calc.h) */
		if (nmi_window_update(v, vmx_guest_intr_state()) || v->vmx.vid_window)
			set_intr_window(true);
		return vid;
	}
	if (e->valid) {
		uint64_t fl = vmx_guest_rflags();

		if (exc_inject_rflags(fl, e->vector) != fl)   /* pushed RF=1 (exc_class.h) */
			vmx_guest_rflags_set(exc_inject_rflags(fl, e->vector));
		info = INTR_INFO_VALID | INTR_TYPE_HW_EXC | e->vector;
		if (e->has_err) {
			info |= INTR_INFO_ERR_VALID;
			vmx_entry_event_err(e->err);
		}
		vmx_entry_event(info);
		e->valid = false;
		if (vid)
			apicv_hold_rvi(&v->vmx);
		if (nmi_window_update(v, vmx_guest_intr_state()) || v->vmx.vid_window)
			set_intr_window(true);
		return vid;
	}
	if (!intr_maybe_pending(v, vid)) {
		/* An NMI window is turned off by its exit; a held RVI needs one. */
		set_intr_window(v->vmx.vid_window);
		return vid;
	}
	intr = vmx_guest_intr_state();
	spin_lock(&v->vm->lock);
	if (unlikely(READ_ONCE(v->vmx.lapic.nmi_pending)) && inject_nmi(v, intr)) {
		spin_unlock(&v->vm->lock);
		nmi_window_update(v, 0);   /* a second NMI latched: after this one's IRET */
		if (v->vmx.vid_window)
			set_intr_window(true);
		return vid;
	}
	nmi_sti = nmi_window_update(v, intr);
	if (!vid && (vmx_guest_rflags() & RFLAGS_IF_BIT) &&
	    !(intr & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOVSS))) {
		/* The guest can take an interrupt now (so no STI shadow, and
		 * nmi_sti is false): vintc_ack() finds the one vintc_pending()
		 * would, so one locked pass instead of two (make bench-exits,
		 * apicv=off rows). */
		vec = vintc_ack(ic, v->vmx.id);
		spin_unlock(&v->vm->lock);
		if (vec >= 0)
			vmx_entry_event(INTR_INFO_VALID | INTR_TYPE_EXT | (uint32_t)vec);
		set_intr_window(false);
		return vid;
	}
	vec = pending_vector(v, vid);
	if (vec >= 0 && (vmx_guest_rflags() & RFLAGS_IF_BIT) &&
	    !(intr & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOVSS))) {
		vec = vintc_ack(ic, v->vmx.id);
		spin_unlock(&v->vm->lock);
		if (vec >= 0) {
			vmx_entry_event(INTR_INFO_VALID | INTR_TYPE_EXT | (uint32_t)vec);
			if (vid)
				apicv_hold_rvi(&v->vmx);
		}
		set_intr_window(v->vmx.vid_window);
		return vid;
	}
	spin_unlock(&v->vm->lock);
	set_intr_window(vec >= 0 || nmi_sti || v->vmx.vid_window);
	return vid;
}

/* A halted vCPU wakes on any interrupt the vLAPIC holds (even with IF=0 the
 * guest leaves HLT only for an interrupt it can take, so check IF too). */
bool vcpu_has_wakeup(struct vcpu *v)
{
	bool r;

	/* HLT with interrupts off ends only for an NMI (or INIT/SIPI); not for
	 * one the guest blocks (HLT in its NMI handler, virtual NMIs). */
	if (unlikely(READ_ONCE(v->vmx.lapic.nmi_pending)) &&
	    !(v->halted && v->halt_nmi_blocked))
		return true;
	if (kvm_pv_unhalt_pending(v))
		return true;
	if (v->halted && !v->halt_if)
		return false;
	if (dev_sweep_vectors_pending(v))   /* scheduler upcalls (PV ABI v1) */
		return true;
	spin_lock(&v->vm->lock);
	r = vintc_wake_pending(&v->vm->devs.intc, v->vmx.id) >= 0;   /* may run elsewhere */
	spin_unlock(&v->vm->lock);
	return r;
}

/* Copy the top of the guest stack for the watchdog dump (rare paths only:
 * an HLT with IF=0, or the dump asked). Up to the end of RSP's page if the
 * next page is not mapped. */
static void dbg_snap_stack(struct vcpu *v, uint64_t rip)
{
	uint64_t rsp = vmx_guest_rsp();
	size_t n = sizeof(v->dbg.stack);

	v->dbg.snap_req = false;
	v->dbg.snap_rip = rip;
	v->dbg.snap_rsp = rsp;
	if (guest_read_linear(v, rsp, v->dbg.stack, n)) {
		n = MIN(n, PAGE_SIZE - (rsp & (PAGE_SIZE - 1)));
		if (guest_read_linear(v, rsp, v->dbg.stack, n))
			n = 0;
	}
	v->dbg.nstack = (unsigned)(n / 8);
}

/* Also records, for vcpu_fast_reentry() (vm/vcpu_exit.c), the TSC of the
 * deadline, capped so that the remaining ticks always fit the 32-bit timer
 * field (past the cap the slow path re-arms). */
static void arm_preemption_timer(struct vcpu *v, stime_t now)
{
	stime_t dl = MIN(vm_devs_next_deadline(v->vm, v->vmx.id), pcpu_deadline(cpu_this()));
	uint64_t ticks = 0, cap = rdtsc() + (0xffffffffull << vmx_caps.preempt_timer_shift);

	/* The time left from the loop top's `now`, as before (a deadline the
	 * loop top saw ahead always lets the guest run: counted from the TSC
	 * here instead, a device deadline a few hundred ns ahead, a hostile
	 * guest's 1-count PIT, gave 0 ticks at every entry and livelocked it),
	 * but as a difference of two TSC values (time_ns_to_tsc: a multiply and
	 * a shift) instead of a 128-bit division by 1e9 (libgcc's __udivti3 on
	 * every slow-path entry; issue 18's HLT-wake figure). Beyond 2^40 ns
	 * (18 minutes) the 32-bit field is full anyway. */
	if (dl > now && dl - now >= ((stime_t)1 << 40)) {
		ticks = 0xffffffffull;
	} else if (dl > now) {
		uint64_t tdl = time_ns_to_tsc(dl), tsc = rdtsc();

		/* To the deadline from here when it is still ahead (the exit
		 * comes on time, not the loop's length late); else what the
		 * loop top saw left, so the guest always runs. */
		ticks = (tdl > tsc ? tdl - tsc : tdl - time_ns_to_tsc(now)) >>
			vmx_caps.preempt_timer_shift;
	}
	v->fast_deadline_tsc = dl >= STIME_NEVER ? cap : dl > now ? MIN(time_ns_to_tsc(dl), cap) : 0;
	vmx_preempt_timer_set((uint32_t)MIN(ticks, 0xffffffffull));
}

static bool handle_start_signals(struct vcpu *v)
{
	int sipi;

	if (READ_ONCE(v->init_pending)) {
		WRITE_ONCE(v->init_pending, false);
		if (v->vmx.id != 0) {
			WRITE_ONCE(v->halted, false);
			WRITE_ONCE(v->wait_sipi, true);
		}
	}
	if (!READ_ONCE(v->wait_sipi))
		return true;
	sipi = READ_ONCE(v->sipi_vector);
	if (sipi < 0)
		return false;
	WRITE_ONCE(v->sipi_vector, -1);
	vmcs_guest_sipi((uint8_t)sipi);
	v->exit_unconsumed = false;   /* an event interrupted before INIT is gone */
	memset(&v->vmx.regs, 0, sizeof(v->vmx.regs));
	WRITE_ONCE(v->wait_sipi, false);
	return true;
}

/* Make v's VMCS current on this pCPU: build it the first time; after a
 * migration refresh the per-pCPU host state and flush the VPID's stale
 * translations here (guest INVLPGs elsewhere did not reach this TLB). */
static int vcpu_load(struct vcpu *v)
{
	struct cpu *c = cpu_this();
	int cpu = (int)this_cpu_id();
	int at;
	bool asked = false;

	/* The pCPU that ran v last may not have put it yet: a vCPU becomes
	 * stealable as soon as the scheduler requeues it, before that pCPU's
	 * loop reaches vcpu_put (the run-time policy switch's install widens
	 * this window: hv/sched/switch.c). VMPTRLD of a VMCS still active on
	 * another processor, and its later VMCLEAR there, corrupt the guest
	 * state and the launch state (SDM Vol. 3 §25.1, §25.11.3). */
	while ((at = __atomic_load_n(&v->vmcs_active, __ATOMIC_ACQUIRE)) >= 0 && at != cpu) {
		/* Parked on an idle pCPU (vm/pcpu_loop.c, issue 19): only
		 * that pCPU may VMCLEAR it (§25.11.3), so ask it. Re-read
		 * every round: it may park v after the first look. The owner
		 * stores `parked`, fences and reads unpark_req before halting;
		 * the IPI wakes it if it halted first. */
		if (!asked && READ_ONCE(cpus[at].sched.parked) == v) {
			WRITE_ONCE(v->unpark_req, true);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			apic_send_ipi(percpu_area[at].apic_id, VEC_KICK);
			asked = true;
		}
		cpu_relax();
	}
	WRITE_ONCE(v->vmcs_active, cpu);
	/* Still current here (parked while the pCPU idled, or run again
	 * right after a preemption): no VMPTRLD needed (SDM Vol. 3 §25.1:
	 * the current-VMCS pointer is unchanged; only vcpu_put's VMCLEAR or
	 * another vCPU's load changes it). */
	if (c->sched.vmcs_cur == v && v->vmcs_cpu == cpu)
		return 0;
	if (!v->vmcs) {
		if (vcpu_vmcs_setup(v))
			return -1;
		vcpu_pmu_vmcs_setup();   /* guest-only counting (vm/vcpu_pmu.h) */
		if (v->vmx.id == 0) {
			vcpu_load_entry(v, &v->vm->entry);
			/* Guest TSC = host TSC + offset (SDM §25.3): make bench-linux-boot. */
			pr_info("%s: vcpu0 first entry tsc=%llu\n", v->vm->p.name,
				(unsigned long long)(rdtsc() + vmx_tsc_offset()));
		}
		vmx_flush_ept(&v->vm->vmx.ept);
		v->vmcs_cpu = cpu;
		c->sched.vmcs_cur = v;
		return 0;
	}
	if (vmcs_load(v->vmcs))
		return -1;
	c->sched.vmcs_cur = v;
	if (v->vmcs_cpu != cpu) {
		vmcs_host_refresh();
		vmx_flush_vpid();
		vmx_flush_ept(&v->vm->vmx.ept);
		v->vmcs_cpu = cpu;
	}
	return 0;
}

void vcpu_put(struct vcpu *v)
{
	vcpu_pmu_vcpu_put(v);
	fpu_release(&v->vmx.fpu);
	if (v->vmcs && !vmcs_clear(v->vmcs))
		v->launched = false;
	cpu_this()->sched.vmcs_cur = NULL;   /* VMCLEAR of the current VMCS clears the pointer */
	WRITE_ONCE(v->unpark_req, false);
	__atomic_store_n(&v->vmcs_active, -1, __ATOMIC_RELEASE);   /* another pCPU may load it */
}

enum vcpu_run_end vcpu_run(struct vcpu *v)
{
	struct cpu *c = cpu_this();
	bool looped = false;   /* at least one exit handled in this call */
	unsigned long kicks;   /* this pCPU's kick count at the need_resched test */

	if (vcpu_load(v)) {
		vm_stop(v->vm, VM_STOP_VMX_FAILED, "vmcs-load-failed");
		return VCPU_RUN_OFFLINE;
	}
	BSTAMP_HERE(BS_T_LOAD);
	if (kvm_pv_tlb_flush_take(v))   /* PV TLB flush requested while preempted */
		vmx_flush_vpid();
	v->resched = pcpu_resched_flag(c);
	for (;;) {
		stime_t now;
		int act;

		if (v->vm->state != VM_RUNNING) {
			/* Dead: no longer halted nor waiting for a SIPI. */
			WRITE_ONCE(v->halted, false);
			WRITE_ONCE(v->wait_sipi, false);
			return VCPU_RUN_OFFLINE;
		}
		if (!handle_start_signals(v))
			return VCPU_RUN_OFFLINE;
		now = time_now();
		/* vm_cpu_loop() polled just before it chose v (issue 19: the
		 * second poll cost every wake-up ~180 cycles for nothing). */
		if (looped)
			dev_sweep_poll(c, now);
		BSTAMP_HERE(BS_T_GPOLL);
		/* Read before the test: a kick counted after it is compared with
		 * interrupts off just before the entry (below). */
		kicks = READ_ONCE(c->sched.kicks);
		if (pcpu_need_resched(c)) {
			/* For directed yield: preempted in guest kernel mode?
			 * CPL = SS.DPL (SDM vol. 3 §24.4.1), bits 6:5 of the AR. */
			sched_vcpu_guest_mode(&v->sv,
					      !vmx_guest_cpl());
			return VCPU_RUN_PREEMPTED;
		}
		if (unlikely(!sched_plat_entry_ok(v, c)))
			return VCPU_RUN_OFFLINE;
		vm_devs_advance(v->vm, v->vmx.id, now);
		if (v->halted) {
			if (!v->halt_since)
				v->halt_since = now;
			/* Back from a block (this call did not see the HLT):
			 * it was woken, so the lock-free test first (issue 19,
			 * bench-blockpath "devices": VM and vintc locks and
			 * scans). Right after the HLT exit the answer is
			 * mostly no, and the peek would only add to it. */
			if (!(looped ? vcpu_has_wakeup(v) : vcpu_halt_woken(v))) {
				enum halt_poll_end hp = vcpu_halt_poll(v, now);

				if (hp == HALT_POLL_BLOCK)
					return VCPU_RUN_BLOCKED;
				if (hp == HALT_POLL_RECHECK)
					continue;
				/* The kicks that woke it while it polled need no
				 * re-raise; one that asked for a reschedule
				 * meanwhile goes to the loop top's test. */
				kicks = READ_ONCE(c->sched.kicks);
				if (pcpu_need_resched(c))
					continue;
				now = time_now();
			}
			/* KVM-style halt-poll window update (hv/sched/haltpoll.c). */
			sched_halt_poll_update(&v->sv, now - v->halt_since);
			v->halt_since = 0;
			kvm_pv_unhalt_clear(v);
			WRITE_ONCE(v->halted, false);
		}
		BSTAMP_HERE(BS_T_DEVS);
		WRITE_ONCE(v->kicked, false);
		sched_plat_deliver_pending(v);
		kvm_pv_eoi_before_entry(v, inject_events(v));
		BSTAMP_HERE(BS_T_INJECT);
		fpu_switch_to(&v->vmx.fpu);
		arm_preemption_timer(v, now);
		/* The per-vCPU PLE window the scheduler adapts (hv/sched/ple.c). */
		if (v->ple_window_set && v->sv.ple_window && v->ple_window_set != v->sv.ple_window) {
			v->ple_window_set = v->sv.ple_window;
			vmx_ple_window_set(v->ple_window_set);
		}
		/* Simple exits are handled and re-entered from inside vmx_enter
		 * (vcpu_exit_handle); it returns with the first exit that needs
		 * this loop, interrupts on. */
		irq_disable();
		/* A kick (VEC_KICK) taken since the need_resched test above ran its
		 * no-op handler with interrupts on and left nothing pending, so the
		 * guest would run to its next exit (a spinning one: the armed
		 * deadline, up to a tick) with a reschedule, a new vector or an
		 * earlier deadline waiting: a wake-up's BOOST lost until the next
		 * tick (docs/sched.md "1-inter futex slow modes"). Raise it again:
		 * pending now, it exits right after the entry, as a kick that
		 * comes after this point does (external-interrupt exiting). Every
		 * kick's handler and every kick of this pCPU by itself (a wake-up
		 * by vm_devs_advance, say) count in sched.kicks, so one compare
		 * finds them (5ddd985 tested kicked, need_resched and the
		 * deadline again: 25-35 more cycles per entry in Bochs). */
		if (unlikely(READ_ONCE(c->sched.kicks) != kicks)) {
			v->nrekick++;
			apic_send_ipi(percpu_area[this_cpu_id()].apic_id, VEC_KICK);
		}
		BSTAMP_ENTRY();
		act = vmx_enter(&v->vmx.regs, v->launched);
		if (act == VMX_ENTER_FAILED) {
			irq_enable();
			pr_err("%s: vcpu%u: VM entry failed, VM-instruction error %u\n",
			       v->vm->p.name, v->vmx.id, vmx_insn_error());
			vmcs_dump();
			vm_stop(v->vm, VM_STOP_VMX_FAILED, "vmentry-failed");
			return VCPU_RUN_OFFLINE;
		}
		v->launched = true;
		/* Kept in the vCPU, not the loop: an exit during event delivery
		 * (a host interrupt, say) followed by preemption at the loop top
		 * must still have its event re-injected at the next entry, in a
		 * later vcpu_run() (SDM §28.2.4, §27.6.1). */
		v->exit_unconsumed = true;
		looped = true;
		if (act == EXIT_STOPPED)
			return VCPU_RUN_OFFLINE;
		if (act == EXIT_BLOCK) {
			uint64_t fl = vmx_guest_rflags();

			BSTAMP_HERE(BS_HLT);
			v->halt_if = fl & RFLAGS_IF_BIT;
			v->dbg.halt_rflags = fl;
			v->dbg.halt_rip = vmx_guest_rip();
			if (!v->halt_if || unlikely(v->dbg.snap_req))
				dbg_snap_stack(v, v->dbg.halt_rip);
			/* Only a guest that was ever given an NMI can be blocked by one. */
			if (unlikely(v->nmi_injected))
				v->halt_nmi_blocked = vmx_guest_intr_state() &
						      INTERRUPTIBILITY_NMI;
			WRITE_ONCE(v->halted, true);   /* blocks at the top unless an IRQ waits */
		}
		else if (act == EXIT_YIELD) {
			v->dbg.ple_rip = vmx_guest_rip();
			if (unlikely(v->dbg.snap_req))
				dbg_snap_stack(v, v->dbg.ple_rip);
			return VCPU_RUN_YIELD;
		} else if (unlikely(v->dbg.snap_req))
			dbg_snap_stack(v, vmx_guest_rip());
	}
}
