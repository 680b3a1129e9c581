/* Unit tests for hv/vmx/cpuid_filter.c: hidden and shown bits, topology for
 * several vCPU counts, hypervisor leaves with and without the KVM signature. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "vmx/cpuid_filter.h"
#include "abi.h"
#include "sched/platform.h"

static struct cpuid_policy P;
static struct cpuid_vcpu V;

static struct cpuid_regs run(uint32_t leaf, uint32_t sub, struct cpuid_regs host)
{
	cpuid_filter_apply(&P, &V, leaf, sub, &host);
	return host;
}

static const struct cpuid_regs ALL = { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff };
static const struct cpuid_regs NONE = { 0, 0, 0, 0 };

static void setup(void)
{
	cpuid_policy_init(&P, 4, 0x16);
	memset(&V, 0, sizeof(V));
	V.index = 2;
	V.apic_enabled = true;
}

START_TEST(test_leaf1_bits)
{
	struct cpuid_regs r = run(1, 0, ALL);

	ck_assert_uint_eq(r.ecx & (1u << 31), 1u << 31);   /* hypervisor */
	ck_assert_uint_eq(r.ecx & (1u << 5), 0);            /* VMX hidden */
	ck_assert_uint_eq(r.ecx & (1u << 3), 0);            /* MONITOR hidden */
	ck_assert_uint_eq(r.ecx & (1u << 27), 0);           /* OSXSAVE follows CR4 */
	ck_assert_uint_eq(r.edx & (1u << 12), 0);           /* MTRR hidden */
	ck_assert_uint_eq(r.edx & (1u << 9), 1u << 9);      /* APIC enabled */
	ck_assert_uint_eq(r.edx & 1, 1);                    /* FPU passes */
	r = run(1, 0, NONE);
	ck_assert_uint_eq(r.ecx & (1u << 21), 1u << 21);    /* x2APIC shown */
	ck_assert_uint_eq(r.ecx & (1u << 24), 1u << 24);    /* TSC-deadline shown */
	V.cr4_osxsave = true;
	V.apic_enabled = false;
	r = run(1, 0, NONE);
	ck_assert_uint_eq(r.ecx & (1u << 27), 1u << 27);
	ck_assert_uint_eq(r.edx & (1u << 9), 0);
}
END_TEST

/* RDRAND/RDSEED: hidden unless the policy asks (repeatable Bochs runs). */
START_TEST(test_rdrand_rdseed)
{
	ck_assert_uint_eq(run(1, 0, ALL).ecx & (1u << 30), 0);
	ck_assert_uint_eq(run(7, 0, ALL).ebx & (1u << 18), 0);
	P.rdrand = true;
	ck_assert_uint_eq(run(1, 0, ALL).ecx & (1u << 30), 1u << 30);
	ck_assert_uint_eq(run(7, 0, ALL).ebx & (1u << 18), 1u << 18);
	ck_assert_uint_eq(run(1, 0, NONE).ecx & (1u << 30), 0);   /* never invented */
}
END_TEST

START_TEST(test_leaf1_topology)
{
	struct cpuid_regs r = run(1, 0, (struct cpuid_regs){ 0x906a0, 0xff0800, 0, 0 });

	ck_assert_uint_eq(r.eax, 0x906a0);
	ck_assert_uint_eq(r.ebx >> 24, 2);                 /* APIC ID = index */
	ck_assert_uint_eq((r.ebx >> 16) & 0xff, 4);
	ck_assert_uint_eq(r.ebx & 0xffff, 0x0800);         /* CLFLUSH size kept */
	ck_assert_uint_eq(r.edx & (1u << 28), 1u << 28);   /* HTT with >1 vCPU */
	cpuid_policy_init(&P, 1, 0x16);
	V.index = 0;
	r = run(1, 0, ALL);
	ck_assert_uint_eq(r.edx & (1u << 28), 0);
	ck_assert_uint_eq((r.ebx >> 16) & 0xff, 1);
	cpuid_policy_init(&P, 3, 0x16);
	r = run(1, 0, NONE);
	ck_assert_uint_eq((r.ebx >> 16) & 0xff, 4);        /* rounded to 2^n */
}
END_TEST

