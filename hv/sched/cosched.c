/* Co-scheduling layer over the credit core (seed 003). One kernel, seed 003
 * Alg. 1 (Partial Co-scheduling), parametrised by struct cosched_variant so
 * that hybrid co-scheduling (CS), co-descheduling (CDS) and gang scheduling
 * are the same state machine with a different CoCPUs set and operation
 * lifetime:
 *   CoDom[p]   (codom[])   pending co-scheduling signal for pCPU p
 *   CoCPUs(vm) (cs_vm.m)   pCPUs an operation of vm signals
 *   CoWorkers  (coworkers) signalled pCPUs that have not scheduled yet
 *   CoPartners (copartners) pCPUs reserved by running operations
 * Plus vCPU scatter (§IV-B) and the co-scheduling statistics. All state is
 * under cs.lock, taken inside a runqueue lock (lock order: runqueue ->
 * credit prv.lock -> cs.lock -> sched_sys.vm_lock).
 */
#include "sched/cosched.h"
#include "log.h"
#include "lib/string.h"

struct cs_vm {
	struct cpumask m;        /* CoCPUs of the current operation (incl. launcher if persist) */
	struct cpumask run;      /* persist: members running a vCPU of this VM */
	struct cpumask where;    /* pCPUs holding its vCPUs at the launch */
	stime_t launch;          /* persist: the operation ends at launch + credit slice */
	uint8_t active;
	uint8_t overcommit;      /* more vCPUs than pCPUs: cannot be scattered */
	uint8_t warned;
};

_Static_assert(sizeof(struct cs_vm) <= CSCHED_VM_EXT_BYTES, "cs_vm");
_Static_assert(sizeof(struct cosched_vcpu) <= CSCHED_VCPU_EXT_BYTES, "cs_vcpu");

static inline struct cs_vm *DV(const struct sched_vm *vm)
{
	return csched_vm_ext((struct sched_vm *)vm);
}
static inline struct cosched_vcpu *VV(struct sched_vcpu *v) { return csched_vcpu_ext(v); }

static struct {
	spinlock_t lock;
	const struct cosched_variant *var;
	struct sched_vm *codom[SCHED_MAX_PCPUS];    /* Alg. 1 CoDom */
	struct sched_vm *desched[SCHED_MAX_PCPUS];  /* co-descheduling pending */
	struct sched_vm *owner[SCHED_MAX_PCPUS];    /* persist: operation holding p */
	struct cpumask coworkers, copartners;
	struct cpumask waiters;   /* refused a launch: kick at the next operation end */
} cs;

struct cosched_stats cosched_stats;

/* ---- statistics ---------------------------------------------------------- */
void cosched_stats_reset(void)
{
	memset(&cosched_stats, 0, sizeof(cosched_stats));
}

void cosched_edge(stime_t launch, stime_t now)
{
	stime_t d = now - launch;
	uint64_t b = d < 0 ? 0 : (uint64_t)d / 10000;

	if (b >= COSCHED_EDGE_BUCKETS)
		b = COSCHED_EDGE_BUCKETS - 1;
	cosched_stats.edge_hist[b]++;
	cosched_stats.nedge++;
	cosched_stats.edge_max = MAX(cosched_stats.edge_max, d);
}

uint64_t cosched_edge_ppm_le(stime_t limit)
{
	uint64_t n = 0, last = (uint64_t)(limit / 10000);

	if (!cosched_stats.nedge)
		return 1000000;
	for (uint64_t b = 0; b < COSCHED_EDGE_BUCKETS && b < last; b++)
		n += cosched_stats.edge_hist[b];
	return n * 1000000 / cosched_stats.nedge;
}

/* ---- VM type and scatter -------------------------------------------------- */
bool cosched_vm_is_con(const struct sched_vm *vm)
{
	return vm->params.type == SCHED_TYPE_CON;
}

/* Where s is (or is going: its scatter home). */
static unsigned cs_pos(struct sched_vcpu *s)
{
	return VV(s)->home ? VV(s)->home - 1 : READ_ONCE(s->pcpu);
}

