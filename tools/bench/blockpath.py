#!/usr/bin/env python3
"""Stage breakdown of a wake-up of a halted vCPU (issue 19, `make bench-blockpath`).

Boots the exitbench guest (guest-shim/bench/exitbench.c) under a hypervisor
built with per-stage TSC stamps (hv/vm/bstamp.h, -DHV_BENCH_STAMPS=1), once
with halt polling off (halt_poll_ns=0) and once on with a 1 ms window (the
guest runs at 10M instructions/s, so 1 ms is 10,000 cycles: what KVM's
default 200 us is for the Linux benchmarks at 50M/s), and
prints the guest's one-way wake-up figures and the hypervisor's mean cycles
per stage, per kind of wake-up (peer blocked / polling / running). Bochs
cycles: deterministic instruction counts (clock sync=none).

usage: blockpath.py [--hv build/stamps/hv.elf] [--image ...] [--configs "halt_poll_ns=0,"]
"""
import argparse
import re
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exitbench  # noqa: E402

REPO = exitbench.REPO
STAMP = re.compile(r"BSTAMP (\S+) (\S+) (\d+) (\d+)")
GUEST = ["ipi_rtt_halted", "ipi_wake_halted", "ipi_wake_idle100us", "ipi_wake_idle1ms",
         "ipi_rtt_running", "ipi_wake_running", "ipi_send", "ipi_send_x2apic",
         "hlt_timer_wake"]
STAGES = [
    ("hlt_exit", "target: guest HLT -> ... (previous stage) -> HLT exit handled"),
    ("block", "target: vcpu_run returns BLOCKED, sched_block"),
    ("idle", "target pCPU: schedule -> idle_wait halts"),
    ("sender_exit", "(target idle / running until the sender's ICR exit)"),
    ("notify", "sender: exit -> APIC write decoded -> vLAPIC -> notify (timer: deadline -> wake)"),
    ("kick_ipi", "sender: sched_wake -> kick IPI sent"),
    ("kick_irq", "target pCPU: leaves HLT, kick interrupt handler"),
    ("poll_seen", "target: halt poll sees the wake-up"),
    ("schedule", "target pCPU: loop, poll, sched_schedule"),
    ("vmcs_load", "target: vcpu_put/VMPTRLD, vcpu_run entry"),
    ("loop_poll", "target: loop top: dev_sweep_poll (blocked vCPUs' timers)"),
    ("devices", "target: need_resched, vm_devs_advance, halted test"),
    ("inject", "target: sched vectors, inject_events (RVI/SVI, EOI bitmap)"),
    ("entry", "target: FPU, arm preemption timer, PLE window -> VM entry"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hv", default=str(REPO / "build" / "stamps" / "hv.elf"))
    ap.add_argument("--image", default=str(REPO / "build" / "guest" / "bench" / "exitbench-64.elf"))
    ap.add_argument("--configs", default="halt_poll_ns=0,halt_poll_ns=1000000",
                    help="comma-separated extra hypervisor command lines, one run each")
    ap.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    cfgs = a.configs.split(",")
    res, bad = [], 0
    for c in cfgs:
        cmd = f"apicv=on {c}".strip()
        argv, figs, ok, out = exitbench.run(a.hv, a.image, cmd, a.timeout)
        st = {}
        for m in STAMP.finditer(out):
            st[(m.group(1), m.group(2))] = (int(m.group(3)), int(m.group(4)))
        res.append((cmd, argv, figs, st))
        if not ok:
            bad += 1
            print(f"blockpath: '{cmd}' run failed; last lines:", file=sys.stderr)
            print("\n".join(out.splitlines()[-20:]), file=sys.stderr)
    w = 44
    print("Guest figures (Bochs cycles, median):")
    print(f"{'figure':{w}s}" + "".join(f"{r[0]:>28s}" for r in res))
    for g in GUEST:
        print(f"{g:{w}s}" + "".join(f"{r[2].get(g, ('-',))[0]:>28s}" for r in res))
    for cls in ("blocked", "polling", "running", "timer"):
        if not any((cls, "cycles") in r[3] for r in res):
            continue
        print(f"\nHypervisor stages, wake-up of a {cls} peer "
              "(mean cycles since the previous stamped stage; n):")
        print(f"{'stage':{w}s}" + "".join(f"{r[0]:>28s}" for r in res))
        for key, label in STAGES:
            if not any((cls, key) in r[3] for r in res):
                continue
            cells = []
            for r in res:
                n, mean = r[3].get((cls, key), (0, None))
                cells.append(f"{mean} ({n})" if mean is not None else "-")
            print(f"{key + ': ' + label:{w}.{w}s}" + "".join(f"{x:>28s}" for x in cells))
        tot = []
        for r in res:   # per wake-up: stages weighted by how often they occurred
            n = r[3].get((cls, "cycles"), (0, 0))[0]
            s = sum(r[3][(cls, k)][0] * r[3][(cls, k)][1] for k, _ in STAGES
                    if (cls, k) in r[3] and k not in ("hlt_exit", "block", "idle", "sender_exit"))
            tot.append(f"{s // n} ({n})" if n else "-")
        print(f"{'sender exit -> VM entry (sum)':{w}s}" + "".join(f"{x:>28s}" for x in tot))
    print("\ncommands (serial log dropped):")
    for r in res:
        argv = r[1]
        i = argv.index("--serial-log")
        argv = ["python3"] + [exitbench.rel(x) for x in argv[1:i] + argv[i + 2:]]
        print("  " + " ".join(shlex.quote(x) for x in argv))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
