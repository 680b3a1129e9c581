#!/usr/bin/env python3
"""IRS (seed 000) end to end in Bochs: a Linux VM with scheduler activations on
(`sa=on`, the patched guest kernel of guest-shim/linux/patches/01xx) shares a
pCPU with a hog VM, so the hypervisor preempts one of its vCPUs again and
again and sends an SA upcall first each time.

vm0 `irs` (--vcpus, default 2, on pCPUs 0..N-1) runs two irsprobe phases:
  1. `irsprobe pinned MS`: a spinning thread pinned to the last vCPU (the one
     beside the hog): the guest cannot move it, so it must ack yield at once;
  2. `irsprobe spin MS`: one unpinned spinning thread per vCPU: the upcall must
     move the one on the preempted vCPU (migrations) and ack within the
     grace period (sched_sa_limit_us).
vm1 `hog` (1 vCPU on the last pCPU) spins for the whole run.

Evidence: the guest's /proc/irs deltas (RESULT irsprobe lines) and the
hypervisor's vProfile counts of the same windows (SA_UPCALL, SA_ACK,
SA_TIMEOUT events of vm0's vCPUs). Prints "TEST linux-irs-<check> PASS|FAIL"
lines and "TEST linux-irs PASS|FAIL"; exit 0 only on PASS.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from vprof_lib import frames  # noqa: E402

BASE = ("console=ttyS0,115200 no_timer_check tsc=reliable lpj=10000000 idle=halt "
        "panic=-1 quiet")


def result_lines(text, vm, prog):
    """[{key: value}] of vm's `RESULT prog ...` lines, in order."""
    out = []
    for m in re.finditer(rf"\[{vm}\] RESULT {prog} (.*)", text):
        out.append(dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv))
    return out


def sa_events(log, vm=0):
    """Per vProfile dump of `vm` (in order): {vcpu: {event: count}} for SA_*."""
    dumps, _ = frames.extract_file(str(log))
    out = []
    for d in dumps:
        if d.vm != vm:
            continue
        out.append({i: {k: n for k, n in v.events.items() if k.startswith("SA_")}
                    for i, v in d.vcpus.items()})
    return out


def total(ev, name):
    return sum(v.get(name, 0) for v in ev.values())


def hvrun(argv, log, timeout):
    argv = argv + ["--serial-log", str(log), "--timeout", str(timeout)]
    r = subprocess.run(argv, check=False)
    return r.returncode, (log.read_text(errors="replace") if log.exists() else "")