START_TEST(test_leaf7_and_6)
{
	struct cpuid_regs r = run(7, 0, ALL);

	ck_assert_uint_eq(r.edx & (1u << 4), 0);            /* FSRM hidden */
	ck_assert_uint_eq(r.ebx & (1u << 2), 0);            /* SGX hidden */
	ck_assert_uint_eq(r.ebx & (1u << 10), 0);           /* INVPCID needs the control */
	ck_assert_uint_eq(r.ebx & (1u << 0), 1);            /* FSGSBASE passes */
	ck_assert_uint_eq(r.eax, 0);
	ck_assert_uint_eq(r.ecx & (1u << 4), 0);            /* OSPKE follows CR4 */
	P.invpcid = true;
	V.cr4_pke = true;
	r = run(7, 0, ALL);
	ck_assert_uint_eq(r.ebx & (1u << 10), 1u << 10);
	ck_assert_uint_eq(r.ecx & (1u << 4), 1u << 4);
	r = run(7, 1, ALL);
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
	r = run(6, 0, ALL);
	ck_assert_uint_eq(r.eax, 1u << 2);                  /* ARAT only */
	ck_assert_uint_eq(r.ecx, 0);                        /* no APERF/MPERF */
	r = run(5, 0, ALL);
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
	r = run(0xa, 0, ALL);
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
}
END_TEST

START_TEST(test_leaf_b_topology)
{
	for (unsigned n = 1; n <= 8; n++) {
		cpuid_policy_init(&P, n, 0x16);
		for (unsigned i = 0; i < n; i++) {
			V.index = i;
			struct cpuid_regs s0 = run(0xb, 0, ALL);
			struct cpuid_regs s1 = run(0xb, 1, ALL);
			struct cpuid_regs s2 = run(0xb, 2, ALL);

			ck_assert_uint_eq(s0.ebx, 1);
			ck_assert_uint_eq((s0.ecx >> 8) & 0xff, 1);
			ck_assert_uint_eq(s0.edx, i);
			ck_assert_uint_eq(s1.ebx, n);
			ck_assert_uint_eq((s1.ecx >> 8) & 0xff, 2);
			ck_assert_uint_eq(s1.ecx & 0xff, 1);
			/* every APIC ID fits in the core-level shift */
			ck_assert_uint_lt(i, 1u << s1.eax);
			/* and the shift is the smallest that does */
			ck_assert(s1.eax == 0 || (1u << (s1.eax - 1)) < n);
			ck_assert_uint_eq((s2.ecx >> 8) & 0xff, 0);
			ck_assert_uint_eq(s2.ebx, 0);
		}
	}
}
END_TEST

START_TEST(test_leaf4_sharing)
{
	/* L1D: type 1 level 1; L3: type 3 level 3 */
	struct cpuid_regs l1 = run(4, 0, (struct cpuid_regs){ 0xfc004121, 1, 2, 3 });
	struct cpuid_regs l3 = run(4, 3, (struct cpuid_regs){ 0xfc03c163, 1, 2, 3 });
	struct cpuid_regs end = run(4, 4, (struct cpuid_regs){ 0, 0, 0, 0 });

	ck_assert_uint_eq(l1.eax >> 26, 3);                 /* 4 cores - 1 */
	ck_assert_uint_eq((l1.eax >> 14) & 0xfff, 0);
	ck_assert_uint_eq(l1.eax & 0x3fff, 0x0121);
	ck_assert_uint_eq((l3.eax >> 14) & 0xfff, 3);
	ck_assert_uint_eq(l3.ebx, 1);
	ck_assert_uint_eq(end.eax, 0);
}
END_TEST

/* No L3 on the host: L2 is the LLC and is shared by all vCPUs, L1 is not. */
START_TEST(test_leaf4_llc_l2)
{
	cpuid_policy_init(&P, 3, 0x16);
	P.llc_level = 2;
	struct cpuid_regs l1 = run(4, 0, (struct cpuid_regs){ 0xfc004121, 1, 2, 3 });
	struct cpuid_regs l2 = run(4, 2, (struct cpuid_regs){ 0xfc004143, 1, 2, 3 });

	ck_assert_uint_eq(l1.eax >> 26, 3);                 /* 2 bits of cores */
	ck_assert_uint_eq((l1.eax >> 14) & 0xfff, 0);
	ck_assert_uint_eq((l2.eax >> 14) & 0xfff, 3);       /* 4 threads >= 3 vCPUs */
	ck_assert_uint_eq((l2.eax >> 5) & 7, 2);
}
END_TEST

