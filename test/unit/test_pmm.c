/* Unit tests for hv/mm/pmm*.c: reservations are never handed out, whatever
 * the memory map looks like (unaligned, overlapping, holes), plus alignment,
 * limits, double frees and the cost of a large guest-RAM block. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mm/pmm.h"
#include "mm/pmm_boot.h"
#include "errno.h"
#include "log.h"
#include "shim.h"

/* The bitmap lives in host memory: pmm asks for it by physical address. */
static uint8_t *bm_host;
static uint64_t bm_host_len;
static paddr_t bm_pa_seen;

static void *test_map(paddr_t pa, uint64_t len)
{
	free(bm_host);
	bm_host = malloc(len);
	bm_host_len = len;
	bm_pa_seen = pa;
	memset(bm_host, 0x5a, len);
	return bm_host;
}

static void setup(void)
{
	pmm_reset();
	pmm_phys_to_virt = test_map;
	shim_reset_logs();
}

/* ---- a brute-force model of what must be free ---- */
#define SPAN_PAGES 16384ULL          /* model covers 64 MiB */
struct ent { uint64_t base, len; int usable; };
static struct ent ents[64];
static int nents;
static struct { uint64_t base, len; } wins[4];
static int nwins;
static uint8_t expect[SPAN_PAGES];    /* 1: may be handed out */
static uint8_t owned[SPAN_PAGES];     /* 1: currently allocated by the test */

static void add_ent(uint64_t base, uint64_t len, int usable)
{
	ents[nents++] = (struct ent){ base, len, usable };
	if (usable)
		ck_assert_int_eq(pmm_add_usable(base, len), 0);
	else
		ck_assert_int_eq(pmm_add_reserved(base, len), 0);
}

static void add_win(uint64_t base, uint64_t len)
{
	wins[nwins].base = base;
	wins[nwins++].len = len;
	ck_assert_int_eq(pmm_allow_low(base, len), 0);
}

static void model_build(void)
{
	struct pmm_stats st;

	pmm_stats_get(&st);
	for (uint64_t p = 0; p < SPAN_PAGES; p++) {
		uint64_t a = p * 4096, b = a + 4096;
		int in_usable = 0, hit_res = 0, ok_low = a >= 0x100000;
		for (int i = 0; i < nents; i++) {
			uint64_t s = ents[i].base, e = ents[i].base + ents[i].len;
			if (ents[i].usable && s <= a && b <= e)
				in_usable = 1;
			if (!ents[i].usable && s < b && a < e)
				hit_res = 1;
		}
		for (int i = 0; i < nwins; i++)
			if (wins[i].base <= a && b <= wins[i].base + wins[i].len)
				ok_low = 1;
		if (a < st.bitmap_pa + st.bitmap_bytes && st.bitmap_pa < b)
			hit_res = 1;
		expect[p] = in_usable && !hit_res && ok_low && p != 0;
	}
	memset(owned, 0, sizeof(owned));
}

static uint64_t model_count(void)
{
	uint64_t n = 0;
	for (uint64_t p = 0; p < SPAN_PAGES; p++)
		n += expect[p];
	return n;
}

/* Check a returned block against the model and take it. */
/* Check a returned block against the model and take it (ck_abort only on a
 * failure: check's asserts cost a syscall each in fork mode). */
static void model_take(paddr_t pa, uint64_t n, uint64_t align, paddr_t limit)
{
	if (!pa || pa % (align ? align : 4096) || (limit && pa + n * 4096 > limit))
		ck_abort_msg("bad block 0x%llx+%llu pages (align 0x%llx limit 0x%llx)",
			     (unsigned long long)pa, (unsigned long long)n,
			     (unsigned long long)align, (unsigned long long)limit);
	for (uint64_t p = pa / 4096; p < pa / 4096 + n; p++) {
		if (p >= SPAN_PAGES || !expect[p])
			ck_abort_msg("page 0x%llx handed out but reserved/unusable",
				     (unsigned long long)p);
		if (owned[p])
			ck_abort_msg("page 0x%llx handed out twice", (unsigned long long)p);
		owned[p] = 1;
	}
}

