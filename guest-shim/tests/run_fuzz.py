#!/usr/bin/env python3
"""make fuzz: the hostile guest's fuzz mode (hvfuzz, 2 vCPUs) beside a victim
VM under the hypervisor in Bochs (3 CPUs), seed after seed for a time budget.

Each run boots hv.elf on 3 emulated CPUs with
  VM 0 "fuzz":   hvfuzz (32-bit or 64-bit build), vcpus=2 pcpus=0,1,
                 cmdline "seed=N ops=OPS [triple=1]"
  VM 1 "victim": timer.elf (or --victim), 1 vCPU alone on pCPU 2
and the hypervisor's apicv= on or off. Seed N picks the build, apicv= and
whether the run ends in a triple fault, so one number reproduces a run.

A hypervisor failure is any of: hvrun status 2 (panic), 124 (timeout) or
125 (emulator); the fuzz VM ended other than by its own exit (or by the
triple fault it asked for), e.g. a VM-entry failure or an unhandled exit; a
"TEST hvfuzz_* FAIL" line (the hypervisor emulated something wrongly); the
victim not passing or its TEST lines differing from a run of it alone.

Prints per run one line; at the end the seeds run, the fuzz VM's exits
handled per second (wall clock and emulated), and every failure with the
command that reproduces it. Exit status 1 if any failure.

usage: run_fuzz.py [--minutes M] [--seed S] [--count N] [--ops N] [-j JOBS]
                   [--form 32|64|both] [--apicv on|off|both] [--no-triple]
"""
import argparse
import concurrent.futures
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GUEST = REPO / "build" / "guest"
SUMMARY = re.compile(r"summary: (\S+) status=(-?\d+) reason=(.*?) exits=(\d+) (ok|FAILED)")
TEST = re.compile(r"\[(\w+)\] TEST (\S+) (PASS|FAIL)")
EMULATED = re.compile(r"\(([\d.]+) s emulated")


