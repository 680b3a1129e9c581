/* Run-time policy switch under load (issue 16; docs/sched.md "Run-time
 * policy switch"). Run in a privileged VM (priv=on) with 3 vCPUs on 2 pCPUs
 * beside another VM: vCPUs 1 and 2 count in a loop (the load),
 * vCPU 0 switches the host credit -> pcs (with a 10 ms slice) -> credit
 * through HC_SCHED_SWITCH and checks after each switch that the policy
 * named by HC_SCHED_POLICY is the new one, the switch count grew, and every
 * vCPU keeps running (the APs' counts and vCPU 0's own TSC progress over a
 * window). Bad requests are refused with the errno the ABI names. Under
 * pcs the other VM (id 1) alone moves to credit with its own DP and back
 * (hv/sched/vmpolicy.c). 64-bit
 * only (HC_SCHED_POLICY packs a name into RAX). run_hv.py checks the
 * hypervisor's "installed" lines. */
#include "guest.h"
#include "abi.h"

const char test_name[] = "live";

#define NAP 2
static volatile uint32_t ap_count[NAP + 1];

static void ap_loop(unsigned cpu)
{
	for (;;) {
		__atomic_fetch_add(&ap_count[cpu], 1, __ATOMIC_RELAXED);
		for (volatile int i = 0; i < 100; i++)
			;
	}
}

static bool name_is(const char *a, const char *b)
{
	return strlen(a) == strlen(b) && !memcmp(a, b, strlen(a));
}

/* Wait (spinning: vCPU 0 is load too) until the switch is installed. */
static long wait_installed(char *name, size_t n, unsigned ms)
{
	uint64_t end = tsc_after_ms(ms);
	long w;

	do {
		w = hv_sched_policy(name, n);
		if (w >= 0 && !(w & HC_SCHED_POLICY_SWITCHING))
			return w;
		cpu_pause();
	} while (!tsc_passed(end));
	return w;
}

/* ms of vCPU 0 spinning; every AP must count meanwhile. */
static void check_both_run(const char *what, unsigned ms)
{
	uint32_t c0[NAP + 1];
	uint64_t end = tsc_after_ms(ms);

	for (unsigned i = 1; i <= NAP; i++)
		c0[i] = ap_count[i];
	while (!tsc_passed(end))
		cpu_pause();
	test_check(what, ap_count[1] - c0[1] > 100 && ap_count[2] - c0[2] > 100,
		   "vCPUs 1, 2 counted %u, %u in %u ms", ap_count[1] - c0[1], ap_count[2] - c0[2],
		   ms);
}

static void switch_and_check(const char *req, const char *want, const char *tag)
{
	char name[16], chk[48];
	long w0, r, w;

	/* A switch made meanwhile from the serial console (run_hv.py's key
	 * case) may still be under way: wait for it, as a client should. */
	wait_installed(name, sizeof(name), 2000);
	w0 = hv_sched_policy(name, sizeof(name));
	r = hv_sched_switch(req);
	fmt_snprintf(chk, sizeof(chk), "switch_%s_accepted", tag);
	test_check(chk, r == 0, "\"%s\" -> %ld", req, r);
	w = wait_installed(name, sizeof(name), 2000);
	fmt_snprintf(chk, sizeof(chk), "switch_%s_installed", tag);
	test_check(chk, w >= 0 && !(w & HC_SCHED_POLICY_SWITCHING) && name_is(name, want) &&
		   (w >> 16) == (w0 >> 16) + 1,
		   "policy word 0x%lx name '%s' (want '%s', switches %ld)", w, name, want,
		   (w0 >> 16) + 1);
	fmt_snprintf(chk, sizeof(chk), "switch_%s_both_run", tag);
	check_both_run(chk, 100);
}

/* VM id's policy word (HC_SCHED_POLICY_VM, hv/sched/vmpolicy.c). */
static long vm_policy(unsigned id)
{
	long w = 0;
	int f = hv_call(HC_SCHED_POLICY, HC_SCHED_POLICY_VM | id, 0, &w);

	return f ? f : w;
}

/* Moving one VM (the other VM, id 1: timer) under the pcs host: to credit
 * with its own 2 ms delayed preemption, then back to pcs; done when the
 * call returns (no host switch counted); refusals outside the family. */
