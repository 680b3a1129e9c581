/* The hostile guest's parts (guest-shim/tests/hostile.c: state, random
 * numbers, the op table and test_main; hostile/cpu.c: MSRs, hypercalls, CR,
 * XSETBV, TLB, CPUID; hostile/io.c: port, string and MMIO accesses;
 * hostile/apic.c: IPIs, IOAPIC, LAPIC timer, HLT, APIC base). */
#ifndef GUEST_HOSTILE_H
#define GUEST_HOSTILE_H
#include "guest.h"
#include "abi.h"

enum { C_MSR, C_PIO, C_STR, C_MMIO, C_HOLE, C_CALL, C_CR, C_XCR, C_TLB, C_CPUID,
       C_ICR, C_IOAPIC, C_TIMER, C_HLT, C_APICBASE, NR_CAT };

/* hostile.c */
extern uint32_t ops[NR_CAT], faults[NR_CAT];
extern uint32_t hole_not_ones, cr_no_gp, nmis;
extern bool under_hv, rmw, trace;
extern uint8_t scratch[3 * 4096];
extern uint64_t apic_base0;
extern volatile unsigned hlt_gsi;   /* the pin op_hlt() armed; the NMI hook spares it */
uint64_t rnd(void);                 /* xorshift64, seeded by seed= */
static inline uint32_t rnd_below(uint32_t n) { return (uint32_t)(rnd() % n); }
static inline bool one_in(uint32_t n) { return rnd_below(n) == 0; }
void note(unsigned cat, int fault);
uint64_t rnd_ptr(void);
void apic_restore(void);

/* cpu.c */
void op_msr(void);
void op_vmcall(void);
void op_cr(void);
void op_xcr(void);
void op_tlb(void);
void op_cpuid(void);
/* io.c */
void op_pio(void);
void op_str(void);
void op_apic_mmio(void);
void op_hole(void);
int mmio_access(uintptr_t a, unsigned kind, uint32_t v);
/* apic.c */
void op_icr(void);
void op_ioapic(void);
void op_timer(void);
void op_hlt(void);
void op_apicbase(void);
#endif
