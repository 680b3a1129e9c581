#!/usr/bin/env python3
"""hvctl (guest-shim/linux/src/hvctl.c) on the host: --dry-run prints the
hypercalls it would make; check the encoding of HC_SCHED_SWITCH /
HC_SCHED_POLICY (hv/abi.h) and the usage errors. Without --dry-run on a
machine that is not this hypervisor it must refuse cleanly (status 2).

usage: hvctl_dry.py HVCTL_HOST_BINARY"""
import re
import subprocess
import sys

HC_BASE = 0x48560000
SWITCH, POLICY = HC_BASE + 0x1e, HC_BASE + 0x1f


def run(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    exe = sys.argv[1]
    bad = []
    rc, out, _ = run(exe, "--dry-run", "sched", "pcs", "sched_credit_tslice_ms=10")
    req = "pcs sched_credit_tslice_ms=10"
    m = re.search(rf"vmcall rax={SWITCH:#x} rbx=0x[0-9a-f]+ rcx={len(req):#x}", out)
    if rc != 0 or not m or f'request "{req}" ({len(req)} bytes)' not in out:
        bad.append(f"switch request: rc {rc} out {out!r}")
    rc, out, _ = run(exe, "--dry-run", "sched")
    if rc != 0 or f"vmcall rax={POLICY:#x} rbx=0xffffffffffffffff" not in out or \
            "policy credit switches 0" not in out:
        bad.append(f"query: rc {rc} out {out!r}")
    # One VM's move (hv/sched/vmpolicy.c): "POLICY vm=ID opts", no waiting.
    rc, out, _ = run(exe, "--dry-run", "sched", "vm", "2", "credit", "sched_dp_us=8000")
    req = "credit vm=2 sched_dp_us=8000"
    m = re.search(rf"vmcall rax={SWITCH:#x} rbx=0x[0-9a-f]+ rcx={len(req):#x}", out)
    if rc != 0 or not m or f'request "{req}" ({len(req)} bytes)' not in out:
        bad.append(f"vm move request: rc {rc} out {out!r}")
    rc, out, _ = run(exe, "--dry-run", "sched", "vm", "3", "pcs")
    if rc != 0 or 'request "pcs vm=3" (8 bytes)' not in out:
        bad.append(f"vm move without options: rc {rc} out {out!r}")
    rc, out, _ = run(exe, "--dry-run", "sched", "vm", "5")
    if rc != 0 or f"vmcall rax={POLICY:#x} rbx={0x10005:#x}" not in out or \
            "vm 5 policy credit moves 0" not in out:
        bad.append(f"vm query: rc {rc} out {out!r}")
    for args in (("sched", "vm"), ("sched", "vm", "x"), ("sched", "vm", "70000", "pcs")):
        rc, _, err = run(exe, "--dry-run", *args)
        if rc != 1 or "usage:" not in err:
            bad.append(f"usage {args}: rc {rc}")
    rc, out, _ = run(exe, "--dry-run", "sched", "list")
    if rc != 0 or "0 credit" not in out:
        bad.append(f"list: rc {rc} out {out!r}")
    for args in ((), ("sched2",), ("--bogus", "sched")):
        rc, _, err = run(exe, *args)
        if rc != 1 or "usage:" not in err:
            bad.append(f"usage {args}: rc {rc}")
    rc, out, err = run(exe, "--dry-run", "sched", "x" * 300)
    if rc != 1 or "longer than" not in err:
        bad.append(f"long request: rc {rc}")
    rc, _, err = run(exe, "sched")   # the host is not this hypervisor
    if rc != 2 or "not running under" not in err:
        bad.append(f"outside the hypervisor: rc {rc} err {err!r}")
    for b in bad:
        print(f"FAIL hvctl: {b}")
    print(f"test-hvctl: {'ok' if not bad else 'FAILED'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
