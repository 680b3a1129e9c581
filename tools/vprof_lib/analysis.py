"""Runtime decomposition of seed 001 section 2.1 from a decoded dump.

compute = running - spinning; synchronisation = spinning + blocked while a
sibling vCPU is active (running or runnable); steal = runnable. Blocked time
while every sibling is blocked too is the VM being idle, not waiting on a
sibling. That split needs the timeline; when records were lost it is not
trustworthy and all blocked time counts as synchronisation (said in `notes`).
"""
from dataclasses import dataclass, field

from . import fmt


@dataclass
class Breakdown:
    vm: int
    vcpu: int
    window: int
    running: int
    spin: int
    blocked: int
    blocked_sync: int
    steal: int
    offline: int

    @property
    def compute(self):
        return self.running - self.spin

    @property
    def sync(self):
        return self.spin + self.blocked_sync

    @property
    def idle(self):
        return self.blocked - self.blocked_sync

    @property
    def total(self):
        """Time the vCPU existed: everything but offline."""
        return self.running + self.steal + self.blocked


@dataclass
class VmSummary:
    dump: object
    vcpus: list
    notes: list = field(default_factory=list)
    timeline_ok: bool = False

    def sum(self, attr):
        return sum(getattr(b, attr) for b in self.vcpus)


def timeline_usable(d):
    return d.complete and d.lost == 0 and bool(d.records)


def _state_changes(d):
    """Yield (t, vcpu, state) for this VM in time order."""
    for t, arg, vm, vcpu, kind, code, pcpu in d.records:
        if vm == d.vm and kind == fmt.REC_STATE and code < len(fmt.STATES):
            yield t, vcpu, code


def blocked_while_siblings_active(d):
    """Per vCPU: ns spent BLOCKED while at least one sibling was running or runnable.
    States start OFFLINE; the start snapshot (records at t0) sets the real ones."""
    state = {i: fmt.OFFLINE for i in d.vcpus}
    out = {i: 0 for i in d.vcpus}
    last = d.t0
    for t, vcpu, st in _state_changes(d):
        _accrue(state, out, max(0, t - last))
        last = max(last, t)
        state[vcpu] = st
    _accrue(state, out, max(0, d.t1 - last))
    return out


def _accrue(state, out, dt):
    if not dt:
        return
    active = [i for i, s in state.items() if s in (fmt.RUNNING, fmt.RUNNABLE)]
    for i, s in state.items():
        if s == fmt.BLOCKED and any(j != i for j in active):
            out[i] = out.get(i, 0) + dt


def summarize(d):
    s = VmSummary(d, [])
    s.timeline_ok = timeline_usable(d)
    split = blocked_while_siblings_active(d) if s.timeline_ok else None
    if not d.complete:
        s.notes.append("dump incomplete or corrupted: figures may be partial")
    if d.lost:
        s.notes.append(f"{d.lost} timeline records lost (rings full): state times are exact, "
                       "blocked time is all counted as synchronisation")
    elif not s.timeline_ok:
        s.notes.append("no usable timeline: blocked time is all counted as synchronisation")
    for i in sorted(d.vcpus):
        v = d.vcpus[i]
        blocked = v.state_ns[fmt.BLOCKED]
        bs = min(blocked, split.get(i, 0)) if split is not None else blocked
        s.vcpus.append(Breakdown(d.vm, i, d.window_ns, v.state_ns[fmt.RUNNING], v.spin_ns,
                                 blocked, bs, v.state_ns[fmt.RUNNABLE], v.state_ns[fmt.OFFLINE]))
        if v.anomalies:
            s.notes.append(f"vcpu {i}: {v.anomalies} accounting anomalies (clock skew or unpaired spin events)")
    return s


def pcpu_idle_in_window(d):
    """Idle ns per pCPU inside the window, from IDLE_BEGIN/END records."""
    idle_since, out = {}, {p: 0 for p in d.pcpus}
    for t, arg, vm, vcpu, kind, code, pcpu in d.records:
        if kind != fmt.REC_EVENT or vm != fmt.VM_NONE:
            continue
        if code == fmt.EV["IDLE_BEGIN"]:
            idle_since[pcpu] = t
        elif code == fmt.EV["IDLE_END"] and pcpu in idle_since:
            out[pcpu] = out.get(pcpu, 0) + t - idle_since.pop(pcpu)
    for p, t in idle_since.items():
        out[p] = out.get(p, 0) + d.t1 - t
    return out


def utilisation(d):
    """CPUs' worth of time this VM ran on average over the window."""
    w = d.window_ns
    return sum(v.state_ns[fmt.RUNNING] for v in d.vcpus.values()) / w if w > 0 else 0.0


