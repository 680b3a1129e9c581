#!/usr/bin/env python3
"""Linux guest drives the run-time policy switch (issue 16; docs/sched.md
"Run-time policy switch"): a privileged 2-vCPU Linux VM on 2 pCPUs runs
`hvctl sched list`, switches the host credit -> pcs (10 ms slice) -> credit
with a 2-thread hog between the switches, moves itself alone to credit with
a 2 ms DP under pcs (`hvctl sched vm 0 ...`, reset by the switch back), and
tries an unknown policy. Pass:
every hvctl step but the last succeeds, the last is refused, both installs
are logged by the hypervisor, the kernel is not tainted, the guest powers off.
About 30 s of Bochs on a quiet machine; not in `make test` (`make test-linux-hvctl`).

usage: hvctltest.py [--hv ELF] [--kernel BZIMAGE] [--initrd CPIO] [--timeout S]"""
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BASE = ("console=ttyS0,115200 no_timer_check tsc=reliable lpj=10000000 idle=halt "
        "panic=-1 quiet")
RUNS = ["hvctl,sched,list", "hvctl,sched,pcs,sched_credit_tslice_ms=10",
        "hvctl,sched,vm,0,credit,sched_dp_us=2000", "hog,300,2",
        "hvctl,sched", "hvctl,sched,credit", "hvctl,sched,vm,0", "hog,300,2",
        "hvctl,sched,nosuch"]


def judge(text):
    bad = []
    for want in (r"\[ctl\] 6 pcs", r"\[ctl\] policy pcs switches 1",
                 r"\[ctl\] policy credit switches 2",
                 r"sched: policy 'pcs' installed \(was 'credit'\)",
                 r"sched: policy 'credit' installed \(was 'pcs'\)",
                 r'hvctl: switch to "nosuch" refused',
                 # One VM's move (hv/sched/vmpolicy.c) under pcs; the host
                 # switch back to credit resets it.
                 r"\[ctl\] vm 0 policy credit \(its own\) moves 1",
                 r"sched: vm0 now 'credit' \(host 'pcs'; dp own 2000 us",
                 r"\[ctl\] vm 0 policy credit moves 1\b",
                 r"HVLINUX DONE runs=9 failed=1", r"HVLINUX TAINT 0"):
        if not re.search(want, text):
            bad.append(f"missing: {want}")
    fails = re.findall(r"HVLINUX FAIL rc=\d+ (.*)", text)
    if fails != ["hvctl sched nosuch"]:
        bad.append(f"failed steps: {fails}")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hv", default="build/hv.elf")
    ap.add_argument("--kernel", default="build/linux/bzImage")
    ap.add_argument("--initrd", default="build/linux/initramfs.cpio")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args()
    runs = " ".join(f"hv.run={r}" for r in RUNS)
    with tempfile.TemporaryDirectory(prefix="hvctl-") as tmp:
        log = Path(tmp) / "serial.log"
        argv = [sys.executable, "tools/hvrun", "--emu", "bochs", "--cpus", "2", "--mem", "512M",
                "--bochs-cpu", "corei7_haswell_4770", "--ips", "50000000", "--hv", a.hv,
                "--quiet", "--serial-log", str(log), "--timeout", str(a.timeout),
                "--expect", "HVLINUX DONE",
                "--vm", f'kind=linux vcpus=2 mem=128M name=ctl priv=on cmdline="{BASE} {runs}"',
                "--image", a.kernel, "--initrd", a.initrd]
        p = subprocess.run(argv, capture_output=True, text=True)
        text = log.read_text(errors="replace") if log.exists() else ""
    # hvrun exits 1 when a guest reported a failed TEST: the refused
    # `hvctl sched nosuch` is one on purpose (judged above).
    bad = judge(text) + ([f"hvrun status {p.returncode}"] if p.returncode not in (0, 1) else [])
    for b in bad:
        print(f"FAIL test-linux-hvctl: {b}")
    for line in text.splitlines():
        if "sched: policy" in line and "installed" in line:
            print(f"  {line}")
    print(f"test-linux-hvctl: {'ok' if not bad else 'FAILED'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
