/* The serial-key dump (vprof_dump_all(VPD_KEY)) taken on one pCPU while the
 * others keep recording: every dump must be whole (no frame of another dump
 * inside it) and self-consistent (each vCPU's state times add up to the
 * window of its BEGIN frame) even though the serial sink is slow, as a real
 * UART is. The sink sleeps per line so the recording threads run meanwhile. */
#include <sched.h>
#include <check.h>
#include "check_run.h"
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "compiler.h"
#include "trace/vprof.h"
#include "trace/frame.h"
#include "shim.h"
#include "../vprof/vp_testutil.h"

#define NTHREADS 2
#define KEY_DUMPS 40

static uint64_t mem[3 * 4096];
static int64_t clk = 1;
static volatile int stop_pcpus;

/* Sink state: the dump being read (one at a time, or it is an interleave). */
static struct {
	int open;              /* between BEGIN and END */
	unsigned dump_id, next_seq;
	int64_t t0, t1;
	long key_vcpu_frames, bad_sums, interleaved, bad_lines, key_dumps;
	int reason;
} sk;

static stime_t tick(void)
{
	return __atomic_fetch_add(&clk, 1, __ATOMIC_SEQ_CST);
}

static void sink_begin(const uint8_t *fr, unsigned id)
{
	if (sk.open)
		sk.interleaved++;
	sk.open = 1;
	sk.dump_id = id;
	sk.next_seq = 1;
	sk.reason = fr[8 + 6];
	sk.t0 = (int64_t)vt_le(fr + 8 + 8, 8);
	sk.t1 = (int64_t)vt_le(fr + 8 + 16, 8);
	if (sk.reason == VPD_KEY)
		sk.key_dumps++;
}

/* VCPU payload: vm u16, vcpu u16, state u8, spinning u8, pcpu u16, state_ns[]. */
static void sink_vcpu(const uint8_t *fr)
{
	uint64_t sum = 0;

	if (sk.reason != VPD_KEY)
		return;
	for (int i = 0; i < VP_NSTATES; i++)
		sum += vt_le(fr + 16 + 8 * i, 8);
	sk.key_vcpu_frames++;
	if (sum != (uint64_t)(sk.t1 - sk.t0))
		sk.bad_sums++;
}

static void slow_sink(void *ctx, const char *line, size_t len)
{
	uint8_t fr[512];
	unsigned seq, crc, id;
	char buf[1024];

	memcpy(buf, line, len < sizeof(buf) ? len : sizeof(buf) - 1);
	buf[len < sizeof(buf) ? len : sizeof(buf) - 1] = 0;
	if (vt_frame(buf, &seq, &crc, fr, sizeof(fr)) < 8) {
		sk.bad_lines++;
		return;
	}
	id = (unsigned)vt_le(fr + 2, 2);
	if (fr[0] == VPF_BEGIN)
		sink_begin(fr, id);
	else if (!sk.open || id != sk.dump_id || seq != sk.next_seq++)
		sk.interleaved++;
	if (fr[0] == VPF_VCPU)
		sink_vcpu(fr);
	if (fr[0] == VPF_END)
		sk.open = 0;
	usleep(200);   /* a UART line takes milliseconds: let the pCPUs run */
}

/* Thread i is pCPU i and moves vCPU i of VM 0 through its states. */
static void *pcpu_thread(void *arg)
{
	unsigned p = (unsigned)(uintptr_t)arg;

	for (int k = 0; !__atomic_load_n(&stop_pcpus, __ATOMIC_RELAXED); k++) {
		vprof_state(p, 0, (uint16_t)p, (enum vp_state)(k % 3), tick());
		vprof_event(p, 0, (uint16_t)p, VPE_YIELD, tick(), 0);
		if (k % 8 == 0)
			sched_yield();
	}
	return NULL;
}

START_TEST(test_key_dump_consistent_while_recording)
{
	pthread_t th[NTHREADS];

	ck_assert_int_eq(vprof_init(NTHREADS, mem, sizeof(mem)), 0);
	vprof_set_sink(slow_sink, NULL);
	vprof_vm_config(0, NTHREADS, false);
	ck_assert_int_eq(vprof_vm_start(0, 0, tick()), 0);
	for (uintptr_t i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, pcpu_thread, (void *)i);
	for (int i = 0; i < KEY_DUMPS; i++) {
		ck_assert_int_eq(vprof_dump_all(VPD_KEY, tick()), 1);
		usleep(500);
	}
	__atomic_store_n(&stop_pcpus, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(vprof_vm_stop(0, 0, tick(), VPD_STOP), 0);
	ck_assert_int_eq(sk.key_dumps, KEY_DUMPS);
	ck_assert_int_eq(sk.key_vcpu_frames, KEY_DUMPS * NTHREADS);
	ck_assert_int_eq(sk.bad_lines, 0);
	ck_assert_int_eq(sk.interleaved, 0);
	ck_assert_int_eq(sk.bad_sums, 0);
	ck_assert_int_eq(sk.open, 0);
}
END_TEST

/* A stop dump from another pCPU while key dumps run: never interleaved. */
static void *stopper(void *arg)
{
	for (int i = 0; i < 20; i++) {
		vprof_vm_start(1, 1, tick());
		usleep(300);
		vprof_vm_stop(1, 1, tick(), VPD_STOP);
	}
	return NULL;
}

START_TEST(test_key_and_stop_dumps_do_not_interleave)
{
	pthread_t st;

	memset(&sk, 0, sizeof(sk));
	ck_assert_int_eq(vprof_init(NTHREADS, mem, sizeof(mem)), 0);
	vprof_set_sink(slow_sink, NULL);
	vprof_vm_config(0, 1, false);
	vprof_vm_config(1, 1, false);
	ck_assert_int_eq(vprof_vm_start(0, 0, tick()), 0);
	pthread_create(&st, NULL, stopper, NULL);
	for (int i = 0; i < 20; i++)
		ck_assert_int_ge(vprof_dump_all(VPD_KEY, tick()), 1);
	pthread_join(st, NULL);
	ck_assert_int_eq(sk.bad_lines, 0);
	ck_assert_int_eq(sk.interleaved, 0);
	ck_assert_int_eq(sk.bad_sums, 0);
	ck_assert_int_eq(sk.open, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vprof_keydump");
	TCase *tc = tcase_create("key dump");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_key_dump_consistent_while_recording);
	tcase_add_test(tc, test_key_and_stop_dumps_do_not_interleave);
	suite_add_tcase(s, tc);

	return check_run(s);
}
