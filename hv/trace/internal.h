/* vProfile private state shared by the files of hv/trace/.
 * Lock order: dump_lock -> vm->lock -> ring->lock. The dedicated-mode lock
 * (dedicated_period.c) is never held while another vProfile lock is taken. */
#ifndef HV_TRACE_INTERNAL_H
#define HV_TRACE_INTERNAL_H
#include "trace/vprof.h"
#include "trace/ring.h"

/* Per-vCPU accumulators: the report needs no timeline (seed 001 §2.1-2.2). */
struct vp_acct {
	struct vprof_vcpu_stats s;
	stime_t since;        /* start of the current state interval */
	stime_t spin_since;   /* start of the current spinning interval */
	stime_t ple_until;    /* end of the last PLE spin credit (spin.c) */
	uint8_t spin_det;     /* detector that opened the current interval */
};

struct vp_vm {
	spinlock_t lock;
	bool configured;
	bool on;              /* profiling active */
	bool may_dedicate;
	uint16_t nvcpus;      /* highest vCPU id seen + 1, or configured count */
	stime_t t_start, t_stop;
	uint64_t ded_ns;      /* time this VM owned dedicated mode while profiled */
	uint64_t frozen_ns;   /* time this VM was frozen by another's dedicated mode */
	bool ded_open;        /* a dedicated period overlaps the profile now */
	bool ded_owner;       /* ... and this VM owns it */
	stime_t ded_since;
	struct vp_acct vcpu[VPROF_MAX_VCPUS];
};

struct vp_global {
	unsigned npcpus;
	uint32_t nactive;          /* VMs with profiling on */
	bool exit_trace;
	uint16_t dump_id;
	uint64_t bad_ids;
	spinlock_t dump_lock;
	vprof_sink_t sink;
	void *sink_ctx;
	struct vp_ring ring[VPROF_MAX_PCPUS];
	struct vp_vm vm[VPROF_MAX_VMS];
};

/* record.c. The helpers below are inline so that the hooks (vprof.c), the
 * detectors (spin.c) and dedicated mode (dedicated_period.c) all sit above
 * the state and call none of each other's files back (tools/check_layers.py);
 * the hooks inlined them before too. */
extern struct vp_global vp_g;

static inline void vp_bad_id(void)
{
	__atomic_fetch_add(&vp_g.bad_ids, 1, __ATOMIC_RELAXED);
}

static inline struct vp_vm *vp_vm_get(uint16_t vm)
{
	return vm < VPROF_MAX_VMS ? &vp_g.vm[vm] : NULL;
}

static inline struct vp_acct *vp_acct_get(uint16_t vm, uint16_t vcpu)
{
	if (vm >= VPROF_MAX_VMS || vcpu >= VPROF_MAX_VCPUS)
		return NULL;
	return &vp_g.vm[vm].vcpu[vcpu];
}

/* One timeline record in pCPU `pcpu`'s ring. */
static inline void vp_record(unsigned pcpu, uint16_t vm, uint16_t vcpu, uint8_t kind,
			     uint8_t code, uint64_t arg, stime_t now)
{
	struct vp_rec r = { .t = now, .arg = arg, .vm = vm, .vcpu = vcpu,
			    .kind = kind, .code = code, .pcpu = (uint16_t)pcpu };

	if (pcpu >= vp_g.npcpus) {
		vp_bad_id();
		return;
	}
	vp_ring_put(&vp_g.ring[pcpu], &r);
}

/* acct.c: accumulator updates, called with the VM lock held. */
void vp_acct_reset(struct vp_acct *a, stime_t now);
void vp_acct_state(struct vp_acct *a, enum vp_state to, bool on, stime_t now);
void vp_acct_event(struct vp_acct *a, enum vp_event ev, uint64_t arg, bool on, stime_t now);
void vp_acct_close(struct vp_acct *a, stime_t now);

/* spin.c: detectors feeding the spinning sub-state (VM lock held). */
void vp_spin_ple(unsigned pcpu, uint16_t vm, uint16_t vcpu, struct vp_acct *a, bool on,
		 stime_t now);
void vp_spin_pmu(unsigned pcpu, uint16_t vm, uint16_t vcpu, struct vp_acct *a,
		 const struct vprof_pmu_sample *s, stime_t now);
void vp_spin_reset(void);

/* dedicated_period.c: overlap of dedicated periods with a profile (VM lock held). */
void vp_ded_attach(struct vp_vm *v, uint16_t vm, stime_t now);
void vp_ded_detach(struct vp_vm *v, stime_t now);
void vp_ded_reset(void);
void vp_ded_vm_end(unsigned pcpu, uint16_t vm, stime_t now);

/* profile.c: a vCPU's totals up to now, open intervals included (VM lock held). */
void vp_stats_locked(const struct vp_vm *v, const struct vp_acct *a, stime_t now,
		     struct vprof_vcpu_stats *out);

/* dump.c: called with dump_lock held. */
int vp_dump_vm(uint16_t vm, enum vp_dump_reason why, stime_t now);
#endif