@dataclass
class Phase:
    index: int          # 0 before the first MARK, k after the k-th
    mark: object        # MARK argument that opened it (None for phase 0)
    t0: int
    t1: int
    state: dict         # vcpu -> [ns per state]
    spin: dict          # vcpu -> ns

    @property
    def length(self):
        return self.t1 - self.t0

    def get(self, key, vcpu=None):
        """Time of one breakdown key in this phase (one vCPU or all)."""
        vs = [vcpu] if vcpu is not None else sorted(self.state)
        tot = 0
        for v in vs:
            st, sp = self.state.get(v, [0, 0, 0, 0]), self.spin.get(v, 0)
            tot += {"running": st[fmt.RUNNING], "compute": st[fmt.RUNNING] - sp, "spin": sp,
                    "blocked": st[fmt.BLOCKED], "steal": st[fmt.RUNNABLE],
                    "offline": st[fmt.OFFLINE], "sync": sp + st[fmt.BLOCKED],
                    "idle": 0}[key]
        return tot


def phases(d):
    """Split the window at the VM's MARK events (vprofctl mark / HC_VPROF_MARK)
    and account state and spinning time per piece from the timeline. Phase
    `sync` counts all blocked time (no sibling split)."""
    marks = [(t, arg) for t, arg, vm, vcpu, kind, code, pcpu in d.records
             if vm == d.vm and kind == fmt.REC_EVENT and code == fmt.EV["MARK"]]
    cuts = [(d.t0, None)] + marks
    out = [Phase(i, a, t, (cuts[i + 1][0] if i + 1 < len(cuts) else d.t1), {}, {})
           for i, (t, a) in enumerate(cuts)]
    state = {i: fmt.OFFLINE for i in d.vcpus}
    spin_since = {}
    last = d.t0
    events = [(t, vcpu, kind, code) for t, arg, vm, vcpu, kind, code, pcpu in d.records
              if vm == d.vm and (kind == fmt.REC_STATE or code in (fmt.EV["SPIN_BEGIN"], fmt.EV["SPIN_END"]))]
    for t, vcpu, kind, code in events + [(d.t1, None, None, None)]:
        _phase_accrue(out, state, spin_since, last, t)
        last = max(last, t)
        if kind == fmt.REC_STATE and code < len(fmt.STATES):
            state[vcpu] = code
            if code != fmt.RUNNING:
                spin_since.pop(vcpu, None)
        elif kind == fmt.REC_EVENT and code == fmt.EV["SPIN_BEGIN"] and state.get(vcpu) == fmt.RUNNING:
            spin_since.setdefault(vcpu, t)
        elif kind == fmt.REC_EVENT and code == fmt.EV["SPIN_END"]:
            spin_since.pop(vcpu, None)
    return out


def _phase_accrue(out, state, spinning, a, b):
    """Add [a, b) to every phase it overlaps."""
    if b <= a:
        return
    for p in out:
        lo, hi = max(a, p.t0), min(b, p.t1)
        if hi <= lo:
            continue
        for v, st in state.items():
            p.state.setdefault(v, [0, 0, 0, 0])[st] += hi - lo
            if v in spinning:
                p.spin[v] = p.spin.get(v, 0) + hi - lo


def dp_delays(d):
    """Adaptive delayed preemption (seed 001 eq. 2): {vcpu: [(t_ns, delay_ns)]}
    from the VPE_DP_DELAY events the scheduler records once per accounting
    period for every vCPU of the profiled VM."""
    out = {}
    code = fmt.EV["DP_DELAY"]
    for t, arg, vm, vcpu, kind, c, pcpu in d.records:
        if kind == fmt.REC_EVENT and vm == d.vm and c == code:
            out.setdefault(vcpu, []).append((t, arg))
    return out


SA_ACK_OPS = {0: "yield", 1: "block"}


def pv_events(d):
    """PV ABI v1 upcalls and balloon (docs/pv-abi.md) per vCPU of the
    profiled VM: {vcpu: {"upcalls", "acks": {op: n}, "ack_ns": [latency],
    "timeouts", "stale", "modes": [(t_ns, mode)], "sleeps", "sleep_cancels"}}.
    VPE_SA_ACK's argument is op << 56 | ns from injection to the ack."""
    ev = fmt.EV
    out = {}
    for t, arg, vm, vcpu, kind, c, pcpu in d.records:
        if kind != fmt.REC_EVENT or vm != d.vm:
            continue
        s = out.setdefault(vcpu, {"upcalls": 0, "acks": {}, "ack_ns": [], "timeouts": 0,
                                  "stale": 0, "modes": [], "sleeps": 0, "sleep_cancels": 0})
        if c == ev["SA_UPCALL"]:
            s["upcalls"] += 1
        elif c == ev["SA_ACK"]:
            op = SA_ACK_OPS.get(arg >> 56, f"op{arg >> 56}")
            s["acks"][op] = s["acks"].get(op, 0) + 1
            s["ack_ns"].append(arg & ((1 << 56) - 1))
        elif c == ev["SA_TIMEOUT"]:
            s["timeouts"] += 1
        elif c == ev.get("SA_STALE"):
            s["stale"] += 1
        elif c == ev["BALLOON_MODE"]:
            s["modes"].append((t, arg))
        elif c == ev["BALLOON_SLEEP"]:
            if arg:
                s["sleep_cancels"] += 1
            else:
                s["sleeps"] += 1
    return out
