#!/usr/bin/env python3
"""xBalloon in Bochs (seed 004 §6.1, small scale): a 1-vCPU Linux VM capped at
50% of one pCPU runs a timer-driven I/O task (latprobe: wakes every PERIOD_US,
serves WORK_US of CPU per wake-up) plus a CPU hog, under build/hv.elf.
Arms (one boot each, the same kernel and initramfs):

  io-only    latprobe alone (the paper's "I/O only" reference)
  io-balloon latprobe and the balloon, no hog: the VM has slack, so the
             mode turns WC each period and the upcall turns it NWC again
  vanilla    balloon=off: latprobe and hog, both CFS ("I/O+CPU")
  pv         the PV kernel, no balloon: latprobe SCHED_FIFO, hog flagged
             compute (static priority inside the guest alone)
  balloon-s  balloon threads + static priority (seed 004 §4.4)
  balloon-d  balloon threads, all CFS, waking I/O keeps vruntime (§4.5)
  balloon-sg balloon-s with the same guard (sched_balloon_guard=25 below)
  balloon-dg balloon-d with the hypervisor's NWC guard (sched_balloon_guard=25,
             docs/sched.md "Balloon mode"): near the refill, with the budget
             short, the guest ranks the balloon above compute (patch 0203)

Prints one row per arm (p50/p99 wake-up latency, I/O throughput, hog CPU,
balloon sleeps) and, with --check, asserts what the Bochs test needs: the
balloon slept in NWC and was woken (the I/O task's timer ends its sleeps),
and the balloon arms' p99 is below the vanilla arm's.

--vcpus N: the SMP case, an N-vCPU VM on N pCPUs capped at 50% of each
(cap 50 x N unless --cap), one latprobe task pinned per vCPU and an N-thread
hog. --share: two 1-vCPU VMs, uncapped, sharing one pCPU, each with latprobe
(and the hog but in io-only); the row gives the worse VM's p99 and the sum
of their throughput (seed 004 §6: the host stays work-conserving when SWC
VMs share CPUs). With --check, balloon-sg / balloon-dg must also be within one request
period of io-only's p99 and 10x below vanilla's (the issue's claim); with
--share these latency claims print as XFAIL (credit1's BOOST rule, as in
Xen 4.5: docs/sched.md "The two-VM case against Xen's credit1").

--vprof puts each arm's run in a vProfile window (vprofctl start/stop in
every VM): columns win_ms (the windows' overlap), vm_run / vm_off (the VMs'
vCPU running and balloon-sleep time), win_idle / idle_max (pCPU idle in the
overlap, and its longest stretch); with --share --check, a balloon arm may
leave the pCPU idle at most 5% of the overlap and never for a 30 ms slice.
idle_ms is the hypervisor's pCPU idle over the whole run (boots included),
hog% the hogs' CPU in % of the machine over latprobe's run. --hog-ms N runs
the hog for N guest ms, so that it reports its work (loops) before the arm
ends.

  tools/linux/balloonexp.py [--arms a,b,...] [--period-us 2000] [--count 500]
                            [--work-us 200] [--cap 50] [--vcpus N | --share]
                            [--check] [--sleepy] [--vprof] [--hog-ms N]
                            [--keep DIR]
"""
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from vprof_lib import fmt, frames  # noqa: E402
ARMS = ["io-only", "io-balloon", "vanilla", "pv", "balloon-s", "balloon-d", "balloon-sg",
        "balloon-dg"]
GUARD_PCT = 25   # sched_balloon_guard of balloon-dg (tools/sim/repro_pv.py's -g rows)
ARM_HV = {"balloon-dg": f"sched_balloon_guard={GUARD_PCT}",
          "balloon-sg": f"sched_balloon_guard={GUARD_PCT}"}
GUARDED = {"balloon-sg": "balloon-s", "balloon-dg": "balloon-d"}   # arm -> unguarded twin
BALLOON_ARMS = ("balloon-s", "balloon-d", "balloon-sg", "balloon-dg")


def hv_cmdline(arm, a):
    """The hypervisor command line of an arm: --hv-cmdline and the arm's own."""
    return " ".join(w for w in (a.hv_cmdline, ARM_HV.get(arm, "")) if w)


