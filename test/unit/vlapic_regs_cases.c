/* test_vlapic, the register interface (hv/dev/vlapic_regs.c): MMIO access
 * forms, ICR decode and sends, INIT/SIPI, destination matching, the APIC
 * base MSR, x2APIC MSRs and the APICv helpers. */
#include "vlapic_fixture.h"

START_TEST(test_mmio_forms)
{
	uint32_t v;

	setup_vcpu(0x12);
	ck_assert_int_eq(vlapic_mmio_read(&L, APIC_ID + 3, 1, &v), 0);
	ck_assert_uint_eq(v, 0x12);
	ck_assert_int_eq(vlapic_mmio_read(&L, APIC_ID + 2, 4, &v), -EINVAL);
	ck_assert_int_eq(vlapic_mmio_write(&L, APIC_TPR, 2, 1), -EINVAL);
	ck_assert_int_eq(vlapic_mmio_read(&L, 0x1000, 4, &v), -EINVAL);
	ck_assert_uint_eq(rd(0x3c0), 0);         /* reserved reads 0 */
	wr(APIC_VERSION, 0);                      /* read-only: ignored */
	ck_assert_uint_eq(rd(APIC_VERSION), VLAPIC_VERSION);
	wr(APIC_LDR, 0x12345678);
	ck_assert_uint_eq(rd(APIC_LDR), 0x12000000);
	wr(APIC_DFR, 0x0);
	ck_assert_uint_eq(rd(APIC_DFR), 0x0fffffff);
	wr(APIC_ICR_LO, 0x000040f1 | BIT(12));
	ck_assert_uint_eq(rd(APIC_ICR_LO) & BIT(12), 0);   /* delivery status idle */
}
END_TEST

START_TEST(test_icr_decode_xapic)
{
	setup_vcpu(1);
	enable();
	wr(APIC_ICR_HI, 0x03000000);
	wr(APIC_ICR_LO, 0x000008f1);              /* fixed, logical, vector 0xf1 */
	ck_assert_int_eq(F.ipis, 1);
	ck_assert_uint_eq(F.ipi.dest, 3);
	ck_assert_uint_eq(F.ipi.vector, 0xf1);
	ck_assert(F.ipi.logical && !F.ipi.x2apic_dest);
	ck_assert_uint_eq(F.ipi.mode, APIC_DM_FIXED);
	wr(APIC_ICR_LO, 0x000c4400);              /* NMI to all excluding self */
	ck_assert_uint_eq(F.ipi.shorthand, APIC_SH_OTHERS);
	ck_assert_uint_eq(F.ipi.mode, APIC_DM_NMI);
	wr(APIC_ICR_LO, 0x0000c500);              /* INIT level assert */
	ck_assert_int_eq(F.ipis, 3);
	ck_assert_uint_eq(F.ipi.mode, APIC_DM_INIT);
	wr(APIC_ICR_LO, 0x00008500);              /* INIT level de-assert: nothing sent */
	ck_assert_int_eq(F.ipis, 3);
	wr(APIC_ICR_LO, 0x00000699);              /* SIPI vector 0x99 */
	ck_assert_int_eq(F.ipis, 4);
	ck_assert_uint_eq(F.ipi.vector, 0x99);
	ck_assert_uint_eq(F.ipi.mode, APIC_DM_SIPI);
}
END_TEST

START_TEST(test_init_sipi_accept)
{
	struct apic_msg init = { .mode = APIC_DM_INIT, .assert = true, .level_trig = true };
	struct apic_msg deassert = { .mode = APIC_DM_INIT, .level_trig = true };
	struct apic_msg sipi = { .mode = APIC_DM_SIPI, .vector = 0x9a };

	setup();                                  /* the BSP is not waiting for SIPI */
	vlapic_accept_msg(&L, &sipi);
	ck_assert_int_eq(F.starts, 0);
	setup_vcpu(2);
	enable();
	wr(APIC_TPR, 0x20);
	accept(0x50, false);
	vlapic_accept_msg(&L, &init);
	ck_assert_int_eq(F.starts, 1);
	ck_assert_int_eq(F.start_vec, -1);
	ck_assert_uint_eq(rd(APIC_SVR), 0xff);   /* INIT reset the registers ... */
	ck_assert_uint_eq(rd(APIC_TPR), 0);
	ck_assert(!vlapic_vec_test(&L, APIC_IRR, 0x50));
	ck_assert_uint_eq(rd(APIC_ID), 2u << 24);   /* ... but not the ID */
	vlapic_accept_msg(&L, &deassert);
	ck_assert_int_eq(F.starts, 1);
	vlapic_accept_msg(&L, &sipi);
	ck_assert_int_eq(F.starts, 2);
	ck_assert_int_eq(F.start_vec, 0x9a);
	vlapic_accept_msg(&L, &sipi);             /* second SIPI: already running */
	ck_assert_int_eq(F.starts, 2);
}
END_TEST

