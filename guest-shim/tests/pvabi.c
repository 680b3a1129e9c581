/* Paravirtual ABI v1 (docs/pv-abi.md; seed 000 Alg. 1, seed 004 §5). Run
 * with sa=on, two vCPUs on ONE pCPU: vCPU 1 spins (the competitor, no upcall
 * vector), vCPU 0 registers its shared page and upcall vector and spins too,
 * so every slice end preempts it and first sends it an SA upcall.
 *  - CPUID BASE+1: features, version, page size; registration writes
 *    abi_version and sa_grace_us;
 *  - an ack with a stale seq is refused (-ESTALE) and changes nothing; the
 *    right one is accepted and the yield deschedules vCPU 0 before it
 *    returns (its steal time grows across the call);
 *    a duplicate is stale again;
 *  - an upcall never acked costs only the grace period: vCPU 0 loses the
 *    pCPU about sa_grace_us after the upcall, and the page says not pending;
 *  - an ack with block and nothing pending blocks vCPU 0 until its LAPIC
 *    timer (armed 5 ms ahead) fires; the blocked time is not steal;
 *  - HC_SCHED_SLEEP: 1 at once when an interrupt is pending (cancel-if-
 *    pending), else a sleep that its timeout ends.
 * run_hv.py also checks the hypervisor's summary (stale acks and timeouts
 * counted for vCPU 0) and, in the vProfile dump this test takes of itself,
 * the upcall / ack / stale / timeout events (tools/vprof sa). */
#include "guest.h"
#include "abi.h"

const char test_name[] = "pvabi";

#define VEC_UPCALL 0xf3
#define VEC_SELF   0x43
#define ESTALE_RET (-116L)
#define EINVAL_RET (-22L)

struct pv_page {   /* hv/sched/platform.h struct sched_shared_page, ABI v1 */
	uint32_t version, preempted, balloon_mode, sa_pending;
	uint64_t steal_ns;
	int64_t credit_left_ns;
	uint32_t reasons, sa_seq, abi_version, sa_grace_us;
	uint64_t reserved[2];
};
_Static_assert(sizeof(struct pv_page) == HV_PV_SHARED_PAGE_SIZE, "ABI v1 page");

static struct pv_page page __attribute__((aligned(64)));
static volatile uint32_t ap_count, up_count, up_reasons, sa_count;
static volatile uint32_t sa_seq;
static volatile uint64_t sa_tsc;
/* The first SA upcall is answered from the handler itself, as a guest's
 * receiver does (the grace period is short): what the acks returned. */
static volatile bool ack_in_handler = true;
static volatile long r_badop, r_stale, r_yield, r_dup;
static volatile uint32_t pend_before, pend_after_stale, pend_after, ack_seq;
static volatile uint64_t steal_moved;
/* Ack with block from the handler of the next SA upcall once set. */
#define VEC_TIMER 0x44
static volatile bool block_in_handler;
static volatile long r_block = -9999;
static volatile uint64_t block_us, block_steal_us;
static volatile uint32_t block_timer_irqs;

static long call(unsigned long nr, unsigned long a0, unsigned long a1);

static void ap_loop(unsigned cpu)
{
	for (;;)
		ap_count++;
}

