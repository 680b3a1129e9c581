#!/usr/bin/env python3
"""Seed 001 §5 reproduction on hvsim: delayed preemption (Fig. 9 shape) and
differential scheduling (Fig. 10 shape), plus PLE directed vs undirected vs
off. Generates the scenarios, runs hvsim, prints a table beside the paper's
numbers and, with --check, asserts the shapes (make test-sim runs it).

  repro_preempt.py [--hvsim build/sim/hvsim] [--check] [--only dp|ds|ple]
"""
import argparse
import math
import os
import subprocess
import sys

PCPUS = 4

# Fig. 9: blocking (barrier) programs, 4 threads. Fine-grained = synchronises
# every 20-30 ms (streamcluster), coarse = every few seconds (fluidanimate).
FG = {
    "fine":   "loop 150\n    compute 20ms..30ms\n    barrier b block\n  end",
    "coarse": "loop 3\n    compute 1s..1500ms\n    barrier b block\n  end",
}
BG = {
    "fine":   "loop forever\n    compute 20ms..30ms\n    barrier c block\n  end",
    "coarse": "loop forever\n    compute 1s..1500ms\n    barrier c block\n  end",
}
DP = [("credit", []), ("DP(2ms)", ["sched_dp_us=2000"]), ("DP(8ms)", ["sched_dp_us=8000"]),
      ("adaptive", ["sched_dp=adaptive"])]


def run(hvsim, text, opts=()):
    args = [hvsim]
    for o in opts:
        args += ["-o", o]
    out = subprocess.run(args + ["-"], input=text, capture_output=True, text=True, timeout=120)
    if out.returncode:
        raise RuntimeError(f"hvsim failed: {out.stderr.strip()}\n{text}")
    res = {"vm": {}, "run": {}}
    for line in out.stdout.splitlines():
        kind, *fields = line.split()
        kv = dict(f.split("=", 1) for f in fields)
        if kind == "vm":
            res["vm"][kv["name"]] = kv
        elif kind == "run":
            res["run"] = kv
    return res


def scenario(fg, bg, extra=""):
    s = f"pcpus {PCPUS}\nseed 9\nduration 60s\n{extra}vm fg vcpus=4\nbarrier b 4\n"
    s += f"program fgp\n  {fg}\nend\nthread fg.0-3 fgp\n"
    if bg:
        s += f"vm bg vcpus=4\nbarrier c 4\nprogram bgp\n  {bg}\nend\nthread bg.0-3 bgp\n"
    return s


def fig9(hvsim):
    """Slowdowns of fg (completion) and bg (progress = CPU time of a blocking
    program, relative to its rate alone) for each fg x bg pair and DP setting."""
    solo_fg = {k: float(run(hvsim, scenario(v, None))["vm"]["fg"]["completion_ms"])
               for k, v in FG.items()}
    solo_bg = {}
    for k, v in BG.items():
        r = run(hvsim, scenario(v.replace("barrier c", "barrier b").replace("forever", "20"), None))
        solo_bg[k] = float(r["vm"]["fg"]["cpu_ms"]) / float(r["vm"]["fg"]["completion_ms"])
    rows = []
    for fk, fv in FG.items():
        for bk, bv in BG.items():
            for name, opts in DP:
                r = run(hvsim, scenario(fv, bv), opts)
                fgs = float(r["vm"]["fg"]["completion_ms"]) / solo_fg[fk]
                rate = float(r["vm"]["bg"]["cpu_ms"]) / float(r["run"]["end_ms"])
                bgs = solo_bg[bk] / rate if rate > 0 else float("inf")
                rows.append((fk, bk, name, fgs, bgs, math.sqrt(fgs * bgs)))
    return rows


def fig10(hvsim):
    """Spinning (spin-then-block 200 us, as OpenMP) 4-thread programs, memory-
    bound and CPU-bound, against persistent and periodic interference; credit
    with 30 ms slices vs DS with random 10-30 ms slices per pCPU."""
    rows = []
    for kind in ("mem", "cpu"):
        burst = "compute 5ms mem" if kind == "mem" else "compute 5ms"
        prog = f"loop 300\n    {burst}\n    barrier b spin-block=200us\n  end"
        for intf in ("persistent", "periodic 10ms 10ms"):
            text = (f"pcpus {PCPUS}\nseed 5\nduration 60s\nmemory alpha=0.6 free=1\n"
                    f"vm par vcpus=4\nvm intf vcpus=4\nbarrier b 4\n"
                    f"program worker\n  {prog}\nend\nthread par.0-3 worker\n"
                    f"thread intf.0-3 {intf}\n")
            c = float(run(hvsim, text)["vm"]["par"]["completion_ms"])
            d = float(run(hvsim, text, ["sched_ds_min_ms=10", "sched_ds_max_ms=30"])
                      ["vm"]["par"]["completion_ms"])
            rows.append((kind, intf.split()[0], c, d, 1 - d / c))
    return rows