/* Best pCPU for v of a CON VM: fewest siblings, then fewest vCPUs homed
 * there (load), then fewest CON vCPUs. One pass over all vCPUs, then one
 * over the pCPUs. vm_lock held (it also protects the count arrays). */
static uint16_t sc_sib[SCHED_MAX_PCPUS], sc_load[SCHED_MAX_PCPUS], sc_con[SCHED_MAX_PCPUS];

static int cs_scatter_target(struct sched_vcpu *v)
{
	unsigned best = SCHED_MAX_PCPUS, bs = ~0u, bl = ~0u, bc = ~0u, c;

	memset(sc_sib, 0, sizeof(sc_sib));
	memset(sc_load, 0, sizeof(sc_load));
	memset(sc_con, 0, sizeof(sc_con));
	for (struct sched_vm *vm = sched_sys.vms; vm; vm = vm->next)
		for (struct sched_vcpu *s = vm->vcpus; s; s = s->vm_next) {
			unsigned at = cs_pos(s);

			if (s == v || at >= SCHED_MAX_PCPUS)
				continue;
			sc_load[at]++;
			sc_con[at] += cosched_vm_is_con(vm);
			sc_sib[at] += vm == v->vm;
		}
	for_each_cpu(c, &sched_sys.online) {
		unsigned sib = sc_sib[c], load = sc_load[c], con = sc_con[c];

		if (!cpumask_test(&v->affinity, c))
			continue;
		if (sib < bs || (sib == bs && (load < bl || (load == bl && con < bc)))) {
			best = c;
			bs = sib;
			bl = load;
			bc = con;
		}
	}
	return best < SCHED_MAX_PCPUS ? (int)best : -1;
}

static void cs_check_overcommit(struct sched_vm *vm, unsigned nvcpus)
{
	struct cs_vm *d = DV(vm);

	d->overcommit = nvcpus > sched_sys.npcpus;
	if (d->overcommit && !d->warned) {
		d->warned = 1;
		pr_warn("sched: CON VM %u has more vCPUs (%u so far) than pCPUs (%u): cannot "
			"scatter; co-scheduled per pCPU that holds it (gang: run as HIT), see "
			"docs/sched.md\n", vm->id, nvcpus, sched_sys.npcpus);
	}
}

int cosched_scatter_place(struct sched_vcpu *v)
{
	int c;

	if (!cosched_vm_is_con(v->vm))
		return -1;
	spin_lock(&sched_sys.vm_lock);
	cs_check_overcommit(v->vm, v->vm->nvcpus + 1u);
	c = cs_scatter_target(v);
	spin_unlock(&sched_sys.vm_lock);
	if (c >= 0)
		VV(v)->home = (unsigned)c + 1;
	return c;
}

/* Turned CON at run time (HC_SCHED_SET_PARAM type=con): re-place every vCPU
 * that is not running now; a running one goes home at its next wake
 * (cosched_pick_cpu) or is taken by its home pCPU when queued there. */
