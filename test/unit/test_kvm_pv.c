/* Unit tests for hv/vmx/kvm_pv.c: pvclock scale factors from the TSC rate,
 * record versioning and cross-vCPU consistency, the KVM MSRs on host memory
 * standing in for guest RAM, steal time with preempted/flush, PV send-IPI. */
#include <check.h>
#include <string.h>
#include "vmx/kvm_pv.h"
#include "dev/intc.h"
#include "errno.h"
#include "check_run.h"

#define NS 1000000000ull

/* ---- scale ---- */
static const uint64_t rates[] = { 1000000, 50000000, 999999999, 1000000000, 1500000000,
				  2596140000ull, 3000000000ull, 4294967296ull, 12000000000ull };

START_TEST(test_scale_normalised)
{
	for (unsigned i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct kvm_pvclock_scale s;
		uint64_t ns;

		ck_assert_int_eq(kvm_pvclock_scale_init(rates[i], &s), 0);
		ck_assert_uint_ge(s.mul, 1ull << 31);
		/* one second of ticks is one second, to within the 32-bit mantissa */
		ns = kvm_pvclock_scale_delta(rates[i], s);
		ck_assert_msg(ns <= NS && NS - ns <= 2, "hz %lu -> %lu ns", rates[i], ns);
		/* Linux's pvclock_tsc_khz() recovers the rate (it truncates
		 * before shifting: 1 ppm plus 1 kHz is its own precision) */
		uint64_t khz = (1000000ull << 32) / s.mul, want = rates[i] / 1000;
		khz = s.shift < 0 ? khz << -s.shift : khz >> s.shift;
		ck_assert_msg(khz <= want + 1 && khz + want / 1000000 + 4 >= want,
			      "hz %lu khz %lu", rates[i], khz);
	}
}
END_TEST

START_TEST(test_scale_bad_rate)
{
	struct kvm_pvclock_scale s = { 0, 0 };

	ck_assert_int_eq(kvm_pvclock_scale_init(0, &s), -EINVAL);
}
END_TEST

START_TEST(test_scale_values)
{
	struct kvm_pvclock_scale s;

	ck_assert_int_eq(kvm_pvclock_scale_init(1000000000, &s), 0);   /* 1 tick = 1 ns */
	ck_assert_uint_eq(s.mul, 1u << 31);
	ck_assert_int_eq(s.shift, 1);
	ck_assert_int_eq(kvm_pvclock_scale_init(2000000000, &s), 0);   /* 2 ticks = 1 ns */
	ck_assert_uint_eq(s.mul, 1u << 31);
	ck_assert_int_eq(s.shift, 0);
	ck_assert_int_eq(kvm_pvclock_scale_init(4000000000ull, &s), 0);
	ck_assert_uint_eq(s.mul, 1u << 31);
	ck_assert_int_eq(s.shift, -1);
	ck_assert_uint_eq(kvm_pvclock_scale_delta(4000000000ull, s), NS);
}
END_TEST

/* ---- records ---- */
START_TEST(test_publish_version_protocol)
{
	struct pvclock_vcpu_time_info p;
	struct kvm_pvclock_scale s;

	memset(&p, 0, sizeof(p));
	kvm_pvclock_scale_init(2596140000ull, &s);
	kvm_pvclock_publish(&p, 5000000000ull, 1000, s);
	ck_assert_uint_eq(p.version, 2);
	ck_assert_uint_eq(p.flags, PVCLOCK_TSC_STABLE_BIT);
	ck_assert_uint_eq(p.tsc_to_system_mul, s.mul);
	ck_assert_int_eq(p.tsc_shift, s.shift);
	ck_assert_uint_le(p.tsc_timestamp, 5000000000ull);
	ck_assert_uint_ge(p.tsc_timestamp, 1000);
	kvm_pvclock_publish(&p, 6000000000ull, 1000, s);
	ck_assert_uint_eq(p.version, 4);
	p.version = 7;   /* a guest that scribbled an odd value */
	kvm_pvclock_publish(&p, 6000000000ull, 1000, s);
	ck_assert_uint_eq(p.version % 2, 0);
	ck_assert_uint_gt(p.version, 7);
}
END_TEST

