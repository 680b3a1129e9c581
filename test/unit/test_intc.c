/* Unit tests for hv/dev/intc.c: IPI modes and shorthands across vCPUs,
 * INIT/SIPI, IOAPIC routing with the IRQ0 override, level EOI round trip,
 * ExtINT from the 8259, port/MMIO/MSR dispatch, timers and APICv helpers. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "dev/intc.h"
#include "errno.h"

#define NV 4
static uint32_t pages[NV][1024] __attribute__((aligned(4096)));
static struct vlapic lapics[NV];
static struct vintc IC;
static struct {
	stime_t now;
	int kicks[NV], starts[NV], start_vec[NV];
} H;

static stime_t h_now(void *c) { return H.now; }
static void h_kick(void *c, unsigned v) { H.kicks[v]++; }
static void h_start(void *c, unsigned v, int vec) { H.starts[v]++; H.start_vec[v] = vec; }
static const struct dev_host host = { .now = h_now, .kick_vcpu = h_kick, .start_vcpu = h_start };

static void lapic_wr(unsigned vcpu, unsigned off, uint32_t v)
{
	uint64_t x = v;
	ck_assert_int_eq(vintc_mmio(&IC, vcpu, 0xfee00000 + off, 4, true, &x), 0);
}

static uint32_t lapic_rd(unsigned vcpu, unsigned off)
{
	uint64_t x = 0;
	ck_assert_int_eq(vintc_mmio(&IC, vcpu, 0xfee00000 + off, 4, false, &x), 0);
	return (uint32_t)x;
}

static void ioapic_wr(uint8_t idx, uint32_t v)
{
	uint64_t a = idx, b = v;
	ck_assert_int_eq(vintc_mmio(&IC, 0, 0xfec00000, 4, true, &a), 0);
	ck_assert_int_eq(vintc_mmio(&IC, 0, 0xfec00010, 4, true, &b), 0);
}

static uint32_t ioapic_rd(uint8_t idx)
{
	uint64_t a = idx, b = 0;
	ck_assert_int_eq(vintc_mmio(&IC, 0, 0xfec00000, 4, true, &a), 0);
	ck_assert_int_eq(vintc_mmio(&IC, 0, 0xfec00010, 4, false, &b), 0);
	return (uint32_t)b;
}

static void setup(void)
{
	memset(&H, 0, sizeof(H));
	H.now = 100;
	vintc_init(&IC, &host, NULL, NULL);
	for (unsigned i = 0; i < NV; i++) {
		ck_assert_int_eq(vintc_add_vcpu(&IC, i, &lapics[i], pages[i]), 0);
		lapic_wr(i, APIC_SVR, 0x1ff);
	}
}

static void send(unsigned from, uint8_t dest, uint32_t lo)
{
	lapic_wr(from, APIC_ICR_HI, (uint32_t)dest << 24);
	lapic_wr(from, APIC_ICR_LO, lo);
}

static bool irr(unsigned vcpu, uint8_t v)
{
	return vlapic_vec_test(&lapics[vcpu], APIC_IRR, v);
}

static unsigned irr_mask(uint8_t v)
{
	unsigned m = 0;
	for (unsigned i = 0; i < NV; i++)
		m |= irr(i, v) << i;
	return m;
}

START_TEST(test_attach_rules)
{
	static struct vlapic extra;

	setup();
	ck_assert_uint_eq(IC.nr_vcpus, NV);
	ck_assert_int_eq(vintc_add_vcpu(&IC, 7, &extra, pages[0]), -EINVAL);   /* not in order */
	ck_assert_int_eq(vintc_add_vcpu(&IC, NV, &extra, (char *)pages[0] + 16), -EINVAL);
	ck_assert_int_eq(vintc_pending(&IC, 9), -1);                           /* no such vCPU */
	ck_assert_uint_eq(lapic_rd(2, APIC_ID), 2u << 24);
}
END_TEST