static uint64_t drain_singles(void)
{
	uint64_t n = 0;
	paddr_t pa;

	while ((pa = pmm_alloc_page())) {
		model_take(pa, 1, 0, 0);
		n++;
	}
	return n;
}

START_TEST(test_basic_map)
{
	struct pmm_stats st;
	uint64_t total;

	setup();
	add_ent(0, 0x9fc00, 1);
	add_ent(0x9fc00, 0x400, 0);
	add_ent(0xf0000, 0x10000, 0);
	add_ent(0x100000, 0x3f00000, 1);
	add_ent(0x200000, 0x200000, 0);            /* image */
	add_ent(0x1000000, 0x200000 + 123, 0);     /* module, unaligned end */
	add_ent(0x3000000, 0x10000, 0);            /* boot info */
	add_win(0x1000, 0x7f000);                  /* trampoline area */
	ck_assert_int_eq(pmm_init(0, 0), 0);
	pmm_stats_get(&st);
	ck_assert_uint_eq(st.bitmap_pa, 0x100000);   /* lowest fit above 1 MiB */
	ck_assert_uint_eq(bm_pa_seen, 0x100000);
	ck_assert_uint_eq(st.bitmap_bytes, 4096);
	model_build();
	total = model_count();
	ck_assert_uint_eq(st.total_pages, total);
	ck_assert_uint_eq(st.free_pages, total);
	/* Below 1 MiB only from the window; it comes top-down. */
	paddr_t lo = pmm_alloc_pages(1, 0, 0x100000);
	model_take(lo, 1, 0, 0x100000);
	ck_assert_uint_eq(lo, 0x7f000);
	ck_assert_int_eq(pmm_free_pages(lo, 1), 0);
	owned[lo / 4096] = 0;
	ck_assert_uint_eq(drain_singles(), total);
	pmm_stats_get(&st);
	ck_assert_uint_eq(st.free_pages, 0);
	for (uint64_t p = 0; p < SPAN_PAGES; p++)
		if (owned[p] && pmm_free_pages(p * 4096, 1))
			ck_abort_msg("free of page 0x%llx failed", (unsigned long long)p);
	pmm_stats_get(&st);
	ck_assert_uint_eq(st.free_pages, total);
	log_level = LOG_INFO;
	pmm_print();
	log_level = LOG_WARN;
}
END_TEST

START_TEST(test_unaligned_overlapping)
{
	setup();
	add_ent(0x100800, 0xff800 - 0x400, 1);     /* 0x100800-0x1ffc00: pages 0x101-0x1fe */
	add_ent(0x180000, 0x180000, 1);            /* overlaps, extends to 0x300000 */
	add_ent(0x150123, 1, 0);                   /* one byte reserves page 0x150 */
	add_ent(0x1c0000, 0x1000, 0);
	add_ent(0x1c0000, 0x3000, 0);              /* duplicate, overlapping reservation */
	add_ent(0x250000, 0x20000, 1);             /* usable inside usable */
	add_ent(0x260fff, 0x2, 0);                 /* straddles pages 0x260/0x261 */
	add_ent(0x400000, 0x100000, 1);
	add_ent(0x3ff000, 0x3000, 0);              /* reserved overlapping a usable edge */
	add_ent(0x480000, 0x1000, 2 - 2);
	ck_assert_int_eq(pmm_init(0, 0), 0);
	model_build();
	ck_assert(!expect[0x150] && !expect[0x260] && !expect[0x261] && !expect[0x100]);
	ck_assert(!expect[0x400] && !expect[0x401] && expect[0x402] && !expect[0x480]);
	ck_assert_uint_eq(drain_singles(), model_count());
}
END_TEST

