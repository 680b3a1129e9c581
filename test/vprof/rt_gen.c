/* Round-trip generator: drives the real recorder and encoder (built for the
 * host) through a known schedule, writes the dump interleaved with noise
 * lines, and writes the breakdown the schedule implies as JSON, computed from
 * the pattern table below, not from the recorder.
 *   rt_gen LOG EXPECTED.json [cycles] [ring_records_per_pcpu]
 * Two dumps of VM 0: a dedicated-mode sample (seed 001 §2.3) and a normal
 * sample under interference from VM 1; then VM 1's dump at shutdown. */
#include <stdio.h>
#include <stdlib.h>
#include "abi.h"
#include "trace/vprof.h"

#define US 1000   /* pattern times are in microseconds */
#define CYCLE (1000 * US)

static FILE *out;
static unsigned noise;

/* Console noise around the frames: log lines, guest output, and a guest line
 * without its newline that our frame gets appended to. */
static void sink(void *ctx, const char *line, size_t len)
{
	static const char *junk[] = {
		"(XEN-like) hv: sched: credit accounting tick\n",
		"[    1.234567] Linux version 6.1.0 (guest vm1) #1 SMP\n",
		"guest1$ ./spin --threads 4\n",
		"\n",
		"hv: vm1 vcpu0: unhandled MSR 0x1a0 read -> #GP\n",
	};
	if (noise % 3 == 0)
		fputs(junk[noise % 5], out);
	if (noise % 7 == 3)
		fputs("guest1 partial output without newline ", out);
	noise++;
	fwrite(line, 1, len, out);
}

/* One cycle of the normal sample, times in us from the cycle start.
 * pCPU0: vm0/v0 runs 0-600 (spins 100-200, PLE), blocks 600-800, runnable
 *        800-1000; vm1/v0 runs 600-1000 and is preempted at 1000.
 * pCPU1: vm0/v1 runs 0-300, preempted (runnable) 300-700, blocked 700-1000;
 *        pCPU1 idle 300-1000.
 * 700-800 both vCPUs of VM 0 are blocked: that is idle, not synchronisation
 * (seed 001 §2.1 counts blocking while waiting for a sibling). */
static void cycle(stime_t c, bool first)
{
	if (!first) {
		vprof_event(0, 1, 0, VPE_PREEMPT, c, 0);
		vprof_state(0, 1, 0, VP_RUNNABLE, c);
		vprof_state(0, 0, 0, VP_RUNNING, c);
		vprof_event(1, 0, 0, VPE_IDLE_END, c, 0);
		vprof_state(1, 0, 1, VP_RUNNING, c);
	}
	for (int i = 0; i < 5; i++)
		vprof_exit(0, 0, 0, 10, c + (10 + i) * US);          /* CPUID */
	vprof_event(0, 0, 0, VPE_PLE, c + 100 * US, 0);
	vprof_event(0, 0, 0, VPE_SPIN_BEGIN, c + 100 * US, VPS_PLE);
	vprof_event(0, 0, 0, VPE_SPIN_END, c + 200 * US, 0);
	vprof_event(1, 0, 1, VPE_PREEMPT, c + 300 * US, 0);
	vprof_state(1, 0, 1, VP_RUNNABLE, c + 300 * US);
	vprof_event(1, 0, 0, VPE_IDLE_BEGIN, c + 300 * US, 0);
	vprof_exit(0, 0, 0, 12, c + 600 * US);                       /* HLT */
	vprof_state(0, 0, 0, VP_BLOCKED, c + 600 * US);
	vprof_state(0, 1, 0, VP_RUNNING, c + 600 * US);
	vprof_state(1, 0, 1, VP_BLOCKED, c + 700 * US);
	vprof_event(0, 0, 0, VPE_WAKE, c + 800 * US, 0);
	vprof_state(0, 0, 0, VP_RUNNABLE, c + 800 * US);
}

static void expect_vcpu(FILE *f, int vcpu, long n, long run, long spin, long blk, long blk_sync,
			long steal, const char *events, bool last)
{
	fprintf(f, "    {\"vcpu\": %d, \"running\": %ld, \"compute\": %ld, \"spin\": %ld, "
		"\"blocked\": %ld, \"sync\": %ld, \"steal\": %ld, \"offline\": 0, \"events\": {%s}}%s\n",
		vcpu, n * run * US, n * (run - spin) * US, n * spin * US, n * blk * US,
		n * (spin + blk_sync) * US, n * steal * US, events, last ? "" : ",");
}