/* The receiver: take the reasons (xchg, as the ABI says) and the seq. */
static void upcall(unsigned vec)
{
	uint32_t r = __atomic_exchange_n(&page.reasons, 0, __ATOMIC_SEQ_CST);
	uint64_t s0;

	up_reasons |= r;
	up_count++;
	if (!(r & HV_UPCALL_SA))
		return;   /* a balloon mode change */
	sa_seq = __atomic_load_n(&page.sa_seq, __ATOMIC_SEQ_CST);
	sa_tsc = rdtsc();
	if (ack_in_handler) {
		ack_in_handler = false;
		ack_seq = sa_seq;
		pend_before = page.sa_pending;
		r_badop = call(HC_SCHED_SA_ACK, 9, sa_seq);
		r_stale = call(HC_SCHED_SA_ACK, HV_SA_ACK_YIELD, sa_seq + 1);
		pend_after_stale = page.sa_pending;
		s0 = page.steal_ns;
		r_yield = call(HC_SCHED_SA_ACK, HV_SA_ACK_YIELD, sa_seq);
		steal_moved = page.steal_ns - s0;   /* descheduled, runnable meanwhile */
		pend_after = page.sa_pending;
		r_dup = call(HC_SCHED_SA_ACK, HV_SA_ACK_YIELD, sa_seq);
	} else if (block_in_handler) {
		uint64_t t0 = rdtsc(), st0 = page.steal_ns;
		uint32_t irr = 0x200 + (VEC_TIMER / 32) * 0x10;

		block_in_handler = false;
		apic_write(APIC_TDCR, 0xb);
		apic_write(APIC_LVT_TIMER, VEC_TIMER);
		apic_write(APIC_TMICT, 5000000);   /* 5 ms at 1 ns per count */
		/* EOI first, as Linux's sysvec handlers do: with the upcall
		 * vector in service PPR is 0xf0 and the 0x44 timer could not
		 * end the block (SDM vol. 3 §11.8.3.1); the block then waited
		 * for some other upcall (a balloon mode change, 132 ms, before
		 * those became opt-in). The dispatcher's EOI finds ISR empty. */
		apic_eoi();
		r_block = call(HC_SCHED_SA_ACK, HV_SA_ACK_BLOCK, sa_seq);
		block_us = (rdtsc() - t0) * 1000 / tsc_khz;
		block_steal_us = (page.steal_ns - st0) / 1000;
		/* IF=0 in this handler: the timer that ended the block waits in IRR. */
		block_timer_irqs = (apic_read(irr) >> (VEC_TIMER % 32)) & 1;
	}
	sa_count++;
}

static long call(unsigned long nr, unsigned long a0, unsigned long a1)
{
	long ret = -9999;

	if (hv_call(nr, a0, a1, &ret))
		return -9999;
	return ret;
}

/* Spin without PAUSE (a PAUSE loop exits and yields: no preemption, no
 * upcall), interrupts on, until n SA upcalls came or 3 s passed. */
static bool wait_sa(uint32_t n)
{
	for (uint64_t end = tsc_after_ms(3000); sa_count < n;)
		if (tsc_passed(end))
			return false;
	return true;
}

static uint64_t us_since(uint64_t t)
{
	return (rdtsc() - t) * 1000 / tsc_khz;
}

static void check_cpuid_and_register(void)
{
	struct cpuid_regs b = cpuid(0x40000000, 0), f = cpuid(0x40000001, 0);

	test_check("cpuid_base", b.b == HV_CPUID_SIG_EBX && b.a == 0x40000001,
		   "0x40000000: eax %#x ebx %#x", b.a, b.b);
	test_check("cpuid_features", f.a == HV_PV_F_ALL && f.b == HV_PV_ABI_VERSION && f.c == 64 &&
		   f.d == 0, "BASE+1: %#x %#x %#x %#x", f.a, f.b, f.c, f.d);
	test_check("ack_nothing_pending", call(HC_SCHED_SA_ACK, HV_SA_ACK_YIELD, 0) == ESTALE_RET,
		   "no upcall yet");
	test_check("register_bad_vector", call(HC_SCHED_SA_REGISTER, 7, (uintptr_t)&page) == EINVAL_RET,
		   "vector 7");
	test_check("register", call(HC_SCHED_SA_REGISTER, VEC_UPCALL, (uintptr_t)&page) == 0,
		   "vector %#x page %p", VEC_UPCALL, (void *)&page);
	test_check("page_written", page.abi_version == HV_PV_ABI_VERSION && page.sa_grace_us > 0 &&
		   page.version % 2 == 0, "abi_version %u sa_grace_us %u version %u",
		   page.abi_version, page.sa_grace_us, page.version);
}

static void check_acks(void)
{
	if (!test_check("upcall", wait_sa(1) && (up_reasons & HV_UPCALL_SA) && ack_seq >= 1,
			"%u upcalls, reasons %#x, seq %u", up_count, up_reasons, ack_seq))
		return;
	test_check("pending", pend_before == 1, "sa_pending %u at the upcall", pend_before);
	test_check("ack_bad_op", r_badop == EINVAL_RET, "op 9 -> %ld", r_badop);
	test_check("ack_stale", r_stale == ESTALE_RET && pend_after_stale == 1,
		   "seq %u -> %ld, still pending %u", ack_seq + 1, r_stale, pend_after_stale);
	test_check("ack_yield", r_yield == 0 && pend_after == 0 && steal_moved != 0,
		   "seq %u -> %ld, pending %u, runnable (steal) %llu ns during the call", ack_seq,
		   r_yield, pend_after, (unsigned long long)steal_moved);
	test_check("ack_duplicate", r_dup == ESTALE_RET, "-> %ld", r_dup);
}