START_TEST(test_align_limit_large)
{
	struct pmm_stats st;
	paddr_t a, b, c;

	setup();
	add_ent(0x100000, 0x7ff00000, 1);          /* 2 GiB below 4G */
	add_ent(0x100000000ULL, 0x100000000ULL, 1); /* 4 GiB above */
	add_ent(0x200000, 0x400000, 0);
	ck_assert_int_eq(pmm_init(0, 0), 0);
	a = pmm_alloc_pages(65536, MiB(2), 0);     /* 256 MiB guest RAM */
	ck_assert_uint_eq(a, 0x200000000ULL - MiB(256));
	b = pmm_alloc_pages(65536, MiB(2), GiB(4));
	ck_assert_uint_eq(b, 0x80000000ULL - MiB(256));
	c = pmm_alloc_pages(3, MiB(1), GiB(4));
	ck_assert_uint_eq(c % MiB(1), 0);
	ck_assert_uint_lt(c, b);
	ck_assert_uint_eq(pmm_alloc_pages(1, 0, 0x100000), 0);   /* no low window */
	ck_assert_uint_eq(pmm_alloc_pages(1, 3 * 4096, 0), 0);   /* not a power of two */
	ck_assert_uint_eq(pmm_alloc_pages(0, 0, 0), 0);
	ck_assert_uint_eq(pmm_alloc_pages(1ULL << 22, 0, 0), 0); /* 16 GiB: too big */
	pmm_stats_get(&st);
	ck_assert_uint_eq(st.free_pages, st.total_pages - 2 * 65536 - 3);
	ck_assert_int_eq(pmm_free_pages(a, 65536), 0);
	ck_assert_int_eq(pmm_free_pages(b, 65536), 0);
	ck_assert_int_eq(pmm_free_pages(c, 3), 0);
	pmm_stats_get(&st);
	ck_assert_uint_eq(st.free_pages, st.total_pages);
}
END_TEST

START_TEST(test_bad_frees)
{
	paddr_t a;
	struct pmm_stats st;

	setup();
	add_ent(0, 0xa0000, 1);
	add_ent(0x100000, 0xf00000, 1);
	add_ent(0x400000, 0x1000, 0);
	ck_assert_int_eq(pmm_init(0, 0), 0);
	a = pmm_alloc_pages(4, 0, 0);
	ck_assert_int_eq(pmm_free_pages(a, 4), 0);
	ck_assert_int_eq(pmm_free_pages(a, 4), -EINVAL);          /* double free */
	ck_assert_int_eq(pmm_free_pages(0x400000, 1), -EINVAL);   /* reserved */
	ck_assert_int_eq(pmm_free_pages(0x50000, 1), -EINVAL);    /* low, no window */
	ck_assert_int_eq(pmm_free_pages(0x100000, 1), -EINVAL);   /* the bitmap */
	ck_assert_int_eq(pmm_free_pages(0x2000000, 1), -EINVAL);  /* beyond RAM */
	ck_assert_int_eq(pmm_free_pages(0x500001, 1), -EINVAL);   /* unaligned */
	ck_assert_int_eq(pmm_free_pages(0, 1), -EINVAL);
	ck_assert_int_eq(pmm_free_pages(0xfffffffffffff000ULL, 16), -EINVAL);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 8);
	pmm_stats_get(&st);
	ck_assert_uint_eq(st.free_pages, st.total_pages);
	/* A reservation after init takes free pages for good. */
	a = pmm_alloc_pages(1, 0, 0);
	ck_assert_int_eq(pmm_add_reserved(a - 0x3000, 0x2000), 0);
	pmm_stats_get(&st);
	ck_assert_uint_eq(st.free_pages, st.total_pages - 1);
	ck_assert_int_eq(pmm_free_pages(a - 0x3000, 1), -EINVAL);
	for (paddr_t p; (p = pmm_alloc_page());)
		if (!(p < a - 0x3000 || p >= a - 0x1000))
			ck_abort_msg("reserved page 0x%llx handed out", (unsigned long long)p);
}
END_TEST

