#!/usr/bin/env python3
"""System-test runner: the one entry point for tests that boot the hypervisor
through tools/hvrun. Cases are tools/hvrun_lib/systest.py's: TOML specs (one
file per test) and the suites of Python case modules (SUITES). Runs at most 2
at a time, prints one PASS/FAIL line per case with its wall time, then
`<suite>: N passed, N failed` (once per --apicv pass).

usage: run.py [--suite NAME] [--emu qemu|bochs] [-k SUB[,SUB...]] [-j N] [--hv ELF]
              [--cmdline OPTS] [--apicv on,off] [--timeout S] [suite options]
              [SPEC.toml|DIR ...]
  default:          every test/system/*.toml (make test-system)
  SPEC.toml, DIR:   those specs (a DIR: its *.toml), e.g. test/system/linux/
  --suite guest-hv: the guest images (guest-shim/tests/guest_cases.py;
                    make test-guest-hv, guest-shim/tests/run_hv.py)
  --suite vprof:    vProfile's scenarios (test/vprof/vprof_cases.py;
                    make test-vprof-system, test/vprof/system_test.py)
A case module defines cases(opts) -> [systest.Case] and may define
add_arguments(group) for its own options.
Logs: build/system/<suite>/[<pass>/]<name>.out (hvrun's output), .serial, .run/.
"""
import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / 'tools'))
from hvrun_lib import systest  # noqa: E402

# Suites defined by a Python case module: cases(opts) -> [systest.Case].
# name -> (module, default -j)
SUITES = {'guest-hv': (REPO / 'guest-shim' / 'tests' / 'guest_cases.py', 1),
          'vprof': (REPO / 'test' / 'vprof' / 'vprof_cases.py', 1)}
MODULES = {}


def suite_module(name):
    if name not in MODULES:
        MODULES[name] = load_module(SUITES[name][0])
    return MODULES[name]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--suite', choices=sorted(SUITES), help='a Python case module')
    p.add_argument('--emu', choices=('qemu', 'bochs'), help='only these (specs); the '
                   "emulator (case modules' default: bochs)")
    p.add_argument('-k', dest='match', default='',
                   help='only cases whose name contains this (a comma list: any of them)')
    p.add_argument('-j', '--jobs', type=int, help='cases at once (at most 2)')
    p.add_argument('--hv', default=str(REPO / 'build' / 'hv.elf'))
    p.add_argument('--out', help='log directory (default build/system[/SUITE])')
    p.add_argument('--cmdline', default='', help='hypervisor options put before each case\'s')
    p.add_argument('--apicv', default='', help='comma list: one pass per apicv= value')
    p.add_argument('--timeout', type=int, help="seconds per case of a case module "
                   "(its default: guest-hv 300, vprof 600)")
    g = p.add_argument_group('options of case modules')
    for name in sorted(SUITES):
        add = getattr(suite_module(name), 'add_arguments', None)
        if add:
            add(g)
    p.add_argument('specs', nargs='*', help='spec files or directories (default: '
                   'test/system/*.toml)')
    return p.parse_args(argv)


def load_module(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_cases(opts):
    """(suite name, cases, [(name, error)] of bad specs, default jobs)."""
    if opts.suite:
        path, jobs = SUITES[opts.suite]
        return opts.suite, suite_module(opts.suite).cases(opts), [], jobs
    paths = []
    for s in opts.specs or [str(HERE)]:
        s = Path(s)
        paths += sorted(s.glob('*.toml')) if s.is_dir() else [s]
    cases, bad = systest.load_tomls(paths)
    return 'system', cases, bad, systest.MAX_JOBS


def main(argv=None):
    opts = parse_args(argv)
    suite, cases, bad, jobs = load_cases(opts)
    cases = [c for c in cases if (not opts.emu or c.emu == opts.emu) and
             any(k in c.name for k in opts.match.split(','))]
    out = Path(opts.out or REPO / 'build' / 'system' / ('' if suite == 'system' else suite))
    out.mkdir(parents=True, exist_ok=True)
    if not systest.prebuild(cases):
        print(f'{suite}: 0 passed, {len(cases) + len(bad)} failed')
        return 1
    for name, why in bad:
        print(f'FAIL {name}: bad spec: {why}', flush=True)
    passes = [f'apicv={m} {opts.cmdline}'.strip() for m in opts.apicv.split(',')] \
        if opts.apicv else [opts.cmdline]
    items = [(c.with_cmdline(p), out / systest.file_name(p) if len(passes) > 1 else out)
             for p in passes for c in cases]
    results = systest.run_all(items, opts.hv, opts.jobs or jobs)
    (out / 'timings.txt').write_text(''.join(f'{r.case.name} {r.secs:.1f}\n' for r in results))
    failed_any = bool(bad) or not (cases or bad)
    for i, p in enumerate(passes):
        rs = results[i * len(cases):(i + 1) * len(cases)]
        nbad = sum(1 for r in rs if r.problems) + (len(bad) if i == 0 else 0)
        failed_any |= nbad > 0
        label = f' [{p}]' if p else ''
        print(f'{suite}{label}: {len(rs) - sum(1 for r in rs if r.problems)} passed, '
              f'{nbad} failed')
    return 1 if failed_any else 0


if __name__ == '__main__':
    sys.exit(main())
