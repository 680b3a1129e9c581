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
	f = hv_call(HC_VERSION, 0, 0, &ret);
	test_check("still_alive", !f && ret > 0, "HC_VERSION again -> %ld", ret);
}