START_TEST(test_match_dest)
{
	struct apic_msg m = { .dest = 4 };

	setup_vcpu(4);
	ck_assert(vlapic_match_dest(&L, &m));
	m.dest = 5;
	ck_assert(!vlapic_match_dest(&L, &m));
	m.dest = 0xff;                            /* broadcast */
	ck_assert(vlapic_match_dest(&L, &m));
	wr(APIC_LDR, 0x24000000);                 /* flat: bits 2 and 5 */
	m.logical = true;
	m.dest = 0x20;
	ck_assert(vlapic_match_dest(&L, &m));
	m.dest = 0x41;
	ck_assert(!vlapic_match_dest(&L, &m));
	wr(APIC_DFR, 0x0fffffff);                 /* cluster: cluster 2, member bit 2 */
	m.dest = 0x24;
	ck_assert(vlapic_match_dest(&L, &m));
	m.dest = 0x14;
	ck_assert(!vlapic_match_dest(&L, &m));
	m.dest = 0x2b;
	ck_assert(!vlapic_match_dest(&L, &m));
	/* x2APIC: ID 4 -> logical cluster 0, bit 4 */
	ck_assert_int_eq(vlapic_base_write(&L, 0xfee00000 | APIC_BASE_EN | APIC_BASE_EXTD), 0);
	m = (struct apic_msg){ .dest = 4, .x2apic_dest = true };
	ck_assert(vlapic_match_dest(&L, &m));
	m.logical = true;
	m.dest = 0x00000010;
	ck_assert(vlapic_match_dest(&L, &m));
	m.dest = 0x00010010;
	ck_assert(!vlapic_match_dest(&L, &m));
	m.dest = 0xffffffff;
	ck_assert(vlapic_match_dest(&L, &m));
	ck_assert_int_eq(vlapic_base_write(&L, 0xfee00000), 0);
	ck_assert(!vlapic_match_dest(&L, &m));    /* disabled APIC matches nothing */
}
END_TEST

/* Issue 18 item 7: address bits from MAXPHYADDR up are reserved. */
START_TEST(test_apic_base_maxphyaddr)
{
	const uint64_t base = 0xfee00000 | APIC_BASE_EN;

	setup_vcpu(1);
	ck_assert_int_eq(vlapic_base_write(&L, base | BIT(45)), 0);      /* default: 52 bits */
	ck_assert_int_eq(vlapic_base_write(&L, base | BIT(52)), -EINVAL);
	vlapic_set_maxphyaddr(&L, 40);
	ck_assert_int_eq(vlapic_base_write(&L, base | BIT(40)), -EINVAL);
	ck_assert_int_eq(vlapic_base_write(&L, base | BIT(45)), -EINVAL);
	ck_assert_int_eq(vlapic_base_write(&L, base | BIT(39)), 0);
	ck_assert_int_eq(vlapic_base_write(&L, base), 0);
	vlapic_set_maxphyaddr(&L, 20);                                    /* nonsense: ignored */
	ck_assert_int_eq(vlapic_base_write(&L, base | BIT(39)), 0);
}
END_TEST