/* Records published at different TSCs (different vCPUs, different
 * schedule-ins) give the guest the same ns for the same TSC, and that ns is
 * scale(tsc - epoch): what PVCLOCK_TSC_STABLE_BIT lets the guest assume. */
START_TEST(test_publish_consistent)
{
	static const uint64_t hz[] = { 1000000000, 2596140000ull, 3000000000ull, 50000000 };
	uint64_t x = 88172645463325252ull;

	for (unsigned h = 0; h < 4; h++) {
		struct kvm_pvclock_scale s;
		uint64_t epoch = 123456789;

		kvm_pvclock_scale_init(hz[h], &s);
		for (int i = 0; i < 2000; i++) {
			struct pvclock_vcpu_time_info a, b;
			uint64_t ta, tb, tr;

			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			ta = epoch + (x % (hz[h] * 3600));
			tb = epoch + ((x >> 20) % (hz[h] * 3600));
			tr = MAX(ta, tb) + (x % (hz[h] * 2));
			memset(&a, 0, sizeof(a));
			memset(&b, 0, sizeof(b));
			kvm_pvclock_publish(&a, ta, epoch, s);
			kvm_pvclock_publish(&b, tb, epoch, s);
			ck_assert_uint_eq(kvm_pvclock_read(&a, tr), kvm_pvclock_read(&b, tr));
			ck_assert_uint_eq(kvm_pvclock_read(&a, tr),
					  kvm_pvclock_scale_delta(tr - epoch, s));
		}
	}
}
END_TEST

START_TEST(test_publish_monotonic)
{
	struct pvclock_vcpu_time_info p;
	struct kvm_pvclock_scale s;
	uint64_t last = 0;

	kvm_pvclock_scale_init(2596140000ull, &s);
	memset(&p, 0, sizeof(p));
	for (uint64_t t = 0; t < 40000000000ull; t += 333333331) {
		uint64_t before = kvm_pvclock_read(&p, t);

		kvm_pvclock_publish(&p, t, 0, s);   /* a schedule-in at t */
		if (t)
			ck_assert_uint_eq(kvm_pvclock_read(&p, t), before);
		ck_assert_uint_ge(kvm_pvclock_read(&p, t), last);
		last = kvm_pvclock_read(&p, t);
	}
}
END_TEST

START_TEST(test_wall_clock)
{
	struct pvclock_wall_clock w;

	memset(&w, 0, sizeof(w));
	kvm_pvclock_wall_publish(&w, 1767225600ll * (int64_t)NS + 250);
	ck_assert_uint_eq(w.sec, 1767225600u);
	ck_assert_uint_eq(w.nsec, 250);
	ck_assert_uint_eq(w.version, 2);
	kvm_pvclock_wall_publish(&w, -5);
	ck_assert_uint_eq(w.sec, 0);
	ck_assert_uint_eq(w.version, 4);
}
END_TEST

/* ---- MSRs on a host buffer as guest RAM ---- */
static uint8_t ram[64 * 1024] __attribute__((aligned(4096)));
static int maps;

static void *fake_map(void *ctx, uint64_t gpa, uint64_t len)
{
	maps++;
	if (gpa >= sizeof(ram) || len > sizeof(ram) - gpa)
		return NULL;
	return ram + gpa;
}

static struct kvm_pv_vcpu K;
static struct kvm_pv_env E;

static void msr_setup(void)
{
	memset(ram, 0, sizeof(ram));
	memset(&K, 0, sizeof(K));
	maps = 0;
	E = (struct kvm_pv_env){ .map = fake_map, .features = kvm_pv_features(),
				 .tsc = 10 * NS, .tsc_epoch = NS, .wall_ns_at_epoch = 7 * (int64_t)NS };
	kvm_pvclock_scale_init(1000000000, &E.scale);
}

