/* The pure half of the VID self-test (vid_selftest.h): what the exit of the
 * throw-away guest says about the CPU, and the gate that follows. */
#include "vmx/vid_selftest.h"
#include "vmx/exit_reasons.h"

const char *const vid_gate_mode_names[] = { "auto", "on", "off", NULL };

/* SDM §30.2.1: a pending virtual interrupt (RVI above PPR) is delivered only
 * with RFLAGS.IF = 1 and no STI/MOV-SS blocking; an external interrupt with
 * "external-interrupt exiting" causes a VM exit regardless of IF (§26.2,
 * §27.2). The guest ran with IF = 0, so any sign of delivery (VISR's
 * vector in SVI, RIP in the handler, the handler's VMCALL) is the bug. */
enum vid_selftest_result vid_selftest_classify(const struct vid_selftest_exit *e)
{
	uint8_t svi = (uint8_t)(e->intr_status >> 8), rvi = (uint8_t)e->intr_status;
	bool in_handler = e->rip >= VID_SELFTEST_HANDLER &&
			  e->rip < VID_SELFTEST_HANDLER + VID_SELFTEST_HANDLER_LEN;

	if (svi == VID_SELFTEST_VECTOR || in_handler || e->reason == EXIT_REASON_VMCALL)
		return VID_SELFTEST_BUG;
	if (e->reason == EXIT_REASON_EXTERNAL_INTERRUPT && e->rip >= VID_SELFTEST_LOOP &&
	    e->rip < VID_SELFTEST_LOOP + VID_SELFTEST_LOOP_LEN &&
	    rvi == VID_SELFTEST_VECTOR && !svi)
		return VID_SELFTEST_CORRECT;
	return VID_SELFTEST_UNCLEAR;
}

bool vid_selftest_gate(enum vid_gate_mode mode, enum vid_selftest_result r)
{
	if (mode == VID_GATE_OFF)
		return false;
	return mode == VID_GATE_ON || r != VID_SELFTEST_CORRECT;
}