START_TEST(test_apic_base_transitions)
{
	uint64_t v;
	const uint64_t base = 0xfee00000;

	setup_vcpu(5);
	enable();
	accept(0x70, false);
	ck_assert_int_eq(vlapic_base_write(&L, base | APIC_BASE_EXTD), -EINVAL);  /* EN=0 EXTD=1 */
	ck_assert_int_eq(vlapic_base_write(&L, base | APIC_BASE_EN | BIT(9)), -EINVAL);
	ck_assert_int_eq(vlapic_base_write(&L, base | APIC_BASE_EN | APIC_BASE_EXTD), 0);
	ck_assert_uint_eq(L.mode, VLAPIC_X2APIC);
	ck_assert_int_eq(vlapic_msr_read(&L, 0x802, &v), 0);
	ck_assert_uint_eq(v, 5);
	ck_assert_int_eq(vlapic_msr_read(&L, 0x80d, &v), 0);
	ck_assert_uint_eq(v, 0x20);               /* cluster 0, bit 5 */
	ck_assert(vlapic_vec_test(&L, APIC_IRR, 0x70));   /* state kept into x2APIC */
	ck_assert_int_eq(vlapic_mmio_read(&L, APIC_ID, 4, (uint32_t *)&v), -ENOENT);
	ck_assert_int_eq(vlapic_base_write(&L, base | APIC_BASE_EN), -EINVAL);   /* x2 -> x */
	ck_assert_int_eq(vlapic_base_write(&L, base), 0);                       /* disable */
	ck_assert(!vlapic_hw_enabled(&L));
	ck_assert_int_eq(vlapic_pending(&L), -1);
	ck_assert_int_eq(vlapic_base_write(&L, base | APIC_BASE_EN | APIC_BASE_EXTD), -EINVAL);
	ck_assert_int_eq(vlapic_base_write(&L, base | APIC_BASE_EN), 0);        /* re-enable */
	ck_assert_uint_eq(rd(APIC_ID), 5u << 24);
	ck_assert_uint_eq(rd(APIC_SVR), 0xff);    /* power-up state */
	ck_assert(!vlapic_vec_test(&L, APIC_IRR, 0x70));
	ck_assert_int_eq(vlapic_msr_read(&L, MSR_IA32_APIC_BASE, &v), 0);
	ck_assert_uint_eq(v, base | APIC_BASE_EN);
	/* xAPIC disable -> enable also resets */
	enable();
	ck_assert_int_eq(vlapic_msr_write(&L, MSR_IA32_APIC_BASE, base), 0);
	ck_assert_int_eq(vlapic_msr_write(&L, MSR_IA32_APIC_BASE, base | APIC_BASE_EN), 0);
	ck_assert_uint_eq(rd(APIC_SVR), 0xff);
	/* BSP flag is not writable */
	setup_vcpu(0);
	ck_assert_int_eq(vlapic_base_write(&L, base | APIC_BASE_EN), 0);
	ck_assert(L.apic_base & APIC_BASE_BSP);
}
END_TEST

START_TEST(test_x2apic_msrs)
{
	uint64_t v;

	setup_vcpu(7);
	ck_assert_int_eq(vlapic_msr_read(&L, 0x802, &v), -EINVAL);   /* not in x2APIC mode */
	ck_assert_int_eq(vlapic_msr_read(&L, 0x10, &v), -ENOENT);
	ck_assert_int_eq(vlapic_base_write(&L, 0xfee00000 | APIC_BASE_EN | APIC_BASE_EXTD), 0);
	ck_assert_int_eq(vlapic_msr_write(&L, 0x80f, 0x1ff), 0);
	ck_assert_int_eq(vlapic_msr_read(&L, 0x803, &v), 0);
	ck_assert_uint_eq(v, VLAPIC_VERSION);
	/* #GP cases */
	ck_assert_int_eq(vlapic_msr_read(&L, 0x80b, &v), -EINVAL);    /* EOI write-only */
	ck_assert_int_eq(vlapic_msr_read(&L, 0x83f, &v), -EINVAL);    /* SELF IPI write-only */
	ck_assert_int_eq(vlapic_msr_read(&L, 0x80e, &v), -EINVAL);    /* no DFR */
	ck_assert_int_eq(vlapic_msr_read(&L, 0x831, &v), -EINVAL);    /* no ICR high */
	ck_assert_int_eq(vlapic_msr_read(&L, 0x82f, &v), -EINVAL);    /* no CMCI */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x802, 1), -EINVAL);    /* ID read-only */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x80d, 1), -EINVAL);    /* LDR read-only */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x839, 1), -EINVAL);    /* current count */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x828, 1), -EINVAL);    /* ESR non-zero */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x80b, 1), -EINVAL);    /* EOI non-zero */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x808, 0x100), -EINVAL);  /* TPR reserved */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x832, 1ULL << 32), -EINVAL);
	ck_assert_int_eq(vlapic_msr_write(&L, 0x83e, 0x4), -EINVAL);  /* TDCR reserved */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x830, BIT(13)), -EINVAL);
	/* ordinary use */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x808, 0x20), 0);
	ck_assert_int_eq(vlapic_msr_read(&L, 0x80a, &v), 0);
	ck_assert_uint_eq(v, 0x20);
	ck_assert_int_eq(vlapic_msr_write(&L, 0x83f, 0x55), 0);       /* SELF IPI */
	ck_assert_int_eq(vlapic_pending(&L), 0x55);
	ck_assert_int_eq(vlapic_msr_read(&L, 0x822, &v), 0);          /* IRR word 2 */
	ck_assert_uint_eq(v, 1u << (0x55 - 64));
	ck_assert_int_eq(vlapic_msr_write(&L, 0x830, 0x0000012300000831ULL), 0);
	ck_assert_int_eq(F.ipis, 1);
	ck_assert_uint_eq(F.ipi.dest, 0x123);
	ck_assert(F.ipi.x2apic_dest && F.ipi.logical);
	ck_assert_uint_eq(F.ipi.vector, 0x31);
	ck_assert_int_eq(vlapic_msr_read(&L, 0x830, &v), 0);
	ck_assert_uint_eq(v, 0x0000012300000831ULL);
	ck_assert_uint_eq(vlapic_reg(&L, APIC_ICR_X2HI), 0x123);   /* hardware layout */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x80b, 0), 0);          /* EOI */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x828, 0), 0);          /* ESR */
	ck_assert_int_eq(vlapic_msr_write(&L, 0x838, 10), 0);         /* initial count */
	ck_assert_int_eq(vlapic_timer_next(&L), 1000 + 20);
}
END_TEST