def run_config(seed, a):
    form = {"32": ".elf", "64": "-64.elf"}
    forms = ["64", "32"] if a.form == "both" else [a.form]
    modes = ["on", "off"] if a.apicv == "both" else [a.apicv]
    f = forms[seed % len(forms)]
    m = modes[(seed // len(forms)) % len(modes)]
    triple = not a.no_triple and seed % 5 == 4
    return GUEST / f"hvfuzz{form[f]}", f, m, triple


def hvrun_argv(log, vms, apicv, a):
    argv = [sys.executable, str(REPO / "tools" / "hvrun"), "--emu", "bochs", "--cpus", "3",
            "--quiet", "--serial-log", str(log), "--timeout", str(a.timeout),
            "--cmdline", f"loglvl=info apicv={apicv}"]
    for string, img in vms:
        argv += ["--vm", string, "--image", str(img)]
    return argv


def boot(vms, apicv, a):
    with tempfile.TemporaryDirectory(prefix="hvfuzz-") as tmp:
        log = Path(tmp) / "serial.log"
        argv = hvrun_argv(log, vms, apicv, a)
        t0 = time.time()
        p = subprocess.run(argv, capture_output=True, text=True, errors="replace")
        serial = log.read_text(errors="replace") if log.exists() else ""
        return p.returncode, serial, p.stderr, time.time() - t0, argv


def keep_serial(seed, serial):
    """The console of a failed run, for the report: build/fuzz/guest/seed-N.log."""
    out = REPO / "build" / "fuzz" / "guest"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"seed-{seed}.log").write_text(serial)
    return out / f"seed-{seed}.log"


def bochs_fails(run_dir):
    """Bochs names the check a failed VM entry broke (docs: emulators.md)."""
    try:
        log = (Path(run_dir) / "bochs.log").read_text(errors="replace")
    except OSError:
        return []
    return sorted(set(re.findall(r"(VMENTER FAIL: .*|VMFAIL.*)", log)))[:3]


def victim_tests(serial, name="victim"):
    return sorted((t, v) for vm, t, v in TEST.findall(serial) if vm == name)


def judge(status, serial, triple, baseline):
    bad = []
    if status in (2, 124, 125):
        bad.append({2: "hypervisor panic", 124: "timeout", 125: "emulator failure"}[status])
    sums = {m.group(1): m for m in SUMMARY.finditer(serial)}
    fz = sums.get("fuzz")
    if not fz:
        bad.append("no summary for the fuzz VM")
    elif fz.group(5) != "ok" and not (triple and fz.group(3) == "triple-fault"):
        bad.append(f"fuzz VM ended status={fz.group(2)} reason={fz.group(3)}")
    elif triple and "hvfuzz: triple fault now" not in serial:
        bad.append("fuzz VM did not reach its triple fault")
    bad += [f"guest check {t} FAIL" for vm, t, v in TEST.findall(serial)
            if vm == "fuzz" and v == "FAIL"]
    vt = victim_tests(serial)
    if not re.search(r"\[victim\] SUMMARY \S+ passed=\d+ failed=0", serial):
        bad.append("victim VM did not pass")
    elif baseline is not None and vt != baseline:
        bad.append(f"victim results differ from its run alone: {vt} vs {baseline}")
    if "PANIC" in serial or "panic:" in serial:
        bad.append("panic line on the console")
    return bad, int(fz.group(4)) if fz else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=20.0, help="time budget")
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("--count", type=int, default=0, help="stop after N seeds (0: budget only)")
    ap.add_argument("--ops", type=int, default=2000, help="ops per vCPU")
    ap.add_argument("--form", default="both", choices=["32", "64", "both"])
    ap.add_argument("--apicv", default="both", choices=["on", "off", "both"])
    ap.add_argument("--no-triple", action="store_true", help="never end in a triple fault")
    ap.add_argument("--victim", default=str(GUEST / "timer.elf"))
    ap.add_argument("--timeout", type=int, default=240, help="per run (hvrun --timeout)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="Bochs runs in parallel")
    a = ap.parse_args()
    victim = ("kind=multiboot vcpus=1 mem=32M pcpus=2 name=victim", Path(a.victim))
    start = time.time()
    deadline = start + a.minutes * 60

    # The victim alone: what its results must be with the attacker beside it.
    st, serial, _, _, _ = boot([victim], "on", a)
    baseline = victim_tests(serial)
    if st != 0 or not baseline:
        print(f"fuzz: the victim alone does not pass (hvrun {st})")
        return 1
    print(f"fuzz: victim alone: {len(baseline)} TEST lines, all "
          f"{'PASS' if all(v == 'PASS' for _, v in baseline) else 'not PASS'}", flush=True)

    lock = threading.Lock()
    state = {"next": a.seed, "runs": 0, "exits": 0, "wall": 0.0, "emu": 0.0, "fails": []}

    def take():
        with lock:
            if time.time() >= deadline or (a.count and state["next"] >= a.seed + a.count):
                return None
            s = state["next"]
            state["next"] += 1
            return s

    def worker():
        while (seed := take()) is not None:
            img, form, apicv, triple = run_config(seed, a)
            cmd = f"seed={seed} ops={a.ops}" + (" triple=1" if triple else "")
            fuzz = (f'kind=multiboot vcpus=2 mem=32M pcpus=0,1 name=fuzz cmdline="{cmd}"', img)
            status, serial, err, wall, argv = boot([fuzz, victim], apicv, a)
            bad, exits = judge(status, serial, triple, baseline)
            m = EMULATED.search(err)
            emu = float(m.group(1)) if m else 0.0
            with lock:
                state["runs"] += 1
                state["exits"] += exits
                state["wall"] += wall
                state["emu"] += emu
                line = (f"  seed {seed:5d} {form}-bit apicv={apicv:3s}{' triple' if triple else '       '}"
                        f" {'ok  ' if not bad else 'FAIL'} exits {exits:6d} {wall:6.1f}s"
                        f" ({exits / wall if wall else 0:6.0f}/s)")
                print(line, flush=True)
                if bad:
                    repro = (f"python3 guest-shim/tests/run_fuzz.py --seed {seed} --count 1 "
                             f"--ops {a.ops} --form {a.form} --apicv {a.apicv}"
                             f"{' --no-triple' if a.no_triple else ''}")
                    hv = " ".join(shlex.quote(x) for x in argv[1:])
                    rd = re.search(r"run files in (\S+)", err)
                    tail = [f"console: {keep_serial(seed, serial)}"] + \
                        ([f"Bochs log: {rd.group(1)}/bochs.log"] + bochs_fails(rd.group(1))
                            if rd else []) + [ln for ln in serial.splitlines()
                            if re.search(r"stopping the VM|ended status|VM entry|PANIC|FAIL", ln)][:6]
                    state["fails"].append((seed, bad, repro, hv, tail))
                    for b in bad:
                        print(f"      {b}", flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for f in [ex.submit(worker) for _ in range(max(1, a.jobs))]:
            f.result()
    n, e = state["runs"], state["exits"]
    print(f"fuzz: {n} seeds run ({a.seed}..{a.seed + n - 1}) in {time.time() - start:.0f} s, "
          f"{e} exits handled in the fuzz VM, "
          f"{e / state['wall'] if state['wall'] else 0:.0f} exits/s of wall time "
          f"({e / state['emu'] if state['emu'] else 0:.0f} per emulated second), "
          f"{len(state['fails'])} hypervisor failures")
    for seed, bad, repro, hv, tail in state["fails"]:
        print(f"FAILURE seed {seed}: {'; '.join(bad)}")
        for ln in tail:
            print(f"    | {ln}")
        print(f"    reproduce: {repro}")
        print(f"    or: tools/hvrun {hv}")
    return 1 if state["fails"] or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