/* No ack: vCPU 0 keeps the pCPU for the grace period only. The preemption
 * shows as a gap in its own TSC readings (longer than any exit's handling in
 * Bochs, where the hypervisor's own instructions count in the guest's TSC). */
static void check_no_ack(void)
{
	uint64_t t, last, gap_at = 0, gap = 0, lost;
	uint32_t n = sa_count + 1;

	if (!test_check("upcall_2", wait_sa(n), "%u SA upcalls", sa_count))
		return;
	t = last = sa_tsc;
	for (uint64_t end = t + 200 * tsc_khz; last < end;) {
		uint64_t now = rdtsc();

		if (now - last > tsc_khz * 15) {  /* off the pCPU for > 15 ms (a slice is 30) */
			gap_at = last;
			gap = now - last;
			break;
		}
		last = now;
	}
	lost = gap_at > t ? (gap_at - t) * 1000 / tsc_khz : 0;
	test_check("timeout_preempts", gap && page.sa_pending == 0 &&
		   lost >= page.sa_grace_us / 2 && lost <= page.sa_grace_us + 10000,
		   "kept the pCPU %llu us after the upcall (grace %u us), then off %llu us, "
		   "pending %u", (unsigned long long)lost, page.sa_grace_us,
		   (unsigned long long)(gap * 1000 / tsc_khz), page.sa_pending);
}

static void check_ack_block(void)
{
	uint32_t n = sa_count + 1;

	block_in_handler = true;
	if (!test_check("upcall_3", wait_sa(n), "%u SA upcalls", sa_count))
		return;
	/* Blocked (not runnable: no steal) until the timer, then maybe waiting
	 * for vCPU 1's slice (steal). */
	test_check("ack_block", r_block == 0 && block_timer_irqs == 1 &&
		   block_us - block_steal_us >= 4000,
		   "-> %ld after %llu us (timer 5000 us, in IRR %u), of which steal %llu us", r_block,
		   (unsigned long long)block_us, block_timer_irqs,
		   (unsigned long long)block_steal_us);
	apic_timer_stop();
}

static void self_irq(unsigned vec)
{
}

static void check_sleep(void)
{
	uint64_t t;
	uint32_t before = irq_counts[VEC_SELF];
	long r;

	irq_set_handler(VEC_SELF, self_irq);
	cli();
	apic_send_ipi(0, ICR_SELF | VEC_SELF);
	t = rdtsc();
	r = call(HC_SCHED_SLEEP, 0, 0);        /* no timeout: only the pending IRQ saves us */
	sti();
	wait_count(&irq_counts[VEC_SELF], before + 1, 100);
	test_check("sleep_cancel_if_pending", r == 1 && irq_counts[VEC_SELF] == before + 1,
		   "-> %ld after %llu us, self IPI taken %u", r, (unsigned long long)us_since(t),
		   irq_counts[VEC_SELF] - before);
	cli();
	t = rdtsc();
	r = call(HC_SCHED_SLEEP, 3000000, 0);  /* 3 ms, nothing pending */
	sti();
	test_check("sleep_timeout", r == 0 && us_since(t) >= 2900,
		   "-> %ld after %llu us (timeout 3000 us)", r, (unsigned long long)us_since(t));
}

void test_main(void)
{
	long r;

	irq_set_handler(VEC_UPCALL, upcall);
	r = call(HC_VPROF_START, 0, 0);
	test_check("vprof_start", r == 0, "-> %ld", r);
	check_cpuid_and_register();
	test_check("ap_started", smp_nr_cpus() >= 2 && smp_start_ap(1, 0x08, NULL) == 0,
		   "%u vCPUs", smp_nr_cpus());
	smp_run_on(1, ap_loop, 0);   /* never returns on vCPU 1 */
	test_check("ap_counting", wait_count(&ap_count, 1, 500), "count %u", ap_count);
	check_acks();
	check_no_ack();
	irq_set_handler(VEC_TIMER, self_irq);
	check_ack_block();
	check_sleep();
	con_printf("pvabi: balloon_mode %u credit_left_ns %lld steal_ns %llu\n", page.balloon_mode,
		   (long long)page.credit_left_ns, (unsigned long long)page.steal_ns);
	r = call(HC_VPROF_STOP, 0, 0);   /* dumps the trace on the console */
	test_check("vprof_stop", r == 0, "-> %ld", r);
}
