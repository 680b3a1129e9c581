/* Unit tests for the vProfile recorder (hv/trace/vprof.c, acct.c, ring.c,
 * profile.c): exact state times, spinning, events, exits, PMU absence, ring
 * overflow accounting and id validation. */
#include <check.h>
#include "check_run.h"
#include "compiler.h"
#include "trace/vprof.h"
#include "errno.h"
#include "shim.h"

static uint64_t mem[4096];

static int lines;

static void count_sink(void *ctx, const char *line, size_t len)
{
	lines++;
}

static void setup(void)
{
	ck_assert_int_eq(vprof_init(2, mem, sizeof(mem)), 0);
	vprof_set_sink(count_sink, NULL);
	ck_assert_int_eq(vprof_vm_config(0, 2, false), 0);
	ck_assert_int_eq(vprof_vm_config(1, 1, false), 0);
}

static struct vprof_vcpu_stats stats(uint16_t vm, uint16_t vcpu, stime_t now)
{
	struct vprof_vcpu_stats s;

	ck_assert_int_eq(vprof_vcpu_stats_get(vm, vcpu, now, &s), 0);
	return s;
}

START_TEST(test_init_args)
{
	ck_assert_int_eq(vprof_init(0, mem, sizeof(mem)), -EINVAL);
	ck_assert_int_eq(vprof_init(VPROF_MAX_PCPUS + 1, mem, sizeof(mem)), -EINVAL);
	ck_assert_int_eq(vprof_init(2, NULL, sizeof(mem)), -EINVAL);
	ck_assert_int_eq(vprof_init(2, (char *)mem + 1, 1000), -EINVAL);
	ck_assert_int_eq(vprof_init(4, mem, 24 * 3), -EINVAL);   /* < 1 record each */
	ck_assert_uint_eq(vprof_mem_size(4, 100), 4 * 100 * 24);
	ck_assert_int_eq(vprof_vm_config(VPROF_MAX_VMS, 1, false), -EINVAL);
	ck_assert_int_eq(vprof_vm_config(0, VPROF_MAX_VCPUS + 1, false), -EINVAL);
}
END_TEST

/* A known schedule: times per state must come out exactly. */
START_TEST(test_state_times_exact)
{
	setup();
	vprof_state(0, 0, 0, VP_RUNNABLE, 10);     /* before start: not counted */
	ck_assert_int_eq(vprof_vm_start(0, 0, 100), 0);
	vprof_state(0, 0, 0, VP_RUNNING, 150);     /* runnable 50 */
	vprof_state(0, 0, 0, VP_BLOCKED, 450);     /* running 300 */
	vprof_state(1, 0, 0, VP_RUNNABLE, 470);    /* blocked 20 */
	vprof_state(1, 0, 0, VP_RUNNING, 500);     /* runnable 30 */
	vprof_state(1, 0, 0, VP_OFFLINE, 900);     /* running 400 */
	ck_assert_int_eq(vprof_vm_stop(0, 0, 1000, VPD_STOP), 0);   /* offline 100 */
	vprof_state(0, 0, 0, VP_RUNNING, 1100);    /* after stop: not counted */
	struct vprof_vcpu_stats s = stats(0, 0, 5000);
	ck_assert_uint_eq(s.state_ns[VP_RUNNABLE], 80);
	ck_assert_uint_eq(s.state_ns[VP_RUNNING], 700);
	ck_assert_uint_eq(s.state_ns[VP_BLOCKED], 20);
	ck_assert_uint_eq(s.state_ns[VP_OFFLINE], 100);
	ck_assert_uint_eq(s.last_pcpu, 0);
	ck_assert_int_eq(s.state, VP_RUNNING);
	/* vCPU 1 never reported: offline for the whole window. */
	ck_assert_uint_eq(stats(0, 1, 5000).state_ns[VP_OFFLINE], 900);
	ck_assert_uint_eq(stats(0, 1, 5000).state_ns[VP_RUNNING], 0);
}
END_TEST

