/* Unit tests for hv/vmx/cpuid_cache.c: slot numbering, hits and misses, and
 * that every leaf the cache keeps has a filtered answer that depends on
 * neither the vCPU, its CR4/APIC state nor the subleaf (else a cached answer
 * would be wrong for some vCPU). */
#include <check.h>
#include <string.h>
#include "vmx/cpuid_cache.h"
#include "check_run.h"

static const uint32_t kept[] = { 0x0, 0x2, 0x3, 0x5, 0x6, 0xa, 0x15, 0x16,
				 0x80000000, 0x80000001, 0x80000004, 0x80000008,
				 0x40000000, 0x40000001, 0x40000100 };
static const uint32_t not_kept[] = { 0x1, 0x4, 0x7, 0xb, 0xd, 0xf, 0x10, 0x12, 0x14, 0x1f,
				     0x80000009, 0x8000001d, 0x40000002, 0x40000101, 0x4fffffff,
				     0xffffffff };

static bool cached(const struct cpuid_cache *c, uint32_t leaf, struct cpuid_regs *r)
{
	const struct cpuid_regs *f = cpuid_cache_find(c, leaf);
	const struct cpuid_regs *b = cpuid_cache_find_basic(c, leaf);

	ck_assert_ptr_eq(b, leaf < 32 ? f : NULL);   /* the hot-path variant agrees */
	if (f)
		*r = *f;
	return f != NULL;
}

START_TEST(test_slots)
{
	ck_assert_int_eq(cpuid_cache_slot(0), 0);
	ck_assert_int_eq(cpuid_cache_slot(0x1f), 0x1f);
	ck_assert_int_eq(cpuid_cache_slot(0x80000000), 32);
	ck_assert_int_eq(cpuid_cache_slot(0x80000008), 40);
	ck_assert_int_eq(cpuid_cache_slot(0x80000009), -1);
	ck_assert_int_eq(cpuid_cache_slot(0x40000000), 41);
	ck_assert_int_eq(cpuid_cache_slot(0x40000001), 42);
	ck_assert_int_eq(cpuid_cache_slot(0x40000100), 43);
	ck_assert_int_eq(cpuid_cache_slot(0x40000002), -1);
	ck_assert_int_eq(cpuid_cache_slot(0x20), -1);
	ck_assert_int_eq(cpuid_cache_slot(0xffffffff), -1);
}
END_TEST

START_TEST(test_put_get)
{
	static struct cpuid_cache c;
	struct cpuid_regs a = { 0xb, 0x756e6547, 0x6c65746e, 0x49656e69 }, b = { 1, 2, 3, 4 }, r;

	memset(&c, 0, sizeof(c));
	for (unsigned i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		ck_assert(!cached(&c, kept[i], &r));
	cpuid_cache_put(&c, 0, &a);
	ck_assert(cached(&c, 0, &r));
	ck_assert_mem_eq(&r, &a, sizeof(r));
	cpuid_cache_put(&c, 0x40000100, &b);
	ck_assert(cached(&c, 0x40000100, &r));
	ck_assert_mem_eq(&r, &b, sizeof(r));
	ck_assert(!cached(&c, 0x40000000, &r));   /* neighbours untouched */
	ck_assert(!cached(&c, 0x2, &r));
	for (unsigned i = 0; i < sizeof(not_kept) / sizeof(not_kept[0]); i++) {
		cpuid_cache_put(&c, not_kept[i], &b);
		ck_assert_msg(!cached(&c, not_kept[i], &r), "leaf %#x cached", not_kept[i]);
	}
	ck_assert(cached(&c, 0, &r));
	ck_assert_mem_eq(&r, &a, sizeof(r));
}
END_TEST

/* The filtered answer for leaf under a few vCPUs, guest states and subleaves;
 * true if they all agree. */
static bool filter_invariant(const struct cpuid_policy *p, uint32_t leaf)
{
	static const struct cpuid_regs hosts[] = {
		{ 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff },
		{ 0x16, 0x12345678, 0x9abcdef0, 0x0f0f0f0f },
	};
	struct cpuid_vcpu vs[] = {
		{ .index = 0 }, { .index = 3, .cr4_osxsave = true, .cr4_pke = true, .apic_enabled = true },
		{ .index = 1, .apic_enabled = true },
	};
	static const uint32_t subs[] = { 0, 1, 5 };

	for (unsigned h = 0; h < 2; h++) {
		struct cpuid_regs ref = hosts[h];

		cpuid_filter_apply(p, &vs[0], leaf, 0, &ref);
		for (unsigned v = 0; v < 3; v++)
			for (unsigned s = 0; s < 3; s++) {
				struct cpuid_regs r = hosts[h];

				cpuid_filter_apply(p, &vs[v], leaf, subs[s], &r);
				if (memcmp(&r, &ref, sizeof(r)))
					return false;
			}
	}
	return true;
}

START_TEST(test_kept_leaves_are_static)
{
	struct cpuid_policy p;

	for (int kvm = 0; kvm < 2; kvm++) {
		cpuid_policy_init(&p, 4, 0x16);
		p.kvm_sig = kvm;
		p.kvm_features = 0x1234;
		for (unsigned i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
			ck_assert_msg(filter_invariant(&p, kept[i]), "leaf %#x varies", kept[i]);
		/* The check can tell: these depend on the vCPU or the subleaf. */
		ck_assert(!filter_invariant(&p, 0x1));
		ck_assert(!filter_invariant(&p, 0xb));
		ck_assert(!filter_invariant(&p, 0x7));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpuid_cache");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_slots);
	tcase_add_test(tc, test_put_get);
	tcase_add_test(tc, test_kept_leaves_are_static);
	suite_add_tcase(s, tc);

	return check_run(s);
}