START_TEST(test_msr_system_time)
{
	struct pvclock_vcpu_time_info *p = (void *)(ram + 0x1000);
	uint64_t v;

	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_SYSTEM_TIME_NEW, 0x1001), 0);
	ck_assert_ptr_eq(K.clock, p);
	ck_assert_uint_eq(p->version, 2);
	ck_assert_uint_eq(kvm_pvclock_read(p, 10 * NS), 9 * NS);   /* 9 s past the epoch */
	ck_assert_int_eq(kvm_pv_msr_read(&K, E.features, MSR_KVM_SYSTEM_TIME_NEW, &v), 0);
	ck_assert_uint_eq(v, 0x1001);
	/* disable, then an address outside RAM: accepted, clock stays off */
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_SYSTEM_TIME_NEW, 0x1000), 0);
	ck_assert_ptr_null(K.clock);
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_SYSTEM_TIME_NEW, 0x7fff0001), 0);
	ck_assert_ptr_null(K.clock);
	/* the old alias works the same */
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_SYSTEM_TIME, 0x2001), 0);
	ck_assert_ptr_eq(K.clock, (void *)(ram + 0x2000));
}
END_TEST

START_TEST(test_msr_wall_clock)
{
	struct pvclock_wall_clock *w = (void *)(ram + 0x3004);

	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_WALL_CLOCK_NEW, 0x3004), 0);
	ck_assert_uint_eq(w->sec, 7);
	ck_assert_uint_eq(w->nsec, 0);
	ck_assert_uint_eq(w->version, 2);
}
END_TEST

START_TEST(test_msr_not_offered)
{
	uint64_t v;

	E.features = 0;
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_SYSTEM_TIME_NEW, 0x1001), -EINVAL);
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_STEAL_TIME, 0x1001), -EINVAL);
	ck_assert_int_eq(kvm_pv_msr_read(&K, 0, MSR_KVM_WALL_CLOCK_NEW, &v), -EINVAL);
	ck_assert_int_eq(maps, 0);
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_PV_EOI_EN, 0x1001), -EINVAL);
	ck_assert_int_eq(kvm_pv_msr_read(&K, 0, MSR_KVM_PV_EOI_EN, &v), -EINVAL);
	ck_assert_ptr_null((void *)K.pv_eoi);
	E.features = kvm_pv_features();
	/* never offered: async PF, poll control */
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, 0x4b564d02, 0x1001), -EINVAL);
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, 0x4b564d05, 1), -EINVAL);
}
END_TEST

START_TEST(test_steal_time)
{
	struct kvm_steal_time *st = (void *)(ram + 0x4040);
	uint64_t v;

	K.steal_ns = 1000;   /* steal before registration is not the guest's */
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_STEAL_TIME, 0x4041), 0);
	ck_assert_ptr_eq(K.steal, st);
	ck_assert_uint_eq(st->steal, 0);
	ck_assert_uint_eq(st->version, 2);
	K.steal_ns = 5000;
	kvm_steal_publish(&K);
	ck_assert_uint_eq(st->steal, 4000);
	ck_assert_uint_eq(st->version, 4);
	K.steal_ns = 4000;   /* never goes backwards */
	kvm_steal_publish(&K);
	ck_assert_uint_eq(st->steal, 4000);
	ck_assert_int_eq(kvm_pv_msr_read(&K, E.features, MSR_KVM_STEAL_TIME, &v), 0);
	ck_assert_uint_eq(v, 0x4041);
}
END_TEST

START_TEST(test_steal_reserved_bits)
{
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_STEAL_TIME, 0x4021), -EINVAL);
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_STEAL_TIME, 0x4003), -EINVAL);
	ck_assert_ptr_null(K.steal);
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_STEAL_TIME, 0x4040), 0);   /* off */
	ck_assert_ptr_null(K.steal);
}
END_TEST

