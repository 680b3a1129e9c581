"""Simulator against the emulated machine (issue 16): one scenario run both in
Bochs (the hypervisor with guest-shim/bench/gang.c) and in hvsim (the same
shape as a workload), figures side by side with the relative difference.

Scenario `gang-spin`: 2 pCPUs, credit; VM `par` (2 vCPUs: N rounds of a fixed
instruction count, then a spinning barrier without PAUSE) beside VM `hog`
(2 vCPUs busy). hvsim's inputs all come from measurements of the Bochs runs,
none from the figure compared: the round from the run of `par` alone
(completion / N); the state the VMs' boot leaves (on which pCPU each vCPU is
when the measured window starts: vProfile's start snapshot of each VM,
`place`); the timer latency (how much longer than the 30 ms slice a slice
lasts in the `par` trace, `timer_latency`). The model without the start state
(every vCPU started at t=0 through the policy's pick_cpu) is shown beside it.
Per-vCPU figures come from vProfile on both sides over the same window (the
guest starts and stops its profile around the rounds; hvsim -t profiles the
whole run, which is the rounds). Bochs time is instructions (clock
sync=none), so each figure repeats exactly."""
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
{hog_thr}{model}"""


TSLICE_NS = 30_000_000   # sched_credit_tslice_ms default


def _dump(path, vm):
    dumps, problems = frames.extract_file(path)
    dumps = [d for d in dumps if d.vm == vm]
    if problems or not dumps:
        raise RuntimeError(f"{path}: no clean vProfile dump of VM {vm}: {problems[:3]}")
    return dumps[-1]


def start_pcpus(d):
    """vCPU -> pCPU at the window's start (the profile's start snapshot:
    one state record per vCPU at t0 with arg 1, on its last pCPU)."""
    out = {}
    for t, arg, vm, vcpu, kind, code, pcpu in d.records:
        if t == d.t0 and vm == d.vm and kind == fmt.REC_STATE and arg == 1:
            out[vcpu] = pcpu
    return out


def slice_overrun_ns(d):
    """Median of (time between two switches on a pCPU) - tslice over the
    intervals that are one slice long (a switch every 30 ms and a bit): the
    timer's latency and the hypervisor's way to the scheduler's clock read.
    None when the trace has no such interval."""
    last, xs = {}, []
    for t, arg, vm, vcpu, kind, code, pcpu in d.records:
        if kind == fmt.REC_EVENT and code == fmt.EV["PREEMPT"]:
            if pcpu in last and TSLICE_NS <= t - last[pcpu] < TSLICE_NS + 1_000_000:
                xs.append(t - last[pcpu] - TSLICE_NS)
            last[pcpu] = t
    return sorted(xs)[len(xs) // 2] if xs else None


def first_switch_ns(d):
    """Time of the first switch in the window (hypervisor time): the slices'
    phase against the tick and accounting grids."""
    return min((t for t, arg, vm, vcpu, kind, code, pcpu in d.records
                if kind == fmt.REC_EVENT and code == fmt.EV["PREEMPT"]), default=d.t0)


def regime(d):
    """How many slices a vCPU of the VM runs in a row (the median RUNNING
    interval, first and last left out, in slices): 1 when the two vCPUs
    sharing a pCPU alternate every slice, 2 when each keeps it for two."""
    since, runs = {}, []
    for t, arg, vm, vcpu, kind, code, pcpu in d.records:
        if vm != d.vm or kind != fmt.REC_STATE:
            continue
        if vcpu in since:
            runs.append(t - since.pop(vcpu))
        if code == fmt.RUNNING and arg != 1:
            since[vcpu] = t
    runs = sorted(runs[1:-1] or runs)
    return max(1, round(runs[len(runs) // 2] / TSLICE_NS)) if runs else 0


def _trace(path, vm=0):
    d = _dump(path, vm)
    return {i: types.SimpleNamespace(running=v.state_ns[fmt.RUNNING] / 1e6,
                                     steal=v.state_ns[fmt.RUNNABLE] / 1e6,
                                     spin=v.spin_ns / 1e6, window=d.window_ns / 1e6)
            for i, v in d.vcpus.items()}


def bochs_gang(work_dir, iters, work, hog_ms, timeout=1800, reuse=False):
    """One Bochs run (its serial log kept in work_dir; with reuse, a log left
    there by an earlier run of the same tree is read instead)."""
    tag = "intf" if hog_ms else "solo"
    log = os.path.join(work_dir, f"bochs-{tag}.log")
    cmd = ["python3", os.path.join(ROOT, "tools", "hvrun"), "--emu", "bochs", "--cpus", "2",
           "--timeout", str(timeout), "--cmdline", "sched=credit", "--serial-log", log,
           "--vm", f'kind=multiboot vcpus=2 mem=32M name=par cmdline="mode=par iters={iters} '
                   f'work={work}"', "--image", GANG]
    if hog_ms:
        cmd += ["--vm", f'kind=multiboot vcpus=2 mem=32M name=hog cmdline="mode=hog ms={hog_ms}"',
                "--image", GANG]
    if not (reuse and os.path.exists(log)):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 120)
    else:
        p = types.SimpleNamespace(returncode=0)
    if p.returncode:
        raise RuntimeError(f"Bochs gang run failed ({p.returncode}): {(p.stdout + p.stderr)[-800:]}")
    with open(log, encoding="utf-8", errors="replace") as f:
        out = f.read()
    m = re.search(r"GANG par cpus=\d+ iters=\d+ work=\d+ ms=\d+ us=(\d+)", out)
    if not m:
        raise RuntimeError(f"{log}: no GANG par line")
    r = types.SimpleNamespace(completion_ms=int(m.group(1)) / 1000.0, wait={}, vcpu=_trace(log))
    if hog_ms:
        par = _dump(log, 0)
        r.place = {"par": start_pcpus(par), "hog": start_pcpus(_dump(log, 1))}
        r.overrun_ns = slice_overrun_ns(par)
        r.start_ns = first_switch_ns(par)
        r.regime = regime(par)
    for w in re.finditer(r"GANG cpu=(\d+) wait_us=(\d+)", out):
        r.wait[int(w.group(1))] = int(w.group(2)) / 1000.0
    return r


def sim_model(bochs_intf, acct_ms=None):
    """hvsim directives for what the Bochs run measured: each vCPU's pCPU
    at the window's start, the timer latency, and the time of the window's
    first switch (the VMs start then, so the slices have Bochs's phase
    against the 10 ms tick grid); acct_ms: the accounting period's phase
    (not measured: vProfile does not record the refills)."""
    lines = [f"timer_latency {bochs_intf.overrun_ns / 1000.0:.1f}us"] \
        if bochs_intf.overrun_ns is not None else []
    lines.append(f"start {bochs_intf.start_ns / 1e6:.3f}ms")
    if acct_ms is not None:
        lines.append(f"acct_offset {acct_ms:g}ms")
    for vm, m in sorted(bochs_intf.place.items()):
        lines += [f"place {vm}.{i} {c}" for i, c in sorted(m.items())]
    return "".join(x + "\n" for x in lines)


def sim_gang(hvsim, work_dir, iters, round_us, hog, model="", tag=None):
    tag = tag or ("intf" if hog else "solo")
    text = SIM_WL.format(iters=iters, round_us=f"{round_us:.1f}", model=model,
                         hog_vm="vm hog vcpus=2\n" if hog else "",
                         hog_thr="thread hog.0-1 persistent\n" if hog else "")
    wl, tr = os.path.join(work_dir, f"sim-{tag}.wl"), os.path.join(work_dir, f"sim-{tag}.vprof")
    with open(wl, "w") as f:
        f.write(text)
    p = subprocess.run([hvsim, "-t", tr, wl], capture_output=True, text=True, check=True)
    res = parse_hvsim(p.stdout)
    return types.SimpleNamespace(completion_ms=res.vm["par"].completion_ms, vcpu=_trace(tr),
                                 text=text, regime=regime(_dump(tr, 0)))


def _rel(s, b):
    return "" if not b else f"{100.0 * (s - b) / b:+.1f}%"


def _mean(xs):
    return sum(xs) / len(xs)


PHASES_MS = [0.5 * k for k in range(60)]   # the accounting period's phase, 0..29.5 ms


def _median_run(runs):
    runs = sorted(runs, key=lambda r: r.completion_ms)
    return runs[len(runs) // 2]


def run(hvsim, out_dir, iters=40, works=(8000, 9000, 10000, 11000, 12000), hog_ms=2000,
        log=print, reuse=False):
    """Sweep the round length: the outcome of lock-step spinning under credit is
    quantised by how rounds align with the 30 ms slice, so one point compares
    two samples of a step function; the sweep compares the curves. reuse:
    read the Bochs logs an earlier run left in OUT/work (same tree) instead of
    booting Bochs again."""
    work_dir = os.path.join(out_dir, "work", "simbochs")
    os.makedirs(work_dir, exist_ok=True)
    pts = []
    for w in works:
        wd = os.path.join(work_dir, f"work{w}")
        os.makedirs(wd, exist_ok=True)
        log(f"exp: sim-vs-bochs: work={w}: Bochs, par alone")
        b_solo = bochs_gang(wd, iters, w, 0, reuse=reuse)
        log(f"exp: sim-vs-bochs: work={w}: Bochs, par beside hog")
        b_intf = bochs_gang(wd, iters, w, hog_ms, reuse=reuse)
        round_us = b_solo.completion_ms * 1000.0 / iters
        phases = [sim_gang(hvsim, wd, iters, round_us, True, sim_model(b_intf, ph),
                           tag=f"acct{ph:g}") for ph in PHASES_MS]
        same = [r for r in phases if r.regime == b_intf.regime]
        pts.append(types.SimpleNamespace(
            w=w, round_us=round_us, bs=b_solo, bi=b_intf, phases=phases, nsame=len(same),
            ss=sim_gang(hvsim, wd, iters, round_us, False),
            si=_median_run(same or phases),
            sf=sim_gang(hvsim, wd, iters, round_us, True, tag="fresh")))
    sweep, starts = [], []
    for p in pts:
        lo = min(r.completion_ms for r in p.phases)
        hi = max(r.completion_ms for r in p.phases)
        sweep.append(f"| {p.w} | {p.round_us:.1f} | {p.bs.completion_ms:.2f} | "
                     f"{p.ss.completion_ms:.2f} | {p.bi.completion_ms:.2f} | "
                     f"{p.sf.completion_ms:.2f} | {_rel(p.sf.completion_ms, p.bi.completion_ms)} | "
                     f"{lo:.0f}-{hi:.0f} | {p.bi.regime} | {p.nsame}/{len(p.phases)} | "
                     f"{p.si.completion_ms:.2f} | {_rel(p.si.completion_ms, p.bi.completion_ms)} |")
        pl = "; ".join(f"{vm} " + ", ".join(f"{i}:p{c}" for i, c in sorted(m.items()))
                       for vm, m in sorted(p.bi.place.items()))
        ov = "-" if p.bi.overrun_ns is None else f"{p.bi.overrun_ns / 1000.0:.1f}"
        starts.append(f"| {p.w} | {pl} | {ov} | {p.bi.start_ns / 1e6:.3f} |")
    rows = []

    def add(what, f_sim, f_bochs, note="", f_fresh=None):
        sv, bv = _mean([f_sim(p) for p in pts]), _mean([f_bochs(p) for p in pts])
        fv = _mean([f_fresh(p) for p in pts]) if f_fresh else None
        fresh = "" if fv is None else f"{fv:.2f} | {_rel(fv, bv)}"
        rows.append(f"| {what} | {sv:.2f} | {bv:.2f} | {_rel(sv, bv)} | "
                    f"{fresh or ' | '} | {note} |")

    add("par beside hog: completion ms", lambda p: p.si.completion_ms,
        lambda p: p.bi.completion_ms, f_fresh=lambda p: p.sf.completion_ms)
    add("slowdown beside hog, x", lambda p: p.si.completion_ms / p.ss.completion_ms,
        lambda p: p.bi.completion_ms / p.bs.completion_ms,
        f_fresh=lambda p: p.sf.completion_ms / p.ss.completion_ms)
    for i in sorted(pts[0].bi.vcpu):
        add(f"vCPU {i}: running ms", lambda p: p.si.vcpu[i].running,
            lambda p: p.bi.vcpu[i].running, f_fresh=lambda p: p.sf.vcpu[i].running)
        add(f"vCPU {i}: steal (runnable) ms", lambda p: p.si.vcpu[i].steal,
            lambda p: p.bi.vcpu[i].steal, f_fresh=lambda p: p.sf.vcpu[i].steal)
        add(f"vCPU {i}: share of the window, %",
            lambda p: 100 * p.si.vcpu[i].running / p.si.vcpu[i].window,
            lambda p: 100 * p.bi.vcpu[i].running / p.bi.vcpu[i].window,
            f_fresh=lambda p: 100 * p.sf.vcpu[i].running / p.sf.vcpu[i].window)
        add(f"vCPU {i}: spin ms (vProfile)", lambda p: p.si.vcpu[i].spin,
            lambda p: p.bi.vcpu[i].spin, "not compared: Bochs has no detector for it (no PAUSE: "
            "no PLE exit; no PMU)")

    def order(sim):
        return sum((sim(p).completion_ms > p.ss.completion_ms) ==
                   (p.bi.completion_ms > p.bs.completion_ms) for p in pts)

    worst = max(abs(p.si.completion_ms - p.bi.completion_ms) / p.bi.completion_ms for p in pts)
    text = "\n".join([
        "# Simulator vs Bochs: gang-spin", "",
        f"2 pCPUs, credit (defaults). VM `par`: 2 vCPUs x {iters} rounds of W loop iterations, "
        "then a spinning barrier without PAUSE (guest-shim/bench/gang.c); VM `hog`: 2 vCPUs "
        f"busy for {hog_ms} ms. Per-vCPU figures are vProfile's on both sides, over the "
        "rounds only (each guest starts and stops its profile around its work).",
        "Regenerate: `make exp-simbochs` (ten Bochs runs; `EXP_ARGS=--reuse-bochs` re-runs "
        "only hvsim against the Bochs logs left in OUT/work).", "",
        "hvsim's inputs are measured on the Bochs runs, none is fitted to the figures "
        "compared: the round (Bochs alone: completion / rounds); the start state the boot of "
        "both VMs leaves, i.e. on which pCPU each vCPU is when the window starts (vProfile's "
        "start snapshot of each VM, hvsim `place`); the timer latency (median of a "
        "one-slice interval between two switches on a pCPU minus the 30 ms slice, in the "
        "`par` trace, hvsim `timer_latency`); the time of the window's first switch (hvsim "
        "`start`: the slices' phase against the 10 ms tick grid). Not measurable from the "
        "trace: the accounting period's phase and the credit each vCPU brings from the boot "
        "(vProfile records no refill and no balance); hvsim runs at "
        f"{len(PHASES_MS)} accounting phases (`acct_offset` 0-29.5 ms) with fresh credits. "
        "The outcome is one of two regimes, told apart by the schedule (how many 30 ms slices "
        "a `par` vCPU keeps in a row: 1 when the two vCPUs sharing a pCPU alternate every "
        "slice, 2 when each keeps it for two); \"hvsim in Bochs's regime\" is the median run "
        "over the phases whose schedule shows the regime Bochs's shows (all phases when "
        "none does). \"fresh start\" is hvsim without any of these inputs: every vCPU "
        "starts at t=0 through credit's pick_cpu, which spreads each VM over both pCPUs.", "",
        "Measured start state, timer latency and first switch (Bochs, beside hog):", "",
        "| W | vCPU:pCPU at the window's start | timer latency us | first switch, hv ms |",
        "|---:|---|---:|---:|"] + starts + ["",
        "Sweep of the round length (completion ms):", "",
        "| W | round us | Bochs alone | hvsim alone | Bochs beside hog | hvsim, fresh start | "
        "fresh vs Bochs | hvsim over the phases | Bochs: slices in a row | phases in that "
        "regime | hvsim in Bochs's regime | vs Bochs |",
        "|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|"] + sweep + [
        "", f"Means over the sweep ({len(pts)} points; ordering alone < beside hog agrees in "
        f"{order(lambda p: p.si)} of {len(pts)} (fresh start: {order(lambda p: p.sf)}); the "
        f"largest single-point completion difference in Bochs's regime is "
        f"{100 * worst:.1f}%):", "",
        "| figure | hvsim in Bochs's regime | Bochs | vs Bochs | hvsim, fresh start | "
        "fresh vs Bochs | note |",
        "|---|---:|---:|---:|---:|---:|---|"] + rows +
        ["", "What decides the figures: the boot leaves each VM's two vCPUs on one pCPU "
         "(the APs start on the master pCPU's runqueue; a BSP waiting with PAUSE yields its "
         "pCPU to its own AP; nothing is idle afterwards, so credit never steals), so `par` "
         "advances about one barrier per run of one of its vCPUs and completion is the number "
         "of slices times the slice length; with 1 slice in a row that is about 40 x 30 ms, "
         "with 2 about 40 x 60 ms. The fresh start spreads each VM over both pCPUs, where the "
         "two `par` vCPUs co-run part of the time: that model is wrong by its start state, "
         "not by its costs. Which regime a run falls in follows from the credit each vCPU "
         "has when the window starts and the accounting phase (a vCPU runs on at its slice's "
         "end when it is UNDER and its sibling OVER), i.e. from the boot's history.",
         "", "What hvsim leaves out: the boot itself (taken as the measured start state, "
         "not simulated) and with it the credit balances it leaves and the accounting phase, "
         "so the regime is an input here, not a prediction (with fresh credits hvsim shows "
         f"the 1-slice regime at {sum(r.regime == 1 for r in pts[-1].phases)} of "
         f"{len(PHASES_MS)} accounting phases at W={pts[-1].w}); the cost of VM exits and of the "
         "hypervisor's work on a pCPU beyond the timer latency (in Bochs that time is taken "
         "from the vCPU that was running; in hvsim it keeps computing; this guest's rounds "
         "exit only for timer ticks); context-switch cost (VMCS load, FPU) beyond what the "
         "slice overrun contains; the guest's console output and profile hypercalls at the "
         "window's edges; kick latency is not exercised (no wake-ups in the rounds; hvsim's "
         "default 2 us); spinning, which vProfile sees in hvsim but cannot detect in Bochs "
         "for this guest.",
         "", "hvsim workload (beside hog, last W, the run in Bochs's regime; the fresh start "
         "is the same without the last lines):", "", "```", pts[-1].si.text.rstrip(), "```",
         ""])
    path = os.path.join(out_dir, "sim-vs-bochs.md")
    with open(path, "w") as f:
        f.write(text)
    return path