START_TEST(test_open_interval_and_restart)
{
	setup();
	vprof_state(0, 0, 0, VP_RUNNING, 0);
	ck_assert_int_eq(vprof_vm_start(0, 0, 100), 0);
	ck_assert_int_eq(vprof_vm_start(0, 0, 120), -EBUSY);
	/* A live query includes the open interval without closing it. */
	ck_assert_uint_eq(stats(0, 0, 300).state_ns[VP_RUNNING], 200);
	ck_assert_uint_eq(stats(0, 0, 400).state_ns[VP_RUNNING], 300);
	ck_assert_int_eq(vprof_vm_stop(0, 0, 500, VPD_STOP), 0);
	ck_assert_int_eq(vprof_vm_stop(0, 0, 600, VPD_STOP), -EINVAL);
	ck_assert_uint_eq(stats(0, 0, 900).state_ns[VP_RUNNING], 400);
	/* A second profile starts from zero. */
	ck_assert_int_eq(vprof_vm_start(0, 0, 1000), 0);
	ck_assert_int_eq(vprof_vm_stop(0, 0, 1010, VPD_STOP), 0);
	ck_assert_uint_eq(stats(0, 0, 2000).state_ns[VP_RUNNING], 10);
	ck_assert(!vprof_vm_profiling(0));
}
END_TEST

START_TEST(test_spinning)
{
	setup();
	ck_assert_int_eq(vprof_vm_start(0, 0, 0), 0);
	vprof_state(0, 0, 0, VP_RUNNING, 0);
	vprof_event(0, 0, 0, VPE_SPIN_BEGIN, 100, VPS_PLE);
	vprof_event(0, 0, 0, VPE_SPIN_END, 130, 0);          /* 30 */
	vprof_event(0, 0, 0, VPE_SPIN_BEGIN, 200, VPS_PMU);
	vprof_state(0, 0, 0, VP_RUNNABLE, 260);              /* 60, closed by deschedule */
	vprof_event(0, 0, 0, VPE_SPIN_END, 270, 0);          /* stray: anomaly */
	vprof_event(0, 0, 0, VPE_SPIN_BEGIN, 280, VPS_PLE);  /* not running: anomaly */
	vprof_state(0, 0, 0, VP_RUNNING, 300);
	vprof_event(0, 0, 0, VPE_SPIN_BEGIN, 400, 9);        /* unknown detector */
	ck_assert_int_eq(vprof_vm_stop(0, 0, 450, VPD_STOP), 0);   /* 50, open at stop */
	struct vprof_vcpu_stats s = stats(0, 0, 450);
	ck_assert_uint_eq(s.spin_ns, 140);
	ck_assert_uint_eq(s.state_ns[VP_RUNNING], 410);
	ck_assert_uint_eq(s.spin_begins[VPS_PLE], 1);
	ck_assert_uint_eq(s.spin_begins[VPS_PMU], 1);
	ck_assert_uint_eq(s.spin_begins[VPS_UNKNOWN], 1);
	ck_assert_uint_eq(s.anomalies, 2);
	ck_assert_uint_eq(s.events[VPE_SPIN_BEGIN], 4);
}
END_TEST