void cosched_scatter_vm(struct sched_vm *vm)
{
	struct sched_vcpu *v;
	stime_t now;

	if (!cosched_vm_is_con(vm))
		return;
	spin_lock(&sched_sys.vm_lock);
	cs_check_overcommit(vm, vm->nvcpus);
	for (v = vm->vcpus; v; v = v->vm_next)
		VV(v)->home = 0;
	/* Running vCPUs keep their pCPU (one per pCPU); the others are
	 * placed around them, each counted for the next one's choice. */
	for (v = vm->vcpus; v; v = v->vm_next) {
		bool taken = false;

		for (struct sched_vcpu *s = vm->vcpus; s; s = s->vm_next)
			taken |= VV(s)->home == v->pcpu + 1;
		if (READ_ONCE(v->state) == SCHED_RUNNING && !taken)
			VV(v)->home = v->pcpu + 1;
	}
	for (v = vm->vcpus; v; v = v->vm_next) {
		int c;

		if (VV(v)->home)
			continue;
		c = cs_scatter_target(v);
		VV(v)->home = c >= 0 ? (unsigned)c + 1 : 0;
	}
	spin_unlock(&sched_sys.vm_lock);
	now = sched_platform_get()->now(sched_platform_get()->ctx);
	for (v = vm->vcpus; v; v = v->vm_next) {
		unsigned to = VV(v)->home ? VV(v)->home - 1 : v->pcpu;
		struct sched_pcpu *p = sched_vcpu_lock(v), *q;
		bool queued;

		if (to == v->pcpu || v->state == SCHED_RUNNING || p->curr == v) {
			sched_vcpu_unlock(p);
			continue;
		}
		queued = v->state == SCHED_RUNNABLE;
		if (queued)
			sched_sys.ops->sleep(v, now);   /* dequeue */
		sched_vcpu_unlock(p);
		q = sched_pcpu_get(to);
		sched_lock_pair(p, q);
		if (v->pcpu == p->id && p->curr != v && v->state != SCHED_RUNNING) {
			sched_vcpu_migrate(v, to, now);
			if (v->state == SCHED_RUNNABLE)
				sched_sys.ops->wake(v, now);
		} else if (queued && v->state == SCHED_RUNNABLE && v->pcpu == p->id) {
			sched_sys.ops->wake(v, now);
		}
		sched_unlock_pair(p, q);
	}
}

bool cosched_may_steal(struct sched_pcpu *p, struct sched_vcpu *v)
{
	if (!cosched_vm_is_con(v->vm) || DV(v->vm)->overcommit)
		return true;
	/* Where the siblings are now (not their scatter homes). */
	for (struct sched_vcpu *s = v->vm->vcpus; s; s = s->vm_next)
		if (s != v && READ_ONCE(s->pcpu) == p->id)
			return false;
	return true;
}

/* A waking CON vCPU stays on (or returns to) its scatter home. */
int cosched_pick_cpu(struct sched_vcpu *v, stime_t now)
{
	unsigned h = VV(v)->home;

	if (!cosched_vm_is_con(v->vm) || DV(v->vm)->overcommit)
		return -1;
	if (h && cpumask_test(&v->affinity, h - 1) && sched_pcpu_get(h - 1))
		return (int)(h - 1);
	return cpumask_test(&v->affinity, v->pcpu) ? (int)v->pcpu : -1;
}

/* ---- the kernel ----------------------------------------------------------- */
static bool cs_con(const struct sched_vm *vm)
{
	return cosched_vm_is_con(vm) && !(cs.var->strict && DV(vm)->overcommit);
}

static bool cs_hit_vm(const struct sched_vm *vm) { return !cs_con(vm); }
static bool match_hit(struct sched_vcpu *v, void *arg) { return !cs_con(v->vm); }
static bool match_not_vm(struct sched_vcpu *v, void *arg) { return v->vm != arg; }

/* CoCPUs: every online pCPU (cs, cds) or the pCPUs holding vm's vCPUs
 * (*where, computed for every variant: a signalled pCPU outside it holds
 * nothing of vm and answers without searching its queue). O(vCPUs of vm)
 * once per launch, not per decision. */
static void cs_cocpus(struct sched_vm *vm, struct cpumask *m, struct cpumask *where)
{
	cpumask_zero(where);
	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vcpu *v = vm->vcpus; v; v = v->vm_next) {
		unsigned c = READ_ONCE(v->pcpu);

		if (c < SCHED_MAX_PCPUS)
			where->w[c / 64] |= BIT(c % 64);
	}
	spin_unlock(&sched_sys.vm_lock);
	*m = cs.var->global ? sched_sys.online : *where;
}

static bool cs_overlap(const struct cpumask *a, const struct cpumask *b)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

static void cs_andnot(struct cpumask *a, const struct cpumask *b)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		a->w[i] &= ~b->w[i];
}

static void cs_or(struct cpumask *a, const struct cpumask *b)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		a->w[i] |= b->w[i];
}

/* Entries of codom[]/owner[] are not cleared when an operation ends: a
 * CoDom entry is valid while its pCPU is in CoWorkers, an owner entry while
 * the VM's operation is active and covers the pCPU (O(1) operation end). */
