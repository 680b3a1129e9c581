/* Host micro-benchmark of the vProfile hot paths (make bench-vprof): ns per
 * call of vprof_state, vprof_event and vprof_exit with the VM profiled and
 * not profiled. Host CPU figures only; the Bochs cost per traced exit is
 * measured in the hypervisor. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "trace/vprof.h"

#define N 2000000L

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void null_sink(void *ctx, const char *line, size_t len)
{
}

static void bench(const char *name, int kind, int on)
{
	double t0, t1;

	vprof_vm_config(0, 1, false);
	if (on)
		vprof_vm_start(0, 0, 0);
	t0 = now_ns();
	for (long i = 0; i < N; i++) {
		if (kind == 0)
			vprof_state(0, 0, 0, (enum vp_state)(i & 1), i);
		else if (kind == 1)
			vprof_event(0, 0, 0, VPE_YIELD, i, 0);
		else
			vprof_exit(0, 0, 0, 10, i);
	}
	t1 = now_ns();
	if (on)
		vprof_vm_stop(0, 0, N, VPD_STOP);
	printf("bench-vprof: %-12s profiling %-3s %6.1f ns/call\n", name, on ? "on" : "off",
	       (t1 - t0) / N);
}

int main(void)
{
	size_t len = vprof_mem_size(1, N + 16);
	void *mem = aligned_alloc(64, (len + 63) / 64 * 64);
	static const char *names[] = { "vprof_state", "vprof_event", "vprof_exit" };

	if (!mem)
		return 1;
	for (int k = 0; k < 3; k++)
		for (int on = 0; on < 2; on++) {
			if (vprof_init(1, mem, len))
				return 1;
			vprof_set_sink(null_sink, NULL);
			bench(names[k], k, on);
		}
	free(mem);
	return 0;
}
