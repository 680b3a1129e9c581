/* Hang watchdog (see watchdog.h, docs/running.md "Watchdog"). Every check
 * and every dump reads other pCPUs' and vCPUs' state without taking their
 * locks: what it looks for may be a pCPU stuck holding one. Only the
 * vProfile part of a dump takes a lock (vProfile's dump_lock), last.
 *
 * Stalls, each reported once per episode (the flag clears on recovery):
 *   pcpu: not idle, and neither a scheduler poll nor an exit of the vCPU it
 *         runs for watchdog_ms (stuck in the hypervisor, or a guest that is
 *         never made to exit);
 *   vcpu: RUNNABLE for watchdog_ms without running (starved, lost kick);
 *   vm:   no exit of any of its vCPUs for watchdog_ms, and none waits
 *         legitimately: a vCPU blocked on HLT (or asleep) counts as waiting
 *         only while a timer of its own is due within watchdog_ms of now or
 *         later, a vCPU frozen by dedicated mode always (a blocked vCPU with
 *         no timer at all is a VM nothing will wake).
 * A report is followed by a full dump, at most one per 5 x watchdog_ms and
 * WD_MAX_DUMPS per boot, so a lasting hang cannot flood the console. */
#include "vm/watchdog.h"
#include "vm/watchdog_calc.h"
#include "vm/vm.h"
#include "vm/sched_platform.h"
#include "sched/sched.h"
#include "cpu.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/time.h"
#include "trace/vprof.h"
#include "cmdline.h"
#include "log.h"
#include "lib/fmt.h"

#define WD_MAX_DUMPS   8
#define MS             1000000ll

static int wd_ms = 2000;
CMDLINE_INT(watchdog_ms, wd_ms, 0, 3600000,
	    "hang watchdog: report a vCPU runnable but not run, a VM without progress or a "
	    "pCPU not scheduling for this many ms, and dump the state; 0 = off");
static int wd_livelock_per_s = 1000;
CMDLINE_INT(watchdog_livelock, wd_livelock_per_s, 0, 100000000,
	    "hang watchdog: report a vCPU taking at least this many exits a second, 90% of "
	    "them retiring no guest instruction, for watchdog_ms; 0 = off");
static int wd_stall_ms;
CMDLINE_INT(watchdog_stall_ms, wd_stall_ms, 0, 60000,
	    "debug (tests the watchdog): the last pCPU spins this many ms with interrupts "
	    "off, once, the first time it has a vCPU to run");

stime_t watchdog_next;   /* 0: the first poll decides */

/* Checker state: written by the one pCPU that won `checking`. */
static stime_t next_check;
static bool checking;
static stime_t next_dump;
static unsigned ndumps;
static stime_t next_key_dump;
static bool dumping;
static bool stalled_once;
static stime_t wd_start;           /* first check with every pCPU in its loop */

static uint64_t vm_seen_exits[VM_MAX];
static stime_t vm_alive[VM_MAX];
static bool vm_rep[VM_MAX];
static bool vcpu_rep[VM_MAX][VM_MAX_VCPUS];

/* Per vCPU: the wait classification and the livelock window (checker only). */
struct wd_vstate {
	uint8_t wait;                  /* enum wd_wait at the last check */
	bool wait_rep, ll_rep;         /* reported in this episode */
	stime_t wait_since;            /* first check that saw `wait` */
	stime_t ll_since;              /* livelock episode start, 0 none */
	stime_t last;                  /* time of the counters below */
	uint64_t all, np[WD_NP_REASONS];           /* at the last check */
	uint64_t ll_all, ll_np[WD_NP_REASONS];     /* at the episode start */
};
static struct wd_vstate vstate[VM_MAX][VM_MAX_VCPUS];

