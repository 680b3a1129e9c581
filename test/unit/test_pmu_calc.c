/* Unit tests for hv/arch/x86/pmu_calc.c: CPUID.0AH decode with real CPUs'
 * values (the CPU dumps Bochs's cpudb models are built from, and what Bochs
 * 2.7's corei7_icelake_u answers), EBX masking, counter placement, the
 * delta/wrap arithmetic and the boot-line text. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "arch/x86/pmu_calc.h"
#include "errno.h"
#include "shim.h"

struct cpu_dump {
	const char *name;
	uint32_t max_basic, leaf1, a, b, c, d;
};

/* CPUID.1 EAX gives family 6 and the model the OFFCORE table keys on. */
static const struct cpu_dump icelake_bochs = { "Bochs corei7_icelake_u", 0x1b, 0x000706e5,
	0x08300805, 0x00000000, 0x0000000f, 0x00008604 };
static const struct cpu_dump skylake_x = { "Core i7 Skylake-X", 0x16, 0x00050654,
	0x07300404, 0x00000000, 0x00000000, 0x00000603 };
static const struct cpu_dump haswell = { "Core i7-4770 Haswell", 0xd, 0x000306c3,
	0x07300403, 0x00000000, 0x00000000, 0x00000603 };
static const struct cpu_dump lynnfield = { "Core i5-750 Lynnfield", 0xb, 0x000106e5,
	0x07300403, 0x00000044, 0x00000000, 0x00000603 };
static const struct cpu_dump penryn = { "Core 2 T9600 Penryn", 0xd, 0x00010676,
	0x07280202, 0x00000000, 0x00000000, 0x00000503 };

static int decode(const struct cpu_dump *x, struct pmu_caps *c, const char **why)
{
	return pmu_caps_decode(x->max_basic, x->leaf1, x->a, x->b, x->c, x->d, c, why);
}

START_TEST(test_decode_icelake_v5)
{
	struct pmu_caps c;
	const char *why = NULL;

	ck_assert_int_eq(decode(&icelake_bochs, &c, &why), 0);
	ck_assert_uint_eq(c.version, 5);
	ck_assert_uint_eq(c.ngp, 8);
	ck_assert_uint_eq(c.gp_width, 48);
	ck_assert_uint_eq(c.ebx_len, 8);
	ck_assert_uint_eq(c.nfixed, 4);
	ck_assert_uint_eq(c.fixed_width, 48);
	ck_assert_uint_eq(c.fixed_mask, 0xf);
	ck_assert_uint_eq(c.family, 6);
	ck_assert_uint_eq(c.model, 0x7e);
	ck_assert_uint_eq(c.unavail, 0xffffff00u);   /* bits past the 8-bit vector */
}
END_TEST

START_TEST(test_decode_v5_ecx_bitmap)
{
	struct pmu_caps c;

	/* v5 with EDX saying 1 fixed counter but ECX listing counters 0 and 2. */
	ck_assert_int_eq(pmu_caps_decode(0x20, 0x000906a3, 0x08300605, 0, 0x5, 0x8601, &c, NULL), 0);
	ck_assert_uint_eq(c.nfixed, 1);
	ck_assert_uint_eq(c.fixed_mask, 0x5);
}
END_TEST

START_TEST(test_decode_v2_penryn)
{
	struct pmu_caps c;
	struct pmu_plan p;

	ck_assert_int_eq(decode(&penryn, &c, NULL), 0);
	ck_assert_uint_eq(c.version, 2);
	ck_assert_uint_eq(c.ngp, 2);
	ck_assert_uint_eq(c.gp_width, 40);
	ck_assert_uint_eq(c.nfixed, 3);
	ck_assert_uint_eq(c.fixed_width, 40);
	ck_assert_uint_eq(c.model, 0x17);
	/* Fixed: ins, cyc; two GP counters: br, brmiss; LLC events do not fit. */
	ck_assert_uint_eq(pmu_plan_make(&c, &p), 4);
	ck_assert_uint_eq(p.present, BIT(PMU_EV_INSTRUCTIONS) | BIT(PMU_EV_CYCLES) |
				     BIT(PMU_EV_BRANCHES) | BIT(PMU_EV_BRANCH_MISSES));
	ck_assert_uint_eq(p.slot[PMU_EV_BRANCHES].width, 40);
	ck_assert_uint_eq(p.slot[PMU_EV_INSTRUCTIONS].width, 40);
	ck_assert_uint_eq(p.global_ctrl, BIT(0) | BIT(1) | BIT(32) | BIT(33));
}
END_TEST

