#!/usr/bin/env python3
"""Run one tools/hvrun command twice at once and require byte-identical
serial logs and the same Bochs instruction count (hvrun's own lines go to
stderr and are not compared). On a difference it prints the first differing
lines and the command that replays the run.

usage: run_twice.py NAME -- HVRUN-ARGS...      (e.g. --emu bochs --cpus 2 --vm ...)
`make test-determinism` (in make test): two VMs, 6 vCPUs on 2 pCPUs, ~25 s.
`make test-linux-determinism` (in make test, ~1 min): the 2-vCPU Linux
bartest command of issue 17, trimmed for time (mk/determinism.mk).
"""
import concurrent.futures
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TICKS = re.compile(r'bochs ran (\d+) ticks')


def run(args, log):
    argv = [sys.executable, str(REPO / 'tools' / 'hvrun'), '--quiet', '--serial-log', str(log)]
    p = subprocess.run(argv + args, capture_output=True, text=True)
    m = TICKS.search(p.stderr)
    return p.returncode, log.read_bytes() if log.exists() else b'', m[1] if m else None, p.stderr


def main(argv):
    if len(argv) < 3 or argv[2] != '--':
        print(__doc__)
        return 64
    name, args = argv[1], argv[3:]
    replay = 'tools/hvrun ' + ' '.join(shlex.quote(a) for a in args)
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix='det-') as d:
        logs = [Path(d) / f'run{i}.log' for i in (1, 2)]
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            res = list(ex.map(lambda lg: run(args, lg), logs))
    (rc1, s1, t1, e1), (rc2, s2, t2, e2) = res
    bad = []
    if rc1 != 0 or rc2 != 0:
        bad.append(f'hvrun status {rc1} and {rc2} (want 0 and 0)')
    if s1 != s2:
        a, b = s1.decode(errors='replace').splitlines(), s2.decode(errors='replace').splitlines()
        i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
        ndiff = sum(1 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))
        bad.append(f'serial logs differ: {ndiff} lines, first at line {i + 1}:')
        bad += [f'  run 1: {ln}' for ln in a[i:i + 3]] + [f'  run 2: {ln}' for ln in b[i:i + 3]]
    if t1 != t2:
        bad.append(f'Bochs instruction counts differ: {t1} and {t2}')
    lines = len(s1.splitlines())
    print(f'  determinism {name}: {"ok " if not bad else "BAD"} {time.time() - t0:.1f}s '
          f'({lines} serial lines, {t1} Bochs ticks, twice)')
    for b in bad:
        print(f'      {b}')
    if bad:
        print(f'      replay: {replay}')
        for ln in (e1 + e2).splitlines()[-10:]:
            print(f'      | {ln}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
