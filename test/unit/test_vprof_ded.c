/* Unit tests for vProfile dedicated mode (hv/trace/dedicated_period.c, seed 001 §2.3)
 * and the hypercall handlers (hv/trace/hcall.c). */
#include <check.h>
#include "compiler.h"
#include "abi.h"
#include "trace/vprof.h"
#include "trace/frame.h"
#include "errno.h"
#include "shim.h"
#include "../vprof/vp_testutil.h"
#include "check_run.h"

static uint64_t mem[4096];
static uint8_t fr[512];

static void setup(void)
{
	ck_assert_int_eq(vprof_init(2, mem, sizeof(mem)), 0);
	vprof_set_sink(vt_sink, &vt_cap);
	vt_cap_reset();
	ck_assert_int_eq(vprof_vm_config(0, 2, true), 0);
	ck_assert_int_eq(vprof_vm_config(1, 1, false), 0);
	ck_assert_int_eq(vprof_vm_config(2, 1, true), 0);
}

START_TEST(test_permission_and_limits)
{
	setup();
	ck_assert_int_eq(vprof_dedicated_request(0, 1, 0, 5, 0), -EPERM);
	ck_assert_int_eq(vprof_dedicated_request(0, 0, 0, VPROF_DEDICATED_MAX_EPOCHS + 1, 0), -EINVAL);
	ck_assert_int_eq(vprof_dedicated_request(0, VPROF_MAX_VMS, 0, 5, 0), -EINVAL);
	ck_assert_int_eq(vprof_dedicated_request(0, 0, 0, 0, 0), -EINVAL);   /* nothing to cancel */
	ck_assert_int_eq(vprof_dedicated_owner(), -1);
	ck_assert(!vprof_accounting_suspended());
	ck_assert(!vprof_vcpu_frozen(1));
}
END_TEST

static int hook_calls, hook_owner;

static void hook(void *ctx, int owner, stime_t now)
{
	hook_calls++;
	hook_owner = owner;
	ck_assert(vprof_vcpu_frozen(1) == (owner >= 0 && owner != 1));   /* state already final */
}

START_TEST(test_epoch_countdown)
{
	setup();
	vprof_set_dedicated_hook(hook, NULL);
	ck_assert_int_eq(vprof_dedicated_request(0, 0, 1, 3, 100), 0);
	ck_assert_int_eq(vprof_dedicated_owner(), 0);
	ck_assert_int_eq(hook_calls, 1);
	ck_assert_int_eq(hook_owner, 0);
	ck_assert(vprof_accounting_suspended());
	ck_assert(vprof_vcpu_frozen(1));
	ck_assert(vprof_vcpu_frozen(2));
	ck_assert(!vprof_vcpu_frozen(0));
	ck_assert_int_eq(vprof_dedicated_request(0, 2, 0, 3, 110), -EBUSY);
	ck_assert_int_eq(vprof_dedicated_request(0, 2, 0, 0, 110), -EPERM);   /* not owner */
	vprof_dedicated_epoch(0, 200);
	vprof_dedicated_epoch(0, 300);
	ck_assert(vprof_vcpu_frozen(1));
	ck_assert_int_eq(hook_calls, 1);
	vprof_dedicated_epoch(0, 400);
	ck_assert(!vprof_vcpu_frozen(1));
	ck_assert_int_eq(hook_calls, 2);
	ck_assert_int_eq(hook_owner, -1);
	ck_assert(!vprof_accounting_suspended());
	ck_assert_int_eq(vprof_dedicated_owner(), -1);
	vprof_dedicated_epoch(0, 500);   /* idle: harmless */
	/* Now another permitted VM may take it. */
	ck_assert_int_eq(vprof_dedicated_request(0, 2, 0, 1, 600), 0);
	ck_assert(vprof_vcpu_frozen(0));
	ck_assert_int_eq(vprof_dedicated_request(0, 2, 0, 4, 610), 0);   /* restart count */
	vprof_dedicated_epoch(0, 700);
	ck_assert(vprof_vcpu_frozen(0));
	ck_assert_int_eq(vprof_dedicated_request(0, 2, 0, 0, 800), 0);   /* cancel */
	ck_assert(!vprof_vcpu_frozen(0));
}
END_TEST