/* vProfile dump lines each pCPU wrote (watchdog_dump_line, from vProfile's
 * serial sink). A dump holds its pCPU inside one exit (the HC_VPROF_STOP
 * hypercall that ends a profile, a VM's end) for as long as the serial port
 * takes: a 4-vCPU Linux steal-test profile is about 75 lines of up to 1.4 KB,
 * 2.4 s of hypervisor time in Bochs. Such a pCPU neither polls nor exits, but
 * it is busy, not stuck: while its line count grows it counts as alive, and
 * the checks of vCPUs queued on it (and of their VM) count their ages from
 * its last line. A dump that stops writing for watchdog_ms, or anything
 * after it, is reported as before. (Issue 17: the dump printed "pcpuN has
 * not scheduled", then "runnable ... without running" and timer-overdue
 * lines for the vCPUs queued there, and a full state dump that waited for
 * vProfile's dump_lock, taking the checker's pCPU too.) */
static volatile uint64_t dump_lines[MAX_CPUS];
static uint64_t dump_seen_lines[MAX_CPUS];   /* checker: at the last check */
static stime_t dump_active[MAX_CPUS];        /* checker: last check that saw new lines */
static bool dump_said[MAX_CPUS];

void watchdog_dump_line(unsigned cpu)
{
	if (cpu < MAX_CPUS)
		WRITE_ONCE(dump_lines[cpu], dump_lines[cpu] + 1);   /* only cpu writes it */
}

/* pCPU c wrote dump lines within watchdog_ms of now: a vCPU queued or
 * blocked there waits for the dump, not in vain. */
static bool pcpu_in_dump(unsigned c, stime_t now, stime_t lim)
{
	return c < MAX_CPUS && dump_active[c] && now - dump_active[c] <= lim;
}

static inline struct vcpu *sv_vcpu(struct sched_vcpu *sv)
{
	return sv ? container_of(sv, struct vcpu, sv) : NULL;
}

static long ago_ms(stime_t t, stime_t now)
{
	return (long)((now - t) / MS);
}

/* Earliest timer of v's own devices, read without the vintc lock. */
static stime_t vcpu_timer(struct vcpu *v)
{
	stime_t t = READ_ONCE(v->vmx.lapic.timer_deadline);

	return v->vmx.id == 0 ? MIN(t, pcdev_next_deadline(&v->vm->devs.pc)) : t;
}

static int lapic_top(const struct vlapic *l, unsigned base)
{
	for (int i = 7; i >= 0; i--) {
		uint32_t w = vlapic_reg(l, base + (unsigned)i * 0x10);

		if (w)
			return i * 32 + 31 - __builtin_clz(w);
	}
	return -1;
}

/* The guest's side of v's state (the scheduler's: the sched dump). */
static const char *vcpu_activity(struct vcpu *v)
{
	if (READ_ONCE(v->vm->state) != VM_RUNNING)
		return "dead";
	if (READ_ONCE(v->wait_sipi))
		return "wait-sipi";
	return READ_ONCE(v->halted) ? "halted" : "active";
}

static void vcpu_snap(struct vcpu *v, struct wd_vcpu_snap *s)
{
	const struct vlapic *l = &v->vmx.lapic;
	unsigned st = READ_ONCE(v->sv.state);

	*s = (struct wd_vcpu_snap){
		.blocked = sched_vcpu_waits_event(&v->sv), .running = st == SCHED_RUNNING,
		.halted = READ_ONCE(v->halted), .halt_if = READ_ONCE(v->halt_if),
		.irr_top = lapic_top(l, 0x200), .isr_top = lapic_top(l, 0x100),
		.tpr = (uint8_t)vlapic_reg(l, 0x80), .apic_on = vlapic_hw_enabled(l),
		.nmi = READ_ONCE(l->nmi_pending), .timer = vcpu_timer(v),
	};
}

