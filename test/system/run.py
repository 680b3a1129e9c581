#!/usr/bin/env python3
"""System-test harness: boots every test/system/*.toml spec through tools/hvrun
(at most 2 at a time), compares hvrun's exit status with the spec's, prints one
PASS/FAIL line per spec with its wall time, then `system: N passed, N failed`.

usage: run.py [--emu qemu|bochs] [-k SUBSTRING] [-j N] [--hv ELF] [SPEC...]
Logs: build/system/<name>.out (hvrun's output), <name>.serial, <name>.run/.
"""
import argparse
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
from spec import Spec, SpecError  # noqa: E402

HVRUN = REPO / 'tools' / 'hvrun'
MAX_JOBS = 2        # 2 host cores shared by everyone
HVRUN_SLACK = 120   # seconds hvrun may take beyond a spec's timeout (ISO build)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--emu', choices=('qemu', 'bochs'))
    p.add_argument('-k', dest='match', help='only specs whose name contains this')
    p.add_argument('-j', dest='jobs', type=int, default=MAX_JOBS)
    p.add_argument('--hv', default=str(REPO / 'build' / 'hv.elf'))
    p.add_argument('--out', default=str(REPO / 'build' / 'system'))
    p.add_argument('specs', nargs='*', help='spec files (default: all)')
    return p.parse_args(argv)


def load_specs(opts):
    paths = [Path(s) for s in opts.specs] or sorted(HERE.glob('*.toml'))
    specs, bad = [], []
    for path in paths:
        try:
            s = Spec(path)
        except (SpecError, OSError) as e:
            bad.append((path.stem, str(e)))
            continue
        if opts.emu and s.emu != opts.emu:
            continue
        if opts.match and opts.match not in s.name:
            continue
        specs.append(s)
    return specs, bad


def prebuild(specs):
    """Run the make targets the specs need (guest images), once each."""
    targets = sorted({t for s in specs for t in s.d.get('make', [])})
    if not targets:
        return True
    p = subprocess.run(['make', '--no-print-directory'] + targets, cwd=REPO,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        print(f'FAIL make {" ".join(targets)} (exit {p.returncode}):\n{p.stdout[-3000:]}')
    return p.returncode == 0


def run_one(spec, opts):
    out = Path(opts.out)
    argv = [sys.executable, str(HVRUN), '--prefix', '| ',
            '--serial-log', str(out / f'{spec.name}.serial'),
            '--workdir', str(out / f'{spec.name}.run')] + spec.hvrun_args(REPO, opts.hv)
    t0 = time.monotonic()
    # hvrun enforces the spec's timeout; this only guards against hvrun itself.
    limit = spec.d.get('timeout', 300) + HVRUN_SLACK
    with open(out / f'{spec.name}.out', 'w') as log:
        try:
            rc = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=REPO, timeout=limit).returncode
        except subprocess.TimeoutExpired:
            log.write(f'harness: hvrun still running after {limit} s; killed\n')
            rc = None
    return rc, time.monotonic() - t0


def explain(spec, opts):
    """The lines that say why: hvrun's verdict, the emulator's errors, the tail."""
    text = (Path(opts.out) / f'{spec.name}.out').read_text(errors='replace').splitlines()
    said = [ln for ln in text if not ln.startswith('| ')]
    serial = [ln for ln in text if ln.startswith('| ')][-12:]
    return [f'    {ln}' for ln in said[-25:] + serial]


def main(argv=None):
    opts = parse_args(argv)
    Path(opts.out).mkdir(parents=True, exist_ok=True)
    specs, bad = load_specs(opts)
    passed = failed = 0
    if not prebuild(specs):
        print(f'system: 0 passed, {len(specs) + len(bad)} failed')
        return 1
    for name, why in bad:
        print(f'FAIL {name}: bad spec: {why}', flush=True)
        failed += 1
    jobs = max(1, min(opts.jobs, MAX_JOBS))
    timings = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [(s, pool.submit(run_one, s, opts)) for s in specs]
        for s, fut in futures:
            rc, secs = fut.result()
            ok = rc == s.status
            passed, failed = passed + ok, failed + (not ok)
            timings.append(f'{s.name} {secs:.1f}')
            print(f'{"PASS" if ok else "FAIL"} {s.name} ({secs:.1f} s; hvrun exit {rc}, '
                  f'want {s.status})', flush=True)
            if not ok:
                print('\n'.join(explain(s, opts)), flush=True)
    (Path(opts.out) / 'timings.txt').write_text('\n'.join(timings) + '\n')
    print(f'system: {passed} passed, {failed} failed')
    return 1 if failed or not (specs or bad) else 0


if __name__ == '__main__':
    sys.exit(main())
