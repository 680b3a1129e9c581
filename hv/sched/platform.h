/* The only way hv/sched reaches the machine. The hypervisor implements it with
 * the TSC, LAPIC one-shot timers and IPIs; tools/sim with a discrete-event
 * queue; unit tests with fake CPUs and a fake clock. hv/sched itself executes
 * no privileged instruction. */
#ifndef HV_SCHED_PLATFORM_H
#define HV_SCHED_PLATFORM_H
#include "types.h"

struct sched_vcpu;

/*
 * Per-vCPU page shared with the guest (registered by HC_SCHED_SHARED_PAGE or
 * HC_SCHED_SA_REGISTER). Paravirtual ABI v1, docs/pv-abi.md: guest-visible,
 * layout fixed, extended only into `reserved`. The core keeps `preempted` and
 * `steal_ns` current (KVM steal-time style); the balloon (seed 004 §4.3) reads
 * `balloon_mode`/`credit_left_ns`; the SA receiver (seed 000 Alg. 1) reads
 * `sa_pending`/`sa_seq`. `reasons` is the only field the guest writes (it
 * clears it with xchg); the hypervisor only ORs bits into it, atomically.
 */
struct sched_shared_page {
	uint32_t version;        /*  0: bumped (odd while updating) around writes */
	uint32_t preempted;      /*  4: 1 while involuntarily off a pCPU */
	uint32_t balloon_mode;   /*  8: HV_BALLOON_WC / HV_BALLOON_NWC */
	uint32_t sa_pending;     /* 12: an SA upcall awaits acknowledgement */
	uint64_t steal_ns;       /* 16: involuntary RUNNABLE time (never HLT or sleep) */
	int64_t  credit_left_ns; /* 24: policy projection until the next refill */
	uint32_t reasons;        /* 32: HV_UPCALL_* bits, hv ORs, guest xchg-clears */
	uint32_t sa_seq;         /* 36: seq of the latest SA upcall (first 1) */
	uint32_t abi_version;    /* 40: HV_PV_ABI_VERSION, written at registration */
	uint32_t sa_grace_us;    /* 44: how long an ack is waited for (sched_sa_limit_us) */
	uint32_t balloon_guard;  /* 48: 1 while NWC and the budget is short (sched_balloon_guard) */
	uint32_t reserved0;      /* 52: zero */
	uint64_t reserved[1];    /* 56: zero */
};
_Static_assert(sizeof(struct sched_shared_page) == 64, "guest ABI layout");
_Static_assert(__builtin_offsetof(struct sched_shared_page, steal_ns) == 16, "guest ABI layout");
_Static_assert(__builtin_offsetof(struct sched_shared_page, reasons) == 32, "guest ABI layout");
_Static_assert(__builtin_offsetof(struct sched_shared_page, sa_grace_us) == 44, "guest ABI layout");
_Static_assert(__builtin_offsetof(struct sched_shared_page, balloon_guard) == 48, "guest ABI layout");

/*
 * Rules for implementations: every callback may be called with pCPU runqueue
 * locks held, so none may call back into hv/sched synchronously; a kick or a
 * timer expiry is delivered later, on the target pCPU, as a call to
 * sched_kicked() / sched_timer_fire().
 */
struct sched_platform {
	void *ctx;
	/* Monotonic time in ns since boot. */
	stime_t (*now)(void *ctx);
	/* One-shot timer on `pcpu` at `deadline` (replaces the previous one);
	 * STIME_MAX cancels. Expiry calls sched_timer_fire() on that pCPU. */
	void (*timer_arm)(void *ctx, unsigned pcpu, stime_t deadline);
	/* Make `pcpu` call sched_kicked() soon (IPI; may be the calling pCPU). */
	void (*kick)(void *ctx, unsigned pcpu);
	/* Make `vector` pending in the vCPU's virtual LAPIC (upcalls, balloon). */
	void (*inject)(void *ctx, struct sched_vcpu *v, uint8_t vector);
	/* The vCPU's shared page, or NULL if none registered. */
	struct sched_shared_page *(*shared_page)(void *ctx, struct sched_vcpu *v);
	/* Is an interrupt pending for the vCPU (its virtual LAPIC, an upcall
	 * vector not yet delivered, an NMI)? For the balloon's cancel-if-pending
	 * (seed 004 §5) and the SA block ack. Called WITHOUT runqueue locks (the
	 * hypervisor takes its VM lock). NULL: never. */
	bool (*irq_pending)(void *ctx, struct sched_vcpu *v);
};

#define STIME_MAX INT64_MAX

/* Install the platform before sched_init(); the struct must outlive the scheduler. */
void sched_platform_set(const struct sched_platform *plat);
const struct sched_platform *sched_platform_get(void);
#endif
