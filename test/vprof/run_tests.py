#!/usr/bin/env python3
"""vProfile end-to-end tests (make test-vprof): the C encoder built for the
host writes dumps of a known schedule among noise lines; tools/vprof must
decode the exact breakdown, flag every kind of corruption, emit valid
trace-event JSON, predict the slowdown the schedule implies, and survive a
short fuzzing run. Prints "vprof: N passed, N failed"."""
import argparse
import copy
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from vprof_lib import analysis, frames, perfetto, plot, report  # noqa: E402

VPROF = os.path.join(ROOT, "tools", "vprof")
RESULTS = []


def test(fn):
    RESULTS.append(fn)
    return fn


class Ctx:
    pass


C = Ctx()


def vprof(*args):
    p = subprocess.run([sys.executable, VPROF, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def gen(name, cycles=40, ring=8192):
    log, exp = os.path.join(C.tmp, name + ".log"), os.path.join(C.tmp, name + ".json")
    subprocess.run([C.gen, log, exp, str(cycles), str(ring)], check=True)
    with open(exp) as f:
        return log, json.load(f)


def lines_of(path):
    with open(path) as f:
        return f.read().splitlines(keepends=True)


def write(name, lines):
    path = os.path.join(C.tmp, name)
    with open(path, "w") as f:
        f.writelines(lines)
    return path


def check_breakdown(d, exp, timeline=True):
    assert d.window_ns == exp["window"], (d.window_ns, exp["window"])
    s = analysis.summarize(d)
    for b, e in zip(s.vcpus, exp["vcpus"]):
        got = {"running": b.running, "compute": b.compute, "spin": b.spin, "blocked": b.blocked,
               "sync": b.sync, "steal": b.steal, "offline": b.offline}
        if not timeline:   # documented fallback: all blocked time is synchronisation
            assert b.sync == b.spin + b.blocked
            del got["sync"]
        for k, v in got.items():
            assert v == e[k], f"vcpu {b.vcpu} {k}: decoded {v}, pattern says {e[k]}"
        for ev, n in e["events"].items():
            assert d.vcpus[b.vcpu].events.get(ev) == n, (b.vcpu, ev, d.vcpus[b.vcpu].events.get(ev), n)
    assert len(s.vcpus) == len(exp["vcpus"])


@test
def decoder_tables_match_c_headers():
    """Catch drift: the decoder's names must follow hv/trace/vprof.h."""
    import re
    from vprof_lib import fmt
    hdr = open(os.path.join(ROOT, "hv", "trace", "vprof.h")).read()

    def enum(name):
        body = re.search(r"enum " + name + r" \{(.*?)\};", hdr, re.S)[1]
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        return [x.split("=")[0].strip() for x in body.split(",") if x.strip()]
    ev = enum("vp_event")
    assert ev[-1] == "VPE_NEVENTS"
    assert ["VPE_" + e for e in fmt.EVENTS[1:]] == ev[:-1], (fmt.EVENTS, ev)
    st = enum("vp_state")
    assert ["VP_" + s.upper() for s in fmt.STATES] == st[:-1], st
    pmu = enum("vp_pmu_counter")
    assert ["VPMU_" + c.upper() for c in fmt.PMU_COUNTERS] == pmu[:-1], pmu


def py_frame(ftype, dump, seq, payload):
    import struct
    import zlib
    import base64
    raw = struct.pack("<BBHI", ftype, 1, dump, seq) + payload
    return f"@VP1 {seq} {zlib.crc32(raw):08x} {base64.b64encode(raw).decode()}\n", raw


@test
def newer_hypervisor_with_more_events_decodes():
    import struct
    import zlib
    from vprof_lib import fmt
    new = len(fmt.EVENTS)      # one event more than this decoder knows
    nev = new + 1
    begin = struct.pack("<HHHBBqqQQIHHHH", 3, 1, 1, 1, 0, 100, 1100, 0, 0, 24, nev, 80, 7, 4)
    counts = [0] * nev
    counts[2], counts[new] = 4, 5
    vcpu = struct.pack("<HHBBH", 3, 0, 0, 0, 0) + struct.pack("<" + "Q" * (10 + nev), 1000, 0, 0, 0,
                                                              0, 0, 0, 0, 0, 0, *counts)
    lines, crc = [], 0
    for seq, (t, p) in enumerate([(1, begin), (2, vcpu)]):
        line, raw = py_frame(t, 9, seq, p)
        lines.append(line)
        crc = zlib.crc32(raw, crc)
    lines.append(py_frame(7, 9, 2, struct.pack("<IIQI", 2, 0, 0, crc))[0])
    dumps, problems = frames.extract(lines)
    assert not problems, problems
    d = dumps[0]
    assert d.complete and d.vcpus[0].events["PREEMPT"] == 4 and d.vcpus[0].events[f"EVENT_{new}"] == 5


@test
def roundtrip_breakdown_exact():
    dumps, problems = frames.extract_file(C.log)
    assert not problems, problems
    assert [d.vm for d in dumps] == [0, 0, 1] and all(d.complete for d in dumps)
    check_breakdown(dumps[0], C.exp["dedicated"])
    check_breakdown(dumps[1], C.exp["normal"])
    v0 = dumps[1].vcpus[0]
    assert v0.exits == {10: C.exp["normal"]["exits"]["CPUID"], 12: C.exp["normal"]["exits"]["HLT"]}
    assert dumps[0].ded_ns == dumps[0].window_ns and dumps[1].ded_ns == 0
    vm1 = analysis.summarize(dumps[2]).vcpus[0]
    assert (vm1.running, vm1.steal) == (C.exp["vm1"]["running"], C.exp["vm1"]["steal"])
    assert dumps[2].vcpus[0].events["PREEMPT"] == C.exp["vm1"]["preempt"]


@test
def report_cli_text_and_pmu_absent():
    rc, out, err = vprof("report", C.log)
    assert rc == 0, (rc, err)
    assert "vProfile dump 2: VM 0" in out and "[complete]" in out
    assert "pmu vcpu 0: absent" in out
    assert "CPUID=200" in out and "HLT=40" in out
    assert "CORRUPTION" not in out


@test
def expect_command_for_system_tests():
    # normal sample, vCPU 0: compute 500/1000, spin 100, steal 200, sync 200
    args = ["expect", C.log, "--vm", "0", "--dump", "2", "--vcpu", "0", "--tol", "0.001"]
    rc, out, err = vprof(*args, "compute=0.5", "spin=0.1", "steal=0.2", "sync=0.2", "idle=0.1")
    assert rc == 0 and out.count("PASS") == 6, (out, err)
    rc, out, _ = vprof(*args, "compute=0.6")
    assert rc == 1 and "TEST vprof_compute FAIL" in out, out


@test
def phases_between_marks():
    # marks at the start (vCPU 0) and after half the cycles (vCPU 1)
    d = frames.extract_file(C.log)[0][1]
    ps = [p for p in analysis.phases(d) if p.length]
    assert [p.mark for p in ps] == [0xfeed, 2], [p.mark for p in ps]
    half = C.exp["cycles"] // 2 * C.exp["cycle_ns"]
    e0 = C.exp["normal"]["vcpus"][0]
    for p in ps:
        assert p.length == half
        for key in ("running", "spin", "blocked", "steal"):
            assert p.get(key, 0) * 2 == e0[key], (p.index, key, p.get(key, 0), e0[key])
    rc, out, err = vprof("expect", C.log, "--vm", "0", "--dump", "2", "--phase", "2",
                         "--vcpu", "1", "--tol", "0.001", "steal=0.4", "blocked=0.3")
    assert rc == 0, out + err
    rc, out, _ = vprof("report", C.log)
    assert "phase 2 (mark 2) 20.000 ms" in out, out


@test
def csv_rows_match():
    rc, out, err = vprof("csv", C.log)
    assert rc == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 5
    r = [x for x in rows if x["dump"] == "2" and x["vcpu"] == "1"][0]
    e = C.exp["normal"]["vcpus"][1]
    assert int(r["steal_ns"]) == e["steal"] and int(r["sync_ns"]) == e["sync"]
    assert r["pmu_instructions"] == "" and r["ev_PREEMPT"] == str(e["events"]["PREEMPT"])


@test
def perfetto_valid_and_complete():
    out = os.path.join(C.tmp, "trace.json")
    rc, _, err = vprof("perfetto", C.log, "-o", out)
    assert rc == 0, err
    rc, msg, err = vprof("validate-json", out)
    assert rc == 0 and "valid" in msg, (msg, err)
    doc = json.load(open(out))
    ev = doc["traceEvents"]
    n = C.exp["cycles"]
    runs = [e for e in ev if e["ph"] == "X" and e["name"] == "vm0/vcpu0" and e["pid"] == 3]
    assert len(runs) == n and all(abs(e["dur"] - 600.0) < 1e-6 for e in runs), len(runs)
    assert all(e["tid"] == 0 for e in runs)
    pre = [e for e in ev if e["ph"] == "i" and e["name"] == "PREEMPT" and e["pid"] == 3]
    assert len(pre) == n
    tracks = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    assert tracks == {"pCPU 0", "pCPU 1", "vCPU 0", "vCPU 1"}
    # vCPU state tracks of the normal sample add up to the pattern's times.
    e1 = C.exp["normal"]["vcpus"][1]
    total = {}
    for e in ev:
        if e["ph"] == "X" and e["pid"] == 4 and e["tid"] == 1:
            total[e["name"]] = total.get(e["name"], 0) + e["dur"]
    assert abs(total["runnable"] * 1000 - e1["steal"]) < 1 and abs(total["blocked"] * 1000 - e1["blocked"]) < 1, total
    spins = [e for e in ev if e["ph"] == "X" and e["pid"] == 4 and e["name"] == "spinning"]
    assert len(spins) == n and all(abs(e["dur"] - 100.0) < 1e-6 for e in spins)


@test
def validator_rejects_bad_documents():
    good = perfetto.trace_events(frames.extract_file(C.log)[0])
    assert perfetto.validate(good) == []
    bad = []
    for mutate in (lambda d: d["traceEvents"].append({"ph": "Q", "name": "x", "ts": 0}),
                   lambda d: d["traceEvents"].append({"ph": "X", "name": "x", "ts": 0, "dur": -1}),
                   lambda d: d["traceEvents"].append({"ph": "X", "name": "x", "ts": "0", "dur": 1}),
                   lambda d: d["traceEvents"].append({"ph": "i", "name": "x", "ts": 1, "s": "z"}),
                   lambda d: d["traceEvents"].append({"ph": "E", "pid": 9, "tid": 9, "ts": 1}),
                   lambda d: d.update(displayTimeUnit="s"),
                   lambda d: d["traceEvents"].extend([
                       {"ph": "X", "pid": 9, "tid": 1, "name": "a", "ts": 0, "dur": 10},
                       {"ph": "X", "pid": 9, "tid": 1, "name": "b", "ts": 5, "dur": 10}])):
        d = copy.deepcopy(good)
        mutate(d)
        bad.append(perfetto.validate(d))
    assert all(bad), bad
    assert perfetto.validate({"events": []})


@test
def predict_matches_pattern():
    rc, out, err = vprof("predict", C.log, "--vm", "0")
    assert rc == 0, (out, err)
    assert "t_mem cannot be measured" in out
    line = [x for x in out.splitlines() if "predicted slowdown" in x][0]
    got = float(line.split(":")[1].split("x")[0])
    assert abs(got - C.exp["slowdown"]) < 1e-3, (got, C.exp["slowdown"])


def frame_line_indices(lines):
    return [i for i, x in enumerate(lines) if "@VP1" in x]


@test
def corruption_bitflip_detected():
    lines = lines_of(C.log)
    i = frame_line_indices(lines)[5]
    t = lines[i]
    k = t.rindex(" ") + 10
    lines[i] = t[:k] + ("A" if t[k] != "A" else "B") + t[k + 1:]
    rc, out, err = vprof("check", write("flip.log", lines))
    assert rc == 2 and "CRC mismatch" in err, (rc, err)
    assert "frames missing" in err and "INCOMPLETE" in out


@test
def corruption_missing_line_and_truncation():
    lines = lines_of(C.log)
    idx = frame_line_indices(lines)
    rc, _, err = vprof("check", write("drop.log", lines[:idx[7]] + lines[idx[7] + 1:]))
    assert rc == 2 and "1 of" in err and "seq 7" in err, err
    rc, out, err = vprof("report", write("trunc.log", lines[:idx[-3]]))
    assert rc == 2 and "no END frame" in out and "INCOMPLETE" in out, out


@test
def duplicates_and_conflicts():
    lines = lines_of(C.log)
    idx = frame_line_indices(lines)
    dup = lines[:idx[3] + 1] + [lines[idx[3]]] + lines[idx[3] + 1:]
    rc, _, err = vprof("check", write("dup.log", dup))
    assert rc == 0, err                      # an identical repeat is harmless
    other = lines[idx[4]].replace("@VP1 4 ", "@VP1 3 ")
    rc, _, err = vprof("check", write("conf.log", lines + [other, "@VP1 zz garbage\n"]))
    assert rc == 2 and "malformed" in err and "sequence 3 on the line but 4" in err, err


@test
def no_frames_is_reported():
    rc, out, err = vprof("check", write("empty.log", ["just a console\n"]))
    assert rc == 2 and "no @VP1 frames" in err, (rc, err)


@test
def ring_overflow_reported_accumulators_exact():
    log, exp = gen("small", cycles=40, ring=60)
    dumps, problems = frames.extract_file(log)
    assert not problems and dumps[1].lost > 0
    check_breakdown(dumps[1], exp["normal"], timeline=False)
    out = report.dump_report(dumps[1])
    assert "timeline records lost" in out, out


@test
def plots_or_clear_message():
    rc, out, err = vprof("plot", C.log, "-o", os.path.join(C.tmp, "plots"))
    if plot.python_with_matplotlib() is None:   # neither this python3 nor /usr/bin/python3
        assert rc == 1 and "matplotlib is not installed" in err and "python3-matplotlib" in err, err
        return
    assert rc == 0, err
    for f in ("vprof_breakdown.png", "vprof_utilisation.png"):
        with open(os.path.join(C.tmp, "plots", f), "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


@test
def fuzz_decoder_briefly():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "test", "vprof", "fuzz_decoder.py"),
                        "--seed-log", C.log, "--runs", str(C.fuzz_runs)],
                       capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    print("    " + (p.stdout.strip().splitlines() or ["(no output)"])[-1])


@test
def vprofctl_refuses_outside_hypervisor():
    if not C.vprofctl:
        return
    p = subprocess.run([C.vprofctl, "start"], capture_output=True, text=True)
    assert p.returncode == 2 and "hypervisor" in p.stderr, (p.returncode, p.stderr)
    p = subprocess.run([C.vprofctl, "dedicated", "x"], capture_output=True, text=True)
    assert p.returncode == 1 and "usage" in p.stderr, p.stderr
    p = subprocess.run([C.vprofctl, "--dry-run", "mark", "0x2a"], capture_output=True, text=True)
    assert p.returncode == 0 and "rax=0x48560033 rbx=0x2a" in p.stdout, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--vprofctl")
    ap.add_argument("--fuzz-runs", type=int, default=3000)
    a = ap.parse_args()
    C.gen, C.vprofctl, C.fuzz_runs = a.gen, a.vprofctl, a.fuzz_runs
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="vprof-test-") as C.tmp:
        C.log, C.exp = gen("rt")
        for fn in RESULTS:
            try:
                fn()
                passed += 1
                print(f"  {fn.__name__}: ok")
            except Exception:
                failed += 1
                print(f"  {fn.__name__}: FAILED")
                traceback.print_exc()
    print(f"vprof: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