START_TEST(test_preempted_and_flush)
{
	struct kvm_steal_time *st = (void *)(ram + 0x4000);

	kvm_pv_preempted_set(&K, true);   /* not registered: no effect, no crash */
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_STEAL_TIME, 0x4001), 0);
	kvm_pv_preempted_set(&K, true);
	ck_assert_uint_eq(st->preempted, KVM_VCPU_PREEMPTED);
	kvm_pv_preempted_set(&K, false);
	ck_assert_uint_eq(st->preempted, 0);
	ck_assert(!K.flush_tlb);
	kvm_pv_preempted_set(&K, true);
	st->preempted |= KVM_VCPU_FLUSH_TLB;   /* the guest's kvm_flush_tlb_multi() */
	kvm_pv_preempted_set(&K, false);
	ck_assert_uint_eq(st->preempted, 0);
	ck_assert(K.flush_tlb);
	ck_assert_uint_eq(K.flushes, 1);
}
END_TEST

START_TEST(test_features)
{
	uint32_t f = kvm_pv_features();

	ck_assert(f & BIT(KVM_FEATURE_CLOCKSOURCE2));
	ck_assert(f & BIT(KVM_FEATURE_STEAL_TIME));
	ck_assert(f & BIT(KVM_FEATURE_CLOCKSOURCE_STABLE_BIT));
	ck_assert(f & BIT(KVM_FEATURE_PV_EOI));
	ck_assert_int_eq(!!(f & BIT(KVM_FEATURE_PV_UNHALT)), KVM_PV_HOOK_UNHALT);
	ck_assert_int_eq(!!(f & BIT(KVM_FEATURE_PV_TLB_FLUSH)), KVM_PV_HOOK_TLB_FLUSH);
	ck_assert_int_eq(!!(f & BIT(KVM_FEATURE_PV_SCHED_YIELD)), KVM_PV_HOOK_YIELD_TO);
	ck_assert_int_eq(!!(f & BIT(KVM_FEATURE_PV_SEND_IPI)), KVM_PV_OFFER_SEND_IPI);
	ck_assert(!(f & 0x00fff000u & ~BIT(KVM_FEATURE_PV_SEND_IPI) & ~BIT(KVM_FEATURE_PV_SCHED_YIELD)));
}
END_TEST

START_TEST(test_pv_eoi_msr)
{
	uint64_t v;

	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_PV_EOI_EN, 0x5005), 0);
	ck_assert_ptr_eq((void *)K.pv_eoi, ram + 0x5004);
	ck_assert_int_eq(kvm_pv_msr_read(&K, E.features, MSR_KVM_PV_EOI_EN, &v), 0);
	ck_assert_uint_eq(v, 0x5005);
	/* reserved bit 1, or a word outside RAM: #GP and the old setting stays */
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_PV_EOI_EN, 0x5007), -EINVAL);
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_PV_EOI_EN, 0x7fff0001), -EINVAL);
	ck_assert_ptr_eq((void *)K.pv_eoi, ram + 0x5004);
	/* disable: no word, nothing armed */
	kvm_pv_eoi_arm(&K);
	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_PV_EOI_EN, 0x5004), 0);
	ck_assert_ptr_null((void *)K.pv_eoi);
	ck_assert(!K.pv_eoi_armed);
}
END_TEST

/* The guest's side is kvm_guest_apic_eoi_write(): test-and-clear bit 0, and
 * write the APIC only when it was not set. */
START_TEST(test_pv_eoi_protocol)
{
	volatile uint8_t *w = (volatile uint8_t *)(ram + 0x6000);

	ck_assert_int_eq(kvm_pv_msr_write(&K, &E, MSR_KVM_PV_EOI_EN, 0x6001), 0);
	ram[0x6001] = 0x5a;   /* the host touches bit 0 of byte 0 only */
	kvm_pv_eoi_arm(&K);
	ck_assert_uint_eq(*w, 1);
	ck_assert(K.pv_eoi_armed);
	/* the guest took no interrupt: the host takes the bit back, no EOI */
	ck_assert(!kvm_pv_eoi_disarm(&K));
	ck_assert_uint_eq(*w, 0);
	ck_assert(!K.pv_eoi_armed);
	/* the guest cleared it: that was its EOI */
	kvm_pv_eoi_arm(&K);
	*w &= (uint8_t)~1u;
	ck_assert(kvm_pv_eoi_disarm(&K));
	ck_assert_uint_eq(K.pv_eois, 1);
	ck_assert_uint_eq(ram[0x6001], 0x5a);
}
END_TEST

