/* Block/wake stage stamps for `make bench-blockpath` (see bstamp.h). */
#ifdef HV_BENCH_STAMPS
#include "vm/bstamp.h"
#include "hv.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "log.h"

static const char *const names[BS_N] = {
	"hlt_exit", "block", "idle", "sender_exit", "notify", "kick_ipi", "kick_irq",
	"poll_seen", "schedule", "vmcs_load", "loop_poll", "devices", "inject", "entry",
};
static const char *const classes[] = { "blocked", "polling", "running", "timer" };

struct record { volatile uint64_t t[BS_N]; };
static struct record rec[MAX_CPUS];
static volatile uint64_t exit_tsc[MAX_CPUS];
static volatile uint32_t exit_reason[MAX_CPUS];
/* Per class: sum of (stage - previous present stage) and the count. */
static uint64_t sum[4][BS_N], cnt[4][BS_N], ncycles[4];
static bool timer_rec[MAX_CPUS];

void bstamp_exit(uint32_t raw)
{
	unsigned c = this_cpu_id();

	exit_tsc[c] = rdtsc();
	exit_reason[c] = raw & 0xffff;
}

void bstamp_target(unsigned pcpu, enum bstamp s)
{
	if (pcpu < MAX_CPUS)
		rec[pcpu].t[s] = rdtsc();
}

void bstamp_here(enum bstamp s)
{
	struct record *r = &rec[this_cpu_id()];

	/* The first idle entry after the block (idle_wait loops on every
	 * interrupt that is not for it). */
	if (s == BS_IDLE && r->t[BS_IDLE] > r->t[BS_BLOCK])
		return;
	r->t[s] = rdtsc();
}

/* A new wake-up: a stale stamp of the previous one must not count. */
void bstamp_sender(unsigned target)
{
	unsigned c = this_cpu_id();
	uint32_t why = exit_reason[c];

	/* Only wake-ups by an IPI: this pCPU is handling the sender's ICR write
	 * (WRMSR 32 in x2APIC mode, APIC access 44 or APIC write 56) now. */
	if (target >= MAX_CPUS || (why != 32 && why != 44 && why != 56) ||
	    rdtsc() - exit_tsc[c] > 5000)
		return;
	for (unsigned s = BS_S_EXIT; s < BS_N; s++)
		rec[target].t[s] = 0;
	rec[target].t[BS_S_EXIT] = exit_tsc[c];
	rec[target].t[BS_S_NOTIFY] = rdtsc();
	timer_rec[target] = false;
}

/* A wake-up by the vCPU's own timer (class "timer"): the guest's deadline
 * stands in for the sender's exit, the wake-up for its notify. */
void bstamp_timer(uint64_t deadline_tsc)
{
	unsigned c = this_cpu_id();

	for (unsigned s = BS_S_EXIT; s < BS_N; s++)
		rec[c].t[s] = 0;
	rec[c].t[BS_S_EXIT] = deadline_tsc;
	rec[c].t[BS_S_NOTIFY] = rdtsc();
	timer_rec[c] = true;
}

void bstamp_entry(void)
{
	struct record *r = &rec[this_cpu_id()];
	uint64_t prev = 0;
	unsigned c;

	if (!r->t[BS_S_NOTIFY])
		return;
	r->t[BS_T_ENTRY] = rdtsc();
	/* Which wake-up: the target had halted (HLT stamp after nothing older
	 * than this sender's exit) and blocked or polled, or it was running. */
	if (timer_rec[this_cpu_id()])
		c = 3;
	else if (r->t[BS_HLT] && r->t[BS_HLT] < r->t[BS_S_EXIT])
		c = r->t[BS_T_POLL] ? 1 : r->t[BS_BLOCK] > r->t[BS_HLT] ? 0 : 1;
	else
		c = 2;
	if (c >= 2)
		r->t[BS_HLT] = r->t[BS_BLOCK] = r->t[BS_IDLE] = 0;
	if (r->t[BS_BLOCK] < r->t[BS_HLT])
		r->t[BS_BLOCK] = 0;
	if (r->t[BS_IDLE] < r->t[BS_BLOCK] || !r->t[BS_BLOCK])
		r->t[BS_IDLE] = 0;
	for (unsigned s = 0; s < BS_N; s++) {
		uint64_t t = r->t[s];

		if (!t || (s >= BS_T_IRQ && t < r->t[BS_S_NOTIFY]))
			continue;
		if (prev && t >= prev) {
			sum[c][s] += t - prev;
			cnt[c][s]++;
		}
		prev = t;
	}
	ncycles[c]++;
	timer_rec[this_cpu_id()] = false;
	for (unsigned s = 0; s < BS_N; s++)
		r->t[s] = 0;
}

void bstamp_print(void)
{
	for (unsigned c = 0; c < 4; c++) {
		if (!ncycles[c])
			continue;
		for (unsigned s = 0; s < BS_N; s++)
			if (cnt[c][s])
				pr_info("BSTAMP %s %s %llu %llu\n", classes[c], names[s],
					(unsigned long long)cnt[c][s],
					(unsigned long long)(sum[c][s] / cnt[c][s]));
		pr_info("BSTAMP %s cycles %llu 0\n", classes[c], (unsigned long long)ncycles[c]);
	}
}
#endif