/* The profile's BEGIN frame says how long the VM owned or was frozen. */
static uint64_t begin_field(int off)
{
	unsigned seq, crc;

	for (int i = vt_cap.n - 1; i >= 0; i--) {
		vt_frame(vt_cap.line[i], &seq, &crc, fr, sizeof(fr));
		if (fr[0] == VPF_BEGIN)
			return vt_le(fr + off, 8);
	}
	ck_abort_msg("no BEGIN frame");
	return 0;
}

START_TEST(test_overlap_times)
{
	setup();
	ck_assert_int_eq(vprof_vm_start(0, 0, 0), 0);
	ck_assert_int_eq(vprof_vm_start(0, 1, 0), 0);
	ck_assert_int_eq(vprof_dedicated_request(0, 0, 0, 2, 100), 0);
	vprof_dedicated_epoch(0, 200);
	vprof_dedicated_epoch(0, 350);   /* ends: 250 */
	ck_assert_int_eq(vprof_vm_stop(0, 1, 400, VPD_STOP), 0);
	ck_assert_uint_eq(begin_field(32), 0);     /* ded_ns */
	ck_assert_uint_eq(begin_field(40), 250);   /* frozen_ns */
	/* A period still open at stop is cut at the stop. */
	ck_assert_int_eq(vprof_dedicated_request(0, 0, 1, 5, 500), 0);
	ck_assert_int_eq(vprof_vm_stop(0, 0, 800, VPD_STOP), 0);
	ck_assert_uint_eq(begin_field(32), 250 + 300);
	ck_assert_uint_eq(begin_field(40), 0);
	struct vprof_vcpu_stats s;
	vprof_vcpu_stats_get(0, 0, 900, &s);
	ck_assert_uint_eq(s.events[VPE_DEDICATED_BEGIN], 1);
	ck_assert_uint_eq(s.events[VPE_DEDICATED_END], 1);
	vprof_vcpu_stats_get(0, 1, 900, &s);
	ck_assert_uint_eq(s.events[VPE_DEDICATED_BEGIN], 1);
	/* The owner ending ends the period. */
	vprof_vm_end(0, 0, 1000);
	ck_assert_int_eq(vprof_dedicated_owner(), -1);
}
END_TEST

START_TEST(test_hypercalls)
{
	struct vprof_vcpu_stats s;

	setup();
	ck_assert_int_eq(vprof_hcall(0, 1, 0, HC_VPROF_STOP, 0, 10), -EINVAL);
	ck_assert_int_eq(vprof_hcall(0, 1, 0, HC_VPROF_START, 0, 10), 0);
	ck_assert_int_eq(vprof_hcall(0, 1, 0, HC_VPROF_START, 0, 11), -EBUSY);
	ck_assert_int_eq(vprof_hcall(0, 1, 0, HC_VPROF_MARK, 42, 20), 0);
	ck_assert_int_eq(vprof_hcall(0, 1, 0, HC_VPROF_DEDICATED, 3, 30), -EPERM);
	ck_assert_int_eq(vprof_hcall(0, 0, 0, HC_VPROF_DEDICATED, 1ull << 40, 30), -EINVAL);
	ck_assert_int_eq(vprof_hcall(0, 0, 0, HC_VPROF_DEDICATED, 3, 30), 0);
	ck_assert_int_eq(vprof_hcall(0, 1, 0, HC_SCHED_YIELD, 0, 40), -ENOSYS);
	ck_assert_int_eq(vprof_hcall(0, VPROF_MAX_VMS, 0, HC_VPROF_START, 0, 40), -EINVAL);
	ck_assert_int_eq(vprof_hcall(0, 1, VPROF_MAX_VCPUS, HC_VPROF_START, 0, 40), -EINVAL);
	vprof_vcpu_stats_get(1, 0, 50, &s);
	ck_assert_uint_eq(s.events[VPE_MARK], 1);
	ck_assert_int_eq(vt_cap.n, 0);
	ck_assert_int_eq(vprof_hcall(1, 1, 0, HC_VPROF_STOP, 0, 60), 0);
	ck_assert_int_gt(vt_cap.n, 3);
	ck_assert(HC_IS_CPL3_OK(HC_VPROF_START) && HC_IS_CPL3_OK(HC_VPROF_MARK));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vprof_ded");
	TCase *tc = tcase_create("dedicated");
	tcase_add_test(tc, test_permission_and_limits);
	tcase_add_test(tc, test_epoch_countdown);
	tcase_add_test(tc, test_overlap_times);
	tcase_add_test(tc, test_hypercalls);
	suite_add_tcase(s, tc);
	int f = check_run(s);

	vt_cap_reset();
	return f;
}