START_TEST(test_hv_leaves_plain)
{
	struct cpuid_regs r = run(0x40000000, 0, ALL);

	ck_assert_uint_eq(r.eax, 0x40000001);               /* BASE + 1 */
	ck_assert_uint_eq(r.ebx, HV_CPUID_SIG_EBX);
	ck_assert_uint_eq(r.ecx, HV_CPUID_SIG_ECX);
	ck_assert_uint_eq(r.edx, HV_CPUID_SIG_EDX);
	char sig[13] = { 0 };
	memcpy(sig, &r.ebx, 4); memcpy(sig + 4, &r.ecx, 4); memcpy(sig + 8, &r.edx, 4);
	ck_assert_str_eq(sig, "HVResearch");
	r = run(0x40000001, 0, ALL);                        /* PV ABI v1 leaf */
	ck_assert_uint_eq(r.eax, HV_PV_F_SHARED_PAGE | HV_PV_F_SA | HV_PV_F_BALLOON |
			       HV_PV_F_BALLOON_OPTIN);
	ck_assert_uint_eq(r.ebx, 1);
	ck_assert_uint_eq(r.ecx, 64);
	ck_assert_uint_eq(r.edx, 0);
	ck_assert_uint_eq(r.ecx, sizeof(struct sched_shared_page));
	r = run(0x40000002, 0, ALL);
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
	r = run(0x40000100, 0, ALL);
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
}
END_TEST

START_TEST(test_hv_leaves_kvm)
{
	P.kvm_sig = true;
	P.kvm_features = (1u << CPUID_KVM_FEATURE_STEAL_TIME) | (1u << CPUID_KVM_FEATURE_CLOCKSOURCE2);
	struct cpuid_regs r = run(0x40000000, 0, ALL);
	char sig[13] = { 0 };

	memcpy(sig, &r.ebx, 4); memcpy(sig + 4, &r.ecx, 4); memcpy(sig + 8, &r.edx, 4);
	ck_assert_int_eq(memcmp(sig, "KVMKVMKVM\0\0\0", 12), 0);
	ck_assert_uint_eq(r.eax, 0x40000001);
	r = run(0x40000001, 0, ALL);
	ck_assert_uint_eq(r.eax, (1u << 5) | (1u << 3));
	ck_assert_uint_eq(r.ebx | r.ecx | r.edx, 0);
	r = run(0x40000100, 0, ALL);
	ck_assert_uint_eq(r.ebx, HV_CPUID_SIG_EBX);
	ck_assert_uint_eq(r.eax, 0x40000101);               /* BASE + 1 */
	r = run(0x40000101, 0, ALL);
	ck_assert_uint_eq(r.eax, HV_PV_F_ALL);
	ck_assert_uint_eq(r.ebx, HV_PV_ABI_VERSION);
	ck_assert_uint_eq(r.ecx, 64);
	ck_assert_uint_eq(r.edx, 0);
	r = run(0x40000102, 0, ALL);
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
}
END_TEST

START_TEST(test_range_and_ext)
{
	struct cpuid_regs r = run(0, 0, (struct cpuid_regs){ 0x16, 0x756e6547, 0x6c65746e, 0x49656e69 });

	ck_assert_uint_eq(r.eax, 0x16);
	ck_assert_uint_eq(r.ebx, 0x756e6547);               /* vendor kept */
	r = run(0x17, 0, ALL);                              /* above host max */
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
	cpuid_policy_init(&P, 2, 0x5);                      /* old CPU: 0xB still there */
	r = run(0, 0, (struct cpuid_regs){ 0x5, 0, 0, 0 });
	ck_assert_uint_eq(r.eax, 0xb);
	r = run(0xb, 1, NONE);
	ck_assert_uint_eq(r.ebx, 2);
	r = run(0x80000001, 0, ALL);
	ck_assert_uint_eq(r.edx & (1u << 27), 0);           /* RDTSCP needs the control */
	ck_assert_uint_eq(r.ecx & (1u << 2), 0);            /* SVM hidden */
	P.rdtscp = true;
	r = run(0x80000001, 0, ALL);
	ck_assert_uint_eq(r.edx & (1u << 27), 1u << 27);
	r = run(0xd, 1, ALL);
	ck_assert_uint_eq(r.eax & (1u << 3), 0);            /* XSAVES needs the control */
	r = run(0x80000008, 0, (struct cpuid_regs){ 0x3027, 0, 0, 0 });
	ck_assert_uint_eq(r.eax, 0x3027);
}
END_TEST

