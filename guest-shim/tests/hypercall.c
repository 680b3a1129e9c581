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
	ret = hv_sched_switch("pcs");
	test_check("sched_switch_unprivileged", ret == -1, "SWITCH -> %ld (want -EPERM)", ret);
	f = hv_call(HC_SCHED_POLICY, (unsigned long)-1, 0, &ret);
	test_check("sched_policy_query", !f && ret >= 0 && !(ret & HC_SCHED_POLICY_SWITCHING),
		   "POLICY -> 0x%lx", ret);
}

/* HC_SCHED_BLOCK ends on the guest's own LAPIC timer, and only then: with
 * IF=1 the timer's handler has run when the VMCALL returns; with IF=0 the
 * vector waits in IRR (the block ignores RFLAGS.IF) and is taken at STI.
 * The timer is armed for 5 ms (the vLAPIC counts 1 ns per tick at divide 1). */
#define VEC_BLOCK 0x42
static bool irr_has(unsigned vec)
{
	return apic_read(0x200 + (vec / 32) * 0x10) & (1u << (vec % 32));
}

static void check_sched_block(void)
{
	uint32_t before = irq_counts[VEC_BLOCK], after;
	uint64_t t0;
	long ret = -1;
	bool pend;
	int f;

	apic_write(APIC_TDCR, 0xb);
	apic_write(APIC_LVT_TIMER, VEC_BLOCK);
	t0 = rdtsc();
	apic_write(APIC_TMICT, 5000000);
	f = hv_call(HC_SCHED_BLOCK, 0, 0, &ret);
	after = irq_counts[VEC_BLOCK];
	test_check("sched_block_timer", !f && ret == 0 && after == before + 1,
		   "-> %ld, %u timer interrupts when the block returned after %llu us (want 1)",
		   ret, after - before, (unsigned long long)((rdtsc() - t0) * 1000 / tsc_khz));
	wait_count(&irq_counts[VEC_BLOCK], before + 1, 100);   /* a failed one: no stray later */

	before = irq_counts[VEC_BLOCK];
	cli();
	apic_write(APIC_TMICT, 5000000);
	f = hv_call(HC_SCHED_BLOCK, 0, 0, &ret);
	pend = irr_has(VEC_BLOCK);
	after = irq_counts[VEC_BLOCK];
	sti();
	wait_count(&irq_counts[VEC_BLOCK], before + 1, 100);
	test_check("sched_block_if0", !f && ret == 0 && pend && after == before &&
		   irq_counts[VEC_BLOCK] == before + 1,
		   "-> %ld, vector pending in IRR %d, taken at STI %u (want 1, 1)",
		   ret, pend, irq_counts[VEC_BLOCK] - before);
	apic_timer_stop();
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
	check_sched_block();
	f = hv_call(HC_VERSION, 0, 0, &ret);
	test_check("still_alive", !f && ret > 0, "HC_VERSION again -> %ld", ret);
}
