/* Concurrency test for the vProfile recorder: pCPU threads report state
 * changes and events for their own vCPUs while another thread dumps and
 * starts/stops a second VM's profile. Afterwards every vCPU's state times
 * must add up to its window exactly and every ring must balance.
 * Host threads, unlike pCPUs, get preempted: with more threads than CPUs a
 * ticket lock can convoy (each hand-off waits for one descheduled thread),
 * so the threads are few and yield now and then. */
#include <sched.h>
#include <check.h>
#include "check_run.h"
#include <pthread.h>
#include <string.h>
#include "compiler.h"
#include "trace/vprof.h"
#include "shim.h"
#include "../vprof/vp_testutil.h"

#define NTHREADS 2
#ifndef STEPS
#define STEPS 3000
#endif

static uint64_t mem[3 * 4096];
static int64_t clk = 1;
static volatile int stop_dumper;
static long lines, bad_lines;

static stime_t tick(void)
{
	return __atomic_fetch_add(&clk, 1, __ATOMIC_SEQ_CST);
}

static void check_sink(void *ctx, const char *line, size_t len)
{
	uint8_t fr[512];
	unsigned seq, crc;
	char buf[1024];

	memcpy(buf, line, len < sizeof(buf) ? len : sizeof(buf) - 1);
	buf[len < sizeof(buf) ? len : sizeof(buf) - 1] = 0;
	__atomic_fetch_add(&lines, 1, __ATOMIC_RELAXED);
	if (vt_frame(buf, &seq, &crc, fr, sizeof(fr)) < 8)
		__atomic_fetch_add(&bad_lines, 1, __ATOMIC_RELAXED);
}

/* Thread i is pCPU i and owns vCPU i of VM 0. */
static void *pcpu_thread(void *arg)
{
	unsigned p = (unsigned)(uintptr_t)arg;

	for (int k = 0; k < STEPS; k++) {
		vprof_state(p, 0, (uint16_t)p, (enum vp_state)(k % 3), tick());
		vprof_event(p, 0, (uint16_t)p, VPE_YIELD, tick(), 0);
		vprof_exit(p, 0, (uint16_t)p, (uint32_t)(k % 70), tick());
		vprof_event(p, 1, 0, VPE_WAKE, tick(), 0);
		if (k % 4 == 0)
			sched_yield();
	}
	return NULL;
}

static void *dumper(void *arg)
{
	while (!__atomic_load_n(&stop_dumper, __ATOMIC_RELAXED)) {
		vprof_vm_start(0, 1, tick());
		vprof_dump_all(VPD_KEY, tick());
		vprof_vm_stop(0, 1, tick(), VPD_STOP);
		sched_yield();
	}
	return NULL;
}

START_TEST(test_concurrent_totals)
{
	pthread_t th[NTHREADS], d;
	stime_t t0, t1;

	ck_assert_int_eq(vprof_init(NTHREADS, mem, sizeof(mem)), 0);
	vprof_set_sink(check_sink, NULL);
	vprof_vm_config(0, NTHREADS, false);
	vprof_vm_config(1, 1, false);
	t0 = tick();
	ck_assert_int_eq(vprof_vm_start(0, 0, t0), 0);
	pthread_create(&d, NULL, dumper, NULL);
	for (uintptr_t i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, pcpu_thread, (void *)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&stop_dumper, 1, __ATOMIC_RELAXED);
	pthread_join(d, NULL);
	t1 = tick();
	ck_assert_int_eq(vprof_vm_stop(0, 0, t1, VPD_STOP), 0);
	for (uint16_t v = 0; v < NTHREADS; v++) {
		struct vprof_vcpu_stats s;
		uint64_t sum = 0, exits = 0;

		vprof_vcpu_stats_get(0, v, t1, &s);
		for (int i = 0; i < VP_NSTATES; i++)
			sum += s.state_ns[i];
		for (int i = 0; i < VPROF_EXIT_REASONS; i++)
			exits += s.exits[i];
		ck_assert_uint_eq(sum, (uint64_t)(t1 - t0));
		ck_assert_uint_eq(s.events[VPE_YIELD], STEPS);
		ck_assert_uint_eq(exits, STEPS);
		ck_assert_uint_eq(s.anomalies, 0);
	}
	for (unsigned p = 0; p < NTHREADS; p++) {
		struct vprof_pcpu_stats ps;

		vprof_pcpu_stats_get(p, &ps);
		ck_assert_uint_eq(ps.recorded, ps.used + ps.lost);
	}
	ck_assert_int_gt(lines, 0);
	ck_assert_int_eq(bad_lines, 0);
	ck_assert_uint_eq(vprof_bad_ids(), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vprof_mt");
	TCase *tc = tcase_create("concurrency");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_concurrent_totals);
	suite_add_tcase(s, tc);

	return check_run(s);
}
