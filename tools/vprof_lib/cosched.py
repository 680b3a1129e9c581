"""Co-scheduling metrics from vProfile dumps (issue 12, seed 003 §VI):
per VM, co-scheduling operations and signals per second (VPE_COSCHED_SIGNAL
records: one per target pCPU, charged to the launching vCPU, arg = target),
scheduling fragments (entries into RUNNING) per second, CPU share, and the
time edges between sibling vCPUs' starts as a CDF (seed 003 Fig. 6).

Time edge of a run start: the distance from a vCPU's entry into RUNNING to
the nearest entry into RUNNING of a sibling (only when the sibling starts
within one credit slice, 30 ms, of it), so it measures how closely the
policy starts siblings together whatever its mechanism (signals or COS).
"""
import bisect

from . import fmt

SLICE_NS = 30_000_000


def _cosched_code():
    return fmt.EVENTS.index("COSCHED_SIGNAL")


def vm_metrics(d):
    """Metrics of one dump (one VM) as a dict."""
    code = _cosched_code()
    starts = {}                  # vcpu -> sorted RUNNING entry times
    run_ns = {}
    state, since = {}, {}
    launches, signals = set(), 0
    for t, arg, vm, vcpu, kind, c, pcpu in d.records:
        if vm != d.vm:
            continue
        if kind == fmt.REC_EVENT and c == code:
            signals += 1
            launches.add((t, vcpu))
        elif kind == fmt.REC_STATE and c < len(fmt.STATES):
            if state.get(vcpu) == fmt.RUNNING:
                run_ns[vcpu] = run_ns.get(vcpu, 0) + max(0, t - since[vcpu])
            if c == fmt.RUNNING and state.get(vcpu) != fmt.RUNNING and t > d.t0:
                starts.setdefault(vcpu, []).append(t)
            state[vcpu], since[vcpu] = c, t
    for v, st in state.items():
        if st == fmt.RUNNING:
            run_ns[v] = run_ns.get(v, 0) + max(0, d.t1 - since[v])
    edges = []
    for v, ts in starts.items():
        others = sorted(x for u, xs in starts.items() if u != v for x in xs)
        for t in ts:
            i = bisect.bisect_left(others, t)
            near = [abs(others[j] - t) for j in (i - 1, i) if 0 <= j < len(others)]
            if near and min(near) <= SLICE_NS:
                edges.append(min(near))
    edges.sort()
    win = max(1, d.window_ns)
    secs = win / 1e9

    def pct(p):
        return edges[min(len(edges) - 1, int(p * len(edges)))] / 1e3 if edges else 0.0

    return {
        "vm": d.vm, "window_ms": win / 1e6, "ops_per_s": len(launches) / secs,
        "signals_per_s": signals / secs,
        "fragments_per_s": sum(len(x) for x in starts.values()) / secs,
        "cpu_share": sum(run_ns.values()) / (win * max(1, d.npcpus)),
        "edges": len(edges),
        "edge_le_100us": sum(e <= 100_000 for e in edges) / len(edges) if edges else 1.0,
        "edge_le_1ms": sum(e <= 1_000_000 for e in edges) / len(edges) if edges else 1.0,
        "edge_p50_us": pct(0.50), "edge_p99_us": pct(0.99),
    }


def report(dumps):
    lines = ["vm  window_ms  ops/s  signals/s  fragments/s  cpu_share  edges  "
             "<=100us  <=1ms  p50_us  p99_us"]
    for d in dumps:
        m = vm_metrics(d)
        lines.append(f"{m['vm']:<3} {m['window_ms']:10.1f} {m['ops_per_s']:6.1f} "
                     f"{m['signals_per_s']:10.1f} {m['fragments_per_s']:12.1f} "
                     f"{m['cpu_share']:10.3f} {m['edges']:6d} {100 * m['edge_le_100us']:7.1f}% "
                     f"{100 * m['edge_le_1ms']:5.1f}% {m['edge_p50_us']:7.1f} {m['edge_p99_us']:7.1f}")
    return lines