int main(int argc, char **argv)
{
	long n = argc > 3 ? atol(argv[3]) : 40, recs = argc > 4 ? atol(argv[4]) : 8192;
	size_t len = vprof_mem_size(2, (size_t)recs);
	void *mem = aligned_alloc(64, (len + 63) / 64 * 64);
	FILE *ex;
	stime_t t = 1000 * CYCLE;   /* the clock does not start at zero */
	char ev[256];

	if (argc < 3 || !(out = fopen(argv[1], "w")) || !(ex = fopen(argv[2], "w")) || !mem)
		return 1;
	if (vprof_init(2, mem, len))
		return 1;
	vprof_set_sink(sink, NULL);
	vprof_vm_config(0, 2, true);
	vprof_vm_config(1, 1, false);
	fputs("GRUB loading hv.elf ...\nhv: vProfile ready\n", out);

	/* Dedicated sample: both vCPUs of VM 0 run alone for n cycles. */
	vprof_state(0, 0, 0, VP_RUNNING, t);
	vprof_state(1, 0, 1, VP_RUNNING, t);
	vprof_state(0, 1, 0, VP_OFFLINE, t);
	vprof_hcall(0, 0, 0, HC_VPROF_START, 0, t);
	vprof_hcall(0, 0, 0, HC_VPROF_DEDICATED, (uint64_t)n + 5, t);
	for (long i = 0; i < n; i++)
		vprof_dedicated_epoch(0, t + i * CYCLE);
	t += n * CYCLE;
	vprof_hcall(0, 0, 1, HC_VPROF_STOP, 0, t);
	vprof_hcall(0, 0, 0, HC_VPROF_DEDICATED, 0, t);   /* end it early */
	vprof_state(0, 1, 0, VP_RUNNABLE, t);

	/* Normal sample under interference from VM 1. */
	vprof_hcall(0, 1, 0, HC_VPROF_START, 0, t);
	vprof_hcall(0, 0, 0, HC_VPROF_START, 0, t);
	vprof_hcall(0, 0, 0, HC_VPROF_MARK, 0xfeed, t);
	for (long i = 0; i < n; i++) {
		if (i == n / 2)
			vprof_hcall(0, 0, 1, HC_VPROF_MARK, 2, t + i * CYCLE);
		cycle(t + i * CYCLE, i == 0);
	}
	t += n * CYCLE;
	vprof_hcall(0, 0, 0, HC_VPROF_STOP, 0, t);
	vprof_shutdown(1, t + CYCLE);
	fputs("hv: shutdown\n", out);

	fprintf(ex, "{\n  \"cycles\": %ld, \"cycle_ns\": %d,\n", n, CYCLE);
	fprintf(ex, "  \"dedicated\": {\"window\": %ld, \"vcpus\": [\n", n * CYCLE);
	expect_vcpu(ex, 0, n, 1000, 0, 0, 0, 0, "", false);
	expect_vcpu(ex, 1, n, 1000, 0, 0, 0, 0, "", true);
	fprintf(ex, "  ]},\n  \"normal\": {\"window\": %ld, \"vcpus\": [\n", n * CYCLE);
	snprintf(ev, sizeof(ev), "\"PLE\": %ld, \"SPIN_BEGIN\": %ld, \"WAKE\": %ld, \"MARK\": 1",
		 n, n, n);
	expect_vcpu(ex, 0, n, 600, 100, 200, 100, 200, ev, false);
	snprintf(ev, sizeof(ev), "\"PREEMPT\": %ld", n);
	expect_vcpu(ex, 1, n, 300, 0, 300, 200, 400, ev, true);
	fprintf(ex, "  ], \"exits\": {\"CPUID\": %ld, \"HLT\": %ld}},\n", 5 * n, n);
	/* Useful work per second: dedicated 2 CPUs; normal: total - steal - sync
	 * = (1000 - 200 - 200) + (1000 - 400 - 200) per 1000 us. */
	fprintf(ex, "  \"slowdown\": %.6f,\n", 2.0 / ((600.0 + 400.0) / 1000.0));
	/* VM 1 keeps running from 600 us of the last cycle until shutdown, one
	 * cycle after VM 0's stop. */
	fprintf(ex, "  \"vm1\": {\"running\": %ld, \"steal\": %ld, \"preempt\": %ld}\n}\n",
		n * 400 * US + CYCLE, n * 600 * US, n - 1);
	fclose(ex);
	fclose(out);
	free(mem);
	return 0;
}
