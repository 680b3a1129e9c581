/* Unit tests for hv/mm/heap.c on a pmm whose "physical" RAM is a host arena
 * (identity-mapped, like the hypervisor's own memory). */
#include <check.h>
#include "check_run.h"
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "mm/heap.h"
#include "mm/pmm.h"
#include "errno.h"
#include "log.h"
#include "shim.h"

#define ARENA (16u << 20)
static uint8_t *arena;

static void setup(void)
{
	if (!arena)
		arena = aligned_alloc(4096, ARENA);
	pmm_reset();
	ck_assert_int_eq(pmm_add_usable((uintptr_t)arena, ARENA), 0);
	ck_assert_int_eq(pmm_init(0, 0), 0);
	shim_reset_logs();
}

static uint64_t pmm_free(void)
{
	struct pmm_stats st;
	pmm_stats_get(&st);
	return st.free_pages;
}

START_TEST(test_sizes_and_layout)
{
	static void *p[600];
	static size_t sz[600];
	struct heap_stats hs;
	uint64_t before;

	setup();
	before = pmm_free();
	for (int i = 0; i < 600; i++) {
		sz[i] = (size_t)(i * 37 % 9000) + 1;
		p[i] = kmalloc(sz[i]);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % HEAP_ALIGN, 0);
		ck_assert_uint_ge(ksize(p[i]), sz[i]);
		ck_assert((uint8_t *)p[i] >= arena && (uint8_t *)p[i] + sz[i] <= arena + ARENA);
		memset(p[i], i & 0xff, sz[i]);
	}
	for (int i = 0; i < 600; i++) {          /* no two allocations overlap */
		size_t bad = 0;
		for (size_t k = 0; k < sz[i]; k++)
			bad += ((uint8_t *)p[i])[k] != (i & 0xff);
		ck_assert_uint_eq(bad, 0);
	}
	heap_stats_get(&hs);
	ck_assert_uint_eq(hs.live_objects, 600);
	for (int i = 0; i < 600; i += 2)
		kfree(p[i]);
	for (int i = 1; i < 600; i += 2)
		kfree(p[i]);
	heap_stats_get(&hs);
	ck_assert_uint_eq(hs.live_objects, 0);
	ck_assert_uint_eq(hs.big_pages, 0);
	ck_assert_uint_le(hs.slab_pages, 8);     /* one kept per class at most */
	ck_assert_uint_eq(pmm_free() + hs.slab_pages, before);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 0);
}
END_TEST

START_TEST(test_zero_and_edges)
{
	uint8_t *a, *b;
	struct heap_stats hs;

	setup();
	ck_assert_ptr_null(kmalloc(0));
	ck_assert_ptr_null(kcalloc(SIZE_MAX / 2, 4));
	ck_assert_ptr_null(kmalloc(SIZE_MAX - 10));
	ck_assert_ptr_null(kmalloc(ARENA));           /* bigger than all RAM */
	a = kmalloc(100);
	memset(a, 0xee, 100);
	kfree(a);
	b = kzalloc(100);
	ck_assert_ptr_eq(a, b);                       /* same slot comes back ... */
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(b[i], 0);               /* ... zeroed */
	kfree(b);
	b = kcalloc(1000, 8);
	int nz = 0;
	for (int i = 0; i < 8000; i++)
		nz += b[i] != 0;
	ck_assert_int_eq(nz, 0);
	kfree(b);
	kfree(NULL);
	ck_assert_uint_eq(ksize(NULL), 0);
	heap_stats_get(&hs);
	ck_assert_uint_eq(hs.live_objects, 0);
	/* Exhaustion: big allocations until NULL, then everything comes back. */
	uint64_t before = pmm_free();
	void *big[64];
	int n = 0;
	while (n < 64 && (big[n] = kmalloc(1 << 20)))
		n++;
	ck_assert_int_gt(n, 10);
	ck_assert_int_lt(n, 16);
	while (n--)
		kfree(big[n]);
	ck_assert_uint_eq(pmm_free(), before);
}
END_TEST

START_TEST(test_bad_frees)
{
	struct heap_stats hs;
	uint8_t *a, *b, *c;

	setup();
	a = kmalloc(24);
	b = kmalloc(24);
	c = kmalloc(20000);
	kfree(a);
	kfree(a);                                   /* double free, slab */
	kfree(b + 8);                               /* interior pointer */
	kfree(c + 16);                              /* interior of a big block */
	kfree(c);
	kfree(c);                                   /* double free, big */
	kfree(arena + ARENA - 4096 + 512);          /* page kmalloc never used */
	heap_stats_get(&hs);
	ck_assert_uint_eq(hs.bad_frees, 5);
	ck_assert_int_eq(shim_log_count[LOG_ERR], 5);
	ck_assert_uint_eq(hs.live_objects, 1);
	/* The heap still works and a is handed out only once. */
	uint8_t *x = kmalloc(24), *y = kmalloc(24);
	ck_assert_ptr_ne(x, y);
	ck_assert(x != b && y != b);
	kfree(x);
	kfree(y);
	kfree(b);
	heap_stats_get(&hs);
	ck_assert_uint_eq(hs.live_objects, 0);
}
END_TEST

#ifndef NTHREADS
#define NTHREADS 2
#endif

/* Threads hammer the heap; each checks its blocks keep their contents. */
static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	uint8_t *slot[64] = { 0 };
	size_t len[64];
	uint8_t tag = (uint8_t)(seed * 17 + 1);

	for (int it = 0; it < 20000; it++) {
		int i = rand_r(&seed) % 64;
		if (slot[i]) {
			for (size_t k = 0; k < len[i]; k += 7)
				if (slot[i][k] != tag)
					return (void *)1;
			kfree(slot[i]);
			slot[i] = NULL;
		} else {
			len[i] = (size_t)(rand_r(&seed) % (it % 50 ? 700 : 9000)) + 1;
			slot[i] = kmalloc(len[i]);
			if (!slot[i])
				return (void *)2;
			memset(slot[i], tag, len[i]);
		}
	}
	for (int i = 0; i < 64; i++)
		kfree(slot[i]);
	return NULL;
}

START_TEST(test_threads)
{
	pthread_t t[NTHREADS];
	void *rc;
	struct heap_stats hs;

	setup();
	for (uintptr_t i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], &rc);
		ck_assert_ptr_null(rc);
	}
	heap_stats_get(&hs);
	ck_assert_uint_eq(hs.live_objects, 0);
	ck_assert_uint_eq(hs.bad_frees, 0);
	ck_assert_uint_eq(hs.big_pages, 0);
}
END_TEST


/* Cost of a small kmalloc/kfree pair (host, ASan build): printed, loosely bounded. */
START_TEST(test_cost)
{
	static void *p[256];
	struct timespec t0, t1;

	setup();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int round = 0; round < 200; round++) {
		for (int i = 0; i < 256; i++)
			p[i] = kmalloc((size_t)(16 + (i % 8) * 40));
		for (int i = 0; i < 256; i++)
			kfree(p[i]);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
		    (200.0 * 256);
	fprintf(stderr, "heap: kmalloc+kfree of 16-296 bytes: %.0f ns per pair\n", ns);
	ck_assert_msg(ns < 100000, "too slow: %.0f ns", ns);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("heap");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sizes_and_layout);
	tcase_add_test(tc, test_zero_and_edges);
	tcase_add_test(tc, test_bad_frees);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_cost);
	suite_add_tcase(s, tc);

	return check_run(s);
}
