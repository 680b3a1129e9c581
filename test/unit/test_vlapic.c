/* Unit tests for hv/dev/vlapic*.c: registers, priority, EOI, timer, ICR, x2APIC.
 * This file: the fixture and vlapic.c's tests; the timer's and the register
 * interface's are in vlapic_timer_cases.c and vlapic_regs_cases.c. */
#include "check_run.h"
#include "vlapic_fixture.h"

uint32_t page[1024] __attribute__((aligned(4096)));
struct vlapic L;
struct vlapic_fake F;

static void f_ipi(void *c, struct vlapic *src, const struct apic_msg *m) { F.ipis++; F.ipi = *m; }
static void f_eoi(void *c, uint8_t v) { F.eois++; F.eoi_vec = v; }
static stime_t f_tsc(void *c, uint64_t tsc) { return (stime_t)(tsc / 2); }  /* 2 GHz TSC */
static void f_kick(void *c, unsigned v) { F.kicks++; }
static void f_start(void *c, unsigned v, int vec) { F.starts++; F.start_vec = vec; }
static stime_t f_now(void *c) { return F.now; }
static const struct vlapic_ops ops = { f_ipi, f_eoi, f_tsc, f_kick, f_start, f_now, NULL };

void setup_vcpu(unsigned vcpu)
{
	memset(&F, 0, sizeof(F));
	F.now = 1000;
	vlapic_init(&L, page, vcpu, &ops);
}

START_TEST(test_reset_state)
{
	setup_vcpu(3);
	ck_assert_uint_eq(rd(APIC_ID), 3u << 24);
	ck_assert_uint_eq(rd(APIC_VERSION), VLAPIC_VERSION);
	ck_assert_uint_eq(rd(APIC_SVR), 0xff);
	ck_assert_uint_eq(rd(APIC_DFR), 0xffffffffu);
	for (unsigned o = APIC_LVT_TIMER; o <= APIC_LVT_ERROR; o += 16)
		ck_assert_uint_eq(rd(o), APIC_LVT_MASKED);
	ck_assert(!(L.apic_base & APIC_BASE_BSP));
	ck_assert_uint_eq(L.apic_base & APIC_BASE_ADDR, 0xfee00000u);
	ck_assert(L.sipi_armed);
	setup_vcpu(0);
	ck_assert(L.apic_base & APIC_BASE_BSP);
	ck_assert(!L.sipi_armed);
	ck_assert(vlapic_hw_enabled(&L) && !vlapic_sw_enabled(&L));
}
END_TEST

START_TEST(test_sw_disable_drops_fixed)
{
	setup();
	accept(0x40, false);
	ck_assert_int_eq(vlapic_pending(&L), -1);
	ck_assert(!vlapic_vec_test(&L, APIC_IRR, 0x40));
	enable();
	accept(0x40, false);
	ck_assert_int_eq(vlapic_pending(&L), 0x40);
	ck_assert_int_eq(F.kicks, 1);
	/* software disable masks LVTs and they stay masked */
	wr(APIC_LVT_LINT0, 0x700);
	ck_assert_uint_eq(rd(APIC_LVT_LINT0), 0x700);
	wr(APIC_SVR, 0xff);
	ck_assert(rd(APIC_LVT_LINT0) & APIC_LVT_MASKED);
	wr(APIC_LVT_LINT0, 0x700);
	ck_assert(rd(APIC_LVT_LINT0) & APIC_LVT_MASKED);
}
END_TEST

/* The wake-up test for a vCPU that may be running: the same answers as
 * vlapic_pending() in every priority case, and the page's PPR untouched. */
