#!/usr/bin/env python3
"""make stress (issue 17): run the tests that have hung before many times,
each run shifted in time, and say for every run whether it passed, failed or
hung, with the exact command that replays it.

Suites (each run is one command; Bochs repeats a command exactly, so runs
differ only by what the run number changes):
  linux-hv     2-vCPU Linux under the hypervisor: futex/mutex barriers, pipe
               ping-pong, sleep loop; run k first burns k ms in `hog`, which
               moves every later event against the guest's timers
  linux-steal  two 4-vCPU Linux VMs on 4 pCPUs (tools/linux/stealtest.py);
               run k measures a (2000 + 10 k) ms window, and the hypervisor
               command line carries `pad=` with k characters (an unknown
               option, ignored with one warning line) so that the boot, not
               only the window, moves: the session-3 lost timer broke about
               1 s into the guest's boot (docs/linux-guest.md)
  guest-multi  every multi-VM test-guest case of run_hv.py (names with '+'),
               hostile seed = k

A run that exceeds its time limit is a hang (hvrun's own timeout, status
124, or this script's). Prints one line per run and a summary; exit 1 if any
run failed or hung. Runs in parallel up to --jobs (default: the core count).
"""
import argparse
import concurrent.futures as cf
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HANG = 124


def linux_hv(k, a):
    runs = [f"hog {k}", "bartest 2 2000 futex", "bartest 2 2000 mutex",
            "blockbench pipe 2000", "blockbench sleep 200 1000"]
    argv = [sys.executable, "tools/linux/boot-bare.py", "--emu", "hv", "--cpus", "2",
            "--hv", a.hv, "--timeout", str(a.timeout)]
    for r in runs:
        argv += ["--run", r]
    return argv


def linux_steal(k, a):
    cmdline = f"{a.hv_cmdline} pad={'x' * k}".strip()
    return [sys.executable, "tools/linux/stealtest.py", "--hv", a.hv, "--ms", str(2000 + 10 * k),
            "--cmdline", cmdline]


def guest_multi(k, a):
    argv = [sys.executable, "guest-shim/tests/run_hv.py", "-k", "+", "--seed", str(k),
            "--timeout", str(a.timeout), "--hv", a.hv]
    return argv + (["--cmdline", a.hv_cmdline] if a.hv_cmdline else [])


SUITES = {"linux-hv": linux_hv, "linux-steal": linux_steal, "guest-multi": guest_multi}


def run_one(suite, k, a):
    argv = SUITES[suite](k, a)
    cmd = " ".join(shlex.quote(x) for x in argv)
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=REPO, capture_output=True, text=True,
                           timeout=a.timeout * 3 + 120)
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out = HANG, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
            else (e.stdout or "")
    wall = time.monotonic() - t0
    hung = rc == HANG or "hvrun exit status 124" in out or "(hvrun 124)" in out
    verdict = "pass" if rc == 0 else "hang" if hung else "fail"
    log = None
    if verdict != "pass":
        log = Path(a.logs) / f"{suite}-{k}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(out)
    return suite, k, verdict, wall, cmd, log


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50, help="runs per suite")
    ap.add_argument("--suites", default=",".join(SUITES), help="comma list of " +
                    ", ".join(SUITES))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--hv", default="build/hv.elf")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per emulator run")
    ap.add_argument("--logs", default="build/stress", help="where failing runs' output goes")
    ap.add_argument("--hv-cmdline", default="", help="hypervisor options for the linux-steal "
                    "and guest-multi runs (e.g. vnmi=off)")
    a = ap.parse_args()
    suites = [s for s in a.suites.split(",") if s]
    for s in suites:
        if s not in SUITES:
            ap.error(f"unknown suite {s!r} (known: {', '.join(SUITES)})")
    # Interleaved (run 1 of each suite, then run 2, ...): a stress cut short
    # still has about as many runs of every suite.
    work = [(s, k) for k in range(1, a.runs + 1) for s in suites]
    counts = {s: {"pass": 0, "fail": 0, "hang": 0} for s in suites}
    t0 = time.monotonic()
    print(f"stress: {len(work)} runs ({a.runs} per suite: {', '.join(suites)}), "
          f"{a.jobs} at a time", flush=True)
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = [ex.submit(run_one, s, k, a) for s, k in work]
        for i, f in enumerate(cf.as_completed(futs), 1):
            suite, k, verdict, wall, cmd, log = f.result()
            counts[suite][verdict] += 1
            left = (time.monotonic() - t0) / i * (len(work) - i)
            print(f"stress: [{i}/{len(work)}] {suite} run {k}: {verdict} ({wall:.0f} s)"
                  f"{'' if verdict == 'pass' else f'  log {log}  replay: {cmd}'}"
                  f"  | ~{left / 60:.0f} min left", flush=True)
    bad = 0
    for s in suites:
        c = counts[s]
        bad += c["fail"] + c["hang"]
        print(f"stress: {s}: {c['pass']} pass, {c['fail']} fail, {c['hang']} hang")
    print(f"stress: {len(work) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