static struct sched_vm *cs_codom(unsigned c)
{
	struct sched_vm *d = c < SCHED_MAX_PCPUS ? READ_ONCE(cs.codom[c]) : NULL;

	return d && cpumask_test(&cs.coworkers, c) ? d : NULL;
}

static struct sched_vm *cs_owner(unsigned c)
{
	struct sched_vm *o = c < SCHED_MAX_PCPUS ? READ_ONCE(cs.owner[c]) : NULL;

	return o && READ_ONCE(DV(o)->active) && cpumask_test(&DV(o)->m, c) ? o : NULL;
}

/* Kick the pCPUs that held CON work back (they re-decide), the deciding
 * one too: it may be idling because of the operation that just ended. */
static void cs_kick_waiters(unsigned self)
{
	struct cpumask w = cs.waiters;

	cpumask_zero(&cs.waiters);
	sched_cpus_resched(&w, 0);
}

/* End vm's operation (persist variants). Members still running its vCPUs
 * are told to deschedule when co-descheduling (cds) or strict (gang). */
static void cs_end_op(struct sched_vm *vm, struct sched_vcpu *by, unsigned self, stime_t now,
		      bool desched)
{
	struct cs_vm *d = DV(vm);
	struct cpumask sig;
	unsigned c;

	if (!d->active)
		return;
	cpumask_zero(&sig);
	if (desched)
		for_each_cpu_word(c, &d->run)
			if (c != self) {
				cs.desched[c] = vm;
				cpumask_set(&sig, c);
			}
	cs_andnot(&cs.copartners, &d->m);
	cs_andnot(&cs.coworkers, &d->m);
	cpumask_zero(&d->run);
	d->active = 0;
	if (!cpumask_empty(&sig)) {
		cosched_stats.codesched++;
		sched_cosched_signal(self, by && by->vm == vm ? by : vm->vcpus, &sig, now);
	}
	cs_kick_waiters(self);
}

/* Alg. 1 lines 19-30: launch an operation for vm from p, or refuse. */
static bool cs_launch(struct sched_pcpu *p, struct sched_vcpu *by, stime_t now)
{
	struct sched_vm *vm = by->vm;
	struct cs_vm *d = DV(vm);
	struct cpumask m, sig, where;
	unsigned c, nsig = 0;

	cs_cocpus(vm, &m, &where);
	if (cs.var->persist)
		cpumask_set(&m, p->id);
	else
		cpumask_clear(&m, p->id);              /* cpu_clear(CoCPUs, cur_cpu) */
	if (cs_overlap(&cs.copartners, &m)) {   /* cpus_and(CoPartners, CoCPUs) */
		cosched_stats.refused++;
		return false;
	}
	cosched_stats.ops++;
	sig = m;
	cpumask_clear(&sig, p->id);
	if (cs.var->persist)
		cpumask_zero(&d->run);
	/* One pass over CoCPUs (every pCPU for cs and cds): word by word. A
	 * pCPU already running a vCPU of the VM is co-scheduled: it is not
	 * signalled (a signal to it would not make it decide, since its
	 * current vCPU is of CoDom, and would stay pending: the next launches
	 * were refused and the slice end re-picked the VM while a HIT vCPU
	 * queued there starved). */
	for_each_cpu_word(c, &m) {
		struct sched_pcpu *q;
		struct sched_vcpu *cur;

		if (cs.var->persist)
			cs.owner[c] = vm;
		if (c == p->id)
			continue;
		/* Only a pCPU holding one of its vCPUs can be running it. */
		q = where.w[c / 64] & BIT(c % 64) ? sched_sys.pcpu[c] : NULL;
		cur = q ? READ_ONCE(q->curr) : NULL;
		if (cur && cur->vm == vm) {
			cpumask_clear(&sig, c);
			if (cs.var->persist)
				cpumask_set(&d->run, c);
			continue;
		}
		nsig++;
		cs.codom[c] = vm;                     /* per_cpu(CoDom, cpu) = Next.Dom */
		if (cs.desched[c] == vm)
			cs.desched[c] = NULL;         /* superseded: run it, do not stop it */
	}
	/* pcs: the operation is the signalled pCPUs, done when all answered. */
	if (!cs.var->persist)
		m = sig;
	cs_or(&cs.coworkers, &sig);
	cs_or(&cs.copartners, &m);
	d->m = m;
	d->where = where;
	d->launch = now;
	d->active = cs.var->persist || nsig;
	spin_lock(&sched_sys.vm_lock);
	for (struct sched_vcpu *s = vm->vcpus; s; s = s->vm_next)
		VV(s)->edge_from = READ_ONCE(s->state) == SCHED_RUNNABLE ? now : 0;
	spin_unlock(&sched_sys.vm_lock);
	cosched_stats.signals += nsig;
	sched_cosched_signal(p->id, by, &sig, now);   /* cpu_raise(CoCPUs, SCHED_SIG) */
	return true;
}

