/* Credit's private state, shared by its files (hv/sched/credit.c: runqueues,
 * burning and caps, tickling, wake/sleep/yield, pick and stealing, the
 * registration; credit_place.c: placement, setup, the services for variants;
 * credit_acct.c: the tick, the credit refill, credits across a policy
 * switch, the balloon budget). Variants see only credit.h. */
#ifndef HV_SCHED_CREDIT_PRIV_H
#define HV_SCHED_CREDIT_PRIV_H
#include "sched/credit.h"

struct csched_vcpu {
	struct sched_vcpu *v;
	struct csched_vcpu *next, *prev;  /* runqueue (or parked list) links */
	int64_t credit;                   /* ns; atomic: acct vs burn */
	stime_t start;                    /* last burn */
	uint8_t pri;                      /* wanted priority (acct may change it) */
	uint8_t qpri;                     /* list it sits in */
	uint8_t queued;                   /* 1 runq, 2 parked list; pCPU lock */
	uint8_t yield;                    /* pCPU lock */
	uint8_t active;                   /* earning credit */
	int64_t fair;                     /* credit given at the last refill (balloon budget) */
};

struct csched_pcpu {
	struct csched_vcpu *head[CPRI_N], *tail[CPRI_N];
	unsigned nq[CPRI_N];
	struct csched_vcpu *parked;       /* capped-out vCPUs held back */
	uint64_t epoch;                   /* last csched_prv.epoch applied */
	uint32_t resort;                  /* a queued vCPU's priority was raised remotely */
};

struct csched_vm {
	int64_t cap_left;                 /* ns left in this period under the cap */
	uint8_t parked;
};

_Static_assert(sizeof(struct csched_vcpu) <= CSCHED_VCPU_BYTES, "vcpu");
_Static_assert(sizeof(struct csched_pcpu) <= CSCHED_PCPU_BYTES, "pcpu");
_Static_assert(sizeof(struct csched_vm) <= CSCHED_VM_BYTES, "vm");
_Static_assert(CSCHED_PCPU_BYTES <= sizeof(((struct sched_pcpu *)0)->priv), "pcpu priv");

/* The selected variant's hooks (NULL: plain credit). Set once at init. */
extern const struct csched_ext *csched_hooks;

struct csched_prv {
	spinlock_t lock;                  /* acct and parking */
	stime_t tslice, ratelimit;
	uint64_t epoch;                   /* bumped by acct: re-sort runqueues */
	struct cpumask idlers;
	struct cpumask qmask[CPRI_N];     /* pCPUs with queued vCPUs of a priority */
	struct cpumask parked_cpus;
};
extern struct csched_prv csched_prv;


static inline struct csched_vcpu *CV(struct sched_vcpu *v) { return (void *)v->priv; }
static inline struct csched_pcpu *CP(struct sched_pcpu *p) { return (void *)p->priv; }
static inline struct csched_vm *CD(struct sched_vm *d) { return (void *)d->priv; }

/* Queued vCPUs plus the running one on p (credit.c, credit_place.c). */
static inline unsigned csched_load(struct sched_pcpu *p)
{
	struct csched_pcpu *pc = CP(p);

	return pc->nq[1] + pc->nq[2] + pc->nq[3] + pc->nq[4] + (p->curr != NULL);
}

/* credit.c, for credit_acct.c. */
void csched_refresh(struct sched_pcpu *p);                 /* locked(p) */
void csched_burn(struct sched_vcpu *v, stime_t now);       /* locked(v->pcpu) */
#endif
