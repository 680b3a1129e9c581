/* Serial dump of one VM's profile: BEGIN, per-vCPU totals, PMU, exit counts,
 * per-pCPU ring health, the VM's timeline records, END with counts and a CRC
 * over all frames (format: frame.h, docs/vprofile.md). dump_lock is held; the
 * totals are one snapshot at the window's end (dump_snapshot). */
#include "trace/internal.h"
#include "trace/frame.h"
#include "errno.h"
#include "log.h"

#define RECS_PER_FRAME ((VPF_MAX_PAYLOAD - 8) / sizeof(struct vp_rec))
#define EXITS_PER_FRAME ((VPF_MAX_PAYLOAD - 8) / 10)

/* The VCPU frame carries every event count: adding events must keep it in one frame. */
#define VCPU_PAYLOAD (8 + 8 * (VP_NSTATES + 1 + VPS_NDETECTORS + 2 + VPE_NEVENTS))
_Static_assert(VCPU_PAYLOAD <= VPF_MAX_PAYLOAD, "VCPU frame too large: raise VPF_MAX_PAYLOAD");
_Static_assert(VPE_NEVENTS <= 255 && VPMU_NCOUNTERS <= 32, "record code / PMU mask widths");

struct dump_ctx {
	struct vpf_writer w;
	uint16_t vm;
	uint16_t nvcpus;
	uint8_t flags;        /* BEGIN: 1 profiling on, 2 exit trace */
	stime_t t0, t1;       /* profile window */
	uint64_t ded_own, ded_frozen;
	uint32_t nrecs;
	uint64_t lost;
	int err;
};

/* Every vCPU's totals at the single instant t1, taken in one hold of the VM
 * lock: read vCPU by vCPU between slow serial lines instead, the later ones
 * would include intervals other pCPUs closed after t1 (a key dump runs while
 * they record), and their states would not add up to the window. dump_lock
 * (held by every caller of vp_dump_vm) protects the buffer. */
static struct vprof_vcpu_stats dump_snap[VPROF_MAX_VCPUS];

static void dump_emit(struct dump_ctx *d)
{
	int ret = vpf_emit(&d->w);

	if (ret < 0 && !d->err)
		d->err = ret;
}

/* Dedicated-mode time of a VM up to t1, including a period still open. */
static uint64_t dump_ded(const struct vp_vm *v, bool owner, stime_t t1)
{
	uint64_t base = owner ? v->ded_ns : v->frozen_ns;

	if (v->ded_open && v->ded_owner == owner && t1 > v->ded_since)
		base += (uint64_t)(t1 - v->ded_since);
	return base;
}

/* The latest instant the VM's accumulators reached: a pCPU that read its
 * clock after the dumper did may already have closed an interval there. */
static stime_t dump_instant(const struct vp_vm *v, stime_t now)
{
	for (uint16_t i = 0; i < v->nvcpus; i++) {
		const struct vp_acct *a = &v->vcpu[i];

		now = MAX(now, MAX(a->since, a->ple_until));
		if (a->s.spinning)
			now = MAX(now, a->spin_since);
	}
	return now;
}

/* Under the VM lock: the window, the BEGIN fields and every vCPU's totals. */
static void dump_snapshot(struct dump_ctx *d, struct vp_vm *v, stime_t now)
{
	d->t0 = v->t_start;
	d->t1 = v->on ? dump_instant(v, now) : v->t_stop;
	d->nvcpus = v->nvcpus;
	d->flags = (uint8_t)((v->on ? 1 : 0) | (vp_g.exit_trace ? 2 : 0));
	d->ded_own = dump_ded(v, true, d->t1);
	d->ded_frozen = dump_ded(v, false, d->t1);
	for (uint16_t i = 0; i < v->nvcpus; i++)
		vp_stats_locked(v, &v->vcpu[i], d->t1, &dump_snap[i]);
}

static void dump_begin(struct dump_ctx *d, enum vp_dump_reason why)
{
	struct vpf_writer *w = &d->w;

	vpf_start(w, VPF_BEGIN);
	vpf_put(w, d->vm, 2);
	vpf_put(w, d->nvcpus, 2);
	vpf_put(w, vp_g.npcpus, 2);
	vpf_put(w, why, 1);
	vpf_put(w, d->flags, 1);
	vpf_put(w, (uint64_t)d->t0, 8);
	vpf_put(w, (uint64_t)d->t1, 8);
	vpf_put(w, d->ded_own, 8);
	vpf_put(w, d->ded_frozen, 8);
	vpf_put(w, sizeof(struct vp_rec), 4);
	vpf_put(w, VPE_NEVENTS, 2);
	vpf_put(w, VPROF_EXIT_REASONS, 2);
	vpf_put(w, VPMU_NCOUNTERS, 2);
	vpf_put(w, VP_NSTATES, 2);
	dump_emit(d);
}

static void dump_vcpu(struct dump_ctx *d, uint16_t vcpu, const struct vprof_vcpu_stats *s)
{
	struct vpf_writer *w = &d->w;

	vpf_start(w, VPF_VCPU);
	vpf_put(w, d->vm, 2);
	vpf_put(w, vcpu, 2);
	vpf_put(w, s->state, 1);
	vpf_put(w, s->spinning, 1);
	vpf_put(w, s->last_pcpu, 2);
	for (unsigned i = 0; i < VP_NSTATES; i++)
		vpf_put(w, s->state_ns[i], 8);
	vpf_put(w, s->spin_ns, 8);
	for (unsigned i = 0; i < VPS_NDETECTORS; i++)
		vpf_put(w, s->spin_begins[i], 8);
	vpf_put(w, s->anomalies, 8);
	vpf_put(w, s->exits_other, 8);
	for (unsigned i = 0; i < VPE_NEVENTS; i++)
		vpf_put(w, s->events[i], 8);
	dump_emit(d);
}