def arm_run(arm, a):
    """(extra kernel cmdline words, the hv.run command) of an arm."""
    lat = f"latprobe {a.period_us} {a.count} {a.work_us}"
    hog = f"-c hog:{a.hog_ms}"
    if a.vcpus > 1:
        lat += f" {a.vcpus}"
        hog = f"-c hog:{a.hog_ms}:{a.vcpus}"
    return {
        "io-only": ([], lat),
        "io-balloon": ([], f"balloon -b -- {lat}"),
        "vanilla": (["balloon=off"], f"balloon {hog} -- {lat}"),
        "pv": ([], f"balloon -s {hog} -- {lat}"),
        "balloon-s": ([], f"balloon -b -s {hog} -- {lat}"),
        "balloon-d": ([], f"balloon -b {hog} -- {lat}"),
        "balloon-sg": ([], f"balloon -b -s {hog} -- {lat}"),
        "balloon-dg": ([], f"balloon -b {hog} -- {lat}"),
    }[arm]


def fields(text, name, last=False):
    """A RESULT line's key=value pairs: the first such line (the last with
    last=True: --vprof runs a 1 ms hog before the arm)."""
    ms = re.findall(rf"^RESULT {name} (.*)$", text, re.M)
    return dict(kv.split("=", 1) for kv in ms[-1 if last else 0].split()) if ms else None


def segfaults(text):
    """User processes the guests lost to SIGSEGV: the shell's report, or the
    kernel's line when the guest logs it (loglevel=7)."""
    return len(re.findall(r"Segmentation fault|\]: segfault at ", text or ""))


def runs(cmd, a):
    """The arm's command, inside a vProfile window with --vprof."""
    return ["vprofctl start", cmd, "vprofctl stop"] if a.vprof else [cmd]


def host_idle(text):
    """pCPU idle over the whole run, ms (the hypervisor's summary lines)."""
    return sum(int(m) for m in re.findall(r"^summary: pcpu\d+ schedule .* idle (\d+) ms",
                                          text, re.M))


def vprof_window(log):
    """--vprof: the VMs' vProfile windows (one dump per VM). Returns the
    overlap of the windows (ms), the VMs' vCPU running and offline (balloon
    sleep) time in their own windows summed (ms), and, from the pCPU idle
    records, the idle time in the overlap summed over pCPUs (ms) and the
    longest idle stretch in it (ms): the work-conserving check. None if no
    dump."""
    dumps, _ = frames.extract_file(str(log))
    if not dumps:
        return None
    a, b = max(d.t0 for d in dumps), min(d.t1 for d in dumps)
    since, idle, longest = {}, 0, 0
    recs = sorted((r for r in dumps[0].records
                   if r[2] == fmt.VM_NONE and r[4] == fmt.REC_EVENT and
                   r[5] in (fmt.EV["IDLE_BEGIN"], fmt.EV["IDLE_END"])), key=lambda r: r[0])
    for t, _, _, _, _, code, pcpu in recs:
        if code == fmt.EV["IDLE_BEGIN"]:
            since[pcpu] = t
        elif pcpu in since:
            lo, hi = max(since.pop(pcpu), a), min(t, b)
            if hi > lo:
                idle += hi - lo
                longest = max(longest, hi - lo)
    for t in since.values():   # still idle when the overlap ended
        if b > max(t, a):
            idle += b - max(t, a)
            longest = max(longest, b - max(t, a))
    st = [sum(v.state_ns[k] for d in dumps for v in d.vcpus.values()) / 1e6 for k in range(4)]
    return dict(window_ms=max(b - a, 0) / 1e6, running=st[fmt.RUNNING], offline=st[fmt.OFFLINE],
                idle=idle / 1e6, longest=longest / 1e6, lost=sum(d.lost for d in dumps))


def hog_pct(a, lat, bal):
    """The hogs' CPU time in % of the machine (its pCPUs) over latprobe's
    run (the longer VM's with --share)."""
    if not bal or "hog_ms" not in bal or not int(lat.get("elapsed_ns", 0)):
        return "-"
    return f"{100 * int(bal['hog_ms']) * 1e6 / (int(lat['elapsed_ns']) * a.vcpus):.1f}"


def vprof_cols(a, keep, arm):
    """--vprof columns (see vprof_window)."""
    if not a.vprof:
        return ""
    w = vprof_window(keep / f"{arm}-serial.log")
    if not w:
        return "  (no vProfile dump)"
    return (f" {w['window_ms']:7.0f} {w['running']:7.0f} {w['offline']:7.0f} {w['idle']:8.1f}"
            f" {w['longest']:8.2f}" + (f"  ({w['lost']} records lost)" if w["lost"] else ""))


