#!/usr/bin/env python3
"""IRS (seed 000) three-arm comparison in Bochs at small scale (`make exp-irs`).

A 4-vCPU Linux VM `par` (vCPU i on pCPU i) runs bartest with a blocking
(futex) and a spinning barrier beside a VM `hog` whose K vCPUs (K = 1, 2, 4
"inter.") spin on pCPUs 0..K-1, under the credit scheduler on 4 Bochs pCPUs.
One guest kernel, three arms:
  vanilla  kvm=off, sa=off      no steal time, no PV preempted flag
  pv       kvm=on,  sa=off, irs=off   stock 6.1 PV (steal time, vcpu_is_preempted)
  irs      kvm=on,  sa=on       the IRS patches (guest-shim/linux/patches/01xx)
Reports each barrier's elapsed time per arm, IRS's gain over both baselines,
and the IRS guest's /proc/irs (upcalls, migrations, upcall-to-ack latency in
guest time). Writes a markdown table to OUT/exp-irs.md.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

BASE = ("console=ttyS0,115200 no_timer_check tsc=reliable lpj=10000000 idle=halt "
        "panic=-1 quiet")
ARMS = {"vanilla": ("kvm=off sa=off", "irs=off"),
        "pv": ("kvm=on sa=off", "irs=off"),
        "irs": ("kvm=on sa=on", "")}
MODES = ("futex", "spin")


def run_one(a, arm, inter, log):
    hvp, guest = ARMS[arm]
    runs = " ".join(f"hv.run=bartest,4,{a.iters[m]},{m},{a.work}" for m in MODES)
    runs += " hv.run=cat,/proc/irs"
    par = (f'kind=linux vcpus=4 mem=128M name=par pcpus=0,1,2,3 {hvp} '
           f'cmdline="{BASE} {guest} {runs}"')
    hog = (f'kind=linux vcpus={inter} mem=64M name=hog pcpus={",".join(map(str, range(inter)))} '
           f'cmdline="{BASE} hv.run=hog,{a.hog_ms},{inter}"')
    argv = [sys.executable, "tools/hvrun", "--emu", "bochs", "--cpus", "4", "--mem", "768M",
            "--bochs-cpu", "corei7_haswell_4770", "--ips", "50000000", "--hv", a.hv, "--quiet",
            "--serial-log", str(log), "--timeout", str(a.timeout),
            "--expect", r"\[par\] HVLINUX DONE",
            "--vm", par, "--image", a.kernel, "--initrd", a.initrd,
            "--vm", hog, "--image", a.kernel, "--initrd", a.initrd]
    if a.cmdline:
        argv += ["--cmdline", a.cmdline]
    t0 = time.time()
    r = subprocess.run(argv, check=False, stdout=subprocess.DEVNULL)
    text = log.read_text(errors="replace") if log.exists() else ""
    out = {"rc": r.returncode, "wall_s": time.time() - t0}
    for m in re.finditer(r"\[par\] RESULT bartest (.*)", text):
        kv = dict(x.split("=", 1) for x in m.group(1).split() if "=" in x)
        mode = kv.get("mode") or kv.get("sync")
        if mode in MODES and kv.get("ok") == "1":
            out[mode] = int(kv["elapsed_ns"]) / 1e6
    irs = {}
    for m in re.finditer(r"\[par\] (\w+) (\d+)\s*$", text, re.M):
        irs[m.group(1)] = int(m.group(2))
    h = re.search(r"\[par\] lat_hist_us (.*)", text)
    if h:
        irs["hist"] = h.group(1).strip()
    out["irs"] = irs
    return out


def fmt_ms(v):
    return f"{v:.1f}" if v is not None else "-"


def gain(base, irs):
    """IRS's improvement over a baseline, % (positive: IRS faster)."""
    if base is None or irs is None:
        return "-"
    return f"{(base / irs - 1) * 100:+.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hv", default="build/hv.elf")
    ap.add_argument("--kernel", default="build/linux/bzImage")
    ap.add_argument("--initrd", default="build/linux/initramfs.cpio")
    ap.add_argument("--inter", default="1,2,4", help="hog vCPUs, comma list")
    ap.add_argument("--arms", default="vanilla,pv,irs")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--futex-iters", type=int, default=400)
    ap.add_argument("--spin-iters", type=int, default=400)
    ap.add_argument("--work", type=int, default=5000, help="bartest work loops per iteration")
    ap.add_argument("--hog-ms", type=int, default=5000, help="hog run (guest ms)")
    ap.add_argument("--cmdline", default="", help="hypervisor command line")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--out", default="results")
    a = ap.parse_args()
    a.iters = {"futex": a.futex_iters, "spin": a.spin_iters}
    inters = [int(x) for x in a.inter.split(",")]
    arms = a.arms.split(",")

    res = {}
    for inter in inters:
        for rep in range(a.reps):
            for arm in arms:
                log = Path(a.out) / "exp-irs-logs" / f"{arm}-{inter}inter-{rep}.log"
                log.parent.mkdir(parents=True, exist_ok=True)
                o = run_one(a, arm, inter, log)
                res.setdefault((inter, arm), []).append(o)
                print(f"exp-irs: {inter}-inter {arm} rep {rep}: rc {o['rc']}, "
                      + ", ".join(f"{m} {fmt_ms(o.get(m))} ms" for m in MODES)
                      + (f", upcalls {o['irs'].get('upcalls')} migrations "
                         f"{o['irs'].get('migrations')}" if arm == "irs" else "")
                      + f" ({o['wall_s']:.0f} s wall)", flush=True)

    def med(inter, arm, m):
        v = [o[m] for o in res.get((inter, arm), []) if m in o]
        return statistics.median(v) if v else None

    lines = ["| inter. | barrier | vanilla ms | PV ms | IRS ms | IRS vs vanilla | IRS vs PV |",
             "|---|---|---|---|---|---|---|"]
    for inter in inters:
        for m in MODES:
            v, p, i = (med(inter, x, m) for x in ("vanilla", "pv", "irs"))
            lines.append(f"| {inter} | {m} | {fmt_ms(v)} | {fmt_ms(p)} | {fmt_ms(i)} | "
                         f"{gain(v, i)} | {gain(p, i)} |")
    lines += ["", "| inter. | upcalls | ack yield | ack block | migrations (to idle / least) | "
              "failed target | wake preempt | upcall-to-ack mean us | max us | histogram |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for inter in inters:
        for o in res.get((inter, "irs"), []):
            s = o["irs"]
            n = s.get("lat_n", 0)
            lines.append(f"| {inter} | {s.get('upcalls', '-')} | {s.get('ack_yield', '-')} | "
                         f"{s.get('ack_block', '-')} | {s.get('migrations', '-')} "
                         f"({s.get('to_idle', '-')} / {s.get('to_least', '-')}) | "
                         f"{s.get('failed_target', '-')} | {s.get('wake_preempt', '-')} | "
                         f"{(s.get('lat_sum_ns', 0) / n / 1000) if n else 0:.1f} | "
                         f"{s.get('lat_max_ns', 0) / 1000:.1f} | {s.get('hist', '-')} |")
    table = "\n".join(lines)
    print(table)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    cmd = " ".join(["tools/linux/irsexp.py"] + sys.argv[1:])
    (Path(a.out) / "exp-irs.md").write_text(
        f"# IRS three arms in Bochs (`{cmd}`)\n\n"
        f"bartest 4 threads, futex {a.futex_iters} / spin {a.spin_iters} iterations of "
        f"{a.work} work loops; hog VM on pCPUs 0..K-1; {a.reps} run(s) per cell (median).\n\n"
        + table + "\n")
    bad = [k for k, v in res.items() if any(o["rc"] != 0 or not all(m in o for m in MODES)
                                            for o in v)]
    if bad:
        print(f"exp-irs: runs without results: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
