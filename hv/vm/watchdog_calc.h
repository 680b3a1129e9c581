/* Hang watchdog, the pure part (issue 17): what a lock-free snapshot of a
 * vCPU says about why it is not going on. hv/vm/watchdog.c takes the
 * snapshots and reports; this file decides, so host unit tests can cover
 * every case (test/unit/test_watchdog.c). No privileged instruction.
 *
 * Two hangs the first watchdog did not see (it counted them as progress):
 *   - a vCPU blocked on a timer of its own that never ends the block (the
 *     steal test's lost LAPIC timer, docs/linux-guest.md): the timer is
 *     overdue, or it fired and the vector waits in IRR without waking the
 *     vCPU, or the vector is held back by a stale ISR bit (a lost EOI);
 *   - a livelock: exits keep coming (so the pCPU and the VM look alive) but
 *     nearly all of them are of reasons that retire no guest instruction
 *     (NMI-window, interrupt-window, preemption-timer and external-interrupt
 *     exits, EPT misconfigurations), at a rate far above what a guest's
 *     ticks and IPIs cause. */
#ifndef HV_VM_WATCHDOG_CALC_H
#define HV_VM_WATCHDOG_CALC_H
#include "types.h"
#include "compiler.h"

/* A vCPU as the checker sees it, read without locks. */
struct wd_vcpu_snap {
	bool blocked;      /* scheduler state BLOCKED (HLT, HC_SCHED_BLOCK) or balloon sleep */
	bool running;      /* scheduler state RUNNING */
	bool halted;       /* guest state halted (HLT exit taken, not yet woken) */
	bool halt_if;      /* RFLAGS.IF at that HLT */
	int irr_top;       /* highest IRR vector, -1 none */
	int isr_top;       /* highest ISR vector, -1 none */
	uint8_t tpr;       /* TPR register */
	bool apic_on;      /* vLAPIC hardware-enabled (vectors in IRR count) */
	uint8_t nmi;       /* NMIs latched */
	stime_t timer;     /* its own earliest device-timer deadline; INT64_MAX none */
};

enum wd_wait {
	WD_WAIT_OK = 0,         /* nothing wrong to be seen */
	WD_WAIT_TIMER_OVERDUE,  /* an armed timer past due by more than the limit: never advanced */
	WD_WAIT_LOST_WAKE,      /* blocked with IF=1 and a deliverable vector (IRR beats PPR) */
	WD_WAIT_PPR_HELD,       /* blocked with IF=1, IRR held back by ISR/TPR: a lost EOI? */
	WD_WAIT_IF_OFF,         /* halted with IF=0: only an NMI, INIT or a PV kick ends it */
	WD_WAIT_NR
};

/* Short name for the report ("timer-overdue", ...). */
const char *wd_wait_name(enum wd_wait w);

/* PPR from TPR and the highest ISR vector (SDM vol. 3A §11.8.3.1). */
static inline uint8_t wd_ppr(uint8_t tpr, int isr_top)
{
	uint8_t isr_class = isr_top < 0 ? 0 : (uint8_t)(isr_top & 0xf0);

	return (tpr & 0xf0) >= isr_class ? tpr : isr_class;
}

/* What is wrong with s right now (lim: the watchdog limit, ns). A vCPU that
 * is neither blocked nor running (runnable, offline, frozen) is judged by
 * the other checks. Transient states (a wake in flight) also classify as
 * wrong: the caller reports only what lasts the limit. */
enum wd_wait wd_classify(const struct wd_vcpu_snap *s, stime_t now, stime_t lim);

/* Exit reasons that retire no guest instruction (SDM vol. 3C App. C
 * numbers): a vCPU taking nearly only these makes no progress. */
bool wd_reason_no_progress(unsigned reason);
/* The no-progress reasons, for per-reason counts in a report. */
#define WD_NP_REASONS 6
extern const uint8_t wd_np_reasons[WD_NP_REASONS];
const char *wd_np_reason_name(unsigned i);   /* i indexes wd_np_reasons */

/* One watchdog window of a vCPU: all exits and no-progress exits in dt ns.
 * True when it looks like a livelock: at least per_s no-progress exits a
 * second over the window (and at least 64 of them), making 90% or more of
 * all exits. per_s 0 turns the check off. */
bool wd_livelock(uint64_t d_all, uint64_t d_np, stime_t dt, unsigned per_s);
#endif