START_TEST(test_decode_version0_absent)
{
	struct pmu_caps c;
	const char *why = NULL;

	/* QEMU TCG (-cpu Nehalem, as tools/hvrun boots it) answers all zero. */
	ck_assert_int_eq(pmu_caps_decode(0xb, 0x000106a3, 0, 0, 0, 0, &c, &why), -ENODEV);
	ck_assert_str_eq(why, "CPUID.0AH version 0");
	ck_assert_int_eq(pmu_caps_decode(0x5, 0x000006f6, 0x07300403, 0, 0, 0x603, &c, &why),
			 -ENODEV);
	ck_assert_str_eq(why, "CPUID has no leaf 0AH");
}
END_TEST

START_TEST(test_decode_version1_absent)
{
	struct pmu_caps c;
	struct pmu_plan p;
	const char *why = NULL;

	/* Version 1 (SDM §20.2.1): GP counters only, no global control, EDX
	 * reserved (garbage in EDX must not invent fixed counters). */
	ck_assert_int_eq(pmu_caps_decode(0xa, 0x000006e8, 0x07280201, 0, 0, 0x603, &c, &why),
			 -ENODEV);
	ck_assert_ptr_nonnull(strstr(why, "version 1"));
	ck_assert_uint_eq(c.version, 1);
	ck_assert_uint_eq(c.nfixed, 0);
	ck_assert_uint_eq(c.fixed_mask, 0);
	ck_assert_uint_eq(pmu_plan_make(&c, &p), 0);
	ck_assert_uint_eq(p.present, 0);
}
END_TEST

START_TEST(test_decode_bad_widths_absent)
{
	struct pmu_caps c;
	const char *why = NULL;

	ck_assert_int_eq(pmu_caps_decode(0xd, 0x306c3, 0x07000402, 0, 0, 0x003, &c, &why), -ENODEV);
	ck_assert_ptr_nonnull(strstr(why, "width"));
	ck_assert_int_eq(pmu_caps_decode(0xd, 0x306c3, 0x07300002, 0, 0, 0x000, &c, &why), -ENODEV);
	ck_assert_str_eq(why, "CPUID.0AH reports no counters");
}
END_TEST

START_TEST(test_plan_haswell_offcore)
{
	struct pmu_caps c;
	struct pmu_plan p;

	ck_assert_int_eq(decode(&haswell, &c, NULL), 0);
	ck_assert_uint_eq(c.model, 0x3c);
	ck_assert_uint_eq(pmu_plan_make(&c, &p), 6);
	/* OFFCORE takes PMC0 with event 60H umask 01H CMASK 1. */
	ck_assert_uint_eq(p.slot[PMU_EV_OFFCORE_STALL].kind, PMU_SLOT_GP);
	ck_assert_uint_eq(p.slot[PMU_EV_OFFCORE_STALL].idx, 0);
	ck_assert_uint_eq(p.slot[PMU_EV_OFFCORE_STALL].evtsel,
			  0x60 | 0x01 << 8 | PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_EN |
			  1u << 24);
	ck_assert_uint_eq(p.slot[PMU_EV_INSTRUCTIONS].kind, PMU_SLOT_FIXED);
	ck_assert_uint_eq(p.slot[PMU_EV_INSTRUCTIONS].idx, 0);
	ck_assert_uint_eq(p.slot[PMU_EV_CYCLES].kind, PMU_SLOT_FIXED);
	ck_assert_uint_eq(p.slot[PMU_EV_CYCLES].idx, 1);
	ck_assert_uint_eq(p.slot[PMU_EV_BRANCHES].idx, 1);
	ck_assert_uint_eq(p.slot[PMU_EV_BRANCHES].evtsel & 0xffff, 0x00c4);
	ck_assert_uint_eq(p.slot[PMU_EV_BRANCH_MISSES].idx, 2);
	ck_assert_uint_eq(p.slot[PMU_EV_BRANCH_MISSES].evtsel & 0xffff, 0x00c5);
	ck_assert_uint_eq(p.slot[PMU_EV_LLC_MISSES].idx, 3);
	ck_assert_uint_eq(p.slot[PMU_EV_LLC_MISSES].evtsel & 0xffff, 0x412e);
	/* Four GP counters are used up: LLC references do not fit. */
	ck_assert_uint_eq(p.slot[PMU_EV_LLC_REFS].kind, PMU_SLOT_NONE);
	ck_assert_uint_eq(p.gp_used, 0xf);
	ck_assert_uint_eq(p.fixed_used, 0x3);
	ck_assert_uint_eq(p.fixed_ctrl, 0x33);     /* ring 0 + ring 3, no PMI */
	ck_assert_uint_eq(p.global_ctrl, 0xfull | BIT(32) | BIT(33));
}
END_TEST