def run_arm(arm, a, keep):
    extra, cmd = arm_run(arm, a)
    if a.share:
        return run_share(arm, a, keep)
    argv = [sys.executable, str(ROOT / "tools/linux/boot-bare.py"), "--emu", "hv",
            "--cpus", str(a.vcpus), "--hv", a.hv, "--kernel", a.kernel, "--initrd", a.initrd,
            "--vm-opt", f"cap={a.cap}", "--keep", str(keep),
            "--name", f"linux-balloon-{arm}", "--timeout", str(a.timeout)]
    if a.vprof:
        # boot-bare.py wants a RESULT line per --run, which vprofctl does
        # not print: the window goes in as kernel words, after a 1 ms hog.
        argv += ["--run", "hog 1"]
        extra = extra + ["hv.run=" + r.replace(" ", ",") for r in runs(cmd, a)]
    else:
        argv += ["--run", cmd]
    for w in extra + a.append:
        argv += ["--append", w]
    if hv_cmdline(arm, a):   # was passed only with --share
        argv += ["--hv-cmdline", hv_cmdline(arm, a)]
    log = keep / f"hv-smp{a.vcpus}-serial.log"
    log.unlink(missing_ok=True)   # never read a previous run's log
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    text = log.read_text(errors="replace") if log.exists() else ""
    text = re.sub(r"^\[vm\d+\] ", "", text, flags=re.M)
    (keep / f"{arm}-serial.log").write_text(text)
    # boot-bare.py counts the window's two vprofctl runs as unexpected.
    ok = p.returncode == 0 or bool(a.vprof and re.search(r"^HVLINUX DONE runs=4 failed=0 ", text,
                                                          re.M))
    if not ok:
        print(p.stdout[-3000:], file=sys.stderr)
    lat = fields(text, "latprobe")
    if lat:
        lat.update(fields(text, "latprobe-io") or {})
        lat["hog_loops"] = (fields(text, "hog", last=True) or {}).get("loops", "-")
    return ok, lat, fields(text, "balloon"), text


BASE = ("console=ttyS0,115200 no_timer_check tsc=reliable lpj=10000000 idle=halt "
        "panic=-1 quiet")


def run_share(arm, a, keep):
    """--share: the arm in two uncapped 1-vCPU VMs on one pCPU (hvrun).
    Returns the worse VM's latency row (p50/p99/max), the summed throughput
    and missed count, and the VMs' balloon counters summed."""
    extra, cmd = arm_run(arm, a)
    log = keep / "share-serial.log"
    log.unlink(missing_ok=True)
    argv = [sys.executable, str(ROOT / "tools/hvrun"), "--emu", "bochs", "--cpus", "1",
            "--mem", "512M", "--ips", "50000000", "--hv", a.hv, "--quiet",
            "--serial-log", str(log), "--timeout", str(a.timeout),
            "--workdir", str(keep / "hvrun-share")]
    if hv_cmdline(arm, a):
        argv += ["--cmdline", hv_cmdline(arm, a)]
    words = " ".join(extra + a.append)
    for name in ("a", "b"):
        hvr = " ".join("hv.run=" + r.replace(" ", ",") for r in runs(cmd, a))
        vm = f'kind=linux vcpus=1 mem=128M name={name} cmdline="{BASE} {words} {hvr}"'
        argv += ["--vm", vm, "--image", a.kernel, "--initrd", a.initrd]
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    text = log.read_text(errors="replace") if log.exists() else ""
    (keep / f"{arm}-serial.log").write_text(text)
    lats, bals = [], []
    for name in ("a", "b"):
        t = "\n".join(ln.split("] ", 1)[1] for ln in text.splitlines()
                      if ln.startswith(f"[{name}] "))
        lat = fields(t, "latprobe")
        if lat:
            lat.update(fields(t, "latprobe-io") or {})
            lat["hog_loops"] = (fields(t, "hog", last=True) or {}).get("loops", "0")
            lats.append(lat)
        bals.append(fields(t, "balloon"))
    ok = p.returncode == 0 and len(lats) == 2
    if not ok:
        print(p.stdout[-3000:], file=sys.stderr)
        return False, None, None, text
    worst = max(lats, key=lambda x: int(x["p99_ns"]))
    lat = dict(worst)
    lat["p50_ns"] = str(max(int(x["p50_ns"]) for x in lats))
    lat["max_ns"] = str(max(int(x["max_ns"]) for x in lats))
    for k in ("ops_per_s", "missed", "hog_loops"):
        lat[k] = str(sum(int(x.get(k, 0)) for x in lats))
    lat["elapsed_ns"] = str(max(int(x.get("elapsed_ns", 0)) for x in lats))
    bal = None
    if all(bals):
        bal = dict(bals[0])
        for k in ("sleeps", "cancel", "upcalls", "sleep_ms", "hog_ms", "wcwait", "yields",
                  "guard", "gpick"):
            bal[k] = str(sum(int(b.get(k, 0)) for b in bals))
        bal["on"] = "1" if all(b.get("on") == "1" for b in bals) else "0"
    return ok, lat, bal, text