/* Counters not in `present` are absent (seed 001 §2.2 on a CPU without PMU). */
static void dump_pmu(struct dump_ctx *d, uint16_t vcpu, const struct vprof_vcpu_stats *s)
{
	struct vpf_writer *w = &d->w;

	vpf_start(w, VPF_PMU);
	vpf_put(w, d->vm, 2);
	vpf_put(w, vcpu, 2);
	vpf_put(w, s->pmu_samples ? s->pmu_present : 0, 4);
	vpf_put(w, s->pmu_samples, 4);
	vpf_put(w, 0, 4);
	for (unsigned c = 0; c < VPMU_NCOUNTERS; c++)
		vpf_put(w, s->pmu[c], 8);
	dump_emit(d);
}

static void dump_exits(struct dump_ctx *d, uint16_t vcpu, const struct vprof_vcpu_stats *s)
{
	struct vpf_writer *w = &d->w;
	unsigned r = 0;

	while (r < VPROF_EXIT_REASONS) {
		size_t countpos;
		unsigned n = 0;

		vpf_start(w, VPF_EXITS);
		vpf_put(w, d->vm, 2);
		vpf_put(w, vcpu, 2);
		countpos = w->len;
		vpf_put(w, 0, 4);
		for (; r < VPROF_EXIT_REASONS && n < EXITS_PER_FRAME; r++) {
			if (!s->exits[r])
				continue;
			vpf_put(w, r, 2);
			vpf_put(w, s->exits[r], 8);
			n++;
		}
		if (!n)
			break;
		w->buf[countpos] = (uint8_t)n;
		dump_emit(d);
	}
}

static void dump_vcpus(struct dump_ctx *d)
{
	for (uint16_t i = 0; i < d->nvcpus; i++) {
		dump_vcpu(d, i, &dump_snap[i]);
		dump_pmu(d, i, &dump_snap[i]);
		dump_exits(d, i, &dump_snap[i]);
	}
}

static void dump_pcpu(struct dump_ctx *d, unsigned p)
{
	struct vprof_pcpu_stats st;
	struct vpf_writer *w = &d->w;

	vprof_pcpu_stats_get(p, &st);
	d->lost += st.lost;
	vpf_start(w, VPF_PCPU);
	vpf_put(w, p, 2);
	vpf_put(w, 0, 2);
	vpf_put(w, st.cap, 4);
	vpf_put(w, st.recorded, 8);
	vpf_put(w, st.lost, 8);
	vpf_put(w, st.idle_ns, 8);
	vpf_put(w, st.used, 4);
	dump_emit(d);
}

static bool dump_wanted(const struct dump_ctx *d, const struct vp_rec *r)
{
	if (r->t < d->t0 || r->t > d->t1)
		return false;
	return r->vm == d->vm || r->vm == VPROF_VM_NONE;
}

static void dump_put_rec(struct vpf_writer *w, const struct vp_rec *r)
{
	vpf_put(w, (uint64_t)r->t, 8);
	vpf_put(w, r->arg, 8);
	vpf_put(w, r->vm, 2);
	vpf_put(w, r->vcpu, 2);
	vpf_put(w, r->kind, 1);
	vpf_put(w, r->code, 1);
	vpf_put(w, r->pcpu, 2);
}

/* Records below `used` never change until the next reset (ring.h). */
static void dump_ring(struct dump_ctx *d, unsigned p)
{
	struct vp_ring *r = &vp_g.ring[p];
	uint32_t used = vp_ring_used(r), i = 0;
	struct vpf_writer *w = &d->w;

	while (i < used) {
		unsigned n = 0;

		vpf_start(w, VPF_RECS);
		vpf_put(w, p, 2);
		vpf_put(w, 0, 2);
		vpf_put(w, 0, 4);
		for (; i < used && n < RECS_PER_FRAME; i++) {
			if (!dump_wanted(d, &r->buf[i]))
				continue;
			dump_put_rec(w, &r->buf[i]);
			n++;
		}
		if (!n)
			break;
		w->buf[VPF_HDR_SIZE + 2] = (uint8_t)n;
		d->nrecs += n;
		dump_emit(d);
	}
}

static void dump_end(struct dump_ctx *d)
{
	struct vpf_writer *w = &d->w;
	uint32_t frames = w->seq, crc = w->crc_all;

	vpf_start(w, VPF_END);
	vpf_put(w, frames, 4);
	vpf_put(w, d->nrecs, 4);
	vpf_put(w, d->lost, 8);
	vpf_put(w, crc, 4);
	dump_emit(d);
}

int vp_dump_vm(uint16_t vm, enum vp_dump_reason why, stime_t now)
{
	struct vp_vm *v = vp_vm_get(vm);
	struct dump_ctx d = { .vm = vm };

	if (!v)
		return -EINVAL;
	if (!vp_g.sink)
		return trace_error(-ENODEV);
	spin_lock(&v->lock);
	dump_snapshot(&d, v, now);
	spin_unlock(&v->lock);
	/* No VM lock while the serial lines go out: the VM's pCPUs keep recording. */
	vpf_open(&d.w, ++vp_g.dump_id, vp_g.sink, vp_g.sink_ctx);
	dump_begin(&d, why);
	dump_vcpus(&d);
	for (unsigned p = 0; p < vp_g.npcpus; p++)
		dump_pcpu(&d, p);
	for (unsigned p = 0; p < vp_g.npcpus; p++)
		dump_ring(&d, p);
	dump_end(&d);
	if (d.err)
		pr_err("vprof: dump of vm %u failed: %d\n", vm, d.err);
	return d.err ? d.err : (int)d.w.seq;
}