START_TEST(test_events_and_bad_ids)
{
	setup();
	ck_assert_int_eq(vprof_vm_start(0, 1, 0), 0);
	vprof_event(0, 1, 0, VPE_YIELD, 10, 1);
	vprof_event(0, 1, 0, VPE_PREEMPT, 20, 0);
	vprof_event(1, 1, 0, VPE_PREEMPT, 30, 0);
	vprof_event(0, 0, 0, VPE_PREEMPT, 30, 0);   /* vm 0 not profiled */
	ck_assert_uint_eq(vprof_bad_ids(), 0);
	vprof_event(0, 1, 0, (enum vp_event)0, 40, 0);
	vprof_event(0, 1, 0, VPE_NEVENTS, 40, 0);
	vprof_event(0, VPROF_MAX_VMS, 0, VPE_YIELD, 40, 0);
	vprof_event(0, 1, VPROF_MAX_VCPUS, VPE_YIELD, 40, 0);
	vprof_state(0, 1, 0, VP_NSTATES, 40);
	vprof_event(7, 1, 0, VPE_WAKE, 40, 0);      /* pCPU 7 does not exist */
	ck_assert_uint_eq(vprof_bad_ids(), 6);
	struct vprof_pcpu_stats p0, p1;
	vprof_pcpu_stats_get(0, &p0);
	vprof_event(0, VPROF_VM_NONE, VPROF_VM_NONE, VPE_COSCHED_SIGNAL, 45, 3);
	vprof_pcpu_stats_get(0, &p1);
	ck_assert_uint_eq(p1.recorded, p0.recorded + 1);   /* pCPU-level: not a bad id */
	ck_assert_uint_eq(vprof_bad_ids(), 6);
	struct vprof_vcpu_stats s = stats(1, 0, 50);
	ck_assert_uint_eq(s.events[VPE_YIELD], 1);
	ck_assert_uint_eq(s.events[VPE_PREEMPT], 2);
	ck_assert_uint_eq(s.events[VPE_WAKE], 1);   /* counted even without a ring */
	ck_assert_uint_eq(stats(0, 0, 50).events[VPE_PREEMPT], 0);
}
END_TEST

START_TEST(test_exit_counts)
{
	setup();
	vprof_exit(0, 0, 1, 10, 5);                 /* not profiling */
	ck_assert_int_eq(vprof_vm_start(0, 0, 0), 0);
	for (int i = 0; i < 5; i++)
		vprof_exit(0, 0, 1, 10, 10 + i);    /* CPUID */
	vprof_exit(0, 0, 1, 12, 20);                /* HLT */
	vprof_exit(0, 0, 1, 1000, 21);
	struct vprof_vcpu_stats s = stats(0, 1, 30);
	ck_assert_uint_eq(s.exits[10], 5);
	ck_assert_uint_eq(s.exits[12], 1);
	ck_assert_uint_eq(s.exits_other, 1);
	ck_assert_uint_eq(s.events[VPE_VMEXIT], 0);   /* exit trace off */
	struct vprof_pcpu_stats p;
	ck_assert_int_eq(vprof_pcpu_stats_get(0, &p), 0);
	uint64_t before = p.recorded;
	vprof_set_exit_trace(true);
	vprof_exit(0, 0, 1, 48, 40);
	vprof_pcpu_stats_get(0, &p);
	ck_assert_uint_eq(p.recorded, before + 1);
	ck_assert_uint_eq(stats(0, 1, 50).events[VPE_VMEXIT], 1);
	vprof_set_exit_trace(false);
}
END_TEST

START_TEST(test_pmu_absent_and_partial)
{
	struct vprof_pmu_sample a = { .present = 0 }, b = { .present = 0 };

	setup();
	ck_assert_int_eq(vprof_vm_start(0, 0, 0), 0);
	struct vprof_vcpu_stats s = stats(0, 0, 1);
	ck_assert_uint_eq(s.pmu_samples, 0);
	ck_assert_uint_eq(s.pmu_present, 0);
	a.present = (uint32_t)(BIT(VPMU_INSTRUCTIONS) | BIT(VPMU_CYCLES));
	a.delta[VPMU_INSTRUCTIONS] = 1000;
	a.delta[VPMU_CYCLES] = 3000;
	b.present = (uint32_t)BIT(VPMU_INSTRUCTIONS);
	b.delta[VPMU_INSTRUCTIONS] = 500;
	b.delta[VPMU_CYCLES] = 77;                  /* not present: ignored */
	vprof_pmu_add(0, 0, 0, &a, 10);
	vprof_pmu_add(0, 0, 0, &b, 20);
	s = stats(0, 0, 30);
	ck_assert_uint_eq(s.pmu_samples, 2);
	ck_assert_uint_eq(s.pmu_present, BIT(VPMU_INSTRUCTIONS));
	ck_assert_uint_eq(s.pmu[VPMU_INSTRUCTIONS], 1500);
	ck_assert_uint_eq(s.pmu[VPMU_CYCLES], 3000);
}
END_TEST

