"""Simulator against the emulated machine (issue 16): one scenario run both in
Bochs (the hypervisor with guest-shim/bench/gang.c) and in hvsim (the same
shape as a workload), figures side by side with the relative difference.

Scenario `gang-spin`: 2 pCPUs, credit; VM `par` (2 vCPUs: N rounds of a fixed
instruction count, then a spinning barrier without PAUSE) beside VM `hog`
(2 vCPUs busy). hvsim's round is calibrated from a Bochs run of `par` alone
(completion / N); nothing else is tuned. Per-vCPU figures come from vProfile
on both sides over the same window (the guest starts and stops its profile
around the rounds; hvsim -t profiles the whole run, which is the rounds).
Bochs time is instructions (clock sync=none), so each figure repeats exactly."""
import os
import re
import subprocess
import types

from vprof_lib import analysis, fmt, frames

from .runners import ROOT, parse_hvsim

GANG = os.path.join(ROOT, "build", "guest", "bench", "gang-64.elf")

SIM_WL = """pcpus 2
duration 3600s
vm par vcpus=2
{hog_vm}barrier b 2
program worker
  loop {iters}
    compute {round_us}us
    barrier b spin
  end
end
thread par.0-1 worker
{hog_thr}"""


def _trace(path, vm=0):
    dumps, problems = frames.extract_file(path)
    dumps = [d for d in dumps if d.vm == vm]
    if problems or not dumps:
        raise RuntimeError(f"{path}: no clean vProfile dump of VM {vm}: {problems[:3]}")
    d = dumps[-1]
    return {i: types.SimpleNamespace(running=v.state_ns[fmt.RUNNING] / 1e6,
                                     steal=v.state_ns[fmt.RUNNABLE] / 1e6,
                                     spin=v.spin_ns / 1e6, window=d.window_ns / 1e6)
            for i, v in d.vcpus.items()}


def bochs_gang(work_dir, iters, work, hog_ms, timeout=1800):
    tag = "intf" if hog_ms else "solo"
    log = os.path.join(work_dir, f"bochs-{tag}.log")
    cmd = ["python3", os.path.join(ROOT, "tools", "hvrun"), "--emu", "bochs", "--cpus", "2",
           "--timeout", str(timeout), "--cmdline", "sched=credit", "--serial-log", log,
           "--vm", f'kind=multiboot vcpus=2 mem=32M name=par cmdline="mode=par iters={iters} '
                   f'work={work}"', "--image", GANG]
    if hog_ms:
        cmd += ["--vm", f'kind=multiboot vcpus=2 mem=32M name=hog cmdline="mode=hog ms={hog_ms}"',
                "--image", GANG]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 120)
    if p.returncode:
        raise RuntimeError(f"Bochs gang run failed ({p.returncode}): {(p.stdout + p.stderr)[-800:]}")
    with open(log, encoding="utf-8", errors="replace") as f:
        out = f.read()
    m = re.search(r"GANG par cpus=\d+ iters=\d+ work=\d+ ms=\d+ us=(\d+)", out)
    if not m:
        raise RuntimeError(f"{log}: no GANG par line")
    r = types.SimpleNamespace(completion_ms=int(m.group(1)) / 1000.0, wait={}, vcpu=_trace(log))
    for w in re.finditer(r"GANG cpu=(\d+) wait_us=(\d+)", out):
        r.wait[int(w.group(1))] = int(w.group(2)) / 1000.0
    return r


def sim_gang(hvsim, work_dir, iters, round_us, hog):
    tag = "intf" if hog else "solo"
    text = SIM_WL.format(iters=iters, round_us=f"{round_us:.1f}",
                         hog_vm="vm hog vcpus=2\n" if hog else "",
                         hog_thr="thread hog.0-1 persistent\n" if hog else "")
    wl, tr = os.path.join(work_dir, f"sim-{tag}.wl"), os.path.join(work_dir, f"sim-{tag}.vprof")
    with open(wl, "w") as f:
        f.write(text)
    p = subprocess.run([hvsim, "-t", tr, wl], capture_output=True, text=True, check=True)
    res = parse_hvsim(p.stdout)
    return types.SimpleNamespace(completion_ms=res.vm["par"].completion_ms, vcpu=_trace(tr),
                                 text=text)


def _rel(s, b):
    return "" if not b else f"{100.0 * (s - b) / b:+.1f}%"


def _mean(xs):
    return sum(xs) / len(xs)


