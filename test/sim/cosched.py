#!/usr/bin/env python3
"""Seed 003 reproduction in hvsim (issue 12): run test/sim/cosched/*.wl under
credit and every co-scheduling policy and assert the paper's qualitative
results. `--table` prints the numbers docs/sched.md quotes.

Configurations (seed 003 §VI): 4 pCPUs, four 2-vCPU VMs; solo = one CON VM
(LU-like: 1-3 ms compute + spin barrier, 2000 rounds) and three HIT VMs,
dual = two CON VMs and two HIT VMs; *-busy = the HIT VMs run intermittent
50 % load so pCPUs are contended, otherwise they are idle.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

POLICIES = ["credit", "cs", "cds", "pcs", "bcs", "gang", "relaxed"]
# seed 003's comparison set; relaxed (seed 000 §5.1) is tabled but not held to it
SEED003 = ["cs", "cds", "pcs", "bcs", "gang"]
CONFIGS = ["solo", "dual", "solo-busy", "dual-busy"]


def run(hvsim, wl, policy):
    out = subprocess.run([hvsim, "-p", policy, wl], capture_output=True, text=True,
                         timeout=120)
    if out.returncode:
        raise RuntimeError(f"{wl} {policy}: {out.stderr.strip()}")
    res = {"con": {}}
    for line in out.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        f = dict(t.split("=", 1) for t in rest.split())
        if kind == "cosched":
            res["cs"] = {k: float(v) for k, v in f.items()}
        elif kind == "vm" and f["name"].startswith("con"):
            if f["done"] != "1":
                raise RuntimeError(f"{wl} {policy}: {f['name']} did not finish")
            res["con"][f["name"]] = float(f["completion_ms"])
    return res


def random_workload(seed):
    """A random mix of CON/HIT VMs (overcommitted CON VMs, caps, spin and
    blocking barriers, spinlocks, I/O loops, interference) on 2-8 pCPUs."""
    r = random.Random(seed)
    lines = [f"pcpus {r.choice([2, 3, 4, 8])}", f"seed {seed}", "duration 30s"]
    for i in range(r.randint(2, 5)):
        nv = r.randint(1, 5)
        cap = r.choice([0, 0, 0, 50, 150])
        lines.append(f"vm v{i} vcpus={nv} type={r.choice(['con', 'hit'])}" +
                     (f" cap={cap}" if cap else ""))
        kind = r.choice(["bar", "lock", "intf", "io"])
        if kind == "bar" and nv > 1:
            sync = r.choice(["spin", "block", "spin-block=200us"])
            lines += [f"barrier b{i} {nv}", f"program p{i}", " loop 100", "  compute 1ms..3ms",
                      f"  barrier b{i} {sync}", " end", "end", f"thread v{i}.0-{nv - 1} p{i}"]
        elif kind == "lock":
            lines += [f"lock L{i}", f"program p{i}", " loop 100", "  compute 1ms",
                      f"  lock L{i} spin", "  compute 200us", f"  unlock L{i}", " end", "end",
                      f"thread v{i}.0-{nv - 1} p{i}"]
        elif kind == "io":
            lines += [f"program p{i}", " loop 200", "  compute 500us", "  sleep 2ms", " end",
                      "end", f"thread v{i}.0-{nv - 1} p{i}"]
        else:
            lines.append(f"thread v{i}.0-{nv - 1} intermittent {r.choice([30, 60, 90])}")
    return "\n".join(lines) + "\n"


def unfinished(hvsim, seeds):
    """(seed, policy, vm) of measured VMs that did not finish within 30 s."""
    bad = []
    with tempfile.TemporaryDirectory(prefix="cosched-") as tmp:
        for seed in seeds:
            wl = os.path.join(tmp, f"r{seed}.wl")
            with open(wl, "w") as f:
                f.write(random_workload(seed))
            for p in POLICIES:
                out = subprocess.run([hvsim, "-p", p, wl], capture_output=True, text=True,
                                     timeout=120)
                if out.returncode:
                    bad.append((seed, p, "hvsim failed"))
                    continue
                bad += [(seed, p, ln.split()[1]) for ln in out.stdout.splitlines()
                        if ln.startswith("vm ") and " done=0 " in ln and
                        float(ln.split("cpu_ms=")[1].split()[0]) >= 0 and
                        f"thread {ln.split()[1][5:]}.0-" in open(wl).read() and
                        "intermittent" not in [x for x in open(wl).read().splitlines()
                                               if x.startswith(f"thread {ln.split()[1][5:]}.")][0]]
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hvsim", default="build/sim/hvsim")
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(__file__), "cosched"))
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    r = {(c, p): run(a.hvsim, os.path.join(a.dir, c + ".wl"), p)
         for c in CONFIGS for p in POLICIES}

    def t(c, p):     # execution time: the last CON VM to finish
        return max(r[c, p]["con"].values())

    def diff(c, p):  # completion-time difference between the CON VMs
        v = list(r[c, p]["con"].values())
        return (max(v) - min(v)) / max(v)

    def cs(c, p, k):
        return r[c, p]["cs"][k]

    if a.table:
        print("config     policy  exec_ms  con_diff_%  cosched_ops/s  switches/s  edge<=1ms_%")
        for c in CONFIGS:
            for p in POLICIES:
                print(f"{c:10} {p:6} {t(c, p):8.0f} {100 * diff(c, p):10.1f} "
                      f"{cs(c, p, 'ops_per_s'):14.1f} {cs(c, p, 'switches_per_s'):11.1f} "
                      f"{cs(c, p, 'edge_le_1ms_pct'):11.2f}")
    checks = []
    for c in ("solo", "solo-busy"):
        for p in SEED003:
            checks.append((f"{c}: {p} at least as fast as credit", t(c, p) <= 1.01 * t(c, "credit")))
    for p in ("cs", "cds"):
        checks.append((f"dual: {p} far slower than credit (> 1.5x)", t("dual", p) > 1.5 * t("dual", "credit")))
    checks.append(("dual: cs unfair between the CON VMs (> 20 %)", diff("dual", "cs") > 0.2))
    for c, bound in (("dual", 0.05), ("dual-busy", 0.05)):
        for p in ("pcs", "bcs"):
            checks.append((f"{c}: {p} no slower than credit", t(c, p) <= 1.01 * t(c, "credit")))
            checks.append((f"{c}: {p} CON VMs within {int(bound * 100)} %", diff(c, p) <= bound))
    for c in CONFIGS:
        strict = c.endswith("busy")
        ok = cs(c, "cds", "ops") > cs(c, "cs", "ops") if strict else \
            cs(c, "cds", "ops") >= cs(c, "cs", "ops")
        checks.append((f"{c}: cds launches {'more' if strict else 'at least as many'} "
                       "co-scheduling operations than cs", ok))
    for c, pct in (("solo", 99), ("dual", 99), ("solo-busy", 99), ("dual-busy", 99)):
        checks.append((f"{c}: bcs time edges <= 1 ms in >= {pct} %",
                       cs(c, "bcs", "edge_le_1ms_pct") >= pct))
    # A HIT-only system behaves exactly like credit (same vm/vcpu lines).
    base = os.path.dirname(os.path.abspath(a.dir))
    for wl in ("basic-4.wl", "lock-4.wl", "intermittent-4.wl"):
        path = os.path.join(base, wl)
        outs = {p: [l for l in subprocess.run([a.hvsim, "-p", p, path], capture_output=True,
                                               text=True, timeout=120).stdout.splitlines()
                    if l.startswith(("vm ", "vcpu "))] for p in POLICIES}
        for p in POLICIES[1:]:
            checks.append((f"HIT-only {wl}: {p} identical to credit",
                           bool(outs[p]) and outs[p] == outs["credit"]))
    # No stall: measured VMs of random CON/HIT mixes finish under every policy.
    stalls = unfinished(a.hvsim, range(24))
    checks.append(("24 random CON/HIT workloads finish under every policy" +
                   (f" (stalled: {stalls[:3]})" if stalls else ""), not stalls))
    bad = 0
    for name, ok in checks:
        print(f"  {'PASS' if ok else 'FAIL'} cosched {name}")
        bad += not ok
    print(f"cosched: {len(checks) - bad}/{len(checks)} passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