def sleepy(a, keep):
    """Two VMs on one pCPU: vm0 (capped) runs the balloon with no sleep
    timeout (xballoon.timeout_us=0) beside a hog and no I/O task for 2 s,
    so only interrupts (its tick, the hog's preemption) end its sleeps; vm1
    runs a hog for 1 s. Both must finish: a sleeping guest never stalls
    another VM, and its own sleeps end."""
    log = keep / "sleepy-serial.log"
    log.unlink(missing_ok=True)
    vms = [f'kind=linux vcpus=1 mem=128M name=sleepy cap={a.cap} cmdline="{BASE} '
           f'xballoon.timeout_us=0 hv.run=balloon,-b,-c,hog:0,-t,2"',
           'kind=linux vcpus=1 mem=128M name=other cmdline="' + BASE + ' hv.run=hog,1000"']
    argv = [sys.executable, str(ROOT / "tools/hvrun"), "--emu", "bochs", "--cpus", "1",
            "--mem", "512M", "--ips", "50000000", "--hv", a.hv, "--quiet",
            "--serial-log", str(log), "--timeout", str(a.timeout),
            "--workdir", str(keep / "hvrun-sleepy")]
    for vm in vms:
        argv += ["--vm", vm, "--image", a.kernel, "--initrd", a.initrd]
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    text = log.read_text(errors="replace") if log.exists() else ""
    bal = re.search(r"^\[sleepy\] RESULT balloon (.*)$", text, re.M)
    hog = re.search(r"^\[other\] RESULT hog (.*)$", text, re.M)
    errs = []
    if not bal:
        errs.append("the sleeping VM did not finish")
    else:
        b = dict(kv.split("=", 1) for kv in bal[1].split())
        print(f"sleepy: balloon {bal[1]}")
        if b.get("on") != "1" or int(b.get("sleeps", 0)) == 0:
            errs.append("the balloon did not sleep")
    if not hog:
        errs.append("the other VM's hog did not finish")
    else:
        print(f"sleepy: other VM hog {hog[1]}")
    if segfaults(text):
        # The two-VM segfault (docs/sched.md): Bochs 2.7's XSAVEC layout,
        # hidden from guests since; a lost process is a failure again.
        errs.append(f"{segfaults(text)} user-space segfault(s) in the guests")
    if errs:
        print(p.stdout[-2000:], file=sys.stderr)
    for e in errs:
        print(f"balloonexp: sleepy: {e}")
    print(f"TEST linux-balloon-sleepy {'FAIL' if errs else 'PASS'}")
    return not errs


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arms", default=",".join(ARMS))
    ap.add_argument("--period-us", type=int, default=2000)
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--work-us", type=int, default=200)
    ap.add_argument("--cap", type=int, help="percent of one pCPU (default 50 x vCPUs)")
    ap.add_argument("--vcpus", type=int, default=1, help="the SMP case: N vCPUs on N pCPUs")
    ap.add_argument("--share", action="store_true",
                    help="two uncapped 1-vCPU VMs sharing one pCPU")
    ap.add_argument("--append", action="append", default=[], help="extra kernel cmdline word")
    ap.add_argument("--hv", default="build/hv.elf")
    ap.add_argument("--hv-cmdline", default="",
                    help="hypervisor command line, e.g. sched_balloon_share=excl or sched_balloon_guard=25")
    ap.add_argument("--kernel", default="build/linux/bzImage")
    ap.add_argument("--initrd", default="build/linux/initramfs.cpio")
    ap.add_argument("--timeout", type=int, default=240)
    ap.add_argument("--keep", help="keep serial logs here")
    ap.add_argument("--check", action="store_true", help="assert (the Bochs test)")
    ap.add_argument("--hog-ms", type=int, default=0,
                    help="the hog's run (guest ms; 0: until latprobe ends, then killed). "
                    "A hog that ends by itself reports its work (loops column)")
    ap.add_argument("--vprof", action="store_true",
                    help="a vProfile window around each arm's run: the VMs' running/offline "
                    "time and the pCPUs' idle time in it (the work-conserving check)")
    ap.add_argument("--sleepy", action="store_true",
                    help="also the two-VM run: a balloon without sleep timeout beside another VM")
    a = ap.parse_args()
    if a.share and a.vcpus != 1:
        ap.error("--share takes 1-vCPU VMs")
    if a.cap is None:
        a.cap = 50 * a.vcpus
    arms = [x for x in a.arms.split(",") if x]
    for x in arms:
        if x not in ARMS:
            ap.error(f"unknown arm {x}")
    keep_root = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="balloonexp-"))
    rows, errs = {}, []
    what = ("2 VMs x 1 vCPU on 1 pCPU, no cap" if a.share else
            f"{a.vcpus} vCPU{'s' if a.vcpus > 1 else ''} on {a.vcpus} pCPU"
            f"{'s' if a.vcpus > 1 else ''}, cap {a.cap}%")
    print(f"balloonexp: {what}, latprobe period {a.period_us} us x {a.count}"
          f"{' per vCPU' if a.vcpus > 1 else ''}, {a.work_us} us work per wake-up; "
          f"logs in {keep_root}", flush=True)
    print(f"{'arm':10} {'p50_us':>8} {'p99_us':>9} {'max_us':>9} {'ops/s':>7} {'missed':>6} "
          f"{'hog_ms':>7} {'sleeps':>7} {'cancel':>6} {'upcalls':>7} {'sleep_ms':>8} {'segv':>4} "
          f"{'guard':>5} {'gpick':>6} {'idle_ms':>7} {'hog%':>5}"
          + (f" {'loops':>7}" if a.hog_ms else "")
          + (f" {'win_ms':>7} {'vm_run':>7} {'vm_off':>7} {'win_idle':>8} {'idle_max':>8}"
             if a.vprof else ""),
          flush=True)
    for arm in arms:
        keep = keep_root / arm
        keep.mkdir(parents=True, exist_ok=True)
        ok, lat, bal, text = run_arm(arm, a, keep)
        segv = segfaults(text)
        rows[arm] = (lat, bal)
        if not ok or not lat:
            errs.append(f"{arm}: run failed (logs in {keep})")
            print(f"{arm:10} FAILED", flush=True)
            continue
        b = bal or {}
        print(f"{arm:10} {int(lat['p50_ns']) / 1e3:8.1f} {int(lat['p99_ns']) / 1e3:9.1f} "
              f"{int(lat['max_ns']) / 1e3:9.1f} {lat.get('ops_per_s', '-'):>7} "
              f"{lat.get('missed', '-'):>6} {b.get('hog_ms', '-'):>7} "
              f"{b.get('sleeps', '-'):>7} {b.get('cancel', '-'):>6} {b.get('upcalls', '-'):>7} "
              f"{b.get('sleep_ms', '-'):>8} {segv:>4} {b.get('guard', '-'):>5} "
              f"{b.get('gpick', '-'):>6} {host_idle(text):7} {hog_pct(a, lat, b):>5}"
              + (f" {lat.get('hog_loops', '-'):>7}" if a.hog_ms else "") + vprof_cols(a, keep, arm),
              flush=True)
        if segv:
            # Counted: two Linux VMs sharing a pCPU in Bochs used to lose a
            # user process now and then (docs/sched.md "The two-VM segfault":
            # Bochs 2.7's XSAVEC, hidden from guests since); the sleepy run
            # fails on one.
            print(f"balloonexp: {arm}: {segv} user-space segfault(s) in the guests", flush=True)
    xfails = []

    def latency(ok, msg):
        """A latency claim: with --share a known gap (XFAIL), else an error."""
        if not ok:
            (xfails if a.share else errs).append(msg)

    if a.check:
        for arm in BALLOON_ARMS:
            lat, bal = rows.get(arm, (None, None))
            if arm not in rows:
                continue
            if not bal or bal.get("on") != "1":
                errs.append(f"{arm}: balloon not on (kernel or hypervisor support missing)")
            elif int(bal["sleeps"]) == 0:
                errs.append(f"{arm}: the balloon never slept (no NWC mode?)")
            elif (not a.share and
                  int(bal["sleep_ms"]) * 1000 >= 2 * a.period_us * int(bal["sleeps"])):
                # Sleeps end at the I/O task's timer (every period), not at
                # the 10 ms tick or the 10 ms sleep timeout. (Sharing a pCPU,
                # the guest's sleep also covers the wait behind the other
                # VM's slice.)
                errs.append(f"{arm}: mean balloon sleep {bal['sleep_ms']} ms / {bal['sleeps']} "
                            f"not below 2 periods: not woken by the I/O timer")
        for ga, twin in GUARDED.items():
            gb = rows.get(ga, (None, None))[1]
            if ga not in rows or not gb or gb.get("on") != "1":
                continue
            # The guard path (patch 0203): the guest saw balloon_guard in a
            # mode upcall and the scheduler put the balloon before compute.
            if int(gb.get("guard", 0)) == 0:
                errs.append(f"{ga}: no mode upcall found balloon_guard set")
            elif int(gb.get("gpick", 0)) == 0:
                errs.append(f"{ga}: the guard never put the balloon before another task")
            lat_d, lat_g = rows.get(twin, (None,))[0], rows[ga][0]
            if lat_d and lat_g:
                latency(int(lat_g["p99_ns"]) < int(lat_d["p99_ns"]),
                        f"{ga}: p99 {lat_g['p99_ns']} ns not below {twin}'s "
                        f"{lat_d['p99_ns']} ns")
            # The issue's claim (seed 004 §6): p99 close to the I/O-only
            # reference (within one request period) and far (10x) below
            # the work-conserving guest's.
            ref, van = rows.get("io-only", (None,))[0], rows.get("vanilla", (None,))[0]
            if lat_g and ref:
                latency(int(lat_g["p99_ns"]) <= int(ref["p99_ns"]) + a.period_us * 1000,
                        f"{ga}: p99 {lat_g['p99_ns']} ns not within a period of "
                        f"io-only's {ref['p99_ns']} ns")
            if lat_g and van:
                latency(int(van["p99_ns"]) >= 10 * int(lat_g["p99_ns"]),
                        f"{ga}: p99 {lat_g['p99_ns']} ns not 10x below vanilla's "
                        f"{van['p99_ns']} ns")
        iob = rows.get("io-balloon", (None, None))[1]
        if "io-balloon" in rows and (not iob or int(iob.get("upcalls", 0)) == 0
                                     or int(iob.get("wcwait", 0)) == 0):
            errs.append("io-balloon: no WC wait ended by a mode-change upcall")
        van = rows.get("vanilla", (None, None))[0]
        if van:
            if rows.get("vanilla", (None, {}))[1] and rows["vanilla"][1].get("on") != "0":
                errs.append("vanilla: balloon=off did not turn the balloon off")
            for arm in BALLOON_ARMS:
                lat = rows.get(arm, (None, None))[0]
                if lat:
                    latency(int(lat["p99_ns"]) < int(van["p99_ns"]),
                            f"{arm}: p99 {lat['p99_ns']} ns not below vanilla's "
                            f"{van['p99_ns']} ns")
        if a.vprof and a.share:
            # Work-conserving (seed 004 §4.3 "Robustness" 4, Fig. 16): with
            # both VMs running a hog, any pCPU idle is idle while a
            # ballooning VM has work; transient idle only: at most 5% of
            # the windows' overlap, no stretch as long as a 30 ms slice.
            for arm in BALLOON_ARMS:
                w = vprof_window(keep_root / arm / f"{arm}-serial.log") if arm in rows else None
                if arm in rows and not w:
                    errs.append(f"{arm}: no vProfile dump")
                elif w and (w["idle"] > 0.05 * w["window_ms"] or w["longest"] >= 30):
                    errs.append(f"{arm}: pCPU idle {w['idle']:.1f} ms of {w['window_ms']:.0f} ms "
                                f"(longest {w['longest']:.1f} ms) while both VMs had a hog")
    for x in xfails:
        print(f"balloonexp: XFAIL {x} [known gap: two ballooning VMs on one pCPU, credit1's BOOST "
              "rule as in Xen 4.5, docs/sched.md \"The two-VM case against Xen's credit1\"]")
    for e in errs:
        print(f"balloonexp: {e}")
    print(f"TEST linux-balloon {'FAIL' if errs else 'PASS'}")
    ok = not errs
    if a.sleepy:
        keep = keep_root / "sleepy"
        keep.mkdir(parents=True, exist_ok=True)
        ok = sleepy(a, keep) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
