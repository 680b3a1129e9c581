/* Guest-visible ABI of this hypervisor: hypercall numbers and CPUID leaves.
 * Shared by hv/ and guest-shim/ (no other includes; plain C). */
#ifndef HV_ABI_H
#define HV_ABI_H

/* CPUID leaf 0x40000000 returns this signature ("HVresearch\0\0" -> EBX,ECX,EDX);
 * leaf 0x40000100 repeats it when the KVM signature is shown at 0x40000000. */
#define HV_CPUID_SIG_EBX 0x65525648u /* "HVRe" */
#define HV_CPUID_SIG_ECX 0x72616573u /* "sear" */
#define HV_CPUID_SIG_EDX 0x00006863u /* "ch\0\0" */

/*
 * Hypercalls: VMCALL with RAX = number, arguments in RBX, RCX, RDX, RSI
 * (KVM's convention), result in RAX (negative errno on failure).
 * Numbers below 0x100 are KVM's (KVM_HC_*) and are handled as KVM does.
 * Only the calls marked CPL3 may be made from guest user space.
 */
#define HC_BASE              0x48560000u   /* 'HV' << 16 */
#define HC_VERSION           (HC_BASE + 0x00) /* -> ABI version; CPL3 */
#define HC_TEST_RESULT       (HC_BASE + 0x01) /* rbx=status; test images */
#define HC_CONSOLE_PUTS      (HC_BASE + 0x02) /* rbx=gva, rcx=len; CPL3 */

/* Scheduler (hv/sched): 0x10-0x2f */
#define HC_SCHED_YIELD       (HC_BASE + 0x10) /* rbx=target vcpu or -1 */
#define HC_SCHED_BLOCK       (HC_BASE + 0x11) /* block until an event */
#define HC_SCHED_SA_ACK      (HC_BASE + 0x12) /* acknowledge an SA upcall (seed 000) */
#define HC_SCHED_SA_REGISTER (HC_BASE + 0x13) /* rbx=upcall vector, rcx=shared page gpa */
#define HC_SCHED_SLEEP       (HC_BASE + 0x14) /* balloon sleep (seed 004 SCHEDOP_sleep) */
#define HC_SCHED_GET_PARAM   (HC_BASE + 0x15) /* privileged: rbx=vm, rcx=param */
#define HC_SCHED_SET_PARAM   (HC_BASE + 0x16) /* privileged: rbx=vm, rcx=param, rdx=value */
#define HC_SCHED_SHARED_PAGE (HC_BASE + 0x17) /* rbx=gpa of per-vCPU shared page */

/* vProfile (hv/trace): 0x30-0x3f */
#define HC_VPROF_START       (HC_BASE + 0x30) /* CPL3 */
#define HC_VPROF_STOP        (HC_BASE + 0x31) /* CPL3; dumps the trace */
#define HC_VPROF_DEDICATED   (HC_BASE + 0x32) /* rbx=epochs; needs permission; CPL3 */
#define HC_VPROF_MARK        (HC_BASE + 0x33) /* rbx=user value; CPL3 */

#define HC_IS_CPL3_OK(nr) ((nr) == HC_VERSION || (nr) == HC_CONSOLE_PUTS || \
	((nr) >= HC_VPROF_START && (nr) <= HC_VPROF_MARK))

#endif
