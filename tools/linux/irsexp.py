#!/usr/bin/env python3
"""IRS (seed 000) three-arm comparison in Bochs at small scale (`make exp-irs`).

A 4-vCPU Linux VM `par` (vCPU i on pCPU i) runs bartest with a blocking
(futex) and a spinning barrier beside a VM `hog` whose K vCPUs (K = 1, 2, 4
"inter.") spin on pCPUs 0..K-1, under the credit scheduler on 4 Bochs pCPUs.
One guest kernel, three arms:
  vanilla  kvm=off, sa=off      no steal time, no PV preempted flag
  pv       kvm=on,  sa=off, irs=off   stock 6.1 PV (steal time, vcpu_is_preempted)
  irs      kvm=on,  sa=on       the IRS patches (guest-shim/linux/patches/01xx)
  irs0     as irs with irs_margin=0 (Alg. 2's least-loaded target without the
           steal filter; not in the default --arms)
  irsyld   as irs with irs_block=0: always ack yield, also when the run queue is
           left empty (patch 0105; section 3.2, the default, acks block there;
           not in the default --arms)
  irsidle  as irs with irs_margin=100: idle targets only (Alg. 2 lines 8-10;
           not in the default --arms)
  irsnopb  as irs with irs_pullback=0: the moved task is not taken back when
           the ack returns (patch 0106; not in the default --arms)
The par VM sleeps --delay-s before bartest so that the hog VM, which boots
beside it, already spins when the measured phases start; the hog runs
--hog-ms, long enough to cover both phases.
Reports each barrier's elapsed time per arm, IRS's gain over both baselines,
and the IRS guest's /proc/irs (upcalls, migrations, upcall-to-ack latency in
guest time). Writes a markdown table to OUT/exp-irs.md.
--vprof wraps each barrier in a vProfile window of the par VM (`vprofctl
start` / `stop` from /init; the dump goes out after the barrier) and prints
the hypervisor's view of each barrier alone (per vCPU: running, runnable,
blocked ms; preemptions, wake-ups, SA upcalls / acks / timeouts). The
profile's cost and the two extra programs shift timings a little.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from vprof_lib import frames  # noqa: E402

BASE = ("console=ttyS0,115200 no_timer_check tsc=reliable lpj=10000000 idle=halt "
        "panic=-1 quiet")
# Vanilla runs without kvmclock; Linux then calibrates the TSC against the PIT
# while the hog preempts vCPU 0, and got it 20x wrong in Bochs (guest uptime
# 32 s at /init): tsc_early_khz gives it the emulated TSC rate (--ips / 1000).
ARMS = {"vanilla": ("kvm=off sa=off", "irs=off tsc_early_khz={tsc_khz}"),
        "pv": ("kvm=on sa=off", "irs=off"),
        "irs": ("kvm=on sa=on", ""),
        # Alg. 2 as published: any busy least-loaded target (irs_margin=0)
        "irs0": ("kvm=on sa=on", "irs_margin=0"),
        # ack yield where section 3.2 acks block (run queue left empty)
        "irsyld": ("kvm=on sa=on", "irs_block=0"),
        # idle targets only (Alg. 2 lines 8-10): no busy target ever passes
        # the 0104 margin, so no spinner is stacked on a busy vCPU
        "irsidle": ("kvm=on sa=on", "irs_margin=100"),
        # no pull-back after the ack (patch 0106): the balancer alone
        "irsnopb": ("kvm=on sa=on", "irs_pullback=0")}
MODES = ("futex", "spin")


def run_one(a, arm, inter, delay_s, log):
    hvp, guest = ARMS[arm]
    guest = guest.format(tsc_khz=a.ips // 1000)
    # The hog VM boots beside par (its hog started ~0.4 s of guest time after
    # par's /init in Bochs): without the delay the first part of the futex
    # phase ran with no interference at all.
    runs = f"hv.run=sleep,{delay_s:g} " if delay_s else ""
    # /proc/irs before each barrier and at the end: per-phase deltas.
    vs, ve = ("hv.run=vprofctl,start ", " hv.run=vprofctl,stop") if a.vprof else ("", "")
    runs += " ".join(f"hv.run=cat,/proc/irs {vs}hv.run=bartest,4,{a.iters[m]},{m},{a.work}{ve}"
                     for m in a.modes)
    runs += " hv.run=cat,/proc/irs"
    par = (f'kind=linux vcpus=4 mem=128M name=par pcpus=0,1,2,3 {hvp} '
           f'cmdline="{BASE} {guest} {runs}"')
    hog = (f'kind=linux vcpus={inter} mem=64M name=hog pcpus={",".join(map(str, range(inter)))} '
           f'cmdline="{BASE} hv.run=hog,{a.hog_ms},{inter}"')
    argv = [sys.executable, "tools/hvrun", "--emu", "bochs", "--cpus", "4", "--mem", "768M",
            "--bochs-cpu", "corei7_haswell_4770", "--ips", str(a.ips), "--hv", a.hv, "--quiet",
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
        if mode in a.modes and kv.get("ok") == "1":
            out[mode] = int(kv["elapsed_ns"]) / 1e6
    snaps = [parse_irs(seg) for seg in text.split("[par] HVLINUX RUN cat /proc/irs")[1:]]
    out["irs"] = snaps[-1] if snaps else {}
    # Counters of each barrier's phase alone (the snapshot before it to the
    # one after it); lat_max_ns stays the whole boot's.
    out["phase"] = {}
    if len(snaps) == len(a.modes) + 1:
        for i, m in enumerate(a.modes):
            b, e = snaps[i], snaps[i + 1]
            d = {k: e[k] - b.get(k, 0) for k in e if isinstance(e[k], int)}
            d["lat_max_ns"] = e.get("lat_max_ns", 0)
            d["hist"] = " ".join(f"{k}:{e['hist'][k] - b.get('hist', {}).get(k, 0)}"
                                 for k in e.get("hist", {}))
            out["phase"][m] = d
    if a.vprof and log.exists():
        out["vprof"] = dict(zip(a.modes, phase_profiles(log)))
    return out


EV = ("PREEMPT", "WAKE", "YIELD", "BLOCK", "SA_UPCALL", "SA_ACK", "SA_TIMEOUT", "MIGRATE")


def phase_profiles(log):
    """The par VM's (vm 0) vProfile dumps in order, one per barrier (--vprof):
    [{"window_ms": ms, vcpu: {state ms and event counts}}]."""
    dumps, _ = frames.extract_file(str(log))
    out = []
    for d in dumps:
        if d.vm != 0:
            continue
        p = {"window_ms": d.window_ns / 1e6}
        for i, v in d.vcpus.items():
            row = {st: v.state_ns[k] / 1e6
                   for k, st in enumerate(("running", "runnable", "blocked", "offline"))}
            row.update({ev: v.events.get(ev, 0) for ev in EV})
            p[i] = row
        out.append(p)
    return out


def parse_irs(seg):
    """One `cat /proc/irs` output (the log from its HVLINUX RUN line on)."""
    seg = seg.split("[par] HVLINUX RUN", 1)[0]
    irs = {}
    for m in re.finditer(r"\[par\] (\w+) (\d+)\s*$", seg, re.M):
        irs[m.group(1)] = int(m.group(2))
    h = re.search(r"\[par\] lat_hist_us (.*)", seg)
    if h:
        irs["hist"] = {k: int(v) for k, v in (x.split(":") for x in h.group(1).split())}
    return irs


def fmt_ms(v):
    return f"{v:.1f}" if v is not None else "-"


def fmt_hist(h):
    if isinstance(h, dict):
        return " ".join(f"{k}:{v}" for k, v in h.items())
    return h or "-"


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
    ap.add_argument("--delay-s", default="1",
                    help="par sleeps this long (guest s) before bartest, so the hog runs; "
                    "a comma list runs one sample per value (Bochs repeats a run exactly, "
                    "so samples need different timings; fractions work: whole seconds are "
                    "whole numbers of credit's 10 ms ticks, so 1.003 shifts the barrier's "
                    "phase against them where 2 does not)")
    ap.add_argument("--modes", default=",".join(MODES),
                    help="barriers to run, comma list (futex,spin)")
    ap.add_argument("--ips", type=int, default=50000000, help="Bochs instructions/s")
    ap.add_argument("--cmdline", default="", help="hypervisor command line")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--vprof", action="store_true",
                    help="a vProfile window around each barrier, printed per run")
    ap.add_argument("--out", default="results")
    a = ap.parse_args()
    a.iters = {"futex": a.futex_iters, "spin": a.spin_iters}
    a.modes = [m for m in a.modes.split(",") if m]
    if not a.modes or any(m not in MODES for m in a.modes):
        ap.error(f"--modes: a comma list of {','.join(MODES)}")
    inters = [int(x) for x in a.inter.split(",")]
    delays = [float(x) for x in a.delay_s.split(",")]
    arms = a.arms.split(",")

    res = {}
    for inter in inters:
        for rep, (d, _) in enumerate((d, r) for d in delays for r in range(a.reps)):
            for arm in arms:
                log = Path(a.out) / "exp-irs-logs" / f"{arm}-{inter}inter-{rep}.log"
                log.parent.mkdir(parents=True, exist_ok=True)
                o = run_one(a, arm, inter, d, log)
                o["delay_s"] = d
                res.setdefault((inter, arm), []).append(o)
                ph = o["phase"].get(a.modes[-1], o["irs"])
                print(f"exp-irs: {inter}-inter {arm} rep {rep} (delay {d:g} s): rc {o['rc']}, "
                      + ", ".join(f"{m} {fmt_ms(o.get(m))} ms" for m in a.modes)
                      + (f", {a.modes[-1]} phase: upcalls {ph.get('upcalls')} migrations "
                         f"{ph.get('migrations')}" if arm.startswith("irs") else "")
                      + f" ({o['wall_s']:.0f} s wall)", flush=True)
                for m, vp in o.get("vprof", {}).items():
                    print(f"exp-irs:   vProfile of par over the {m} barrier "
                          f"({vp['window_ms']:.1f} ms window):")
                    for i in sorted(k for k in vp if isinstance(k, int)):
                        r = vp[i]
                        print(f"exp-irs:     vcpu{i} running {r['running']:.1f} runnable "
                              f"{r['runnable']:.1f} blocked {r['blocked']:.1f} ms; "
                              + " ".join(f"{ev.lower()} {r[ev]}" for ev in EV), flush=True)

    def med(inter, arm, m):
        """Mean of the samples (the table's figure)."""
        v = [o[m] for o in res.get((inter, arm), []) if m in o]
        return statistics.mean(v) if v else None

    def spread(inter, arm, m):
        v = [o[m] for o in res.get((inter, arm), []) if m in o]
        return f"{min(v):.0f}-{max(v):.0f} (n={len(v)})" if v else "-"

    irs_arms = [x for x in arms if x.startswith("irs")]
    lines = ["| inter. | barrier | arm | vanilla ms | PV ms | IRS ms | IRS vs vanilla | IRS vs PV "
             "| spread vanilla / PV / IRS |",
             "|---|---|---|---|---|---|---|---|---|"]
    for inter in inters:
        for m in a.modes:
            for ia in irs_arms:
                v, p, i = (med(inter, x, m) for x in ("vanilla", "pv", ia))
                lines.append(f"| {inter} | {m} | {ia} | {fmt_ms(v)} | {fmt_ms(p)} | {fmt_ms(i)} | "
                             f"{gain(v, i)} | {gain(p, i)} | "
                             + " / ".join(spread(inter, x, m) for x in ("vanilla", "pv", ia))
                             + " |")
    lines += ["", f"/proc/irs over the {a.modes[-1]} phase alone (max: whole boot):", "",
              "| inter. | arm | delay s | upcalls | ack yield | ack block | migrations (to idle / least) | "
              "failed target | wake preempt | upcall-to-ack mean us | max us | histogram |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for inter in inters:
        for o, ia in ((o, ia) for ia in irs_arms for o in res.get((inter, ia), [])):
            s = o["phase"].get(a.modes[-1], o["irs"])
            n = s.get("lat_n", 0)
            lines.append(f"| {inter} | {ia} | {o['delay_s']:g} | {s.get('upcalls', '-')} | {s.get('ack_yield', '-')} | "
                         f"{s.get('ack_block', '-')} | {s.get('migrations', '-')} "
                         f"({s.get('to_idle', '-')} / {s.get('to_least', '-')}) | "
                         f"{s.get('failed_target', '-')} | {s.get('wake_preempt', '-')} | "
                         f"{(s.get('lat_sum_ns', 0) / n / 1000) if n else 0:.1f} | "
                         f"{s.get('lat_max_ns', 0) / 1000:.1f} | {fmt_hist(s.get('hist'))} |")
    table = "\n".join(lines)
    print(table)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    cmd = " ".join(["tools/linux/irsexp.py"] + sys.argv[1:])
    (Path(a.out) / "exp-irs.md").write_text(
        f"# IRS three arms in Bochs (`{cmd}`)\n\n"
        f"bartest 4 threads, futex {a.futex_iters} / spin {a.spin_iters} iterations of "
        f"{a.work} work loops; hog VM on pCPUs 0..K-1; {len(delays) * a.reps} run(s) per cell (mean; spread min-max).\n\n"
        + table + "\n")
    bad = [k for k, v in res.items() if any(o["rc"] != 0 or not all(m in o for m in a.modes)
                                            for o in v)]
    if bad:
        print(f"exp-irs: runs without results: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