/* Bochs corei7_icelake_u's leaf 0xD (measured by guest test conform):
 * XCR0 mask 0x2e7 with PKRU (bit 9) of size 0 and ECX 2752. */
static void bochs_xsave(struct cpuid_regs sub[CPUID_XSAVE_COMPS])
{
	memset(sub, 0, sizeof(struct cpuid_regs) * CPUID_XSAVE_COMPS);
	sub[2] = (struct cpuid_regs){ 256, 576, 0, 0 };      /* AVX */
	sub[5] = (struct cpuid_regs){ 64, 1088, 0, 0 };      /* opmask */
	sub[6] = (struct cpuid_regs){ 512, 1152, 0, 0 };     /* ZMM_Hi256 */
	sub[7] = (struct cpuid_regs){ 1024, 1664, 0, 0 };    /* Hi16_ZMM */
	sub[9] = (struct cpuid_regs){ 0, 2688, 0, 0 };       /* PKRU: no size */
}

/* Issue 18 item 6: only components with a size, sizes recomputed. */
START_TEST(test_xsave_consistent)
{
	struct cpuid_regs sub[CPUID_XSAVE_COMPS], r;

	bochs_xsave(sub);
	cpuid_policy_xsave(&P, 0x2e7, sub);
	ck_assert_uint_eq(P.xcr0, 0xe7);
	r = run(0xd, 0, (struct cpuid_regs){ 0x2e7, 2752, 2752, 0 });
	ck_assert_uint_eq(r.eax, 0xe7);
	ck_assert_uint_eq(r.edx, 0);
	ck_assert_uint_eq(r.ecx, 2688);                     /* end of Hi16_ZMM */
	ck_assert_uint_eq(r.ebx, 576);                      /* XCR0 of the vCPU: 0 */
	V.xcr0 = 0x7;
	r = run(0xd, 0, (struct cpuid_regs){ 0x2e7, 2752, 2752, 0 });
	ck_assert_uint_eq(r.ebx, 832);                      /* x87 | SSE | AVX */
	V.xcr0 = 0xe7;
	r = run(0xd, 0, (struct cpuid_regs){ 0x2e7, 2752, 2752, 0 });
	ck_assert_uint_eq(r.ebx, 2688);
	/* Subleaf 1 EBX: compacted size for the vCPU's XCR0, not the host's
	 * (what Bochs answers for its own XCR0: 2688, the standard size). */
	P.xsaves = true;
	r = run(0xd, 1, (struct cpuid_regs){ 0xf, 2688, 0, 0 });
	ck_assert_uint_eq(r.ebx, 576 + 256 + 64 + 512 + 1024);   /* 2432: packed */
	ck_assert_uint_eq(r.eax, 0xf);
	/* The two-VM segfault: Bochs 2.7's XSAVEC misplaces the compacted
	 * layout (vmx/fpu.c): XSAVEC and XSAVES hidden, XSAVEOPT and XGETBV1 stay. */
	P.no_xsavec = true;
	r = run(0xd, 1, (struct cpuid_regs){ 0xf, 2688, 0, 0 });
	ck_assert_uint_eq(r.eax, 0x5);
	P.no_xsavec = false;
	V.xcr0 = 0x7;
	r = run(0xd, 1, (struct cpuid_regs){ 0xf, 2688, 0, 0 });
	ck_assert_uint_eq(r.ebx, 832);
	V.xcr0 = 0xe7;
	P.xsave_align64 = 1u << 5;   /* opmask 64-byte aligned: AVX ends at 832, no gap */
	ck_assert_uint_eq(cpuid_xsave_compacted_size(&P, 0x27), 896);
	P.xsave_align64 = 1u << 6;   /* ZMM_Hi256 after opmask at 896: aligned already */
	ck_assert_uint_eq(cpuid_xsave_compacted_size(&P, 0x67), 1408);
	P.xsave_size[2] = 200;       /* AVX ends at 776, opmask at 840, ZMM_Hi256 aligned to 896 */
	ck_assert_uint_eq(cpuid_xsave_compacted_size(&P, 0x67), 576 + 200 + 64 + 56 + 512);
	cpuid_policy_xsave(&P, 0x2e7, sub);
	P.xsaves = false;
	r = run(0xd, 9, (struct cpuid_regs){ 0, 2688, 0, 0 });
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);   /* PKRU not offered */
	r = run(0xd, 2, sub[2]);
	ck_assert_uint_eq(r.eax, 256);
	/* PKU needs PKRU switched as XSAVE state: hidden with it. */
	V.cr4_pke = true;
	r = run(7, 0, ALL);
	ck_assert_uint_eq(r.ecx & (3u << 3), 0);
	/* One AVX-512 part without a size drops the whole group. */
	sub[6].eax = 0;
	cpuid_policy_xsave(&P, 0x2e7, sub);
	ck_assert_uint_eq(P.xcr0, 0x7);
	ck_assert_uint_eq(cpuid_xsave_size(&P, ~0ull), 832);
	/* With a PKRU of size 8 everything is offered and PKU stays. */
	bochs_xsave(sub);
	sub[9].eax = 8;
	cpuid_policy_xsave(&P, 0x2e7, sub);
	ck_assert_uint_eq(P.xcr0, 0x2e7);
	ck_assert_uint_eq(P.xsave_max, 2696);
	r = run(7, 0, ALL);
	ck_assert_uint_eq(r.ecx & (3u << 3), 3u << 3);
}
END_TEST