START_TEST(test_ipi_physical_and_broadcast)
{
	setup();
	send(0, 2, 0x40);
	ck_assert_uint_eq(irr_mask(0x40), 0x4);
	ck_assert_int_eq(H.kicks[2], 1);
	ck_assert_int_eq(vintc_pending(&IC, 2), 0x40);
	ck_assert_int_eq(vintc_ack(&IC, 2), 0x40);
	ck_assert_int_eq(vintc_pending(&IC, 2), -1);
	send(1, 0xff, 0x41);                      /* physical broadcast includes self */
	ck_assert_uint_eq(irr_mask(0x41), 0xf);
	send(1, 9, 0x42);                         /* no such APIC: dropped */
	ck_assert_uint_eq(irr_mask(0x42), 0);
	ck_assert_uint_eq(IC.ipis, 3);
}
END_TEST

START_TEST(test_ipi_shorthands)
{
	setup();
	send(1, 0, 0x00040050);                   /* self */
	ck_assert_uint_eq(irr_mask(0x50), 0x2);
	send(1, 0, 0x00080051);                   /* all including self */
	ck_assert_uint_eq(irr_mask(0x51), 0xf);
	send(1, 0, 0x000c0052);                   /* all excluding self */
	ck_assert_uint_eq(irr_mask(0x52), 0xd);
}
END_TEST

START_TEST(test_ipi_logical_and_lowest)
{
	setup();
	for (unsigned i = 0; i < NV; i++)         /* flat model: one bit per CPU */
		lapic_wr(i, APIC_LDR, 1u << (24 + i));
	send(0, 0x06, 0x00000860);                /* logical fixed to CPUs 1 and 2 */
	ck_assert_uint_eq(irr_mask(0x60), 0x6);
	send(0, 0x0c, 0x00000961);                /* lowest priority: one target only */
	ck_assert_uint_eq(irr_mask(0x61), 0x4);
	for (unsigned i = 0; i < NV; i++) {       /* cluster model: cluster 1, bits */
		lapic_wr(i, APIC_DFR, 0x0fffffff);
		lapic_wr(i, APIC_LDR, (0x10u | (1u << i)) << 24);
	}
	send(0, 0x19, 0x00000862);                /* cluster 1, members 0 and 3 */
	ck_assert_uint_eq(irr_mask(0x62), 0x9);
	send(0, 0x29, 0x00000863);                /* cluster 2: nobody */
	ck_assert_uint_eq(irr_mask(0x63), 0);
}
END_TEST

START_TEST(test_ipi_nmi)
{
	setup();
	send(0, 3, 0x00000400);
	ck_assert(vintc_nmi_take(&IC, 3, false));
	ck_assert(!vintc_nmi_take(&IC, 3, false));
	ck_assert(!vintc_nmi_take(&IC, 1, false));
	ck_assert_int_eq(H.kicks[3], 1);
}
END_TEST

/* Linux's wakeup_secondary_cpu_via_init: INIT assert, INIT de-assert, then
 * two SIPIs; the AP must start exactly once at the SIPI vector. */
START_TEST(test_init_sipi_sequence)
{
	setup();
	send(0, 2, 0x0000c500);
	ck_assert_int_eq(H.starts[2], 1);
	ck_assert_int_eq(H.start_vec[2], -1);
	send(0, 2, 0x00008500);
	ck_assert_int_eq(H.starts[2], 1);
	send(0, 2, 0x00000609);
	send(0, 2, 0x00000609);
	ck_assert_int_eq(H.starts[2], 2);
	ck_assert_int_eq(H.start_vec[2], 0x09);
	ck_assert_int_eq(H.starts[1] + H.starts[3] + H.starts[0], 0);
	/* INIT to all others then a broadcast SIPI starts every AP once */
	send(0, 0, 0x000cc500);
	send(0, 0, 0x000c0610);
	for (unsigned i = 1; i < NV; i++)
		ck_assert_int_eq(H.start_vec[i], 0x10);
	ck_assert_int_eq(H.starts[0], 0);
	/* INIT reset the targets' registers */
	ck_assert_uint_eq(lapic_rd(3, APIC_SVR), 0xff);
}
END_TEST