def irs_off_checks(a, rc, res, ev):
    """irs=off: the guest registers no vector, so the hypervisor (sa=on) sends nothing."""
    g = sum(int(r.get("upcalls", 0)) + int(r.get("migrations", 0)) for r in res)
    h = sum(total(e, "SA_UPCALL") for e in ev)
    ok = rc == 0 and len(res) == 2 and all(r.get("ok") == "1" for r in res) and g == 0 and \
        h == 0 and len(ev) >= 2
    print(f"irstest: irs=off: hvrun {rc}, guest upcalls+migrations {g}, hypervisor SA_UPCALL {h} "
          f"in {len(ev)} windows")
    print(f"TEST linux-irs-off {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hv", default="build/hv.elf")
    ap.add_argument("--kernel", default="build/linux/bzImage")
    ap.add_argument("--initrd", default="build/linux/initramfs.cpio")
    ap.add_argument("--vcpus", type=int, default=2, help="of the IRS VM (= pCPUs)")
    ap.add_argument("--ms", type=int, default=1000, help="each phase, guest ms")
    ap.add_argument("--grace-us", type=int, default=500, help="sched_sa_limit_us")
    ap.add_argument("--cmdline", default="", help="more hypervisor command line")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--keep", help="serial log path to keep")
    ap.add_argument("--irs-off", action="store_true",
                    help="boot the guest with irs=off: no upcall may reach it (sa=on all the same)")
    a = ap.parse_args()

    n = a.vcpus
    pc = ",".join(str(i) for i in range(n))
    runs = f"hv.run=irsprobe,pinned,{a.ms} hv.run=irsprobe,spin,{a.ms}"
    vm0 = (f'kind=linux vcpus={n} mem=128M name=irs pcpus={pc} sa=on '
           f'cmdline="{BASE}{" irs=off" if a.irs_off else ""} {runs}"')
    hog_ms = 2 * a.ms + 2500
    vm1 = (f'kind=linux vcpus=1 mem=64M name=hog pcpus={n - 1} '
           f'cmdline="{BASE} hv.run=hog,{hog_ms}"')
    hvcmd = f"sched_sa_limit_us={a.grace_us} {a.cmdline}".strip()
    argv = [sys.executable, "tools/hvrun", "--emu", "bochs", "--cpus", str(n), "--mem", "512M",
            "--bochs-cpu", "corei7_haswell_4770", "--ips", "50000000", "--hv", a.hv,
            "--quiet", "--cmdline", hvcmd, "--expect", r"\[irs\] RESULT irsprobe mode=spin",
            "--vm", vm0, "--image", a.kernel, "--initrd", a.initrd,
            "--vm", vm1, "--image", a.kernel, "--initrd", a.initrd]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(a.keep) if a.keep else Path(tmp) / "serial.log"
        rc, text = hvrun(argv, log, a.timeout)
        ev = sa_events(log) if text else []
    res = result_lines(text, "irs", "irsprobe")
    for r in res:   # the latency and histogram lines of the same phase
        for prog in ("irslat", "irshist"):
            r.update(next((x for x in result_lines(text, "irs", prog)
                           if x.get("mode") == r.get("mode")), {}))
    print(f"irstest: hvrun exit {rc}")
    for r in res:
        print("irstest: guest " + " ".join(f"{k}={v}" for k, v in r.items()))
    for i, e in enumerate(ev):
        print(f"irstest: hypervisor window {i + 1}: " +
              "; ".join(f"vcpu{v} " + " ".join(f"{k}={c}" for k, c in sorted(x.items()))
                        for v, x in sorted(e.items())))
    checks = []

    def check(name, ok, why):
        checks.append(ok)
        print(f"irstest: {name}: {why}")
        print(f"TEST linux-irs-{name} {'PASS' if ok else 'FAIL'}")

    if a.irs_off:
        return irs_off_checks(a, rc, res, ev)
    pin = next((r for r in res if r.get("mode") == "pinned"), None)
    spin = next((r for r in res if r.get("mode") == "spin"), None)
    g = lambda r, k: int(r.get(k, 0)) if r else 0  # noqa: E731
    check("run", rc == 0 and pin is not None and spin is not None and
          pin.get("ok") == "1" and spin.get("ok") == "1", f"hvrun {rc}, {len(res)} RESULT lines")
    # Phase 1: the pinned spinner cannot move: upcalls answered with yield at once.
    check("pinned-yield", g(pin, "upcalls") > 0 and g(pin, "now_pinned") > 0 and
          g(pin, "ack_yield") >= g(pin, "now_pinned") and g(pin, "migrations") == 0,
          f"upcalls {g(pin, 'upcalls')}, acked yield at once for a pinned task "
          f"{g(pin, 'now_pinned')}, ack_yield {g(pin, 'ack_yield')}, migrations "
          f"{g(pin, 'migrations')}")
    # Phase 2: unpinned spinners move off the preempted vCPU within the grace period.
    grace_ns = a.grace_us * 1000
    # The window's own maximum: lat_max_ns counts since boot, so an ack during
    # boot (before the window) may set it; win_max_ns is exact or a bucket bound.
    wmax = g(spin, "win_max_ns")
    check("spin-migrates", g(spin, "migrations") > 0 and 0 < wmax <= grace_ns,
          f"upcalls {g(spin, 'upcalls')}, migrations {g(spin, 'migrations')}, ack latency "
          f"mean {g(spin, 'lat_mean_ns') / 1000:.1f} us, window max "
          f"{'' if spin and spin.get('win_max_exact') == '1' else '<= '}{wmax / 1000:.1f} us "
          f"(since boot {g(spin, 'lat_max_ns') / 1000:.1f} us) "
          f"(grace {a.grace_us} us), ack_block {g(spin, 'ack_block')}")
    # The hypervisor saw the same upcalls acknowledged, none timed out.
    if len(ev) >= 2:
        hv = [(total(e, "SA_UPCALL"), total(e, "SA_ACK"), total(e, "SA_TIMEOUT")) for e in ev[:2]]
        ok = all(u > 0 and k > 0 and t == 0 for u, k, t in hv)
        why = "; ".join(f"window {i + 1}: SA_UPCALL {u} SA_ACK {k} SA_TIMEOUT {t}"
                        for i, (u, k, t) in enumerate(hv))
    else:
        ok, why = False, f"{len(ev)} vProfile dumps of vm0 (want 2)"
    check("hypervisor", ok, why)
    ok = all(checks)
    print(f"TEST linux-irs {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