/* "+12ms", "-3ms" (relative to now) or "never", into buf. */
static const char *rel(char *buf, size_t n, stime_t t, stime_t now)
{
	if (t >= STIME_NEVER)
		fmt_snprintf(buf, n, "never");
	else
		fmt_snprintf(buf, n, "%s%ldms", t >= now ? "+" : "-",
			     (long)((t >= now ? t - now : now - t) / MS));
	return buf;
}

/* A word that may be a return address into the kernel image (x86-64
 * Linux maps it at -2 GiB; tools/linux/symbolize.py names them). */
static bool kernel_text_like(uint64_t w)
{
	return w >= 0xffffffff80000000ull && w < 0xffffffffc0000000ull;
}

/* Guest side of a stuck vCPU: where it last halted (and with what RFLAGS),
 * where it last spun (PAUSE-loop exit), the KVM PV kick state, the SA
 * upcall state, and the kernel-text words of its last stack copy (taken at
 * an HLT with IF=0, or at the first slow exit after a dump asked for one:
 * a running vCPU's copy shows in the next dump). */
static void dump_vcpu_guest(struct vcpu *v)
{
	const struct sched_vcpu *sv = &v->sv;
	char line[256];
	int n = 0;

	pr_info("watchdog: vm%u.v%u guest hlt_rip=%#lx hlt_rflags=%#lx ple_rip=%#lx ple_exits=%lu "
		"pv_unhalted=%d kicks=%lu sa_vec=%u sa_pend=%d sa_seq=%u sa_upcalls=%lu "
		"sa_timeouts=%lu sa_ack_yield=%lu sa_ack_block=%lu sa_moot=%lu sa_stale=%lu\n",
		v->vm->id, v->vmx.id, (unsigned long)v->dbg.halt_rip, (unsigned long)v->dbg.halt_rflags,
		(unsigned long)v->dbg.ple_rip, (unsigned long)v->vmx.ple_exits,
		(int)READ_ONCE(v->kvm.pv_unhalted), (unsigned long)READ_ONCE(v->kvm.kicks),
		sv->sa_vector, !!(READ_ONCE(sv->flags) & SCHED_VF_SA_PEND), sv->sa_seq,
		(unsigned long)sv->st.nsa_upcall, (unsigned long)sv->st.nsa_timeout,
		(unsigned long)sv->st.nsa_ack_yield, (unsigned long)sv->st.nsa_ack_block,
		(unsigned long)sv->st.nsa_moot, (unsigned long)sv->st.nsa_stale);
	for (unsigned i = 0; i < v->dbg.nstack && i < VCPU_DBG_STACK_WORDS && n < 200; i++)
		if (kernel_text_like(v->dbg.stack[i]))
			n += fmt_snprintf(line + n, sizeof(line) - (size_t)n, " %#lx",
					  (unsigned long)v->dbg.stack[i]);
	line[n] = 0;
	if (v->dbg.nstack)
		pr_info("watchdog: vm%u.v%u stack at rip=%#lx rsp=%#lx:%s\n", v->vm->id, v->vmx.id,
			(unsigned long)v->dbg.snap_rip, (unsigned long)v->dbg.snap_rsp, line);
	if (v->vm->state == VM_RUNNING)
		WRITE_ONCE(v->dbg.snap_req, true);   /* fresh copy for the next dump */
}

