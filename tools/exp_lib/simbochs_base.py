"""Shared parts of the simulator-vs-Bochs comparison (simbochs.py): the
gang-spin scenario's Bochs and hvsim runs, the trace readers, the ordering
of policies."""
import os
import re
import subprocess
import types

from vprof_lib import fmt, frames

from .runners import ROOT, parse_hvsim

GANG = os.path.join(ROOT, "build", "guest", "bench", "gang-64.elf")

SIM_WL = """pcpus 2
duration 3600s
{policy}vm par vcpus=2{con}
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
    """vCPU -> pCPU at the window's start. The profile's start snapshot (one
    state record per vCPU at t0 with arg 1) names the pCPU a vCPU last ran
    on, which is where it is only when it is RUNNING then; a queued vCPU may
    sit on another pCPU's runqueue (co-scheduling's scatter moves it there),
    so for it the pCPU of its first record after t0 is taken (the pCPU it
    was queued on, unless it was stolen before it first ran)."""
    out, first = {}, {}
    for t, arg, vm, vcpu, kind, code, pcpu in sorted(d.records):
        if vm != d.vm:
            continue
        if t == d.t0 and kind == fmt.REC_STATE and arg == 1:
            out[vcpu] = (code, pcpu)
        elif t > d.t0 and vcpu not in first:
            first[vcpu] = pcpu
    return {v: pc if code == fmt.RUNNING or v not in first else first[v]
            for v, (code, pc) in out.items()}


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


def bochs_gang(work_dir, iters, work, hog_ms, timeout=1800, reuse=False, policy="credit",
               con=False):
    """One Bochs run (its serial log kept in work_dir; with reuse, a log left
    there by an earlier run of the same tree is read instead). policy: the
    hypervisor's sched=; con: VM `par` is type=con (co-scheduled)."""
    tag = ("intf" if hog_ms else "solo") + ("" if policy == "credit" and not con else
                                            f"-{policy}{'-con' if con else ''}")
    log = os.path.join(work_dir, f"bochs-{tag}.log")
    cmd = ["python3", os.path.join(ROOT, "tools", "hvrun"), "--emu", "bochs", "--cpus", "2",
           "--timeout", str(timeout), "--cmdline", f"sched={policy}", "--serial-log", log,
           "--vm", f'kind=multiboot vcpus=2 mem=32M name=par{" type=con" if con else ""} '
                   f'cmdline="mode=par iters={iters} work={work}"', "--image", GANG]
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
        r.first_signal = first_signal_ms(par)
    for w in re.finditer(r"GANG cpu=(\d+) wait_us=(\d+)", out):
        r.wait[int(w.group(1))] = int(w.group(2)) / 1000.0
    return r


def sim_model(bochs_intf, acct_ms=None, timer_ns=None):
    """hvsim directives for what the Bochs run measured: each vCPU's pCPU
    at the window's start, the timer latency, and the time of the window's
    first switch (the VMs start then, so the slices have Bochs's phase
    against the 10 ms tick grid); acct_ms: the accounting period's phase
    (not measured: vProfile does not record the refills)."""
    tl = bochs_intf.overrun_ns if timer_ns is None else timer_ns
    lines = [f"timer_latency {tl / 1000.0:.1f}us"] if tl is not None else []
    lines.append(f"start {bochs_intf.start_ns / 1e6:.3f}ms")
    if acct_ms is not None:
        lines.append(f"acct_offset {acct_ms:g}ms")
    for vm, m in sorted(bochs_intf.place.items()):
        lines += [f"place {vm}.{i} {c}" for i, c in sorted(m.items())]
    return "".join(x + "\n" for x in lines)


def sim_gang(hvsim, work_dir, iters, round_us, hog, model="", tag=None, policy="credit",
             con=False):
    tag = tag or ("intf" if hog else "solo")
    text = SIM_WL.format(iters=iters, round_us=f"{round_us:.1f}", model=model,
                         policy="" if policy == "credit" else f"policy {policy}\n",
                         con=" type=con" if con else "",
                         hog_vm="vm hog vcpus=2\n" if hog else "",
                         hog_thr="thread hog.0-1 persistent\n" if hog else "")
    wl, tr = os.path.join(work_dir, f"sim-{tag}.wl"), os.path.join(work_dir, f"sim-{tag}.vprof")
    with open(wl, "w") as f:
        f.write(text)
    p = subprocess.run([hvsim, "-t", tr, wl], capture_output=True, text=True, check=True)
    res = parse_hvsim(p.stdout)
    d = _dump(tr, 0)
    return types.SimpleNamespace(completion_ms=res.vm["par"].completion_ms, vcpu=_trace(tr),
                                 text=text, regime=regime(d), first_signal=first_signal_ms(d))


def _rel(s, b):
    return "" if not b else f"{100.0 * (s - b) / b:+.1f}%"


def _mean(xs):
    return sum(xs) / len(xs)


PHASES_MS = [0.5 * k for k in range(60)]   # the accounting period's phase, 0..29.5 ms


def _median_run(runs):
    runs = sorted(runs, key=lambda r: r.completion_ms)
    return runs[len(runs) // 2]



TIE = 0.03      # two completion times closer than 3% are a tie in an ordering


def _order(a, b):
    """-1, 0, 1: a faster, tied with, slower than b (TIE apart)."""
    if abs(a - b) <= TIE * min(a, b):
        return 0
    return -1 if a < b else 1


def ordering(sim, bochs):
    """Pairwise ordering of policies (name -> completion) on both sides: the
    pairs, and those whose relation (faster, tie, slower) differs."""
    names = [n for n in sim if n in bochs]
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    bad = [(a, b) for a, b in pairs
           if _order(sim[a], sim[b]) != _order(bochs[a], bochs[b])]
    return pairs, bad



def first_signal_ms(d):
    """Time from the window's start to the VM's first co-scheduling signal
    (ms), None without one."""
    ts = [t for t, arg, vm, vcpu, kind, code, pcpu in d.records
          if kind == fmt.REC_EVENT and code == fmt.EV["COSCHED_SIGNAL"]]
    return (min(ts) - d.t0) / 1e6 if ts else None
