#!/usr/bin/env python3
"""Run the libFuzzer harnesses (build/fuzz/fuzz_<name>) for a budget each.

usage: run.py [--seconds S] [--runs N] [--corpus DIR] [--artifacts DIR] BIN...

Each harness runs on DIR/<name> (seeds from test/fuzz/seeds.py plus what
earlier runs found), for S seconds or N executions, whichever comes first.
Prints one line per harness with its executions, speed and corpus size, and
for a crash the input libFuzzer saved and the command that replays it.
Exit status 1 if any harness crashed (or did not run).
"""
import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

MAX_LEN = {"decode": 32, "cmdline": 4096, "modstr": 2048, "bootinfo": 8192, "acpi": 16384,
           "mptable": 4096, "mb1": 65536, "bzimage": 65536, "gwalk": 65536}


def run_one(binary, a):
    name = Path(binary).name.removeprefix("fuzz_")
    corpus = Path(a.corpus) / name
    corpus.mkdir(parents=True, exist_ok=True)
    art = Path(a.artifacts)
    art.mkdir(parents=True, exist_ok=True)
    argv = [binary, f"-max_total_time={a.seconds}", f"-max_len={MAX_LEN.get(name, 4096)}",
            f"-artifact_prefix={art}/{name}-", "-print_final_stats=1", "-timeout=20",
            "-rss_limit_mb=2048", str(corpus)]
    if a.runs:
        argv.insert(1, f"-runs={a.runs}")
    if a.seed:
        argv.insert(1, f"-seed={a.seed}")
    t0 = time.time()
    log = art / f"{name}.log"       # a file, not memory: a chatty target cannot exhaust us
    with open(log, "wb") as f:
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=f)
    dt = time.time() - t0
    with open(log, "rb") as f:
        f.seek(max(0, log.stat().st_size - (1 << 20)))
        err = f.read().decode(errors="replace")
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", err)
    execs = int(m.group(1)) if m else 0
    if not m:
        m = re.findall(r"#(\d+)\s", err)
        execs = int(m[-1]) if m else 0
    files = sum(1 for _ in corpus.iterdir())
    crash = re.findall(r"Test unit written to (\S+)", err)
    ok = p.returncode == 0 and not crash
    rate = execs / dt if dt > 0 else 0
    print(f"  {name:9s} {'ok   ' if ok else 'CRASH'} {execs:>11,d} execs {dt:7.1f}s "
          f"{rate:>9,.0f}/s  corpus {files}", flush=True)
    if not ok:
        lines = [ln for ln in err.splitlines() if "ERROR" in ln or "fuzz:" in ln or
                 "SUMMARY" in ln or ln.startswith("    #")][:20]
        for ln in lines:
            print(f"      | {ln}")
        for c in crash:
            print(f"      replay: {binary} {c}")
        if not crash:
            print(f"      (status {p.returncode}) " + " ".join(err.splitlines()[-3:]))
    return ok, execs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--runs", type=int, default=0, help="stop a harness after N executions")
    ap.add_argument("--seed", type=int, default=0,
                    help="libFuzzer's -seed (0: a new one per run); a fixed seed and --runs "
                         "repeat a run exactly on the same corpus")
    ap.add_argument("--corpus", default="build/fuzz/corpus")
    ap.add_argument("--artifacts", default="build/fuzz/crashes")
    ap.add_argument("bins", nargs="+")
    a = ap.parse_args()
    print(f"fuzz-host: {len(a.bins)} harnesses, {a.seconds} s"
          f"{f' or {a.runs} runs' if a.runs else ''} each", flush=True)
    results = [run_one(b, a) for b in a.bins]
    bad = sum(1 for ok, _ in results if not ok)
    total = sum(e for _, e in results)
    print(f"fuzz-host: {len(results) - bad} harnesses ok, {bad} crashed, {total:,d} executions")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