static void dump_vcpu(struct vcpu *v, stime_t now)
{
	const struct vlapic *l = &v->vmx.lapic;
	stime_t t = vcpu_timer(v);
	unsigned sv = 0;

	for (unsigned w = 0; w < 4; w++)
		sv += (unsigned)__builtin_popcountll(READ_ONCE(v->sched_vectors[w]));
	char tb[24];

	struct wd_vcpu_snap s;

	vcpu_snap(v, &s);
	pr_info("watchdog: vm%u.v%u guest=%s halt_if=%d kicked=%d irr_top=%d isr_top=%d "
		"tpr=0x%x nmi=%d sched_vectors=%u lvt_timer=0x%x timer=%s exits=%lu ppr=0x%x "
		"timer_fired=%lu tscdl_ignored=%lu wait=%s\n",
		v->vm->id, v->vmx.id, vcpu_activity(v), v->halt_if, READ_ONCE(v->kicked),
		lapic_top(l, 0x200), lapic_top(l, 0x100), vlapic_reg(l, 0x80),
		READ_ONCE(l->nmi_pending), sv, vlapic_reg(l, 0x320), rel(tb, sizeof(tb), t, now),
		(unsigned long)READ_ONCE(v->exits_total), wd_ppr(s.tpr, s.isr_top),
		(unsigned long)READ_ONCE(l->timer_fired), (unsigned long)READ_ONCE(l->tscdl_ignored),
		wd_wait_name(wd_classify(&s, now, (stime_t)wd_ms * MS)));
	dump_vcpu_guest(v);
}

static void dump_all(const char *why, stime_t now)
{
	pr_info("watchdog: ==== state dump (%s) at %ld ms ====\n", why, (long)(now / MS));
	sched_dump(now);
	for (unsigned c = 0; c < nr_cpus_online; c++) {
		struct pcpu_view pv;
		char hb[24], sd[24], bd[24];

		pcpu_view(c, &pv);
		pr_info("watchdog: pcpu%u apic%u idle=%d last_poll=%s sched_deadline=%s "
			"blocked_deadline=%s\n", c, percpu_area[c].apic_id, pv.idle,
			rel(hb, sizeof(hb), pv.heartbeat, now), rel(sd, sizeof(sd), pv.sched_deadline, now),
			rel(bd, sizeof(bd), pv.blocked_deadline, now));
	}
	for (unsigned i = 0; i < nr_vms; i++) {
		struct vm *vm = vms[i];

		pr_info("watchdog: vm%u '%s' %s\n", vm->id, vm->p.name,
			vm->state == VM_RUNNING ? "running" : "ended");
		for (unsigned j = 0; j < vm->nr_vcpus; j++)
			dump_vcpu(vm->vcpu[j], now);
	}
	pr_info("watchdog: vProfile: %d profiles dumped\n", vprof_dump_all(VPD_KEY, now));
	pr_info("watchdog: ==== end of state dump ====\n");
}

/* One dump at a time; the caller decided it is allowed. */
static void dump_once(const char *why, stime_t now)
{
	if (__atomic_exchange_n(&dumping, true, __ATOMIC_ACQUIRE))
		return;
	dump_all(why, now);
	__atomic_store_n(&dumping, false, __ATOMIC_RELEASE);
}

void watchdog_dump(const char *why, stime_t now)
{
	if (now < next_key_dump)
		return;
	next_key_dump = now + 1000 * MS;
	dump_once(why, now);
}

static unsigned check_pcpus(unsigned self, stime_t now, stime_t lim)
{
	unsigned n = 0;

	for (unsigned c = 0; c < nr_cpus_online; c++) {
		struct pcpu_view pv;
		struct sched_pcpu *p = sched_pcpu_get(c);
		struct vcpu *cur = p ? sv_vcpu(READ_ONCE(p->curr)) : NULL;
		uint64_t ex = cur ? READ_ONCE(cur->exits_total) : 0;

		uint64_t lines = READ_ONCE(dump_lines[c]);

		pcpu_view(c, &pv);
		if (c == self || pv.idle || pv.heartbeat != cpus[c].wd.seen_beat ||
		    ex != cpus[c].wd.seen_exits)
			cpus[c].wd.alive = now;
		cpus[c].wd.seen_beat = pv.heartbeat;
		cpus[c].wd.seen_exits = ex;
		if (lines != dump_seen_lines[c])
			dump_active[c] = now;
		dump_seen_lines[c] = lines;
		if (now - cpus[c].wd.alive <= lim) {
			cpus[c].wd.reported = false;
			dump_said[c] = false;
			continue;
		}
		if (pcpu_in_dump(c, now, lim)) {
			if (!dump_said[c]) {
				dump_said[c] = true;
				pr_info("watchdog: pcpu%u busy writing a vProfile dump for %ld ms "
					"(no poll, no exit of %s; %lu lines so far): not a stall\n",
					c, ago_ms(cpus[c].wd.alive, now),
					cur ? cur->vm->p.name : "a vCPU", (unsigned long)lines);
			}
			continue;
		}
		if (cpus[c].wd.reported)
			continue;
		cpus[c].wd.reported = true;
		n++;
		pr_warn("watchdog: pcpu%u has not scheduled for %ld ms (no poll, no exit of %s)\n",
			c, ago_ms(cpus[c].wd.alive, now), cur ? cur->vm->p.name : "a vCPU");
	}
	return n;
}