static stime_t cs_deadline(const struct sched_vm *vm)
{
	return DV(vm)->launch + sched_opts.credit_tslice;
}

static bool cs_must_switch(struct sched_pcpu *p, struct sched_vcpu *prev, stime_t now)
{
	struct sched_vm *dom = cs_codom(p->id), *own;

	if (p->id >= SCHED_MAX_PCPUS)
		return false;
	if (dom && prev->vm != dom)
		return true;
	if (READ_ONCE(cs.desched[p->id]) == prev->vm)
		return true;
	own = cs_owner(p->id);
	if (cs.var->persist && own && own == prev->vm && now >= cs_deadline(own))
		return true;
	/* Strict gang: a CON vCPU outside its operation must stop. */
	if (cs.var->strict && cs_con(prev->vm) && own != prev->vm)
		return true;
	return false;
}

static struct sched_vcpu *cs_pick(struct sched_pcpu *p, struct sched_vcpu *prev,
				  struct sched_vcpu *cand, stime_t now)
{
	unsigned id = p->id;
	struct sched_vcpu *next = cand;
	struct sched_vm *dom, *own, *ended = NULL;
	bool waited = false;

	if (id >= SCHED_MAX_PCPUS)
		return cand;
	/* Fast path: nothing pending or held here and a HIT (or no) candidate. */
	if (!cs_codom(id) && !READ_ONCE(cs.desched[id]) && !cs_owner(id) &&
	    (!cand || !cs_con(cand->vm)))
		return cand;
	spin_lock(&cs.lock);
	own = cs.var->persist ? cs_owner(id) : NULL;
	/* A persistent operation lasts one credit slice. */
	if (own && now >= cs_deadline(own)) {
		/* Another VM was refused on these pCPUs meanwhile? */
		waited = cs_overlap(&cs.waiters, &DV(own)->m);
		cs_end_op(own, prev, id, now, cs.var->codesched || cs.var->strict);
		ended = own;
		own = NULL;
	}
	dom = cs_codom(id);
	if (dom) {
		/* Alg. 1 lines 3-17: run the co-scheduled VM's vCPU queued here,
		 * else a HIT vCPU; this pCPU has answered. */
		struct sched_vcpu *hit = NULL;
		bool holds = cpumask_test(&DV(dom)->where, id);

		/* A pCPU that held no vCPU of the VM at the launch (most of
		 * them for cs and cds) does not search its queue for one: the
		 * operation's members are the pCPUs that held the VM then (a
		 * sibling stolen here since is not looked for). */
		next = cand && cand->vm == dom ? cand :      /* credit's choice among them */
		       holds ? csched_runq_find_vm(p, dom, cs_hit_vm, &hit) : NULL;
		if (!next)
			next = cand && !cs_con(cand->vm) ? cand :
			       holds ? hit : csched_runq_find(p, match_hit, NULL);
		cs.codom[id] = NULL;
		if (cs.desched[id] == dom)
			cs.desched[id] = NULL;
		cpumask_clear(&cs.coworkers, id);
		if (!cs.var->persist && !cs_overlap(&cs.coworkers, &DV(dom)->m)) {
			cs_andnot(&cs.copartners, &DV(dom)->m);   /* operation complete */
			DV(dom)->active = 0;
			cs_kick_waiters(id);
		}
		/* Nothing of the VM nor HIT here: rather than idle with CON work
		 * queued (Alg. 1 would return NIL), decide as if unsignalled. */
		if (!next && cand)
			dom = NULL;
	}
	if (!dom) {
		struct sched_vm *gone = cs.desched[id];

		next = cand;
		cs.desched[id] = NULL;
		if (gone && next && next->vm == gone) {
			/* Co-descheduled: give the pCPU to any other vCPU queued
			 * here. With none, stopping it would only idle the pCPU
			 * (and could stall a VM whose sibling blocked waiting for
			 * it), so it competes again: a new operation. */
			struct sched_vcpu *alt = csched_runq_find(p, match_not_vm, gone);

			if (alt)
				next = alt;
		}
		if (next && cs_con(next->vm)) {
			struct sched_vm *vm = next->vm;
			bool ok;

			if (own == vm)
				ok = true;                     /* inside its own operation */
			else if (own)
				ok = false;                    /* pCPU reserved by another CON VM */
			else if (cs.var->persist && DV(vm)->active &&
				 !cpumask_test(&cs.copartners, id)) {
				/* A sibling moved here (stolen) while its VM's
				 * operation runs elsewhere: join it. */
				cpumask_set(&DV(vm)->m, id);
				cpumask_set(&cs.copartners, id);
				cs.owner[id] = vm;
				ok = true;
			}
			else if (vm == ended && waited)
				ok = false;                    /* let the waiting VMs have a turn */
			else
				ok = cs_launch(p, next, now);
			if (!ok) {
				/* Alg. 1 line 27: the first HIT vCPU instead. With
				 * none, pcs runs the CON vCPU uncoordinated rather
				 * than idle; the exclusive variants (cs, cds, gang)
				 * idle until the blocking operation ends. */
				struct sched_vcpu *hit = csched_runq_find(p, match_hit, NULL);

				if (hit || cs.var->persist)
					next = hit;
				cpumask_set(&cs.waiters, id);
			}
		}
	}
	/* Persistent operations: track the members running the VM. */
	own = cs.var->persist ? cs_owner(id) : NULL;
	if (own) {
		struct cs_vm *d = DV(own);
		bool runs = next && next->vm == own;

		if (runs) {
			cpumask_set(&d->run, id);
		} else {
			bool was = cpumask_test(&d->run, id);

			cpumask_clear(&d->run, id);
			if (was && cs.var->codesched)
				cs_end_op(own, prev, id, now, true);   /* CDS: siblings go too */
			else if (cpumask_empty(&d->run) && !cs_overlap(&cs.coworkers, &d->m))
				/* Nobody runs the VM and every member answered. */
				cs_end_op(own, prev, id, now, cs.var->strict);
		}
	}
	if (next && VV(next)->edge_from) {
		cosched_edge(VV(next)->edge_from, now);
		VV(next)->edge_from = 0;
	}
	spin_unlock(&cs.lock);
	return next;
}

static void cs_vm_adjust(struct sched_vm *vm)
{
	cosched_scatter_vm(vm);
}

static void cs_dump(struct sched_pcpu *p, stime_t now)
{
	struct sched_vm *c = cs_codom(p->id), *o = cs_owner(p->id);

	pr_info("%s: cpu%u codom=%d owner=%d ops=%llu signals=%llu\n", cs.var->name, p->id,
		c ? (int)c->id : -1, o ? (int)o->id : -1,
		(unsigned long long)cosched_stats.ops, (unsigned long long)cosched_stats.signals);
}

static const struct csched_ext cs_ext = {
	.must_switch = cs_must_switch,
	.pick = cs_pick,
	.may_steal = cosched_may_steal,
	.pick_cpu = cosched_pick_cpu,
	.place = cosched_scatter_place,
	.vm_adjust = cs_vm_adjust,
	.dump = cs_dump,
};

int cosched_init(const struct cosched_variant *var)
{
	memset(&cs, 0, sizeof(cs));
	cs.var = var;
	cosched_stats_reset();
	return csched_init_ext(&cs_ext);
}
