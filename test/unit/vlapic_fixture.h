/* test_vlapic's fixture, shared by its three files (one per source file of
 * the vLAPIC): test_vlapic.c (vlapic.c: state, acceptance, priority, EOI,
 * NMI/LINT), vlapic_timer_cases.c (vlapic_timer.c) and vlapic_regs_cases.c
 * (vlapic_regs.c: register access, ICR, APIC base, x2APIC MSRs, APICv). */
#ifndef TEST_UNIT_VLAPIC_FIXTURE_H
#define TEST_UNIT_VLAPIC_FIXTURE_H
#include <check.h>
#include <string.h>
#include "dev/vlapic.h"
#include "errno.h"

struct vlapic_fake {            /* what the fake ops saw */
	stime_t now;
	int kicks, starts, ipis, eois;
	int start_vec;
	uint8_t eoi_vec;
	struct apic_msg ipi;
};

extern uint32_t page[1024];     /* the vLAPIC's register page */
extern struct vlapic L;
extern struct vlapic_fake F;

void setup_vcpu(unsigned vcpu);   /* a fresh vLAPIC for that vCPU, fakes zeroed */

static inline void setup(void) { setup_vcpu(0); }

static inline uint32_t rd(unsigned off)
{
	uint32_t v = 0xdeadbeef;
	ck_assert_int_eq(vlapic_mmio_read(&L, off, 4, &v), 0);
	return v;
}

static inline void wr(unsigned off, uint32_t v)
{
	ck_assert_int_eq(vlapic_mmio_write(&L, off, 4, v), 0);
}

static inline void enable(void) { wr(APIC_SVR, 0x1ff); }

static inline struct apic_msg fixed(uint8_t v, bool level)
{
	return (struct apic_msg){ .vector = v, .mode = APIC_DM_FIXED, .level_trig = level,
				  .assert = true };
}

static inline void accept(uint8_t v, bool level)
{
	struct apic_msg m = fixed(v, level);
	vlapic_accept_msg(&L, &m);
}

void vlapic_timer_cases(TCase *tc);
void vlapic_regs_cases(TCase *tc);
#endif