/* Issue 18 item 7: leaf 0x15 reports the vLAPIC clock as the crystal and the
 * TSC as a ratio of it; leaf 0 grows to reach it. */
START_TEST(test_tsc_leaves)
{
	struct cpuid_regs r;

	cpuid_policy_init(&P, 1, 0xd);
	r = run(0x15, 0, ALL);                              /* above host max, rate unknown */
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
	P.tsc_khz = 9972;
	P.lapic_hz = 1000000000;
	r = run(0, 0, (struct cpuid_regs){ 0xd, 0, 0, 0 });
	ck_assert_uint_eq(r.eax, 0x16);
	r = run(0x15, 0, ALL);
	ck_assert_uint_eq(r.ecx, 1000000000);
	ck_assert_uint_eq((uint64_t)r.ecx * r.ebx / r.eax, 9972000);
	r = run(0x16, 0, ALL);
	ck_assert_uint_eq(r.eax, 9);
	ck_assert_uint_eq(r.ecx, 1000);
	r = run(0x14, 0, ALL);                              /* still zero */
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
	r = run(0x15, 0, ALL);
	ck_assert_uint_le((uint64_t)(r.ecx / 1000) * r.ebx, UINT32_MAX);   /* Linux: 32 bits */
	P.tsc_khz = 50000;                                  /* Bochs: 1e6 * 1 / 20 */
	r = run(0x15, 0, ALL);
	ck_assert_uint_eq(r.eax, 20);
	ck_assert_uint_eq(r.ebx, 1);
	P.tsc_khz = 2995200;                                /* no exact ratio fits */
	r = run(0x15, 0, ALL);
	ck_assert_uint_le((uint64_t)(r.ecx / 1000) * r.ebx, UINT32_MAX);
	ck_assert_uint_le((uint64_t)r.ecx * r.ebx / r.eax, 2995200000ull + 2995200000ull / 2000);
	ck_assert_uint_ge((uint64_t)r.ecx * r.ebx / r.eax, 2995200000ull - 2995200000ull / 2000);
	P.tsc_khz = 49999;                                  /* odd: gcd 1 */
	r = run(0x15, 0, ALL);
	ck_assert_uint_le((uint64_t)(r.ecx / 1000) * r.ebx, UINT32_MAX);
	ck_assert_uint_le((uint64_t)(r.ecx / 1000) * r.ebx / r.eax, 49999 + 49999 / 2000);
	ck_assert_uint_ge((uint64_t)(r.ecx / 1000) * r.ebx / r.eax, 49999 - 49999 / 2000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpuid_filter");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_leaf1_bits);
	tcase_add_test(tc, test_leaf1_topology);
	tcase_add_test(tc, test_rdrand_rdseed);
	tcase_add_test(tc, test_leaf7_and_6);
	tcase_add_test(tc, test_leaf_b_topology);
	tcase_add_test(tc, test_leaf4_sharing);
	tcase_add_test(tc, test_leaf4_llc_l2);
	tcase_add_test(tc, test_hv_leaves_plain);
	tcase_add_test(tc, test_hv_leaves_kvm);
	tcase_add_test(tc, test_range_and_ext);
	tcase_add_test(tc, test_xsave_consistent);
	tcase_add_test(tc, test_tsc_leaves);
	suite_add_tcase(s, tc);

	return check_run(s);
}
