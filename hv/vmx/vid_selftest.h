/* Boot self-test of virtual-interrupt delivery (docs/vmx.md "The VID gate's
 * self-test"): does this CPU deliver a pending virtual interrupt into a guest
 * with RFLAGS.IF = 0 when a host interrupt arrives (Bochs 2.7 does; SDM
 * §30.2.1 says it must not)? apicv_vid_gate=auto turns the VID gate on only
 * then. The classification and the decision are pure (host unit test
 * test_vid_selftest); vid_selftest_run() is the privileged part. */
#ifndef HV_VMX_VID_SELFTEST_H
#define HV_VMX_VID_SELFTEST_H
#include "compiler.h"

/* apicv_vid_gate= values (index into vid_gate_mode_names). */
enum vid_gate_mode { VID_GATE_AUTO = 0, VID_GATE_ON = 1, VID_GATE_OFF = 2 };
extern const char *const vid_gate_mode_names[];

enum vid_selftest_result {
	VID_SELFTEST_NOT_RUN,   /* no VID, a missing control, a setup failure */
	VID_SELFTEST_BUG,       /* the vector was delivered with IF = 0 */
	VID_SELFTEST_CORRECT,   /* external-interrupt exit, vector still pending */
	VID_SELFTEST_UNCLEAR,   /* any other exit (preemption timer, NMI, ...) */
};

/* The throw-away guest (real mode, one page at guest-physical 0): it loops
 * on `1: cli; jmp 1b` at LOOP with IF = 0 and RVI = VECTOR; the IVT sends
 * VECTOR to HANDLER, which executes VMCALL. */
#define VID_SELFTEST_VECTOR  0x81
#define VID_SELFTEST_LOOP    0x500
#define VID_SELFTEST_LOOP_LEN 3
#define VID_SELFTEST_HANDLER 0x600
#define VID_SELFTEST_HANDLER_LEN 8

/* What the first VM exit showed (SDM §28.3: exit reason, guest RIP, guest
 * interrupt status SVI << 8 | RVI). */
struct vid_selftest_exit {
	uint32_t reason;     /* basic exit reason (bits 15:0) */
	uint64_t rip;
	uint16_t intr_status;
};

enum vid_selftest_result vid_selftest_classify(const struct vid_selftest_exit *e);
/* The gate: forced by on/off; auto keeps it on unless the test ran and the
 * CPU was correct (the safe side for every other outcome). */
bool vid_selftest_gate(enum vid_gate_mode mode, enum vid_selftest_result r);

/* BSP, after VMXON, before any VM, interrupts in any state: run the test
 * when the CPU has virtual-interrupt delivery. Returns the result; *why
 * names what stopped a test that did not run (NULL otherwise). Fills *e
 * with the exit seen (zeroed when none). */
enum vid_selftest_result vid_selftest_run(struct vid_selftest_exit *e, const char **why);
/* At boot (apicv.c): the VID gate for apicv_vid_gate=mode. skip names why
 * virtual-interrupt delivery is not used (apicv=off, ...; NULL: it is):
 * then, or when the test cannot run, the gate stays on. Runs the test for
 * auto and logs the outcome in one line (plus the exit it saw). */
bool vid_selftest_gate_at_boot(enum vid_gate_mode mode, const char *skip);
#endif