START_TEST(test_pending_peek)
{
	setup();
	enable();
	ck_assert_int_eq(vlapic_pending_peek(&L), -1);
	accept(0x52, false);
	ck_assert_int_eq(vlapic_ack(&L, 0x52), 0);      /* 0x52 in service, PPR 0x50 */
	accept(0x5f, false);
	L.regs[APIC_PPR / 4] = 0xee;                    /* what the CPU left there */
	ck_assert_int_eq(vlapic_pending_peek(&L), -1);  /* same class: held */
	ck_assert_uint_eq(L.regs[APIC_PPR / 4], 0xee);
	accept(0x61, false);
	ck_assert_int_eq(vlapic_pending_peek(&L), 0x61);
	ck_assert_uint_eq(L.regs[APIC_PPR / 4], 0xee);
	L.regs[APIC_TPR / 4] = 0x70;
	ck_assert_int_eq(vlapic_pending_peek(&L), -1);
	ck_assert_int_eq(vlapic_pending(&L), -1);       /* agrees; this one stores PPR */
	ck_assert_uint_eq(L.regs[APIC_PPR / 4], 0x70);
	L.regs[APIC_TPR / 4] = 0x00;
	ck_assert_int_eq(vlapic_pending_peek(&L), 0x61);
	ck_assert_int_eq(vlapic_pending(&L), 0x61);
}
END_TEST

START_TEST(test_priority_rules)
{
	setup();
	enable();
	accept(0x31, false);
	accept(0x52, false);
	ck_assert_int_eq(vlapic_pending(&L), 0x52);
	ck_assert_int_eq(vlapic_ack(&L, 0x52), 0);
	ck_assert(vlapic_vec_test(&L, APIC_ISR, 0x52));
	ck_assert(!vlapic_vec_test(&L, APIC_IRR, 0x52));
	ck_assert_uint_eq(rd(APIC_PPR), 0x50);
	accept(0x5f, false);                     /* same class as in service: blocked */
	ck_assert_int_eq(vlapic_pending(&L), -1);
	accept(0x61, false);
	ck_assert_int_eq(vlapic_pending(&L), 0x61);
	wr(APIC_TPR, 0x70);                      /* TPR above: nothing deliverable */
	ck_assert_uint_eq(rd(APIC_PPR), 0x70);
	ck_assert_int_eq(vlapic_pending(&L), -1);
	ck_assert_uint_eq(vlapic_tpr_threshold(&L), 6);
	wr(APIC_TPR, 0x35);                      /* TPR below ISR class: PPR = ISRV class */
	ck_assert_uint_eq(rd(APIC_PPR), 0x50);
	wr(APIC_TPR, 0x57);                      /* same class: PPR = TPR */
	ck_assert_uint_eq(rd(APIC_PPR), 0x57);
	wr(APIC_TPR, 0x35);
	wr(APIC_EOI, 0);
	ck_assert(!vlapic_vec_test(&L, APIC_ISR, 0x52));
	ck_assert_uint_eq(rd(APIC_PPR), 0x35);
	ck_assert_int_eq(vlapic_pending(&L), 0x61);
	ck_assert_int_eq(vlapic_ack(&L, 0x61), 0);
	ck_assert_int_eq(vlapic_pending(&L), -1);   /* 0x5f below in-service 0x61 */
	wr(APIC_EOI, 0);
	ck_assert_int_eq(vlapic_pending(&L), 0x5f);
	wr(APIC_TPR, 0x5f);                      /* TPR class 5 blocks class 5 */
	ck_assert_int_eq(vlapic_pending(&L), -1);
	ck_assert_int_eq(vlapic_ack(&L, 0x99), -EINVAL);
	ck_assert_int_eq(F.eois, 0);
}
END_TEST

START_TEST(test_eoi_level_broadcast)
{
	setup();
	enable();
	accept(0x40, true);
	accept(0x80, false);
	ck_assert(vlapic_vec_test(&L, APIC_TMR, 0x40));
	ck_assert(!vlapic_vec_test(&L, APIC_TMR, 0x80));
	ck_assert_int_eq(vlapic_ack(&L, 0x80), 0);
	wr(APIC_EOI, 0);
	ck_assert_int_eq(F.eois, 0);             /* edge: no broadcast */
	ck_assert_int_eq(vlapic_ack(&L, 0x40), 0);
	wr(APIC_EOI, 0);
	ck_assert_int_eq(F.eois, 1);
	ck_assert_uint_eq(F.eoi_vec, 0x40);
	wr(APIC_EOI, 0);                         /* nothing in service: no-op */
	ck_assert_int_eq(F.eois, 1);
}
END_TEST

