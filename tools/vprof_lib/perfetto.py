"""Chrome / Perfetto trace-event JSON (the "JSON Array/Object Format" of the
Trace Event Format document): one track per pCPU, a complete ("X") slice per
vCPU run, instant ("i") events for preemptions, yields, upcalls and the rest,
and a validator for that format."""
import json

from . import fmt

INSTANT = {"PREEMPT", "YIELD", "WAKE", "BLOCK", "PLE", "SPIN_BEGIN", "SPIN_END", "MIGRATE",
           "SA_UPCALL", "SA_ACK", "SA_TIMEOUT", "DELAY_PREEMPT", "BALLOON_SLEEP",
           "BALLOON_WAKE", "BALLOON_MODE", "COSCHED_SIGNAL", "VMEXIT", "DEDICATED_BEGIN",
           "DEDICATED_END", "PROFILE_START", "PROFILE_STOP", "MARK", "SA_STALE",
           "SCHED_SWITCH", "AUTO_DECISION"}


def _us(ns, t0):
    return (ns - t0) / 1000.0


def _meta(pid, tid, kind, name):
    e = {"ph": "M", "pid": pid, "tid": tid, "name": kind, "args": {"name": name}}
    return e


def _slices(d, t0, pid):
    """Run slices: RUNNING entered on pCPU p until the vCPU's next state change."""
    out, running = [], {}
    idle = {}
    for t, arg, vm, vcpu, kind, code, pcpu in d.records:
        if kind == fmt.REC_EVENT and vm == fmt.VM_NONE:
            if code == fmt.EV["IDLE_BEGIN"]:
                idle[pcpu] = t
            elif code == fmt.EV["IDLE_END"] and pcpu in idle:
                s = idle.pop(pcpu)
                out.append(_x(pid, pcpu, "idle", s, t, t0, {}))
            continue
        if kind != fmt.REC_STATE or vm != d.vm:
            continue
        if vcpu in running:
            p, s = running.pop(vcpu)
            out.append(_x(pid, p, f"vm{vm}/vcpu{vcpu}", s, t, t0, {"vm": vm, "vcpu": vcpu}))
        if code == fmt.RUNNING:
            running[vcpu] = (pcpu, t)
    for vcpu, (p, s) in running.items():
        out.append(_x(pid, p, f"vm{d.vm}/vcpu{vcpu}", s, d.t1, t0, {"vm": d.vm, "vcpu": vcpu}))
    for p, s in idle.items():
        out.append(_x(pid, p, "idle", s, d.t1, t0, {}))
    return out


def _x(pid, tid, name, start, end, t0, args):
    return {"ph": "X", "pid": pid, "tid": tid, "name": name, "cat": "run",
            "ts": _us(start, t0), "dur": max(0.0, (end - start) / 1000.0), "args": args}


def _instants(d, t0, pid):
    out = []
    for t, arg, vm, vcpu, kind, code, pcpu in d.records:
        if kind != fmt.REC_EVENT or vm != d.vm:
            continue
        name = fmt.event_name(code)
        if name == "DP_DELAY":   # adaptive DP: a counter track per vCPU
            out.append({"ph": "C", "pid": pid, "name": f"dp_delay_us vcpu{vcpu}",
                        "ts": _us(t, t0), "args": {"us": arg / 1000.0}})
        elif name in INSTANT or name.startswith("EVENT_"):
            out.append({"ph": "i", "s": "t", "pid": pid, "tid": pcpu, "name": name,
                        "cat": "event", "ts": _us(t, t0),
                        "args": {"vm": vm, "vcpu": vcpu, "arg": arg}})
    return out


def _vcpu_states(d, t0, pid):
    """Per-vCPU tracks: a slice per state interval, spinning nested in running."""
    out, cur, spin = [], {}, {}
    for t, arg, vm, vcpu, kind, code, pcpu in d.records:
        if vm != d.vm:
            continue
        if kind == fmt.REC_STATE and code < len(fmt.STATES):
            if vcpu in spin and code != fmt.RUNNING:
                out.append(_x(pid, vcpu, "spinning", spin.pop(vcpu), t, t0, {}))
            if vcpu in cur:
                st, s = cur.pop(vcpu)
                out.append(_x(pid, vcpu, fmt.STATES[st], s, t, t0, {}))
            cur[vcpu] = (code, t)
        elif kind == fmt.REC_EVENT and code == fmt.EV["SPIN_BEGIN"] and vcpu not in spin:
            spin[vcpu] = t
        elif kind == fmt.REC_EVENT and code == fmt.EV["SPIN_END"] and vcpu in spin:
            out.append(_x(pid, vcpu, "spinning", spin.pop(vcpu), t, t0, {}))
    for vcpu, s in spin.items():
        out.append(_x(pid, vcpu, "spinning", s, d.t1, t0, {}))
    for vcpu, (st, s) in cur.items():
        out.append(_x(pid, vcpu, fmt.STATES[st], s, d.t1, t0, {}))
    return out