/* A vCPU that waits for an event a timer of its own will bring soon enough. */
static bool vcpu_waits_legitimately(struct vcpu *v, stime_t now, stime_t lim)
{
	stime_t t;

	if (READ_ONCE(v->sv.state) == SCHED_OFFLINE && (READ_ONCE(v->sv.flags) & SCHED_VF_FROZEN))
		return true;
	if (!sched_vcpu_waits_event(&v->sv))
		return false;
	t = vcpu_timer(v);
	return t != STIME_NEVER && t > now - lim;
}

/* A vCPU that waits in vain (wd_classify). An overdue timer is reported at
 * once (it is already watchdog_ms late); the HLT findings once they lasted
 * watchdog_ms (a wake in flight looks the same for a moment). */
static unsigned check_vcpu_wait(struct vcpu *v, struct wd_vstate *w, stime_t now, stime_t lim)
{
	struct wd_vcpu_snap s;
	enum wd_wait k;
	char tb[24], bd[24];
	struct pcpu_view pv;
	unsigned pcpu = READ_ONCE(v->sv.pcpu);

	if (pcpu_in_dump(pcpu, now, lim))
		return 0;   /* its pCPU is writing a vProfile dump: looked at after it */
	vcpu_snap(v, &s);
	k = wd_classify(&s, now, lim);
	if (k != w->wait) {
		w->wait = (uint8_t)k;
		w->wait_since = now;
		w->wait_rep = false;
	}
	if (k == WD_WAIT_OK || w->wait_rep ||
	    (k != WD_WAIT_TIMER_OVERDUE && now - w->wait_since < lim))
		return 0;
	w->wait_rep = true;
	pcpu_view(pcpu < nr_cpus_online ? pcpu : 0, &pv);
	pr_warn("watchdog: %s vcpu%u (vm%u.v%u) %s %s for %ld ms: timer=%s timer_fired=%lu "
		"irr_top=%d isr_top=%d ppr=0x%x halt_if=%d nmi=%u lvt_timer=0x%x; on pcpu%u "
		"(idle=%d blocked_deadline=%s)\n",
		v->vm->p.name, v->vmx.id, v->vm->id, v->vmx.id, s.blocked ? "blocked" : "running",
		wd_wait_name(k), ago_ms(k == WD_WAIT_TIMER_OVERDUE ? s.timer : w->wait_since, now),
		rel(tb, sizeof(tb), s.timer, now), (unsigned long)READ_ONCE(v->vmx.lapic.timer_fired),
		s.irr_top, s.isr_top, wd_ppr(s.tpr, s.isr_top), s.halt_if, s.nmi,
		vlapic_reg(&v->vmx.lapic, 0x320), pcpu, pv.idle,
		rel(bd, sizeof(bd), pv.blocked_deadline, now));
	return 1;
}

/* Exits that retire no guest instruction at a livelock's rate, in every
 * check window for watchdog_ms (wd_livelock). */
