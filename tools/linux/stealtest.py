#!/usr/bin/env python3
"""Two Linux VMs share the pCPUs under the hypervisor in Bochs: a parallel VM
(vm0, `stealcheck`: one busy thread per vCPU inside a vProfile window) and an
interfering VM (vm1, `hog` on every vCPU). The steal the parallel VM's Linux
accounts in /proc/stat (fed by KVM steal time) must be non-zero and match,
per vCPU, the RUNNABLE time the hypervisor's vProfile measured in the same
window, within max(--tol-ms, --tol-pct of the hypervisor's value).

Why a tolerance at all: Linux folds steal into /proc/stat at its next tick on
that vCPU, from a record the hypervisor updates at schedule-in, and prints it
in USER_HZ (10 ms) units; so each window edge can miss up to one descheduled
period plus a tick on each vCPU. Prints one line per vCPU and
"TEST linux-steal-match PASS|FAIL"; exit status 0 only on PASS.
"""
import argparse
import csv
import io
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BASE = ("console=ttyS0,115200 no_timer_check tsc=reliable lpj=10000000 idle=halt "
        "panic=-1 quiet")


def hvrun_argv(a, log):
    par = f'hv.run=stealcheck,{a.ms}'
    hog = f'hv.run=hog,{a.ms + a.hog_extra_ms},{a.vcpus}'
    vms = [f'kind=linux vcpus={a.vcpus} mem={a.guest_mem}M name=par cmdline="{BASE} {par}"',
           f'kind=linux vcpus={a.vcpus} mem={a.guest_mem}M name=hog cmdline="{BASE} {hog}"']
    argv = [sys.executable, "tools/hvrun", "--emu", "bochs", "--cpus", str(a.pcpus),
            "--mem", f"{a.host_mem}M", "--bochs-cpu", a.bochs_cpu, "--ips", "50000000",
            "--hv", a.hv, "--quiet", "--serial-log", str(log), "--timeout", str(a.timeout),
            "--expect", "RESULT stealcheck"]
    if a.cmdline:
        argv += ["--cmdline", a.cmdline]
    for vm in vms:
        argv += ["--vm", vm, "--image", a.kernel, "--initrd", a.initrd]
    return argv


def guest_steal(text):
    """{cpu: ms} from the parallel VM's STEAL lines, and its RESULT line."""
    steal = {int(m[1]): int(m[2]) for m in re.finditer(r"\[par\] STEAL cpu=(\d+) ms=(\d+)", text)}
    res = re.search(r"\[par\] (RESULT stealcheck .*)", text)
    return steal, res.group(1) if res else None


def hv_steal(log):
    """{vcpu: ms} of RUNNABLE time in vm0's vProfile dump (tools/vprof csv)."""
    out = subprocess.run([sys.executable, "tools/vprof", "csv", str(log)], capture_output=True,
                         text=True, check=False)
    if out.returncode not in (0,):
        print(out.stderr, file=sys.stderr)
    rows = [r for r in csv.DictReader(io.StringIO(out.stdout)) if r["vm"] == "0"]
    return {int(r["vcpu"]): int(r["steal_ns"]) / 1e6 for r in rows}


def compare(a, g, h):
    ok = bool(g) and set(g) == set(h) and sum(g.values()) > 0 and sum(h.values()) > 0
    worst = 0.0
    for i in sorted(h):
        gi, hi = g.get(i), h[i]
        tol = max(a.tol_ms, a.tol_pct / 100 * hi)
        good = gi is not None and abs(gi - hi) <= tol
        if gi is not None:
            worst = max(worst, abs(gi - hi))
        ok &= good
        print(f"stealtest: vcpu{i} guest /proc/stat steal {gi} ms, hypervisor runnable "
              f"{hi:.1f} ms, |diff| {abs((gi or 0) - hi):.1f} <= {tol:.1f}: "
              f"{'ok' if good else 'MISMATCH'}")
    print(f"stealtest: window {a.ms} ms x {a.vcpus} vCPUs on {a.pcpus} pCPUs, total steal guest "
          f"{sum(g.values())} ms / hypervisor {sum(h.values()):.1f} ms, worst |diff| {worst:.1f} ms")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hv", default="build/hv.elf")
    ap.add_argument("--kernel", default="build/linux/bzImage")
    ap.add_argument("--initrd", default="build/linux/initramfs.cpio")
    ap.add_argument("--pcpus", type=int, default=4)
    ap.add_argument("--vcpus", type=int, default=4, help="per VM")
    ap.add_argument("--ms", type=int, default=2000, help="measured window (guest ms)")
    ap.add_argument("--hog-extra-ms", type=int, default=3000,
                    help="the hog runs this much longer than the window")
    ap.add_argument("--guest-mem", type=int, default=128)
    ap.add_argument("--host-mem", type=int, default=768)
    ap.add_argument("--bochs-cpu", default="corei7_haswell_4770")
    ap.add_argument("--cmdline", default="", help="hypervisor command line")
    ap.add_argument("--tol-ms", type=float, default=40.0)
    ap.add_argument("--tol-pct", type=float, default=5.0)
    ap.add_argument("--timeout", type=int, default=400, help="s of wall time (a run takes about 40)")
    ap.add_argument("--keep", help="serial log path to keep")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(a.keep) if a.keep else Path(tmp) / "serial.log"
        r = subprocess.run(hvrun_argv(a, log), check=False)
        text = log.read_text(errors="replace") if log.exists() else ""
        g, res = guest_steal(text)
        h = hv_steal(log) if text else {}
    print(f"stealtest: hvrun exit {r.returncode}; guest: {res}")
    ok = r.returncode == 0 and res is not None and "ok=1" in res and compare(a, g, h)
    print(f"TEST linux-steal-match {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
