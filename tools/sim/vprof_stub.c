/* Stand-in for hv/trace in host builds until vProfile lands: counts the
 * transitions and events the scheduler core reports. */
#include <stdio.h>
#include <stdlib.h>
#include "trace/vprof.h"

static int vprof_stub_verbose = -1;

static int verbose(void)
{
	if (vprof_stub_verbose < 0)
		vprof_stub_verbose = getenv("HVSIM_TRACE") != NULL;
	return vprof_stub_verbose;
}

unsigned long long vprof_stub_states[VP_NSTATES];
unsigned long long vprof_stub_events[VPE_NEVENTS];
/* Optional observer for unit tests (e.g. co-scheduling signal targets). */
void (*vprof_stub_event_hook)(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_event ev,
			      stime_t now, uint64_t arg);

void vprof_state(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_state to, stime_t now)
{
	if ((unsigned)to < VP_NSTATES)
		vprof_stub_states[to]++;
	if (verbose())
		fprintf(stderr, "%12.3f cpu%u vm%u.%u -> state %d\n", (double)now / 1e6, pcpu, vm,
			vcpu, (int)to);
}

void vprof_event(unsigned pcpu, uint16_t vm, uint16_t vcpu, enum vp_event ev, stime_t now,
		 uint64_t arg)
{
	if ((unsigned)ev < VPE_NEVENTS)
		vprof_stub_events[ev]++;
	if (vprof_stub_event_hook)
		vprof_stub_event_hook(pcpu, vm, vcpu, ev, now, arg);
	if (verbose())
		fprintf(stderr, "%12.3f cpu%u vm%u.%u event %d arg %llu\n", (double)now / 1e6, pcpu,
			vm, vcpu, (int)ev, (unsigned long long)arg);
}

void vprof_exit(unsigned pcpu, uint16_t vm, uint16_t vcpu, uint32_t reason, stime_t now)
{
}
