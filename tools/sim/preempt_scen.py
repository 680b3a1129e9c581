"""Scenario builders and the hvsim runner of tools/sim/repro_preempt.py
(seed 001 §5 on hvsim): the §3.1 testbed (4 pCPUs, vCPU i of every VM
pinned to pCPU i), the Fig. 9 foreground and background programs, hvsim's
result lines, eq. 1's lag over a run and the largest adaptive delay of a
trace."""
import os
import subprocess
import sys
import tempfile

PCPUS = 4


def pins(*vms):
    """Seed 001 §3.1 (the testbed of §5 too): each vCPU of the parallel VM is
    pinned to its own core and the interfering VM's vCPUs to the same set of
    cores, vCPU i of every VM on pCPU i."""
    return "".join(f"pin {vm}.{i} {i}\n" for vm in vms for i in range(PCPUS))

# Fig. 9: blocking (barrier) programs, 4 threads. Fine-grained = synchronises
# every 20-30 ms (streamcluster), coarse = every few seconds (fluidanimate).
FG = {
    "fine":   "loop 150\n    compute 20ms..30ms\n    barrier b block\n  end",
    "coarse": "loop 3\n    compute 1s..1500ms\n    barrier b block\n  end",
}
BG = {
    "fine":   "loop forever\n    compute 20ms..30ms\n    barrier c block\n  end",
    "coarse": "loop forever\n    compute 1s..1500ms\n    barrier c block\n  end",
}


def run(hvsim, text, opts=()):
    args = [hvsim]
    for o in opts:
        args += ["-o", o]
    out = subprocess.run(args + ["-"], input=text, capture_output=True, text=True, timeout=120)
    if out.returncode:
        raise RuntimeError(f"hvsim failed: {out.stderr.strip()}\n{text}")
    res = {"vm": {}, "run": {}}
    for line in out.stdout.splitlines():
        kind, *fields = line.split()
        kv = dict(f.split("=", 1) for f in fields)
        if kind == "vm":
            res["vm"][kv["name"]] = kv
        elif kind == "run":
            res["run"] = kv
        elif kind == "vcpu":
            res.setdefault("vcpu", []).append(kv)
    return res


T_FAIR = 0.5   # sched_dp_fair here: two equal-weight 4-vCPU VMs on 4 pCPUs


def lags(res):
    """Eq. 1 over the whole run for every vCPU: (t_comp - t_fair) / (t_comp
    + t_idle) = running share of its wall time - T_FAIR; the largest per VM."""
    out = {}
    for v in res.get("vcpu", []):
        wall = sum(float(v[k]) for k in ("running_ms", "runnable_ms", "blocked_ms", "offline_ms"))
        if wall > 0:
            lag = float(v["running_ms"]) / wall - T_FAIR
            out[v["vm"]] = max(out.get(v["vm"], -1.0), lag)
    return out


def one_side(text, vm, delay_us):
    """The scenario with a fixed delay on the wake-ups that would preempt
    `vm`'s running vCPUs only (a per-VM policy from time 0, docs/sched.md
    "Moving one VM between policies"). Pinned 1:1, the waker is then always
    a vCPU of the other VM: vm=fg holds the bg's wake-ups, vm=bg the fg's."""
    return text + f"switch 0ms credit vm={vm} sched_dp_us={delay_us}\n"


def dp_delay_max_us(hvsim, text, opts):
    """Largest adaptive delay any vCPU had during the run (VPE_DP_DELAY
    events of the vProfile trace, read back with `tools/vprof dp`)."""
    vprof = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vprof")
    with tempfile.TemporaryDirectory() as d:
        tr = os.path.join(d, "t.vprof")
        args = [hvsim, "-t", tr]
        for o in opts:
            args += ["-o", o]
        subprocess.run(args + ["-"], input=text, capture_output=True, text=True, timeout=120,
                       check=True)
        out = subprocess.run([sys.executable, vprof, "dp", tr], capture_output=True, text=True,
                             timeout=120, check=True).stdout
    return max((float(l.split()[6]) for l in out.splitlines()[1:] if len(l.split()) >= 8),
               default=0.0)


def threads(vm, name, prog):
    """A program for all four threads, or a pair (thread 0's, the others')."""
    if isinstance(prog, str):
        return f"program {name}\n  {prog}\nend\nthread {vm}.0-3 {name}\n"
    return (f"program {name}0\n  {prog[0]}\nend\nprogram {name}1\n  {prog[1]}\nend\n"
            f"thread {vm}.0 {name}0\nthread {vm}.1-3 {name}1\n")


def scenario(fg, bg, extra="", seed=9):
    s = f"pcpus {PCPUS}\nseed {seed}\nduration 60s\n{extra}vm fg vcpus=4\nbarrier b 4\n"
    s += threads("fg", "fgp", fg)
    if bg:
        s += "vm bg vcpus=4\nbarrier c 4\n" + threads("bg", "bgp", bg)
    return s + pins("fg", "bg") if bg else s + pins("fg")


def bg_solo(bg):
    """A background program as a finite foreground (its rate alone)."""
    f = lambda t: t.replace("barrier c", "barrier b").replace("forever", "20")
    return f(bg) if isinstance(bg, str) else (f(bg[0]), f(bg[1]))


def barrier_prog(grain, n, bar, serial=None):
    """A 4-thread blocking barrier program (as FG/BG); with serial = T0 a
    serial phase after each interval: thread 0 computes T0 between two
    barriers while the others wait (a pair of programs for `threads`)."""
    body = f"loop {n}\n    compute {grain}\n    barrier {bar} block\n"
    if not serial:
        return body + "  end"
    return (body + f"    compute {serial}\n    barrier {bar} block\n  end",
            body + f"    barrier {bar} block\n  end")


def lock_prog(grain, cs, n, bar, lock):
    """A 4-thread blocking program with a lock-holder chain: per interval two
    bursts of `grain`, between them `cs` under one mutex shared by the
    threads (FIFO hand-off to a blocked waiter), then a barrier."""
    return (f"loop {n}\n    compute {grain}\n    lock {lock} block\n    compute {cs}\n"
            f"    unlock {lock}\n    compute {grain}\n    barrier {bar} block\n  end")