/* ---- PV send-IPI through a real vintc ---- */
#define NV 4
static uint32_t pages[NV][1024] __attribute__((aligned(4096)));
static struct vlapic lapics[NV];
static struct vintc IC;
static int kicks[NV];

static stime_t h_now(void *c) { return 0; }
static void h_kick(void *c, unsigned v) { kicks[v]++; }
static void h_start(void *c, unsigned v, int vec) { }
static const struct dev_host host = { .now = h_now, .kick_vcpu = h_kick, .start_vcpu = h_start };

static void ipi_setup(void)
{
	memset(kicks, 0, sizeof(kicks));
	memset(pages, 0, sizeof(pages));
	vintc_init(&IC, &host, NULL, NULL);
	for (unsigned i = 0; i < NV; i++) {
		uint64_t x = 0x1ff;

		ck_assert_int_eq(vintc_add_vcpu(&IC, i, &lapics[i], pages[i]), 0);
		ck_assert_int_eq(vintc_mmio(&IC, i, 0xfee00000 + APIC_SVR, 4, true, &x), 0);
	}
}

START_TEST(test_ipi_bitmap)
{
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0xa, 0, 0, 0x40, 64), 2);   /* APIC IDs 1, 3 */
	ck_assert(!vlapic_vec_test(&lapics[0], APIC_IRR, 0x40));
	ck_assert(vlapic_vec_test(&lapics[1], APIC_IRR, 0x40));
	ck_assert(!vlapic_vec_test(&lapics[2], APIC_IRR, 0x40));
	ck_assert(vlapic_vec_test(&lapics[3], APIC_IRR, 0x40));
	ck_assert_int_eq(kicks[1], 1);
	ck_assert_int_eq(kicks[3], 1);
	/* min offsets the bitmap; IDs without a vCPU are not counted */
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0x7, 0, 2, 0x41, 64), 2);   /* 2, 3, (4) */
	ck_assert(vlapic_vec_test(&lapics[2], APIC_IRR, 0x41));
	ck_assert(vlapic_vec_test(&lapics[3], APIC_IRR, 0x41));
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0, 1, 0, 0x42, 64), 0);     /* ID 64 */
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 1, 0, ~0ull, 0x42, 64), 0); /* ID 0xffffffff */
	/* min is 32 bits and the high half's start wraps there, as in KVM */
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0, 1, 0xffffffc1ull, 0x43, 64), 1);   /* ID 1 */
	ck_assert(vlapic_vec_test(&lapics[1], APIC_IRR, 0x43));
	/* 32-bit callers: 32-bit words, the high one starts at min + 32 */
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0, 1, 0xffffffe2ull, 0x44, 32), 1);   /* ID 2 */
	ck_assert(vlapic_vec_test(&lapics[2], APIC_IRR, 0x44));
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 1ull << 32, 0, 0, 0x45, 32), 0);      /* bit 32 is cut */
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 1, 0, 0, (1ull << 32) | 0x45, 32), 1); /* ICR cut too */
}
END_TEST

/* Which vector may be EOId in memory (KVM's apic_sync_pv_eoi_to_guest rule). */
START_TEST(test_pv_eoi_vector)
{
	struct apic_msg edge = { .vector = 0x50, .mode = APIC_DM_FIXED, .assert = true };
	struct apic_msg low = { .vector = 0x30, .mode = APIC_DM_FIXED, .assert = true };
	struct apic_msg lvl = { .vector = 0x60, .mode = APIC_DM_FIXED, .assert = true,
				.level_trig = true };
	struct vlapic *l = &lapics[1];

	ck_assert_int_eq(vlapic_pv_eoi_vector(l), -1);   /* nothing in service */
	vlapic_accept_msg(l, &edge);
	ck_assert_int_eq(vlapic_pv_eoi_vector(l), -1);   /* pending, not in service */
	ck_assert_int_eq(vlapic_ack(l, 0x50), 0);
	ck_assert_int_eq(vlapic_pv_eoi_vector(l), 0x50);
	vlapic_accept_msg(l, &low);                      /* waits behind 0x50 */
	ck_assert_int_eq(vlapic_pv_eoi_vector(l), -1);
	vlapic_eoi(l);
	ck_assert_int_eq(vlapic_ack(l, 0x30), 0);
	ck_assert_int_eq(vlapic_pv_eoi_vector(l), 0x30);
	vlapic_accept_msg(l, &lvl);
	ck_assert_int_eq(vlapic_ack(l, 0x60), 0);
	ck_assert_int_eq(vlapic_pv_eoi_vector(l), -1);   /* level: the IOAPIC needs the EOI */
}
END_TEST