START_TEST(test_ipi_x2apic)
{
	uint64_t v;

	setup();
	for (unsigned i = 0; i < NV; i++) {
		ck_assert_int_eq(vintc_msr_write(&IC, i, MSR_IA32_APIC_BASE,
						 0xfee00000 | APIC_BASE_EN | APIC_BASE_EXTD | (i ? 0 : APIC_BASE_BSP)), 0);
	}
	ck_assert_int_eq(vintc_msr_read(&IC, 3, 0x802, &v), 0);
	ck_assert_uint_eq(v, 3);
	ck_assert_int_eq(vintc_msr_write(&IC, 0, 0x830, (3ULL << 32) | 0x70), 0);
	ck_assert_uint_eq(irr_mask(0x70), 0x8);
	ck_assert_int_eq(vintc_msr_write(&IC, 0, 0x830, (0xffffffffULL << 32) | 0x71), 0);
	ck_assert_uint_eq(irr_mask(0x71), 0xf);
	/* logical: cluster 0, bits 1 and 2 */
	ck_assert_int_eq(vintc_msr_write(&IC, 0, 0x830, (0x6ULL << 32) | 0x872), 0);
	ck_assert_uint_eq(irr_mask(0x72), 0x6);
	ck_assert_int_eq(vintc_msr_write(&IC, 1, 0x83f, 0x73), 0);      /* SELF IPI */
	ck_assert_uint_eq(irr_mask(0x73), 0x2);
	/* the xAPIC page is not decoded in x2APIC mode */
	ck_assert_int_eq(vintc_mmio(&IC, 0, 0xfee00030, 4, false, &v), -ENOENT);
	ck_assert_int_eq(vintc_msr_write(&IC, 0, 0x802, 0), -EINVAL);   /* #GP */
	ck_assert_int_eq(vintc_msr_read(&IC, 0, 0x10, &v), -ENOENT);
}
END_TEST

START_TEST(test_ioapic_routing)
{
	setup();
	ck_assert_uint_eq(ioapic_rd(IOAPIC_REG_VER), 0x00170011);
	ck_assert_uint_eq(ioapic_rd(IOAPIC_REG_ID), (uint32_t)NV << 24);   /* as the MADT */
	ioapic_wr(0x14, 0x30);                    /* pin 2 (PIT via override) -> vCPU 0 */
	ioapic_wr(0x15, 0x00000000);
	ioapic_wr(0x19, 0x01000000);              /* pin 4 (COM1) -> vCPU 1 */
	ioapic_wr(0x18, 0x34);
	vintc_irq_set(&IC, 0, true);
	vintc_irq_set(&IC, 0, false);
	ck_assert_int_eq(vintc_pending(&IC, 0), 0x30);
	vintc_irq_set(&IC, 4, true);
	vintc_irq_set(&IC, 4, false);
	ck_assert_int_eq(vintc_pending(&IC, 1), 0x34);
	ck_assert_uint_eq(irr_mask(0x34), 0x2);
	vintc_irq_set(&IC, 2, true);              /* ISA IRQ2 is the cascade: no pin */
	ck_assert_uint_eq(IC.irqs, 2);
	vintc_irq_set(&IC, 20, true);             /* GSI 20: IOAPIC only, masked */
	ck_assert_uint_eq(IC.irqs, 2);
}
END_TEST