static unsigned check_vcpu_livelock(struct vcpu *v, struct wd_vstate *w, stime_t now,
				    stime_t lim)
{
	uint64_t all = READ_ONCE(v->exits_total), np[WD_NP_REASONS], d_np = 0, ep_np = 0;
	stime_t last = w->last;
	unsigned top = 0, n = 0;

	for (unsigned i = 0; i < WD_NP_REASONS; i++) {
		np[i] = READ_ONCE(v->exits[wd_np_reasons[i]]);
		d_np += np[i] - w->np[i];
	}
	if (last && wd_livelock(all - w->all, d_np, now - last, (unsigned)wd_livelock_per_s)) {
		if (!w->ll_since) {
			w->ll_since = last;
			w->ll_all = w->all;
			for (unsigned i = 0; i < WD_NP_REASONS; i++)
				w->ll_np[i] = w->np[i];
		}
		if (!w->ll_rep && now - w->ll_since >= lim) {
			for (unsigned i = 0; i < WD_NP_REASONS; i++) {
				ep_np += np[i] - w->ll_np[i];
				if (np[i] - w->ll_np[i] > np[top] - w->ll_np[top])
					top = i;
			}
			w->ll_rep = true;
			n = 1;
			pr_warn("watchdog: %s vcpu%u (vm%u.v%u) livelock: %lu exits in %ld ms, %lu "
				"retiring no guest instruction, most %s (%lu)\n", v->vm->p.name,
				v->vmx.id, v->vm->id, v->vmx.id, (unsigned long)(all - w->ll_all),
				ago_ms(w->ll_since, now), (unsigned long)ep_np,
				wd_np_reason_name(top), (unsigned long)(np[top] - w->ll_np[top]));
		}
	} else {
		uint64_t d_all = all - w->all;

		/* A quiet window (the vCPU descheduled, or the checker's own dump
		 * kept its pCPU) restarts the count but does not end a reported
		 * episode; guest instruction exits or a block do. */
		w->ll_since = 0;
		if (d_all >= 64 ? d_np * 10 < d_all * 9 : sched_vcpu_waits_event(&v->sv))
			w->ll_rep = false;
	}
	w->last = now;
	w->all = all;
	for (unsigned i = 0; i < WD_NP_REASONS; i++)
		w->np[i] = np[i];
	return n;
}

static unsigned check_vm(struct vm *vm, stime_t now, stime_t lim)
{
	unsigned n = 0, id = vm->id % VM_MAX;
	uint64_t ex = 0;
	bool waits = false;

	for (unsigned j = 0; j < vm->nr_vcpus && j < VM_MAX_VCPUS; j++) {
		struct vcpu *v = vm->vcpu[j];
		unsigned st = READ_ONCE(v->sv.state);
		unsigned pcpu = READ_ONCE(v->sv.pcpu);
		stime_t since = MAX(READ_ONCE(v->sv.state_since), wd_start);

		if (pcpu_in_dump(pcpu, now, lim))
			since = MAX(since, dump_active[pcpu]);
		ex += READ_ONCE(v->exits_total);
		waits |= vcpu_waits_legitimately(v, now, lim) || pcpu_in_dump(pcpu, now, lim);
		n += check_vcpu_wait(v, &vstate[id][j], now, lim);
		n += check_vcpu_livelock(v, &vstate[id][j], now, lim);
		if (st != SCHED_RUNNABLE || now - since <= lim) {
			vcpu_rep[id][j] = false;
			continue;
		}
		if (vcpu_rep[id][j])
			continue;
		vcpu_rep[id][j] = true;
		n++;
		pr_warn("watchdog: %s vcpu%u (vm%u.v%u) runnable for %ld ms without running, "
			"on pcpu%u\n", vm->p.name, j, vm->id, j, ago_ms(since, now),
			READ_ONCE(v->sv.pcpu));
	}
	if (ex != vm_seen_exits[id] || waits)
		vm_alive[id] = now;
	vm_seen_exits[id] = ex;
	if (now - vm_alive[id] <= lim) {
		vm_rep[id] = false;
	} else if (!vm_rep[id]) {
		vm_rep[id] = true;
		n++;
		pr_warn("watchdog: %s (vm%u) has made no progress for %ld ms (no exit, no vCPU "
			"waiting for a timer of its own)\n", vm->p.name, vm->id,
			ago_ms(vm_alive[id], now));
	}
	return n;
}