START_TEST(test_ipi_nmi_and_bad)
{
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0x1, 0, 0, APIC_DM_NMI << 8, 64), 1);
	ck_assert(lapics[0].nmi_pending);
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 1, 0, 0, 0x40 | BIT(11), 64), -EINVAL);   /* logical */
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 1, 0, 0, 0x40 | (2u << 18), 64), -EINVAL); /* shorthand */
}
END_TEST

/* KVM's answer is the count accepted: ICR 0, illegal vectors, SMI and
 * targets with a software-disabled LAPIC send nothing and are no error. */
START_TEST(test_ipi_count_kvm_abi)
{
	uint64_t off = 0xff;

	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0x3, 0, 0, 0, 64), 0);          /* ICR 0 */
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0x3, 0, 0, 0x05, 64), 0);       /* vector < 16 */
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0x3, 0, 0, 2u << 8, 64), 0);    /* SMI */
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0, 0, 0, 0x40, 64), 0);         /* empty bitmap */
	ck_assert(!vlapic_vec_test(&lapics[0], APIC_IRR, 0x05));
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0x1, 0, 0, (APIC_DM_INIT << 8) | BIT(15), 64), 0);
	ck_assert_int_eq(vintc_mmio(&IC, 1, 0xfee00000 + APIC_SVR, 4, true, &off), 0);
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0xf, 0, 0, 0x40, 64), 3);       /* 0, 2, 3; not 1 */
	ck_assert(!vlapic_vec_test(&lapics[1], APIC_IRR, 0x40));
	ck_assert_int_eq(kvm_pv_send_ipi(&IC, 0x1f0, 0, 0, 0x40, 64), 0);     /* IDs 4-8: none */
	ck_assert_int_eq(kvm_pv_apic_to_vcpu(&IC, 2), 2);
	ck_assert_int_eq(kvm_pv_apic_to_vcpu(&IC, 9), -1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kvm_pv");
	TCase *tc = tcase_create("pvclock");
	TCase *tm = tcase_create("msr");
	TCase *ti = tcase_create("ipi");

	tcase_add_test(tc, test_scale_normalised);
	tcase_add_test(tc, test_scale_bad_rate);
	tcase_add_test(tc, test_scale_values);
	tcase_add_test(tc, test_publish_version_protocol);
	tcase_add_test(tc, test_publish_consistent);
	tcase_add_test(tc, test_publish_monotonic);
	tcase_add_test(tc, test_wall_clock);
	tcase_add_test(tc, test_features);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tm, msr_setup, NULL);
	tcase_add_test(tm, test_msr_system_time);
	tcase_add_test(tm, test_msr_wall_clock);
	tcase_add_test(tm, test_msr_not_offered);
	tcase_add_test(tm, test_steal_time);
	tcase_add_test(tm, test_steal_reserved_bits);
	tcase_add_test(tm, test_preempted_and_flush);
	tcase_add_test(tm, test_pv_eoi_msr);
	tcase_add_test(tm, test_pv_eoi_protocol);
	suite_add_tcase(s, tm);
	tcase_add_checked_fixture(ti, ipi_setup, NULL);
	tcase_add_test(ti, test_ipi_bitmap);
	tcase_add_test(ti, test_ipi_nmi_and_bad);
	tcase_add_test(ti, test_ipi_count_kvm_abi);
	tcase_add_test(ti, test_pv_eoi_vector);
	suite_add_tcase(s, ti);
	return s;
}

int main(void)
{
	return check_run(suite());
}