START_TEST(test_ioapic_level_eoi_round_trip)
{
	uint64_t bm[4];

	setup();
	ioapic_wr(0x23, 0x01000000);
	ioapic_wr(0x22, 0x49 | RTE_LEVEL);        /* pin 9 level -> vCPU 1 */
	vintc_eoi_exit_bitmap(&IC, 1, bm);
	ck_assert(bm[1] & BIT(0x49 - 64));
	ck_assert(!(bm[1] & BIT(0x48 - 64)));
	vintc_irq_set(&IC, 9, true);
	ck_assert_int_eq(vintc_ack(&IC, 1), 0x49);
	ck_assert(vlapic_vec_test(&lapics[1], APIC_TMR, 0x49));
	ck_assert(ioapic_rd(0x22) & RTE_REMOTE_IRR);
	lapic_wr(1, APIC_EOI, 0);                 /* line still high: re-delivered */
	ck_assert(irr(1, 0x49));
	ck_assert(ioapic_rd(0x22) & RTE_REMOTE_IRR);
	ck_assert_int_eq(vintc_ack(&IC, 1), 0x49);
	vintc_irq_set(&IC, 9, false);
	lapic_wr(1, APIC_EOI, 0);
	ck_assert(!(ioapic_rd(0x22) & RTE_REMOTE_IRR));
	ck_assert_int_eq(vintc_pending(&IC, 1), -1);
}
END_TEST

START_TEST(test_apicv_flow)
{
	setup();
	ioapic_wr(0x23, 0x02000000);
	ioapic_wr(0x22, 0x59 | RTE_LEVEL);
	vintc_irq_set(&IC, 9, true);
	ck_assert_uint_eq(vintc_intr_status(&IC, 2), 0x0059);
	/* the CPU delivers (VIRR -> VISR), the guest EOIs, EOI-induced exit */
	pages[2][(APIC_IRR + 0x40 / 32 * 16) / 4] &= ~(1u << (0x59 & 31));
	pages[2][(APIC_ISR + 0x40 / 32 * 16) / 4] |= 1u << (0x59 & 31);
	ck_assert_uint_eq(vintc_intr_status(&IC, 2), 0x5900);
	pages[2][(APIC_ISR + 0x40 / 32 * 16) / 4] = 0;
	vintc_irq_set(&IC, 9, false);
	vintc_eoi_exit(&IC, 2, 0x59);
	ck_assert(!(ioapic_rd(0x22) & RTE_REMOTE_IRR));
	/* APIC-write exit for an ICR the guest wrote */
	pages[2][APIC_ICR_HI / 4] = 0x01000000;
	pages[2][APIC_ICR_LO / 4] = 0x000000b0;
	ck_assert_int_eq(vintc_apic_write_exit(&IC, 2, APIC_ICR_LO), 0);
	ck_assert_uint_eq(irr_mask(0xb0), 0x2);
	ck_assert_uint_eq(vintc_tpr_threshold(&IC, 1), 0xb);
}
END_TEST

/* Virtual-wire mode: vCPU 0's LINT0 as ExtINT takes the 8259's vector. */
START_TEST(test_pic_extint)
{
	uint32_t v = 0;
	static const uint8_t init[][2] = {
		{ 0x21, 0xff }, { 0xa1, 0xff }, { 0x20, 0x11 }, { 0x21, 0x30 }, { 0x21, 0x04 },
		{ 0x21, 0x01 }, { 0xa0, 0x11 }, { 0xa1, 0x38 }, { 0xa1, 0x02 }, { 0xa1, 0x01 },
		{ 0x21, 0xf9 }, { 0xa1, 0xff },
	};

	setup();
	ck_assert_int_eq(vintc_pio(&IC, 0x21, 1, false, &v), 0);
	ck_assert_uint_eq(v, 0xff);
	ck_assert_int_eq(vintc_pio(&IC, 0x60, 1, false, &v), -ENOENT);
	for (unsigned i = 0; i < ARRAY_SIZE(init); i++) {
		v = init[i][1];
		ck_assert_int_eq(vintc_pio(&IC, init[i][0], 1, true, &v), 0);
	}
	vintc_irq_set(&IC, 1, true);
	vintc_irq_set(&IC, 1, false);
	ck_assert_int_eq(vintc_pending(&IC, 0), -1);   /* LINT0 masked */
	lapic_wr(0, APIC_LVT_LINT0, 0x700);
	ck_assert_int_eq(vintc_pending(&IC, 0), 0x31);
	ck_assert_int_eq(vintc_pending(&IC, 1), -1);   /* only the BSP is wired */
	ck_assert_int_eq(vintc_ack(&IC, 0), 0x31);
	ck_assert_int_eq(vintc_pending(&IC, 0), -1);
	v = 0x20;
	ck_assert_int_eq(vintc_pio(&IC, 0x20, 1, true, &v), 0);
	H.kicks[0] = 0;
	vintc_irq_set(&IC, 1, true);
	ck_assert_int_eq(H.kicks[0], 1);
	/* a 16-bit read of 0x20 returns IRR then IMR */
	ck_assert_int_eq(vintc_pio(&IC, 0x20, 2, false, &v), 0);
	ck_assert_uint_eq(v, 0xf902);
	ck_assert_int_eq(vintc_pio(&IC, 0x4d0, 1, false, &v), 0);
}
END_TEST