START_TEST(test_init_errors)
{
	setup();
	ck_assert_int_eq(pmm_init(0, 0), -ENOMEM);
	setup();
	add_ent(0x100000, 0x1000, 1);               /* only room for the bitmap? none left */
	add_ent(0x100000, 0x1000, 0);
	ck_assert_int_eq(pmm_init(0, 0), -ENOMEM);
	setup();
	add_ent(0x100000, GiB(1), 1);               /* 256 Ki pages: 32 KiB of bitmap */
	ck_assert_int_eq(pmm_bitmap_bytes(), 32768);
	ck_assert_int_eq(pmm_init(0x5000, 4096), -EINVAL);
	setup();
	add_ent(0x100000, GiB(1), 1);
	ck_assert_int_eq(pmm_init(0x200000, 32768), 0);   /* caller's storage, reserved */
	ck_assert_uint_eq(bm_pa_seen, 0x200000);
	for (paddr_t p; (p = pmm_alloc_page());)
		if (!(p < 0x200000 || p >= 0x208000))
			ck_abort_msg("bitmap page 0x%llx handed out", (unsigned long long)p);
	ck_assert_int_eq(pmm_init(0x200000, 32768), -EINVAL);   /* twice */
}
END_TEST

/* Random maps, random allocations: never a reserved or doubly-owned page. */
START_TEST(test_random_maps)
{
	srand(4242);
	for (int round = 0; round < 60; round++) {
		uint64_t expected;
		setup();
		nents = nwins = 0;
		for (int i = 0; i < 12; i++) {
			uint64_t base = (uint64_t)rand() % (SPAN_PAGES * 4096 - 0x100000);
			uint64_t len = (uint64_t)rand() % 0x800000 + 1;
			if (base + len > SPAN_PAGES * 4096)
				len = SPAN_PAGES * 4096 - base;
			add_ent(base, len, (rand() % 3) != 0);
		}
		if (round % 2)
			add_win(0x1000 + (uint64_t)(rand() % 0x40) * 0x1000, 0x10000 + 0x123);
		if (pmm_init(0, 0))
			continue;
		model_build();
		expected = model_count();
		struct pmm_stats st;
		pmm_stats_get(&st);
		ck_assert_uint_eq(st.total_pages, expected);
		for (int k = 0; k < 200; k++) {
			uint64_t n = (uint64_t)rand() % 40 + 1;
			uint64_t align = 4096ULL << (rand() % 8);
			paddr_t limit = rand() % 2 ? (paddr_t)(rand() % (SPAN_PAGES * 4096)) : 0;
			paddr_t pa = pmm_alloc_pages(n, align, limit);
			if (pa)
				model_take(pa, n, align, limit);
			if (pa && rand() % 3 == 0) {
				if (pmm_free_pages(pa, n))
					ck_abort_msg("free failed");
				for (uint64_t p = pa / 4096; p < pa / 4096 + n; p++)
					owned[p] = 0;
			}
		}
		uint64_t held = 0;
		for (uint64_t p = 0; p < SPAN_PAGES; p++)
			held += owned[p];
		ck_assert_uint_eq(drain_singles() + held, expected);
	}
}
END_TEST

/* A 256 MiB, 2 MiB-aligned block on a 64 GiB machine with scattered
 * allocations: must stay far below a millisecond. */
