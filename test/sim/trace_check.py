#!/usr/bin/env python3
"""hvsim's vProfile trace (`hvsim -t`) must say what hvsim itself measured.

For each scenario: run hvsim with a trace, decode the trace with tools/vprof's
library, and compare per vCPU the time running, runnable, blocked and spinning
from the dump's accumulators and again from the timeline (state records,
SPIN_BEGIN/SPIN_END), against hvsim's `vcpu` lines.
hvsim prints ms with 3 decimals: agreement is within 2 us. Exits 1 on any
disagreement (a trace that shows spinning as compute fails here).
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from vprof_lib import analysis, fmt, frames  # noqa: E402

TOL_MS = 0.002


def hvsim_lines(out):
    vms, vcpus = [], {}
    for line in out.splitlines():
        kind, _, rest = line.partition(" ")
        f = dict(t.split("=", 1) for t in rest.split())
        if kind == "vm":
            vms.append(f["name"])
        elif kind == "vcpu":
            vcpus[f["vm"], int(f["id"])] = f
    return vms, vcpus


def check(hvsim, wl, tmp):
    trace = os.path.join(tmp, os.path.basename(wl) + ".vprof")
    out = subprocess.run([hvsim, "-t", trace, wl], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    vms, vcpus = hvsim_lines(out)
    dumps, problems = frames.extract_file(trace)
    bad = [f"{wl}: trace corrupt: {p}" for p in problems]
    if len(dumps) != len(vms):
        bad.append(f"{wl}: {len(dumps)} dumps for {len(vms)} VMs")
    spin_total = 0.0
    for d in dumps:
        name = vms[d.vm]
        ph = analysis.phases(d)[0]
        for i, v in sorted(d.vcpus.items()):
            want = vcpus[name, i]
            got = {"running_ms": v.state_ns[fmt.RUNNING], "runnable_ms": v.state_ns[fmt.RUNNABLE],
                   "blocked_ms": v.state_ns[fmt.BLOCKED], "spin_ms": v.spin_ns}
            got = {k: ns / 1e6 for k, ns in got.items()}
            st = ph.state.get(i, [0, 0, 0, 0])
            for k, code in (("running_ms", fmt.RUNNING), ("runnable_ms", fmt.RUNNABLE),
                            ("blocked_ms", fmt.BLOCKED)):
                got[k + " (timeline)"] = st[code] / 1e6
            got["spin_ms (timeline)"] = ph.spin.get(i, 0) / 1e6
            spin_total += got["spin_ms"]
            for k, g in got.items():
                w = float(want[k.split()[0]])
                if abs(g - w) > TOL_MS:
                    bad.append(f"{wl}: vm {name} vcpu {i}: {k} trace {g:.3f} hvsim {w:.3f}")
            # Exits the guest model causes, counted as the exit dispatcher does
            # (SDM Vol. 3 App. C: 12 HLT per halt, 40 PAUSE per PLE yield,
            # 18 VMCALL per hypercall yield, SA ack (a block one counts as a
            # block in hvsim) and other hypercall: balloon sleep, stale ack).
            ex = v.exits
            ackb, hc = int(want.get("sa_ack_block", 0)), int(want.get("hcalls", 0))
            if ex.get(12, 0) != int(want["block"]) - ackb or \
                    ex.get(40, 0) + ex.get(18, 0) != int(want["yields"]) + ackb + hc:
                bad.append(f"{wl}: vm {name} vcpu {i}: exits HLT {ex.get(12, 0)} PAUSE "
                           f"{ex.get(40, 0)} VMCALL {ex.get(18, 0)}, hvsim block "
                           f"{want['block']} yields {want['yields']}")
            if v.anomalies:
                bad.append(f"{wl}: vm {name} vcpu {i}: {v.anomalies} accounting anomalies")
    print(f"  {'FAIL' if bad else 'PASS'} {os.path.basename(wl)}: trace matches hvsim "
          f"(spin {spin_total:.3f} ms in the trace)")
    for b in bad[:10]:
        print(f"    {b}")
    return not bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hvsim", required=True)
    ap.add_argument("scenarios", nargs="+")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        failed = [w for w in a.scenarios if not check(a.hvsim, w, tmp)]
    print(f"test-sim: {len(a.scenarios) - len(failed)} traces agree with hvsim, {len(failed)} do not")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