def ple(hvsim):
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "sim")
    rows = []
    for name in ("ple-lock-4", "ple-lock-undirected-4", "ple-lock-off-4", "ple-solo-4",
                 "ple-solo-off-4"):
        with open(os.path.join(here, name + ".wl")) as f:
            r = run(hvsim, f.read())
        rows.append((name, float(r["vm"]["par"]["completion_ms"])))
    return rows


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hvsim", default="build/sim/hvsim")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--only", choices=["dp", "ds", "ple"])
    a = ap.parse_args(argv)
    bad = []

    def want(ok, what):
        print(f"  {'PASS' if ok else 'FAIL'} {what}")
        if not ok:
            bad.append(what)

    if a.only in (None, "dp"):
        rows = fig9(a.hvsim)
        print("Fig. 9 shape (slowdown vs alone; gmean = sqrt(fg x bg)):")
        print(f"  {'fg':7} {'bg':7} {'setting':9} {'fg':>6} {'bg':>6} {'gmean':>6}")
        for fk, bk, name, fgs, bgs, g in rows:
            print(f"  {fk:7} {bk:7} {name:9} {fgs:6.3f} {bgs:6.3f} {g:6.3f}")
        by = {(fk, bk, n): (f, b, g) for fk, bk, n, f, b, g in rows}
        allg = {n: math.exp(sum(math.log(by[k][2]) for k in by if k[2] == n) /
                            sum(1 for k in by if k[2] == n)) for _, n in [(0, d[0]) for d in DP]}
        for n, g in allg.items():
            print(f"  overall gmean {n:9} {g:6.3f}  ({100 * (1 - g / allg['credit']):+.1f}% vs credit; paper: adaptive +12%)")
        if a.check:
            best = {}
            for fk in FG:
                for bk in BG:
                    fixed = {n: by[(fk, bk, n)][2] for n in ("DP(2ms)", "DP(8ms)")}
                    best[(fk, bk)] = min(fixed.values())
            # The paper's 12% gain is not reproduced by hvsim (docs/sched.md):
            # assert only that adaptive DP costs nothing overall.
            want(allg["adaptive"] < 1.02 * allg["credit"], "adaptive DP overall gmean within 2% of credit or better")
            for (fk, bk), b in best.items():
                want(by[(fk, bk, "adaptive")][2] <= 1.10 * b,
                     f"adaptive within 10% of the best fixed delay ({fk} fg, {bk} bg)")
    if a.only in (None, "ds"):
        rows = fig10(a.hvsim)
        print("Fig. 10 shape (completion ms, credit 30 ms slices vs DS 10-30 ms):")
        for kind, intf, c, d, gain in rows:
            print(f"  {kind:4} {intf:10} credit {c:9.1f} DS {d:9.1f} gain {100 * gain:+5.1f}%")
        print("  paper: memory-bound +32% avg (up to +38%) persistent; CPU-bound (cg) about 0")
        if a.check:
            g = {(k, i): gain for k, i, _, _, gain in rows}
            want(g[("mem", "persistent")] > 0.10, "DS helps the memory-bound program > 10% (persistent)")
            want(abs(g[("cpu", "persistent")]) < 0.06, "DS leaves the CPU-bound program within 6% (persistent)")
    if a.only in (None, "ple"):
        rows = dict(ple(a.hvsim))
        print("PLE (completion ms of the spinlock VM):")
        for k, v in rows.items():
            print(f"  {k:24} {v:9.1f}")
        if a.check:
            want(rows["ple-lock-4"] < rows["ple-lock-undirected-4"] < rows["ple-lock-off-4"],
                 "directed < undirected < off under over-commit")
            want(rows["ple-solo-4"] < 1.02 * rows["ple-solo-off-4"], "PLE costs < 2% without over-commit")
    if bad:
        print(f"repro_preempt: {len(bad)} shape check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
