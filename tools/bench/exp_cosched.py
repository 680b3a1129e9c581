#!/usr/bin/env python3
"""make exp-cosched (issue 12): seed 003's dual-CON experiment in Bochs.

Two 2-vCPU CON VMs running the spinbar guest (guest-shim/bench/spinbar.c:
ALU rounds + spin barrier) and one 2-vCPU HIT hog VM (the same image with
cmdline "hog") on 4 emulated pCPUs, under each policy; prints the CON VMs'
completion in Bochs cycles (RDTSC counts instructions with clock sync=none)
and their difference. One Bochs run per policy (minutes each).

usage: exp_cosched.py [--hv build/hv.elf] [--image build/guest/bench/spinbar-64.elf]
                      [--policies credit,cs,pcs,bcs] [--cmdline EXTRA] [--timeout S]
"""
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXP = re.compile(r"\[vm(\d+)\] EXP (\w+) cycles=(\d+)")


def run(hv, image, policy, extra, timeout):
    with tempfile.TemporaryDirectory(prefix="exp-cosched-") as tmp:
        log = Path(tmp) / "serial.log"
        argv = [sys.executable, str(REPO / "tools" / "hvrun"), "--emu", "bochs", "--cpus", "4",
                "--quiet", "--hv", str(hv), "--serial-log", str(log), "--timeout", str(timeout),
                "--cmdline", f"sched={policy} {extra}".strip()]
        for kind in ("type=con", "type=con", 'type=hit cmdline="hog"'):
            argv += ["--vm", f"kind=multiboot vcpus=2 mem=32M {kind}", "--image", str(image)]
        p = subprocess.run(argv, capture_output=True, text=True)
        serial = log.read_text(errors="replace") if log.exists() else ""
    res = {int(m.group(1)): (m.group(2), int(m.group(3))) for m in EXP.finditer(serial)}
    ok = p.returncode == 0 and " FAIL" not in serial and \
        sum(1 for k, _ in res.values() if k == "spinbar") == 2
    return argv, res, ok, serial + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hv", default=str(REPO / "build" / "hv.elf"))
    ap.add_argument("--image", default=str(REPO / "build" / "guest" / "bench" / "spinbar-64.elf"))
    ap.add_argument("--policies", default="credit,cs,pcs,bcs")
    ap.add_argument("--cmdline", default="")
    ap.add_argument("--timeout", type=int, default=1800)
    a = ap.parse_args()
    print("exp-cosched: 2 CON VMs (spinbar, 2 vCPUs) + 1 HIT hog VM (2 vCPUs), 4 Bochs pCPUs")
    print(f"{'policy':8} {'con0_cycles':>14} {'con1_cycles':>14} {'diff_%':>7} {'hog_cycles':>14}")
    bad = 0
    for pol in a.policies.split(","):
        argv, res, ok, out = run(a.hv, a.image, pol, a.cmdline, a.timeout)
        cons = [c for _, (k, c) in sorted(res.items()) if k == "spinbar"]
        hog = [c for _, (k, c) in sorted(res.items()) if k == "hog"]
        if not ok or len(cons) != 2:
            bad += 1
            print(f"{pol:8} FAILED ({' '.join(argv)})")
            print("\n".join(out.splitlines()[-15:]))
            continue
        diff = 100.0 * abs(cons[0] - cons[1]) / max(cons)
        print(f"{pol:8} {cons[0]:14d} {cons[1]:14d} {diff:7.1f} {hog[0] if hog else 0:14d}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