/* A full ring drops and counts; the accumulators stay exact. */
START_TEST(test_ring_overflow_counted)
{
	static uint64_t small[3 * 4];   /* 4 records of 24 bytes on one pCPU */
	struct vprof_pcpu_stats p;

	ck_assert_int_eq(vprof_init(1, small, sizeof(small)), 0);
	ck_assert_int_eq(vprof_vm_config(0, 1, false), 0);
	ck_assert_int_eq(vprof_vm_start(0, 0, 0), 0);   /* start event + snapshot: 2 */
	for (int i = 0; i < 10; i++)
		vprof_state(0, 0, 0, i & 1 ? VP_RUNNABLE : VP_RUNNING, 10 * (i + 1));
	ck_assert_int_eq(vprof_pcpu_stats_get(0, &p), 0);
	ck_assert_uint_eq(p.cap, 4);
	ck_assert_uint_eq(p.used, 4);
	ck_assert_uint_eq(p.recorded, 12);
	ck_assert_uint_eq(p.lost, 8);
	struct vprof_vcpu_stats s = stats(0, 0, 100);
	ck_assert_uint_eq(s.state_ns[VP_RUNNING] + s.state_ns[VP_RUNNABLE], 90);
	ck_assert_uint_eq(s.state_ns[VP_RUNNING], 50);
	ck_assert_int_eq(vprof_pcpu_stats_get(1, &p), -EINVAL);
}
END_TEST

START_TEST(test_clock_backwards)
{
	setup();
	ck_assert_int_eq(vprof_vm_start(0, 0, 100), 0);
	vprof_state(0, 0, 0, VP_RUNNING, 200);
	vprof_state(1, 0, 0, VP_BLOCKED, 190);      /* other pCPU's clock behind */
	struct vprof_vcpu_stats s = stats(0, 0, 190);
	ck_assert_uint_eq(s.anomalies, 1);
	ck_assert_uint_eq(s.state_ns[VP_RUNNING], 0);
	ck_assert_uint_eq(s.state_ns[VP_OFFLINE], 100);
}
END_TEST

START_TEST(test_pcpu_idle)
{
	struct vprof_pcpu_stats p;

	setup();
	ck_assert_int_eq(vprof_vm_start(0, 0, 0), 0);
	vprof_event(1, 0, 0, VPE_IDLE_BEGIN, 100, 0);
	vprof_event(1, 0, 0, VPE_IDLE_END, 350, 0);
	vprof_event(1, 0, 0, VPE_IDLE_END, 400, 0);  /* not idle: no time */
	vprof_event(1, 0, 0, VPE_IDLE_BEGIN, 500, 0);
	vprof_event(1, 0, 0, VPE_IDLE_END, 510, 0);
	ck_assert_int_eq(vprof_pcpu_stats_get(1, &p), 0);
	ck_assert_uint_eq(p.idle_ns, 260);
	ck_assert_uint_eq(p.used, 5);
	ck_assert_uint_eq(stats(0, 0, 600).events[VPE_IDLE_BEGIN], 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vprof");
	TCase *tc = tcase_create("recorder");
	tcase_add_test(tc, test_init_args);
	tcase_add_test(tc, test_state_times_exact);
	tcase_add_test(tc, test_open_interval_and_restart);
	tcase_add_test(tc, test_spinning);
	tcase_add_test(tc, test_events_and_bad_ids);
	tcase_add_test(tc, test_exit_counts);
	tcase_add_test(tc, test_pmu_absent_and_partial);
	tcase_add_test(tc, test_ring_overflow_counted);
	tcase_add_test(tc, test_clock_backwards);
	tcase_add_test(tc, test_pcpu_idle);
	suite_add_tcase(s, tc);

	return check_run(s);
}