static void move_vm_and_check(void)
{
	long w0 = vm_policy(1), hw0 = hv_sched_policy(NULL, 0), r, w;
	int credit = -1, pcs = -1;
	char name[16];

	for (int i = 0; i < 32; i++) {
		long p = 0;

		if (hv_call(HC_SCHED_POLICY, (unsigned long)i, 0, &p) || p < 0)
			break;
		credit = p == 0x746964657263 ? i : credit;   /* "credit" packed */
		pcs = p == 0x736370 ? i : pcs;               /* "pcs" */
	}
	test_check("vm_query", w0 >= 0 && (w0 & 0xff) == pcs && !(w0 & HC_SCHED_POLICY_OWN),
		   "vm1 word 0x%lx (pcs is %d)", w0, pcs);
	r = hv_sched_switch("credit vm=1 sched_dp_us=2000");
	w = vm_policy(1);
	test_check("vm_move_credit", r == 0 && (w & 0xff) == credit && (w & HC_SCHED_POLICY_OWN) &&
		   (w >> 16) == (w0 >> 16) + 1, "-> %ld, vm1 word 0x%lx", r, w);
	check_both_run("vm_moved_both_run", 100);
	r = hv_sched_switch("pcs vm=1");
	w = vm_policy(1);
	test_check("vm_move_back", r == 0 && (w & 0xff) == pcs && !(w & HC_SCHED_POLICY_OWN),
		   "-> %ld, vm1 word 0x%lx", r, w);
	r = hv_sched_switch("rr vm=1");
	test_check("vm_move_other_family", r == -95, "-> %ld (want -ENOTSUP)", r);
	r = hv_sched_switch("pcs vm=77");
	test_check("vm_move_no_vm", r == -2 && vm_policy(77) == -2, "-> %ld (want -ENOENT)", r);
	r = hv_sched_switch("credit vm=1 sched_credit_tslice_ms=10");
	test_check("vm_move_host_option", r == -22, "-> %ld (want -EINVAL)", r);
	w = hv_sched_policy(name, sizeof(name));
	test_check("vm_move_no_host_switch", (w >> 16) == (hw0 >> 16) && name_is(name, "pcs"),
		   "host word 0x%lx -> 0x%lx '%s'", hw0, w, name);
}

void test_main(void)
{
	char name[16];
	long w, r;

	w = hv_sched_policy(name, sizeof(name));
	test_check("policy_query", w >= 0 && name_is(name, "credit"), "0x%lx '%s'", w, name);
	test_check("aps_started", smp_nr_cpus() >= NAP + 1 && smp_start_ap(1, 0x08, NULL) == 0 &&
		   smp_start_ap(2, 0x08, NULL) == 0, "%u vCPUs", smp_nr_cpus());
	smp_run_on(1, ap_loop, 0);   /* never return */
	smp_run_on(2, ap_loop, 0);
	check_both_run("before_switch_both_run", 50);
	/* keywait=1 (run_hv.py's serial-key case): the console's `s` `8` switch
	 * to rr comes from outside, typed by hvrun when it sees the lines above;
	 * wait for it (guest time, which a loaded host slows as much as it
	 * slows the typing) so the switches below always come after it. */
	if (boot_arg_num("keywait", 0)) {
		uint64_t end = tsc_after_ms(20000);

		do {
			w = wait_installed(name, sizeof(name), 10);
		} while (!(w >= 0 && name_is(name, "rr")) && !tsc_passed(end));
		test_check("console_key_switch_seen", w >= 0 && name_is(name, "rr"),
			   "0x%lx '%s' (want 'rr')", w, name);
	}
	r = hv_sched_switch("nosuch");
	test_check("switch_unknown_policy", r == -2, "-> %ld (want -ENOENT)", r);
	r = hv_sched_switch("pcs nosuch_option=1");
	test_check("switch_unknown_option", r == -22, "-> %ld (want -EINVAL)", r);
	r = hv_sched_switch("pcs sched_credit_tslice_ms=0");
	test_check("switch_option_range", r == -34, "-> %ld (want -ERANGE)", r);
	switch_and_check("pcs sched_credit_tslice_ms=10", "pcs", "pcs");
	if (!boot_arg_num("keywait", 0))   /* the key case runs this VM alone */
		move_vm_and_check();
	switch_and_check("credit sched_credit_tslice_ms=30", "credit", "credit");
}