START_TEST(test_large_block_cost)
{
	struct timespec t0, t1;
	paddr_t blocks[8];

	setup();
	add_ent(0x100000, GiB(64), 1);
	ck_assert_int_eq(pmm_init(0, 0), 0);
	for (int i = 0; i < 20000; i++)      /* fragment the top */
		if (!pmm_alloc_pages(1, 0, 0))
			ck_abort_msg("allocation %d failed", i);
	for (int i = 0; i < 20000; i += 2)
		pmm_free_pages(GiB(64) + 0x100000 - (uint64_t)(i + 1) * 4096, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 8; i++) {
		blocks[i] = pmm_alloc_pages(65536, MiB(2), 0);
		ck_assert_uint_ne(blocks[i], 0);
		ck_assert_uint_eq(blocks[i] % MiB(2), 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3;
	fprintf(stderr, "pmm: 8 x 256 MiB 2 MiB-aligned allocations on 64 GiB: %.1f us total\n", us);
	ck_assert_msg(us < 100000, "too slow: %.1f us", us);
}
END_TEST


/* One-call set-up from boot information: the map's non-RAM entries, the
 * image, the boot info, modules and ACPI tables are never handed out. */
START_TEST(test_from_boot)
{
	static struct boot_info bi;
	static struct platform_info pi;
	struct pmm_boot_args a = { .bi = &bi, .pi = &pi, .image_start = 0x200000,
				   .image_end = 0x263000, .low_start = 0x8000, .low_len = 0x8000 };

	setup();
	nents = nwins = 0;
	memset(&bi, 0, sizeof(bi));
	memset(&pi, 0, sizeof(pi));
	bi.mmap[bi.nr_mmap++] = (struct bootinfo_range){ 0, 0x9fc00, 1 };
	bi.mmap[bi.nr_mmap++] = (struct bootinfo_range){ 0x100000, 0x3ee0000, 1 };
	bi.mmap[bi.nr_mmap++] = (struct bootinfo_range){ 0x800000, 0x1000, 2 };  /* inside RAM */
	bi.mmap[bi.nr_mmap++] = (struct bootinfo_range){ 0x3fe0000, 0x20000, 3 };
	bi.mbi = 0xa000;                        /* inside the low window */
	bi.total_size = 0x2c8;
	bi.modules[bi.nr_modules++] = (struct bootinfo_module){ 0x264000, 0x1264123, "m" };
	pi.tables[pi.nr_tables++] = (struct platform_range){ 0x3000000, 0x1234 };
	ck_assert_int_eq(pmm_init_from_boot(&a), 0);
	/* The same facts for the model. */
	ents[nents++] = (struct ent){ 0, 0x9fc00, 1 };
	ents[nents++] = (struct ent){ 0x100000, 0x3ee0000, 1 };
	ents[nents++] = (struct ent){ 0x800000, 0x1000, 0 };
	ents[nents++] = (struct ent){ 0x3fe0000, 0x20000, 0 };
	ents[nents++] = (struct ent){ 0x200000, 0x63000, 0 };
	ents[nents++] = (struct ent){ 0xa000, 0x2c8, 0 };
	ents[nents++] = (struct ent){ 0x264000, 0x1000123, 0 };
	ents[nents++] = (struct ent){ 0x3000000, 0x1234, 0 };
	wins[nwins].base = 0x8000;
	wins[nwins++].len = 0x8000;
	model_build();
	ck_assert(!expect[0x800] && !expect[0x1264] && expect[0x1265] && expect[0xf] && !expect[0xa]);
	ck_assert_uint_eq(drain_singles(), model_count());
	/* RAM above the limit (the end of the 1:1 map) is left out, with a warning. */
	a.ram_limit = 0x2000000;
	shim_reset_logs();
	ck_assert_int_eq(pmm_init_from_boot(&a), 0);
	ck_assert_int_eq(shim_log_count[LOG_WARN], 1);
	for (uint64_t p = 0x2000; p < SPAN_PAGES; p++)
		expect[p] = 0;
	memset(owned, 0, sizeof(owned));
	ck_assert_uint_eq(drain_singles(), model_count());
	a.ram_limit = 0;
	/* A broken map is one error and no allocator. */
	bi.nr_mmap = 0;
	shim_reset_logs();
	ck_assert_int_eq(pmm_init_from_boot(&a), -ENOMEM);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 2);
	ck_assert_uint_eq(pmm_alloc_page(), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pmm");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_basic_map);
	tcase_add_test(tc, test_unaligned_overlapping);
	tcase_add_test(tc, test_align_limit_large);
	tcase_add_test(tc, test_bad_frees);
	tcase_add_test(tc, test_init_errors);
	tcase_add_test(tc, test_random_maps);
	tcase_add_test(tc, test_large_block_cost);
	tcase_add_test(tc, test_from_boot);
	suite_add_tcase(s, tc);

	return check_run(s);
}