START_TEST(test_esr_and_error_lvt)
{
	setup();
	enable();
	wr(APIC_LVT_ERROR, 0xfe);
	accept(0x05, false);                     /* illegal vector */
	ck_assert_uint_eq(rd(APIC_ESR), 0);      /* not latched yet */
	wr(APIC_ESR, 0);
	ck_assert_uint_eq(rd(APIC_ESR), APIC_ESR_RECV_ILLEGAL);
	ck_assert_int_eq(vlapic_pending(&L), 0xfe);
	wr(APIC_ICR_LO, 0x00000003);             /* send illegal vector */
	ck_assert_int_eq(F.ipis, 0);
	wr(APIC_ESR, 0);
	ck_assert_uint_eq(rd(APIC_ESR), APIC_ESR_SEND_ILLEGAL);
	wr(APIC_ESR, 0);
	ck_assert_uint_eq(rd(APIC_ESR), 0);
	/* an illegal error vector does not recurse forever */
	wr(APIC_LVT_ERROR, 0x02);
	accept(0x01, false);
	wr(APIC_ESR, 0);
	ck_assert_uint_eq(rd(APIC_ESR), APIC_ESR_RECV_ILLEGAL);
}
END_TEST

START_TEST(test_nmi_and_lvt_lint)
{
	struct apic_msg nmi = { .mode = APIC_DM_NMI };

	setup();
	ck_assert(!vlapic_nmi_take(&L, false));
	vlapic_accept_msg(&L, &nmi);
	ck_assert(vlapic_nmi_take(&L, false));
	ck_assert(!vlapic_nmi_take(&L, false));
	/* Two NMIs before the vCPU runs: one delivered, one latched; a third
	 * coalesces (SDM §6.7.1). */
	vlapic_accept_msg(&L, &nmi);
	vlapic_accept_msg(&L, &nmi);
	vlapic_accept_msg(&L, &nmi);
	ck_assert_uint_eq(L.nmi_pending, 2);
	ck_assert(vlapic_nmi_take(&L, false));
	ck_assert(vlapic_nmi_take(&L, false));
	ck_assert(!vlapic_nmi_take(&L, false));
	/* While the guest is blocked by NMI, only one stays latched. */
	vlapic_accept_msg(&L, &nmi);
	vlapic_accept_msg(&L, &nmi);
	ck_assert(!vlapic_nmi_take(&L, true));
	ck_assert_uint_eq(L.nmi_pending, 1);
	ck_assert(vlapic_nmi_take(&L, false));
	ck_assert(!vlapic_nmi_take(&L, false));
	ck_assert(!vlapic_accepts_extint(&L));
	enable();
	wr(APIC_LVT_LINT0, 0x700);
	ck_assert(vlapic_accepts_extint(&L));
	wr(APIC_LVT_LINT0, 0x10700);
	ck_assert(!vlapic_accepts_extint(&L));
	ck_assert_int_eq(vlapic_base_write(&L, 0xfee00000), 0);
	ck_assert(vlapic_accepts_extint(&L));     /* disabled APIC: LINT0 is INTR */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vlapic");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_reset_state);
	tcase_add_test(tc, test_sw_disable_drops_fixed);
	tcase_add_test(tc, test_pending_peek);
	tcase_add_test(tc, test_priority_rules);
	tcase_add_test(tc, test_eoi_level_broadcast);
	tcase_add_test(tc, test_esr_and_error_lvt);
	tcase_add_test(tc, test_nmi_and_lvt_lint);
	vlapic_timer_cases(tc);
	vlapic_regs_cases(tc);
	suite_add_tcase(s, tc);

	return check_run(s);
}