START_TEST(test_timer_through_intc)
{
	setup();
	lapic_wr(1, APIC_TDCR, 0xb);
	lapic_wr(1, APIC_LVT_TIMER, 0xef);
	lapic_wr(1, APIC_TMICT, 1000);
	ck_assert_int_eq(vintc_timer_next(&IC, 1), 1100);
	ck_assert_int_eq(vintc_timer_next(&IC, 0), STIME_NEVER);
	vintc_timer_advance(&IC, 1, 1099);
	ck_assert_int_eq(vintc_pending(&IC, 1), -1);
	vintc_timer_advance(&IC, 1, 1100);
	ck_assert_int_eq(vintc_pending(&IC, 1), 0xef);
	H.now = 600;
	ck_assert_uint_eq(lapic_rd(1, APIC_TMCCT), 0);
}
END_TEST

START_TEST(test_mmio_dispatch)
{
	uint64_t v = 0;

	setup();
	ck_assert_int_eq(vintc_mmio(&IC, 0, 0xfed00000, 4, false, &v), -ENOENT);
	ck_assert_int_eq(vintc_mmio(&IC, 0, 0xfec00020, 4, false, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(vintc_mmio(&IC, 1, 0xfee00030, 4, false, &v), 0);
	ck_assert_uint_eq(v, VLAPIC_VERSION);
	ck_assert_int_eq(vintc_mmio(&IC, 1, 0xfee00030, 8, false, &v), 0);   /* malformed */
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(vintc_msr_write(&IC, 1, MSR_IA32_APIC_BASE, 0xfee00000), 0);
	ck_assert_int_eq(vintc_mmio(&IC, 1, 0xfee00030, 4, false, &v), -ENOENT);
	ck_assert_int_eq(vintc_msr_write(&IC, 1, MSR_IA32_APIC_BASE,
					 0xfee00000 | APIC_BASE_EXTD), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("intc");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_attach_rules);
	tcase_add_test(tc, test_ipi_physical_and_broadcast);
	tcase_add_test(tc, test_ipi_shorthands);
	tcase_add_test(tc, test_ipi_logical_and_lowest);
	tcase_add_test(tc, test_ipi_nmi);
	tcase_add_test(tc, test_init_sipi_sequence);
	tcase_add_test(tc, test_ipi_x2apic);
	tcase_add_test(tc, test_ioapic_routing);
	tcase_add_test(tc, test_ioapic_level_eoi_round_trip);
	tcase_add_test(tc, test_apicv_flow);
	tcase_add_test(tc, test_pic_extint);
	tcase_add_test(tc, test_timer_through_intc);
	tcase_add_test(tc, test_mmio_dispatch);
	suite_add_tcase(s, tc);

	return check_run(s);
}