START_TEST(test_plan_icelake_no_offcore)
{
	struct pmu_caps c;
	struct pmu_plan p;

	ck_assert_int_eq(decode(&icelake_bochs, &c, NULL), 0);
	ck_assert_uint_eq(pmu_plan_make(&c, &p), 6);
	ck_assert_uint_eq(p.slot[PMU_EV_OFFCORE_STALL].kind, PMU_SLOT_NONE);
	ck_assert_uint_eq(p.slot[PMU_EV_LLC_MISSES].kind, PMU_SLOT_GP);
	ck_assert_uint_eq(p.slot[PMU_EV_BRANCHES].idx, 0);
	ck_assert_uint_eq(p.slot[PMU_EV_LLC_MISSES].idx, 2);
	ck_assert_uint_eq(p.slot[PMU_EV_LLC_REFS].idx, 3);
	ck_assert_uint_eq(p.slot[PMU_EV_LLC_REFS].evtsel & 0xffff, 0x4f2e);
	ck_assert_uint_eq(pmu_offcore_event(6, 0x7e), 0);
	ck_assert_uint_ne(pmu_offcore_event(6, 0x55), 0);   /* Skylake-X */
	ck_assert_uint_eq(pmu_offcore_event(0xf, 0x55), 0); /* not family 6 */
}
END_TEST

START_TEST(test_plan_ebx_masks_events)
{
	struct pmu_caps c;
	struct pmu_plan p;

	/* Lynnfield reports EBX=0x44: reference cycles and branch mispredicts
	 * retired unavailable. */
	ck_assert_int_eq(decode(&lynnfield, &c, NULL), 0);
	pmu_plan_make(&c, &p);
	ck_assert_uint_eq(p.slot[PMU_EV_BRANCH_MISSES].kind, PMU_SLOT_NONE);
	ck_assert_uint_eq(p.slot[PMU_EV_BRANCHES].kind, PMU_SLOT_GP);
	ck_assert_uint_eq(p.present, BIT(PMU_EV_INSTRUCTIONS) | BIT(PMU_EV_CYCLES) |
				     BIT(PMU_EV_BRANCHES) | BIT(PMU_EV_LLC_REFS) |
				     BIT(PMU_EV_LLC_MISSES));
	/* A short EBX vector: length 5 leaves the branch events (bits 5, 6) out. */
	ck_assert_int_eq(pmu_caps_decode(0xd, 0x306c3, 0x05300403, 0, 0, 0x603, &c, NULL), 0);
	pmu_plan_make(&c, &p);
	ck_assert_uint_eq(p.present & (BIT(PMU_EV_BRANCHES) | BIT(PMU_EV_BRANCH_MISSES)), 0);
	ck_assert_uint_ne(p.present & BIT(PMU_EV_LLC_MISSES), 0);
	/* Instructions unavailable (EBX bit 1): not even on its fixed counter. */
	ck_assert_int_eq(pmu_caps_decode(0xd, 0x306c3, 0x07300403, 0x2, 0, 0x603, &c, NULL), 0);
	pmu_plan_make(&c, &p);
	ck_assert_uint_eq(p.slot[PMU_EV_INSTRUCTIONS].kind, PMU_SLOT_NONE);
	ck_assert_uint_eq(p.slot[PMU_EV_CYCLES].kind, PMU_SLOT_FIXED);
}
END_TEST