def trace_events(dumps):
    """Per dump: a process with one track per pCPU (vCPU runs, idle, instant
    events) and a process with one track per vCPU (its states)."""
    events = []
    t0 = min((d.t0 for d in dumps), default=0)
    for n, d in enumerate(dumps):
        pid, vpid = 2 * n + 1, 2 * n + 2
        events.append(_meta(pid, 0, "process_name", f"dump {d.dump_id} VM {d.vm} pCPUs"))
        for p in range(d.npcpus):
            events.append(_meta(pid, p, "thread_name", f"pCPU {p}"))
        events.append(_meta(vpid, 0, "process_name", f"dump {d.dump_id} VM {d.vm} vCPU states"))
        for v in sorted(d.vcpus):
            events.append(_meta(vpid, v, "thread_name", f"vCPU {v}"))
        events += _slices(d, t0, pid)
        events += _instants(d, t0, pid)
        events += _vcpu_states(d, t0, vpid)
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"source": "vProfile", "t0_ns": t0}}


def write(dumps, out):
    json.dump(trace_events(dumps), out, indent=None, separators=(",", ":"))
    out.write("\n")


PHASES = set("BEXiICbnesftPONDMRc") | set("STpF")  # incl. deprecated async phases
META_NAMES = {"process_name", "process_labels", "process_sort_index", "thread_name",
              "thread_sort_index"}


def _check_event(i, e, errs):
    if not isinstance(e, dict):
        errs.append(f"event {i}: not an object")
        return
    ph = e.get("ph")
    if not isinstance(ph, str) or ph not in PHASES:
        errs.append(f"event {i}: bad phase {ph!r}")
        return
    if not isinstance(e.get("name", ""), str):
        errs.append(f"event {i}: name must be a string")
    for k in ("pid", "tid"):
        if k in e and not isinstance(e[k], (int, str)):
            errs.append(f"event {i}: {k} must be an integer or string")
    if ph == "M":
        if e.get("name") not in META_NAMES or not isinstance(e.get("args"), dict):
            errs.append(f"event {i}: metadata event needs a known name and args")
        return
    if not isinstance(e.get("ts"), (int, float)):
        errs.append(f"event {i}: ts must be a number")
    if ph == "X" and (not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0):
        errs.append(f"event {i}: complete event needs dur >= 0")
    if ph in "iI" and e.get("s", "t") not in ("g", "p", "t"):
        errs.append(f"event {i}: instant scope must be g, p or t")
    if "args" in e and not isinstance(e["args"], dict):
        errs.append(f"event {i}: args must be an object")


def _check_nesting(events, errs):
    """Complete events on one track must nest or be disjoint (viewers need it)."""
    tracks = {}
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "X" and isinstance(e.get("ts"), (int, float)):
            tracks.setdefault((e.get("pid"), e.get("tid")), []).append((e["ts"], e["ts"] + e.get("dur", 0)))
    eps = 1e-6
    for key, spans in tracks.items():
        spans.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for s, t in spans:
            while stack and stack[-1] <= s + eps:
                stack.pop()
            if stack and t > stack[-1] + eps:
                errs.append(f"track {key}: slice [{s}, {t}] overlaps an earlier one ending at {stack[-1]}")
                break
            stack.append(t)


def validate(obj):
    """Return a list of errors (empty when obj is a valid trace-event document)."""
    errs = []
    if isinstance(obj, list):
        events = obj
    elif isinstance(obj, dict) and isinstance(obj.get("traceEvents"), list):
        events = obj["traceEvents"]
        unit = obj.get("displayTimeUnit", "ms")
        if unit not in ("ms", "ns"):
            errs.append(f"displayTimeUnit must be ms or ns, not {unit!r}")
    else:
        return ["top level must be an array or an object with a traceEvents array"]
    for i, e in enumerate(events):
        _check_event(i, e, errs)
    stacks = {}
    for e in events:
        if isinstance(e, dict) and e.get("ph") in ("B", "E"):
            st = stacks.setdefault((e.get("pid"), e.get("tid")), [])
            if e["ph"] == "B":
                st.append(e)
            elif not st:
                errs.append(f"E event without B on track {(e.get('pid'), e.get('tid'))}")
            else:
                st.pop()
    _check_nesting(events, errs)
    return errs
