/* Per-stage TSC stamps of the block/wake path (issue 19, docs/vmx.md "Where
 * a wake-up goes"), compiled in only for `make bench-blockpath`
 * (-DHV_BENCH_STAMPS=1, build/stamps/hv.elf); in every other build the
 * macros are empty. One record per target pCPU: the target's HLT exit,
 * block and idle entry, then the sender's exit, notify and kick IPI, and the
 * target's kick interrupt (or its halt poll noticing the wake-up), schedule,
 * VMCS load and VM entry. At the entry the record's consecutive stages are
 * added to per-class totals (peer blocked / peer polling / peer running)
 * that the end-of-run summary prints as "BSTAMP ..." lines. Stamps taken on
 * different pCPUs compare because Bochs has one TSC for all CPUs. */
#ifndef HV_VM_BSTAMP_H
#define HV_VM_BSTAMP_H
#include "types.h"

enum bstamp {
	BS_HLT,        /* target: HLT exit handled */
	BS_BLOCK,      /* target: vcpu_run returned BLOCKED, sched_block done */
	BS_IDLE,       /* target pCPU: about to halt in idle_wait */
	BS_S_EXIT,     /* sender: VM exit of its ICR write (exit handler entry) */
	BS_S_NOTIFY,   /* sender: sched_plat_notify for the target */
	BS_S_KICK,     /* sender: kick IPI sent (absent: none needed) */
	BS_T_IRQ,      /* target pCPU: kick interrupt handler */
	BS_T_POLL,     /* target: its halt poll saw the wake-up */
	BS_T_SCHED,    /* target pCPU: sched_schedule picked the vCPU */
	BS_T_LOAD,     /* target: VMCS loaded (vcpu_load) */
	BS_T_GPOLL,    /* target: loop top, dev_sweep_poll done */
	BS_T_DEVS,     /* target: vm_devs_advance and the halted test done */
	BS_T_INJECT,   /* target: scheduler vectors delivered, inject_events done */
	BS_T_ENTRY,    /* target: about to VM-enter with the interrupt pending */
	BS_N
};

#ifdef HV_BENCH_STAMPS
void bstamp_exit(uint32_t raw);                /* this pCPU took a VM exit */
void bstamp_target(unsigned pcpu, enum bstamp s);  /* stage s of pcpu's record */
void bstamp_sender(unsigned target_pcpu);      /* copy this pCPU's exit stamp */
void bstamp_timer(uint64_t deadline_tsc);      /* this pCPU woke a vCPU for its timer */
void bstamp_here(enum bstamp s);               /* stage s of this pCPU's record */
void bstamp_entry(void);                       /* this pCPU enters: close the record */
void bstamp_print(void);
#define BSTAMP_EXIT(raw)         bstamp_exit(raw)
#define BSTAMP_TARGET(cpu, s)    bstamp_target(cpu, s)
#define BSTAMP_SENDER(cpu)       bstamp_sender(cpu)
#define BSTAMP_TIMER(dl)         bstamp_timer(dl)
#define BSTAMP_HERE(s)           bstamp_here(s)
#define BSTAMP_ENTRY()           bstamp_entry()
#define BSTAMP_PRINT()           bstamp_print()
#else
#define BSTAMP_EXIT(raw)         do { (void)(raw); } while (0)
#define BSTAMP_TARGET(cpu, s)    do { (void)(cpu); } while (0)
#define BSTAMP_SENDER(cpu)       do { (void)(cpu); } while (0)
#define BSTAMP_TIMER(dl)         do { } while (0)
#define BSTAMP_HERE(s)           do { } while (0)
#define BSTAMP_ENTRY()           do { } while (0)
#define BSTAMP_PRINT()           do { } while (0)
#endif
#endif
