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
 * Paravirtual ABI v1 (docs/pv-abi.md). BASE is the leaf with our signature
 * (0x40000000, or 0x40000100 behind KVM's); BASE.EAX = BASE + 1, and leaf
 * BASE + 1 returns EAX = HV_PV_F_* features, EBX = HV_PV_ABI_VERSION,
 * ECX = sizeof(struct sched_shared_page) (64), EDX = 0.
 */
#define HV_PV_ABI_VERSION     1u
#define HV_PV_SHARED_PAGE_SIZE 64u
#define HV_PV_F_SHARED_PAGE   (1u << 0) /* per-vCPU shared page (HC_SCHED_SHARED_PAGE) */
#define HV_PV_F_SA            (1u << 1) /* SA upcall, ack with op and seq (seed 000) */
#define HV_PV_F_BALLOON       (1u << 2) /* sleep cancel-if-pending + timeout, balloon mode (seed 004) */
#define HV_PV_F_BALLOON_OPTIN (1u << 3) /* mode upcalls only with HV_SA_REG_BALLOON (docs/pv-abi.md) */
#define HV_PV_F_ALL           (HV_PV_F_SHARED_PAGE | HV_PV_F_SA | HV_PV_F_BALLOON | \
			       HV_PV_F_BALLOON_OPTIN)

/* HC_SCHED_SA_REGISTER rbx: bits 7:0 the vector, above them flags. Each
 * registration sets the flags anew; vector 0 takes flags 0. */
#define HV_SA_REG_VECTOR      0xffu
#define HV_SA_REG_BALLOON     (1u << 8) /* also send balloon mode-change upcalls (seed 004 §5) */

/* HC_SCHED_SA_ACK rbx: what the guest did about the upcall (seed 000 Alg. 1). */
#define HV_SA_ACK_YIELD       0u  /* deschedule now, stay runnable */
#define HV_SA_ACK_BLOCK       1u  /* block as on HLT unless an interrupt is pending */

/* Shared page `reasons` bits: set (locked OR) before the upcall vector is
 * injected; the guest takes them with xchg(&reasons, 0). */
#define HV_UPCALL_SA           (1u << 0)
#define HV_UPCALL_BALLOON_MODE (1u << 1)

/* Shared page `balloon_mode` (seed 004 §4.3). */
#define HV_BALLOON_WC         0u  /* work-conserving: run freely */
#define HV_BALLOON_NWC        1u  /* non-work-conserving: balloon should sleep */

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
#define HC_SCHED_SA_ACK      (HC_BASE + 0x12) /* rbx=HV_SA_ACK_* op, rcx=sa_seq answered; -ESTALE if stale */
#define HC_SCHED_SA_REGISTER (HC_BASE + 0x13) /* rbx=vector (0 off) | HV_SA_REG_*, rcx=page gpa (0 keeps) */
#define HC_SCHED_SLEEP       (HC_BASE + 0x14) /* CPL0; rbx=timeout ns (0 none); 1 if an irq was pending (seed 004) */
#define HC_SCHED_GET_PARAM   (HC_BASE + 0x15) /* privileged: rbx=vm, rcx=param */
#define HC_SCHED_SET_PARAM   (HC_BASE + 0x16) /* privileged: rbx=vm, rcx=param, rdx=value */
#define HC_SCHED_SHARED_PAGE (HC_BASE + 0x17) /* rbx=gpa of per-vCPU shared page */
/* Run-time policy switch (docs/sched.md "Run-time policy switch"). SWITCH:
 * privileged (-EPERM otherwise); rbx=gva, rcx=len (< 256) of "policy
 * [name=value ...]"; 0 = accepted (installed once every pCPU has
 * rescheduled), -ENOENT, -EINVAL, -ERANGE, -EBUSY. POLICY: rbx=-1 -> current
 * policy index | HC_SCHED_POLICY_SWITCHING while a switch is under way |
 * completed switches << 16; rbx=i -> name of policy i, up to 7 bytes packed
 * little-endian (-ENOENT past the last); rbx = HC_SCHED_POLICY_VM | vm id ->
 * that VM's policy index | HC_SCHED_POLICY_OWN when it was moved to a policy
 * or DP/DS of its own | its moves << 16. SWITCH with "POLICY vm=ID
 * [sched_dp_us=N] [sched_ds_min_ms=A sched_ds_max_ms=B]" moves that VM only
 * (done on return; -ENOTSUP outside the host's family; docs/sched.md "Moving
 * one VM between policies"). Both CPL3 (guest tools, hvctl). */
#define HC_SCHED_SWITCH      (HC_BASE + 0x1e)
#define HC_SCHED_POLICY      (HC_BASE + 0x1f)
#define HC_SCHED_POLICY_SWITCHING 0x100
#define HC_SCHED_POLICY_OWN       0x200
#define HC_SCHED_POLICY_VM        0x10000

/* vProfile (hv/trace): 0x30-0x3f */
#define HC_VPROF_START       (HC_BASE + 0x30) /* CPL3 */
#define HC_VPROF_STOP        (HC_BASE + 0x31) /* CPL3; dumps the trace */
#define HC_VPROF_DEDICATED   (HC_BASE + 0x32) /* rbx=epochs; needs permission; CPL3 */
#define HC_VPROF_MARK        (HC_BASE + 0x33) /* rbx=user value; CPL3 */

#define HC_IS_CPL3_OK(nr) ((nr) == HC_VERSION || (nr) == HC_CONSOLE_PUTS || \
	(nr) == HC_SCHED_SWITCH || (nr) == HC_SCHED_POLICY || \
	((nr) >= HC_VPROF_START && (nr) <= HC_VPROF_MARK))

#endif