def run(hvsim, out_dir, iters=40, works=(8000, 9000, 10000, 11000, 12000), hog_ms=2000,
        log=print):
    """Sweep the round length: the outcome of lock-step spinning under credit is
    quantised by how rounds align with the 30 ms slice, so one point compares
    two samples of a step function; the sweep compares the curves."""
    work_dir = os.path.join(out_dir, "work", "simbochs")
    os.makedirs(work_dir, exist_ok=True)
    pts = []
    for w in works:
        wd = os.path.join(work_dir, f"work{w}")
        os.makedirs(wd, exist_ok=True)
        log(f"exp: sim-vs-bochs: work={w}: Bochs, par alone")
        b_solo = bochs_gang(wd, iters, w, 0)
        log(f"exp: sim-vs-bochs: work={w}: Bochs, par beside hog")
        b_intf = bochs_gang(wd, iters, w, hog_ms)
        round_us = b_solo.completion_ms * 1000.0 / iters
        pts.append((w, round_us, b_solo, b_intf, sim_gang(hvsim, wd, iters, round_us, False),
                    sim_gang(hvsim, wd, iters, round_us, True)))
    sweep = []
    for w, ru, bs, bi, ss, si in pts:
        sweep.append(f"| {w} | {ru:.1f} | {bs.completion_ms:.2f} | {ss.completion_ms:.2f} | "
                     f"{bi.completion_ms:.2f} | {si.completion_ms:.2f} | "
                     f"{_rel(si.completion_ms, bi.completion_ms)} |")
    rows = []

    def add(what, f_sim, f_bochs, note=""):
        sv, bv = _mean([f_sim(p) for p in pts]), _mean([f_bochs(p) for p in pts])
        rows.append(f"| {what} | {sv:.2f} | {bv:.2f} | {_rel(sv, bv)} | {note} |")

    add("par beside hog: completion ms", lambda p: p[5].completion_ms, lambda p: p[3].completion_ms)
    add("slowdown beside hog, x", lambda p: p[5].completion_ms / p[4].completion_ms,
        lambda p: p[3].completion_ms / p[2].completion_ms)
    for i in sorted(pts[0][3].vcpu):
        add(f"vCPU {i}: running ms", lambda p: p[5].vcpu[i].running, lambda p: p[3].vcpu[i].running)
        add(f"vCPU {i}: steal (runnable) ms", lambda p: p[5].vcpu[i].steal,
            lambda p: p[3].vcpu[i].steal)
        add(f"vCPU {i}: share of the window, %",
            lambda p: 100 * p[5].vcpu[i].running / p[5].vcpu[i].window,
            lambda p: 100 * p[3].vcpu[i].running / p[3].vcpu[i].window)
        add(f"vCPU {i}: spin ms (vProfile)", lambda p: p[5].vcpu[i].spin,
            lambda p: p[3].vcpu[i].spin, "Bochs: no detector fires (no PAUSE: no PLE exit; no PMU)")
    order = sum((p[5].completion_ms > p[4].completion_ms) == (p[3].completion_ms > p[2].completion_ms)
                for p in pts)
    text = "\n".join([
        "# Simulator vs Bochs: gang-spin", "",
        f"2 pCPUs, credit (defaults). VM `par`: 2 vCPUs x {iters} rounds of W loop iterations, "
        "then a spinning barrier without PAUSE (guest-shim/bench/gang.c); VM `hog`: 2 vCPUs "
        f"busy for {hog_ms} ms. For each W, hvsim's round is calibrated from Bochs alone "
        "(completion / rounds); nothing else is tuned (hvsim's defaults: kick latency 2 us, no "
        "exit or switch cost). Per-vCPU figures are vProfile's on both sides, over the rounds "
        "only (the guest starts and stops its profile around them).",
        "Regenerate: `make exp-simbochs` (ten Bochs runs).", "",
        "Sweep of the round length (completion ms):", "",
        "| W | round us | Bochs alone | hvsim alone | Bochs beside hog | hvsim beside hog | "
        "hvsim vs Bochs |", "|---:|---:|---:|---:|---:|---:|---:|"] + sweep + [
        "", f"Means over the sweep ({len(pts)} points; ordering alone < beside hog agrees in "
        f"{order} of {len(pts)}):", "",
        "| figure | hvsim | Bochs | hvsim vs Bochs | note |", "|---|---:|---:|---:|---|"] + rows +
        ["", "Lock-step spinning under credit is quantised by how the rounds align with the "
         "30 ms slice (in hvsim a 1% longer round can move completion by 15%), so single "
         "points differ more than the curves.",
         "", "What hvsim leaves out (candidates for the gap; not calibrated yet): the cost of "
         "VM exits and of the hypervisor's own work on a pCPU (in Bochs it takes emulated time "
         "from the vCPU that was running), context-switch cost (VMCS load, FPU), the timer "
         "interrupt's latency and the hypervisor tick's phase against the guest's rounds, the "
         "boot of both VMs before the profile starts (credit state at the start differs), "
         "and guest console output (I/O exits).",
         "", "hvsim workload (beside hog, last W):", "", "```", pts[-1][5].text.rstrip(), "```",
         ""])
    path = os.path.join(out_dir, "sim-vs-bochs.md")
    with open(path, "w") as f:
        f.write(text)
    return path
