/* The hvfuzz guest's parts (guest-shim/tests/hvfuzz.c: per-vCPU state,
 * random numbers, interrupt hooks, the op table, the run and its checks;
 * hvfuzz/cpu.c: hypercalls, MSRs, CR/XCR/DR, CPUID, TLB; hvfuzz/io.c:
 * ports, MMIO, IPIs, IOAPIC, LAPIC timer, NMI storms, HLT; hvfuzz/race.c:
 * issue 10's page-table race, 64-bit build). */
#ifndef GUEST_HVFUZZ_H
#define GUEST_HVFUZZ_H
#include "guest.h"
#include "abi.h"

enum { C_CALL, C_MSR, C_PIO, C_LAPIC, C_HOLE, C_IPI, C_IOAPIC, C_TIMER, C_CR, C_XCR,
       C_DR, C_NMI, C_CPUID, C_TLB, C_HLT, NR_CAT };

struct fz {
	uint64_t rng;
	unsigned cpu;
	uint32_t ops[NR_CAT], faults[NR_CAT];
	uint32_t cr_no_gp;
	uint8_t scratch[2 * 4096] __attribute__((aligned(4096)));
};

/* hvfuzz.c */
extern unsigned long opt_race;            /* race=N: calls of the page-table race */
uint64_t rnd(struct fz *f);               /* xorshift64, per vCPU, seeded by seed= */
static inline uint32_t below(struct fz *f, uint32_t n) { return (uint32_t)(rnd(f) % n); }
static inline bool one_in(struct fz *f, uint32_t n) { return below(f, n) == 0; }
void note(struct fz *f, unsigned cat, int fault);
uint64_t rnd_ptr(struct fz *f);
uint64_t tame_ptr(struct fz *f, uint64_t p);

/* cpu.c */
void op_call(struct fz *f);
void op_msr(struct fz *f);
void op_cr(struct fz *f);
void op_xcr(struct fz *f);
void op_dr(struct fz *f);
void op_cpuid(struct fz *f);
void op_tlb(struct fz *f);
/* io.c */
void op_pio(struct fz *f);
void op_lapic(struct fz *f);
void op_hole(struct fz *f);
void op_ipi(struct fz *f);
void op_nmi_storm(struct fz *f);
void op_ioapic(struct fz *f);
void op_timer(struct fz *f);
void op_hlt(struct fz *f);
/* race.c (64-bit build) */
extern uint32_t race_pf, race_calls;
bool race_setup(void);
void race_run(struct fz *f);
#endif
