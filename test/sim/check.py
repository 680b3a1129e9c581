#!/usr/bin/env python3
"""Run hvsim scenarios and check their `expect` lines.

Each scenario (*.wl) may contain lines `expect <python expression>`; the
expression sees:
  run            the `run ...` line (run.end_ms, run.idle_ms, ...)
  vm['name']     a `vm ...` line (completion_ms, share, cpu_ms, lhp, ...)
  vcpu['name', i] a `vcpu ...` line (running_ms, runnable_ms, spin_ms, ...)
  guest['name']  a `guest ...` line (the guest model: sa_*, io_*, sleeps, ...)
  switch[i]      the i-th `switch ...` line (run-time policy switch: rc, installed_ms)
  ref('file.wl') the same three for another scenario, as an object
A scenario passes when all its expectations hold. Prints one line per
expectation and a summary; exits 1 on any failure.
"""
import argparse
import os
import subprocess
import sys
import types

_cache = {}


def _num(v):
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


def _fields(line):
    return types.SimpleNamespace(**{k: _num(v) for k, v in
                                    (t.split("=", 1) for t in line.split()[1:])})


def run_scenario(hvsim, path):
    if path in _cache:
        return _cache[path]
    out = subprocess.run([hvsim, path], capture_output=True, text=True, timeout=120)
    if out.returncode:
        raise RuntimeError(f"{path}: hvsim failed: {out.stderr.strip()}")
    res = types.SimpleNamespace(run=None, vm={}, vcpu={}, guest={}, switch=[])
    for line in out.stdout.splitlines():
        kind = line.split(" ", 1)[0]
        f = _fields(line)
        if kind == "run":
            res.run = f
        elif kind == "vm":
            res.vm[f.name] = f
        elif kind == "vcpu":
            res.vcpu[f.vm, f.id] = f
        elif kind == "guest":
            res.guest[f.vm] = f
        elif kind == "switch":
            res.switch.append(f)
    _cache[path] = res
    return res


def check(hvsim, path):
    res = run_scenario(hvsim, path)
    base = os.path.dirname(path)

    def ref(name):
        return run_scenario(hvsim, os.path.join(base, name))

    env = {"run": res.run, "vm": res.vm, "vcpu": res.vcpu, "guest": res.guest, "ref": ref,
           "switch": res.switch,
           "sum": sum, "min": min, "max": max, "abs": abs}
    ok = True
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line.startswith("expect "):
                continue
            expr = line[len("expect "):]
            try:
                good = bool(eval(expr, env))
            except Exception as e:  # a broken expectation is a failure
                good, expr = False, f"{expr}  ({e})"
            print(f"  {'PASS' if good else 'FAIL'} {os.path.basename(path)}: {expr}")
            ok &= good
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hvsim", required=True)
    ap.add_argument("scenarios", nargs="+")
    a = ap.parse_args()
    failed = [p for p in a.scenarios if not check(a.hvsim, p)]
    print(f"test-sim: {len(a.scenarios) - len(failed)} scenarios passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
