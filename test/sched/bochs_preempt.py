#!/usr/bin/env python3
"""Bochs part of `make exp-preempt` (issue 13): the preemption path seen in a
guest's own vProfile trace (guest-shim/bench/preempt.c, one pCPU).

  dp:   a computing victim VM and a halting/waking VM share one pCPU with
        sched_dp_us=DP: the victim's dump must hold DELAY_PREEMPT events
        (wake-up preemptions delayed, arg = the delay); with DP off none.
  ple:  a 2-vCPU VM on one pCPU, vCPU 1 computing, vCPU 0 spinning on PAUSE:
        PLE events whose arg names vCPU 1 (directed yield, bits 8+ = id + 1)
        and vCPU 1 RUNNING on that pCPU right after such an event.
  predict: seed 001 §4 end to end: the guest profiles a dedicated sample and
        a normal one beside a computing VM; `vprof predict` on the two dumps
        must be within --max-error of the slowdown the guest measured itself.
Prints TEST lines and "bochs-preempt: N passed, N failed".
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from vprof_lib import fmt, frames, predict  # noqa: E402

RESULTS = []


def check(name, ok, detail):
    RESULTS.append(ok)
    print(f"TEST preempt_{name} {'PASS' if ok else 'FAIL'} ({detail})")


def run_hv(a, tmp, tag, vms, cmdline):
    log = os.path.join(tmp, f"{tag}.log")
    argv = [sys.executable, os.path.join(ROOT, "tools", "hvrun"), "--emu", "bochs", "--cpus", "1",
            "--quiet", "--serial-log", log, "--timeout", str(a.timeout)]
    for vm in vms:
        argv += ["--vm", vm, "--image", a.image]
    if cmdline:
        argv += ["--cmdline", cmdline]
    p = subprocess.run(argv, capture_output=True, text=True)
    check(f"{tag}_hvrun", p.returncode not in (2, 124, 125), f"hvrun status {p.returncode}")
    return open(log, errors="replace").read() if os.path.exists(log) else ""


def events(d, name):
    code = fmt.EV[name]
    return [(t, arg, vcpu, pcpu) for t, arg, vm, vcpu, kind, c, pcpu in d.records
            if kind == fmt.REC_EVENT and vm == d.vm and c == code]


def judge_dp(text, tag, want):
    dumps, problems = frames.extract(text.splitlines(keepends=True))
    sums = re.findall(r"SUMMARY preempt passed=(\d+) failed=(\d+)", text)
    check(f"{tag}_guests", len(sums) == 2 and all(f == "0" for _, f in sums), f"summaries {sums}")
    victim = [d for d in dumps if d.vm == 0]
    check(f"{tag}_dump", bool(victim) and not problems, f"{len(dumps)} dumps, {len(problems)} problems")
    if not victim:
        return
    d = victim[-1]
    ev = events(d, "DELAY_PREEMPT")
    pre = d.vcpus[0].events.get("PREEMPT", 0) if 0 in d.vcpus else 0
    if want:
        check(f"{tag}_delayed", len(ev) >= 3 and all(arg == want * 1000 for _, arg, _, _ in ev),
              f"{len(ev)} DELAY_PREEMPT (args {sorted({a for _, a, _, _ in ev})}), {pre} preemptions")
    else:
        check(f"{tag}_none", not ev and pre >= 3, f"{len(ev)} DELAY_PREEMPT, {pre} preemptions")


def judge_ple(text):
    dumps, problems = frames.extract(text.splitlines(keepends=True))
    sums = re.findall(r"SUMMARY preempt passed=(\d+) failed=(\d+)", text)
    check("ple_guest", len(sums) == 1 and sums[0][1] == "0", f"summaries {sums}")
    check("ple_dump", bool(dumps) and not problems, f"{len(dumps)} dumps, {len(problems)} problems")
    if not dumps:
        return
    d = dumps[-1]
    ple = events(d, "PLE")
    directed = [e for e in ple if e[1] >> 8 == 2 and e[2] == 0]
    check("ple_exits", len(ple) > 0, f"{len(ple)} PLE events (Bochs must emulate PAUSE-loop exiting)")
    check("ple_directed", len(directed) > 0,
          f"{len(directed)} of {len(ple)} PLE exits of vCPU 0 name vCPU 1 as the target")
    # The target runs next on that pCPU.
    recs = sorted(d.records)
    reached = 0
    for t, arg, vcpu, pcpu in directed:
        nxt = [r for r in recs if r[0] >= t and r[4] == fmt.REC_STATE and r[5] == fmt.RUNNING
               and r[6] == pcpu and r[2] == d.vm]
        reached += bool(nxt) and nxt[0][3] == 1
    check("ple_target_ran", directed and reached >= len(directed) // 2,
          f"vCPU 1 ran next after {reached} of {len(directed)} directed yields")


def judge_predict(text, max_err):
    dumps, problems = frames.extract(text.splitlines(keepends=True))
    m = re.search(r"PREEMPT_PREDICT work_dedicated=(\d+) work_normal=(\d+)", text)
    check("predict_guest", bool(m), m[0] if m else "no PREEMPT_PREDICT line")
    ded, norm = predict.pick(dumps, 0)
    check("predict_dumps", ded is not None and norm is not None and not problems,
          f"{len(dumps)} dumps, dedicated {ded.dump_id if ded else None}, "
          f"normal {norm.dump_id if norm else None}")
    if not (m and ded and norm):
        return
    lines, sd = predict.predict(ded, norm)
    print("\n".join("  " + x for x in lines))
    actual = int(m[1]) / max(int(m[2]), 1)
    err = abs(sd - actual) / actual if sd else float("inf")
    check("predict_error", err <= max_err,
          f"predicted {sd:.3f}x, guest measured {actual:.3f}x, error {100 * err:.1f}% "
          f"(paper: 4.5% average)")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--image", required=True)
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--dp-us", type=int, default=2000)
    ap.add_argument("--scenarios", default="dp,nodp,ple,predict")
    ap.add_argument("--max-error", type=float, default=0.10)
    a = ap.parse_args()
    todo = a.scenarios.split(",")
    vms = ['kind=multiboot vcpus=1 mem=32M cmdline="test=preempt mode=victim"',
           'kind=multiboot vcpus=1 mem=32M cmdline="test=preempt mode=waker"']
    with tempfile.TemporaryDirectory() as tmp:
        if "dp" in todo:
            judge_dp(run_hv(a, tmp, "dp", vms, f"sched_dp_us={a.dp_us}"), "dp", a.dp_us)
        if "nodp" in todo:
            judge_dp(run_hv(a, tmp, "nodp", vms, ""), "nodp", 0)
        if "ple" in todo:
            judge_ple(run_hv(a, tmp, "ple",
                             ['kind=multiboot vcpus=2 mem=32M cmdline="test=preempt mode=ple"'], ""))
        if "predict" in todo:
            judge_predict(run_hv(a, tmp, "predict", [
                'kind=multiboot vcpus=1 mem=32M vprof=dedicated '
                'cmdline="test=preempt mode=predict"',
                'kind=multiboot vcpus=1 mem=32M cmdline="test=preempt mode=noise"'], ""),
                a.max_error)
    print(f"bochs-preempt: {sum(RESULTS)} passed, {len(RESULTS) - sum(RESULTS)} failed")
    return 0 if all(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