START_TEST(test_plan_no_fixed_uses_gp)
{
	struct pmu_caps c;
	struct pmu_plan p;

	/* v2 with no fixed counters: instructions and cycles go to GP counters. */
	ck_assert_int_eq(pmu_caps_decode(0xd, 0x1067a, 0x07280202, 0, 0, 0, &c, NULL), 0);
	ck_assert_uint_eq(pmu_plan_make(&c, &p), 2);
	ck_assert_uint_eq(p.slot[PMU_EV_INSTRUCTIONS].kind, PMU_SLOT_GP);
	ck_assert_uint_eq(p.slot[PMU_EV_INSTRUCTIONS].evtsel & 0xffff, 0x00c0);
	ck_assert_uint_eq(p.slot[PMU_EV_CYCLES].kind, PMU_SLOT_GP);
	ck_assert_uint_eq(p.slot[PMU_EV_CYCLES].evtsel & 0xffff, 0x003c);
	ck_assert_uint_eq(p.fixed_ctrl, 0);
}
END_TEST

START_TEST(test_delta_wrap)
{
	ck_assert_uint_eq(pmu_counter_delta(100, 250, 48), 150);
	/* 48-bit counter wrapped once between the readings. */
	ck_assert_uint_eq(pmu_counter_delta(0xfffffffffff0ull, 0x10, 48), 0x20);
	/* 40-bit (Core 2): the upper bits of a reading never leak in. */
	ck_assert_uint_eq(pmu_counter_delta(0xffffffff00ull, 0x100ull, 40), 0x200);
	ck_assert_uint_eq(pmu_counter_delta(5, 5, 48), 0);
	/* width 64 (and 0 = unknown) is plain unsigned subtraction. */
	ck_assert_uint_eq(pmu_counter_delta(~0ull, 1, 64), 2);
	ck_assert_uint_eq(pmu_counter_delta(~0ull, 1, 0), 2);
}
END_TEST

START_TEST(test_plan_delta)
{
	struct pmu_caps c;
	struct pmu_plan p;
	uint64_t prev[PMU_EV_COUNT] = { 0 }, now[PMU_EV_COUNT] = { 0 }, d[PMU_EV_COUNT];

	decode(&icelake_bochs, &c, NULL);
	pmu_plan_make(&c, &p);
	prev[PMU_EV_INSTRUCTIONS] = 0xffffffffff00ull;
	now[PMU_EV_INSTRUCTIONS] = 0x100;
	prev[PMU_EV_BRANCHES] = 1000;
	now[PMU_EV_BRANCHES] = 4000;
	prev[PMU_EV_OFFCORE_STALL] = 1;     /* not planned: ignored */
	now[PMU_EV_OFFCORE_STALL] = 99;
	pmu_plan_delta(&p, prev, now, d);
	ck_assert_uint_eq(d[PMU_EV_INSTRUCTIONS], 0x200);
	ck_assert_uint_eq(d[PMU_EV_BRANCHES], 3000);
	ck_assert_uint_eq(d[PMU_EV_CYCLES], 0);
	ck_assert_uint_eq(d[PMU_EV_OFFCORE_STALL], 0);
}
END_TEST

START_TEST(test_describe)
{
	struct pmu_caps c;
	struct pmu_plan p;
	char buf[128];

	decode(&skylake_x, &c, NULL);
	pmu_plan_make(&c, &p);
	pmu_describe(&c, &p, buf, sizeof(buf));
	ck_assert_str_eq(buf, "v4, 4 gp x 48 bit, 3 fixed x 48 bit: ins cyc br brmiss llcmiss offcore");
	decode(&penryn, &c, NULL);
	pmu_plan_make(&c, &p);
	pmu_describe(&c, &p, buf, sizeof(buf));
	ck_assert_str_eq(buf, "v2, 2 gp x 40 bit, 3 fixed x 40 bit: ins cyc br brmiss");
	pmu_describe(&c, &p, buf, 12);      /* truncates, never overruns */
	ck_assert_uint_eq(strlen(buf), 11);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pmu_calc");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_decode_icelake_v5);
	tcase_add_test(tc, test_decode_v5_ecx_bitmap);
	tcase_add_test(tc, test_decode_v2_penryn);
	tcase_add_test(tc, test_decode_version0_absent);
	tcase_add_test(tc, test_decode_version1_absent);
	tcase_add_test(tc, test_decode_bad_widths_absent);
	tcase_add_test(tc, test_plan_haswell_offcore);
	tcase_add_test(tc, test_plan_icelake_no_offcore);
	tcase_add_test(tc, test_plan_ebx_masks_events);
	tcase_add_test(tc, test_plan_no_fixed_uses_gp);
	tcase_add_test(tc, test_delta_wrap);
	tcase_add_test(tc, test_plan_delta);
	tcase_add_test(tc, test_describe);
	suite_add_tcase(s, tc);

	return check_run(s);
}
