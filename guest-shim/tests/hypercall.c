/* Hypercalls (hv/abi.h: VMCALL, RAX = number, args RBX RCX RDX RSI, result
 * in RAX): HC_VERSION > 0, unknown numbers (ours and KVM's range) return a
 * negative errno and never crash, other registers are preserved. */
#include "guest.h"
#include "abi.h"

const char test_name[] = "hypercall";

static void check_unknown(const char *name, unsigned long nr)
{
	long ret = 0;
	int f = hv_call(nr, 1, 2, &ret);

	test_check(name, !f && ret < 0 && ret >= -4095, "nr 0x%lx -> %ld (fault %d)", nr, ret, f);
}

static void check_preserved(void)
{
	unsigned long ax = HC_VERSION, bx = 0x1111, cx = 0x2222, dx = 0x3333, si = 0x4444;
	uintptr_t fault = 0;

	__asm__ volatile("1: vmcall\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+a"(ax), "+b"(bx), "+c"(cx), "+d"(dx), "+S"(si), "+D"(fault) :: "memory");
	test_check("regs_preserved", !fault && bx == 0x1111 && cx == 0x2222 && dx == 0x3333 &&
		   si == 0x4444, "rbx 0x%lx rcx 0x%lx rdx 0x%lx rsi 0x%lx fault %lu",
		   bx, cx, dx, si, (unsigned long)fault);
}

/* Scheduler hypercalls: a yield returns and the guest keeps running; bad
 * targets, vectors and pages are refused; an unprivileged VM may not read
 * or change scheduling parameters. */
static void check_sched(void)
{
	static uint8_t page[4096] __attribute__((aligned(4096)));
	long ret = 0;
	int f;

	f = hv_call(HC_SCHED_YIELD, (unsigned long)-1, 0, &ret);
	test_check("sched_yield", !f && ret == 0, "HC_SCHED_YIELD(-1) -> %ld", ret);
	f = hv_call(HC_SCHED_YIELD, 99, 0, &ret);
	test_check("sched_yield_bad_target", !f && ret == -22, "target 99 -> %ld", ret);
	f = hv_call(HC_SCHED_SA_REGISTER, 5, (unsigned long)page, &ret);
	test_check("sched_sa_bad_vector", !f && ret == -22, "vector 5 -> %ld", ret);
	f = hv_call(HC_SCHED_SHARED_PAGE, 0x7fffffc0UL, 0, &ret);
	test_check("sched_page_outside_ram", !f && ret == -22, "gpa 0x7fffffc0 -> %ld", ret);
	f = hv_call(HC_SCHED_SHARED_PAGE, (unsigned long)page, 0, &ret);
	test_check("sched_page", !f && ret == 0, "gpa %p -> %ld", (void *)page, ret);
	f = hv_call(HC_SCHED_GET_PARAM, 0, 0, &ret);
	test_check("sched_param_unprivileged", !f && ret == -1, "GET_PARAM -> %ld (want -EPERM)", ret);
}

void test_main(void)
{
	long ret = 0;
	int f;

	test_check("signature", hv_is_ours(), "CPUID 0x40000000 signature of hv/abi.h");
	f = hv_call(HC_VERSION, 0, 0, &ret);
	test_check("version", !f && ret > 0, "HC_VERSION -> %ld (fault %d: %s)", ret, f,
		   f == FAULT(X86_UD) ? "#UD, no hypervisor" : "-");
	check_unknown("unknown_ours", HC_BASE + 0xfff);
	check_unknown("unknown_kvm", 0xfe);
	check_unknown("unknown_huge", 0xffffffffUL);
	check_preserved();
	check_sched();
	f = hv_call(HC_VERSION, 0, 0, &ret);
	test_check("still_alive", !f && ret > 0, "HC_VERSION again -> %ld", ret);
}
