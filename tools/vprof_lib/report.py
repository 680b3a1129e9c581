"""Text and CSV reports: per VM and per vCPU runtime breakdown (seed 001
section 2.1), events, exit counts, PMU statistics (absent stays absent)."""
import csv

from . import analysis, fmt


def ms(ns):
    return f"{ns / 1e6:10.3f}"


def pct(part, whole):
    return f"{100.0 * part / whole:5.1f}%" if whole else "    -"


def _row(name, b):
    t = b.total
    return (f"  {name:>6} {ms(t)} {ms(b.compute)} {pct(b.compute, t)} {ms(b.sync)} {pct(b.sync, t)}"
            f" {ms(b.spin)} {ms(b.steal)} {pct(b.steal, t)} {ms(b.idle)} {ms(b.offline)}")


def _header():
    return (f"  {'vcpu':>6} {'total ms':>10} {'compute':>10} {'':6} {'sync':>10} {'':6}"
            f" {'(spin)':>10} {'steal':>10} {'':6} {'idle':>10} {'offline':>10}")


class _Total:
    def __init__(self, bs):
        for a in ("running", "spin", "blocked", "blocked_sync", "steal", "offline"):
            setattr(self, a, sum(getattr(b, a) for b in bs))
        self.compute = self.running - self.spin
        self.sync = self.spin + self.blocked_sync
        self.idle = self.blocked - self.blocked_sync
        self.total = self.running + self.steal + self.blocked


def _counts(title, per_vcpu):
    out = []
    for i, items in per_vcpu:
        shown = " ".join(f"{k}={n}" for k, n in items if n)
        out.append(f"  {title} vcpu {i}: {shown or '(none)'}")
    return out


def _pmu_lines(d):
    out = []
    for i, v in sorted(d.vcpus.items()):
        if not v.pmu_samples or not v.pmu_present:
            out.append(f"  pmu vcpu {i}: absent (no usable PMU; counters not measured)")
            continue
        vals = []
        for name in fmt.PMU_COUNTERS:
            x = v.pmu_value(name)
            vals.append(f"{name}={x}" if x is not None else f"{name}=absent")
        ins, llc = v.pmu_value("instructions"), v.pmu_value("llc_misses")
        if ins and llc is not None:
            vals.append(f"MPKI={1000.0 * llc / ins:.2f}")
        out.append(f"  pmu vcpu {i} ({v.pmu_samples} samples): " + " ".join(vals))
    return out


def _phase_lines(d, s):
    ps = [p for p in analysis.phases(d) if p.length > 0]
    if not any(p.mark is not None for p in ps):
        return []
    out = ["  phases between MARK events (timeline; sync = spin + all blocked), % of vCPU time:"]
    if not s.timeline_ok:
        out.append("    (timeline incomplete: phase figures are partial)")
    for p in ps:
        denom = p.length * max(1, len(p.state))
        vals = " ".join(f"{k} {100.0 * p.get(k) / denom:5.1f}%" for k in
                        ("compute", "spin", "blocked", "steal", "offline"))
        out.append(f"    phase {p.index} (mark {p.mark}) {p.length / 1e6:.3f} ms: {vals}")
    return out


def dump_report(d):
    s = analysis.summarize(d)
    status = "complete" if d.complete else "INCOMPLETE"
    out = [f"vProfile dump {d.dump_id}: VM {d.vm}, {d.nvcpus} vCPUs, {d.npcpus} pCPUs, "
           f"window {d.window_ns / 1e6:.3f} ms [{d.t0}..{d.t1} ns], "
           f"{fmt.DUMP_REASONS.get(d.reason, 'reason ?')}{' (still profiling)' if d.active else ''} [{status}]"]
    out.append(f"  dedicated mode: owned {d.ded_ns / 1e6:.3f} ms, frozen by another VM "
               f"{d.frozen_ns / 1e6:.3f} ms; utilisation {analysis.utilisation(d):.3f} CPUs")
    out.append("  runtime breakdown (sync = spin + blocked while a sibling is active; steal = runnable):")
    out.append(_header())
    for b in s.vcpus:
        out.append(_row(str(b.vcpu), b))
    out.append(_row("VM", _Total(s.vcpus)))
    out += _counts("events", [(i, sorted(v.events.items())) for i, v in sorted(d.vcpus.items())])
    out += _counts("spin detectors", [(i, list(zip(fmt.DETECTORS, v.spin_begins)))
                                      for i, v in sorted(d.vcpus.items())])
    out += _counts("exits", [(i, [(fmt.exit_name(r), n) for r, n in sorted(v.exits.items())]
                              + [("OTHER", v.exits_other)]) for i, v in sorted(d.vcpus.items())])
    out += _pmu_lines(d)
    idle = analysis.pcpu_idle_in_window(d)
    for p, st in sorted(d.pcpus.items()):
        out.append(f"  pcpu {p}: ring {st.used}/{st.cap} records, {st.recorded} offered, "
                   f"{st.lost} lost; idle in window {idle.get(p, 0) / 1e6:.3f} ms")
    out += _phase_lines(d, s)
    out.append(f"  timeline: {len(d.records)} records for this VM")
    out += [f"  note: {n}" for n in s.notes]
    return "\n".join(out)


def text_report(dumps, problems):
    parts = [dump_report(d) for d in dumps]
    if problems:
        parts.append("CORRUPTION / PROBLEMS:\n" + "\n".join(f"  {p}" for p in problems))
    return "\n\n".join(parts) + "\n"


CSV_FIELDS = ["dump", "vm", "vcpu", "complete", "window_ns", "total_ns", "running_ns", "compute_ns",
              "spin_ns", "blocked_ns", "blocked_sync_ns", "idle_ns", "sync_ns", "steal_ns",
              "offline_ns", "ded_ns", "frozen_ns", "exits_total"] + \
             [f"ev_{e}" for e in fmt.EVENTS if e] + [f"pmu_{c}" for c in fmt.PMU_COUNTERS]


def write_csv(dumps, out):
    w = csv.writer(out)
    w.writerow(CSV_FIELDS)
    for d in dumps:
        for b in analysis.summarize(d).vcpus:
            v = d.vcpus[b.vcpu]
            row = [d.dump_id, d.vm, b.vcpu, int(d.complete), b.window, b.total, b.running, b.compute,
                   b.spin, b.blocked, b.blocked_sync, b.idle, b.sync, b.steal, b.offline, d.ded_ns,
                   d.frozen_ns, sum(v.exits.values()) + v.exits_other]
            row += [v.events.get(e, 0) for e in fmt.EVENTS if e]
            row += ["" if v.pmu_value(c) is None or not v.pmu_samples else v.pmu_value(c)
                    for c in fmt.PMU_COUNTERS]
            w.writerow(row)