/* Checks start once every pCPU has polled (booting pCPUs and vCPUs made
 * runnable at VM creation are not stalls); ages count from then. */
static bool started(stime_t now)
{
	if (wd_start)
		return true;
	for (unsigned c = 0; c < nr_cpus_online; c++) {
		struct pcpu_view pv;

		pcpu_view(c, &pv);
		if (!pv.heartbeat)
			return false;
	}
	wd_start = now;
	for (unsigned c = 0; c < MAX_CPUS; c++)
		cpus[c].wd.alive = now;
	for (unsigned i = 0; i < VM_MAX; i++)
		vm_alive[i] = now;
	pr_info("watchdog: on, %d ms\n", wd_ms);
	return true;
}

static void check(unsigned self, stime_t now)
{
	stime_t lim = (stime_t)wd_ms * MS;
	unsigned n;

	if (!started(now))
		return;
	n = check_pcpus(self, now, lim);

	for (unsigned i = 0; i < nr_vms; i++)
		if (READ_ONCE(vms[i]->state) == VM_RUNNING)
			n += check_vm(vms[i], now, lim);
	if (!n || now < next_dump || ndumps >= WD_MAX_DUMPS)
		return;
	ndumps++;
	next_dump = now + 5 * lim;
	dump_once("watchdog", now);
	if (ndumps == WD_MAX_DUMPS)
		pr_warn("watchdog: %u dumps written; from now on only the one-line reports\n",
			ndumps);
}

/* watchdog_stall_ms: a real stall (interrupts off, no poll, no exit), so
 * the test exercises the same code a hang would. */
static void debug_stall(unsigned cpu, stime_t now)
{
	struct sched_pcpu *p = sched_pcpu_get(cpu);
	bool on = irq_enabled();

	if (cpu == 0 || cpu + 1 != nr_cpus_online || !p || !READ_ONCE(p->curr) ||
	    __atomic_exchange_n(&stalled_once, true, __ATOMIC_RELAXED))
		return;
	pr_info("watchdog: debug: pcpu%u stalls %d ms with interrupts off (watchdog_stall_ms)\n",
		cpu, wd_stall_ms);
	irq_disable();
	while (time_now() - now < (stime_t)wd_stall_ms * MS)
		cpu_relax();
	if (on)
		irq_enable();
	pr_info("watchdog: debug: pcpu%u goes on\n", cpu);
}

void watchdog_poll_slow(unsigned cpu, stime_t now)
{
	static bool said_off;
	bool stall_pending;

	if (wd_stall_ms && !READ_ONCE(stalled_once))
		debug_stall(cpu, now);
	stall_pending = wd_stall_ms && !READ_ONCE(stalled_once);
	if (!wd_ms) {
		if (cpu == 0 && !said_off) {
			said_off = true;   /* hvrun: the run loop reads keys from now on */
			pr_info("watchdog: off (watchdog_ms=0)\n");
		}
		if (said_off && !stall_pending)
			WRITE_ONCE(watchdog_next, INT64_MAX);
		return;
	}
	if (now >= READ_ONCE(next_check) &&
	    !__atomic_exchange_n(&checking, true, __ATOMIC_ACQUIRE)) {
		if (now >= next_check) {
			next_check = now + MAX((stime_t)wd_ms * MS / 4, MS);
			check(cpu, now);
		}
		__atomic_store_n(&checking, false, __ATOMIC_RELEASE);
	}
	WRITE_ONCE(watchdog_next, stall_pending ? 0 : READ_ONCE(next_check));
}