START_TEST(test_apicv_helpers)
{
	setup();
	enable();
	accept(0x61, false);
	accept(0x45, true);
	ck_assert_uint_eq(vlapic_intr_status(&L), 0x0061);
	ck_assert_int_eq(vlapic_ack(&L, 0x45), 0);
	ck_assert_uint_eq(vlapic_intr_status(&L), 0x4561);
	/* EOI virtualization: the CPU clears VISR, then the EOI-induced exit */
	page[(APIC_ISR + 0x40 / 32 * 16) / 4] &= ~(1u << (0x45 & 31));
	vlapic_eoi_exit(&L, 0x45);
	ck_assert_int_eq(F.eois, 1);
	ck_assert_uint_eq(F.eoi_vec, 0x45);
	/* APIC-write exit: the CPU already stored the value */
	page[APIC_ICR_HI / 4] = 0x02000000;
	page[APIC_ICR_LO / 4] = 0x000000a1;
	ck_assert_int_eq(vlapic_apic_write_exit(&L, APIC_ICR_LO), 0);
	ck_assert_int_eq(F.ipis, 1);
	ck_assert_uint_eq(F.ipi.dest, 2);
	ck_assert_uint_eq(F.ipi.vector, 0xa1);
	page[APIC_LVT_TIMER / 4] = 0x30;
	ck_assert_int_eq(vlapic_apic_write_exit(&L, APIC_LVT_TIMER), 0);
	page[APIC_TMICT / 4] = 7;
	ck_assert_int_eq(vlapic_apic_write_exit(&L, APIC_TMICT), 0);
	ck_assert_int_eq(vlapic_timer_next(&L), 1000 + 14);
	ck_assert_int_eq(vlapic_apic_write_exit(&L, APIC_ISR), -EINVAL);
	/* x2APIC: WRMSR 0x830 is virtualised as a 64-bit store at 0x300 */
	ck_assert_int_eq(vlapic_base_write(&L, 0xfee00000 | APIC_BASE_EN | APIC_BASE_EXTD), 0);
	page[APIC_ICR_LO / 4] = 0x000000a2;
	page[APIC_ICR_X2HI / 4] = 0x00010002;
	ck_assert_int_eq(vlapic_apic_write_exit(&L, APIC_ICR_LO), 0);
	ck_assert_int_eq(F.ipis, 2);
	ck_assert_uint_eq(F.ipi.dest, 0x00010002);
	ck_assert(F.ipi.x2apic_dest);
}
END_TEST

void vlapic_regs_cases(TCase *tc)
{
	tcase_add_test(tc, test_mmio_forms);
	tcase_add_test(tc, test_icr_decode_xapic);
	tcase_add_test(tc, test_init_sipi_accept);
	tcase_add_test(tc, test_match_dest);
	tcase_add_test(tc, test_apic_base_maxphyaddr);
	tcase_add_test(tc, test_apic_base_transitions);
	tcase_add_test(tc, test_x2apic_msrs);
	tcase_add_test(tc, test_apicv_helpers);
}
