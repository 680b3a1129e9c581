"""System tests: one case format and one runner for every test that boots the
hypervisor through tools/hvrun (test/system/run.py is the entry point).

A case says how to boot (emulator, CPUs, memory, hypervisor command line,
VMs, extra hvrun arguments) and how to judge the run:
  status  hvrun's exit status the case wants (0 pass, 1 test failure, ...);
          None: any but 2 (panic), 124 (timeout) and 125 (emulator);
  expect / reject   serial-line regexes hvrun itself checks (its status
          then says whether they held);
  judge   optional Python check judge(serial, status) -> list of problems
          (empty: passed), for what regexes cannot say (counts, decoded
          dumps).
Cases come from TOML specs (Case.from_toml; format in docs/running.md
"System tests") or from a Python case module that returns Case objects
(guest-shim/tests/guest_cases.py). Adding a system test is one spec file,
or one entry in such a module when it needs a Python judge.
"""
import re
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[2]
HVRUN = REPO / 'tools' / 'hvrun'
MAX_JOBS = 2        # 2 host cores shared by everyone
HVRUN_SLACK = 120   # seconds hvrun may take beyond a case's timeout (ISO build)
BAD_STATUS = (2, 124, 125)   # panic, timeout, emulator failure

TOML_KEYS = {'description': str, 'emu': str, 'firmware': str, 'cpus': int, 'mem': str,
             'cmdline': str, 'timeout': (int, float), 'status': int, 'expect': list,
             'expect_per_cpu': list, 'reject': list, 'vm': list, 'hvrun_args': list,
             'make': list}
VM_KEYS = {'string': str, 'image': str, 'initrd': str}
STATUS_NAMES = {'pass': 0, 'test-failure': 1, 'panic': 2, 'no-vtx': 3}


class SpecError(ValueError):
    pass


@dataclass
class Vm:
    string: str                  # the module string (kind=..., vcpus=..., cmdline="...")
    image: str                   # path, relative to the repository or absolute
    initrd: Optional[str] = None


@dataclass
class Case:
    name: str
    emu: str = 'bochs'
    firmware: str = 'bios'
    cpus: int = 1
    mem: str = '256M'
    cmdline: str = ''
    timeout: Optional[float] = None      # hvrun's default: qemu 60, bochs 300
    vms: List[Vm] = field(default_factory=list)
    hvrun_args: List[str] = field(default_factory=list)
    status: Optional[int] = 0
    expect: List[str] = field(default_factory=list)
    reject: List[str] = field(default_factory=list)
    judge: Optional[Callable[[str, int], List[str]]] = None
    make: List[str] = field(default_factory=list)
    description: str = ''

    @classmethod
    def from_toml(cls, path):
        """A test/system/*.toml spec (one file per test)."""
        path = Path(path)
        with open(path, 'rb') as f:
            try:
                d = tomllib.load(f)
            except tomllib.TOMLDecodeError as e:
                raise SpecError(f'{path}: {e}') from None
        for k, v in d.items():
            if k not in TOML_KEYS:
                raise SpecError(f'{path}: unknown key {k!r}')
            if not isinstance(v, TOML_KEYS[k]):
                raise SpecError(f'{path}: {k} has the wrong type')
        for k in ('emu', 'status'):
            if k not in d:
                raise SpecError(f'{path}: {k} is required')
        if d['emu'] not in ('qemu', 'bochs'):
            raise SpecError(f'{path}: emu is qemu or bochs')
        for vm in d.get('vm', []):
            if set(vm) - set(VM_KEYS) or 'string' not in vm or 'image' not in vm:
                raise SpecError(f'{path}: [[vm]] takes string, image, initrd')
        cpus = d.get('cpus', 1)
        expect = list(d.get('expect', []))
        for tmpl in d.get('expect_per_cpu', []):
            expect += [tmpl.replace('{cpu}', str(i)) for i in range(cpus)]
        expect = [e.replace('{cpus}', str(cpus)) for e in expect]
        return cls(name=path.stem, emu=d['emu'], firmware=d.get('firmware', 'bios'), cpus=cpus,
                   mem=d.get('mem', '256M'), cmdline=d.get('cmdline', ''),
                   timeout=d.get('timeout'), status=d['status'], expect=expect,
                   reject=list(d.get('reject', [])),
                   vms=[Vm(v['string'], v['image'], v.get('initrd')) for v in d.get('vm', [])],
                   hvrun_args=list(d.get('hvrun_args', [])), make=list(d.get('make', [])),
                   description=d.get('description', ''))

    def with_cmdline(self, extra):
        """This case with `extra` before its own hypervisor options (a pass)."""
        if not extra:
            return self
        c = Case(**self.__dict__)
        c.cmdline = ' '.join(x for x in (extra, self.cmdline) if x)
        return c

    def hvrun_argv(self, hv, repo=REPO):
        """tools/hvrun's arguments for this case (no logging options); VM
        images are relative to `repo`."""
        args = ['--emu', self.emu, '--firmware', self.firmware, '--cpus', str(self.cpus),
                '--mem', self.mem, '--cmdline', self.cmdline, '--hv', str(hv)]
        if self.timeout is not None:
            args += ['--timeout', str(self.timeout)]
        for e in self.expect:
            args += ['--expect', e]
        for r in self.reject:
            args += ['--reject', r]
        for vm in self.vms:
            args += ['--vm', vm.string, '--image', str(Path(repo) / vm.image)]
            if vm.initrd:
                args += ['--initrd', str(Path(repo) / vm.initrd)]
        return args + list(self.hvrun_args)


@dataclass
class Result:
    case: Case
    status: Optional[int]       # hvrun's exit status, None if the harness killed it
    problems: List[str]
    secs: float
    serial: str
    out: Path                   # hvrun's own output


def file_name(name):
    return re.sub(r'[^A-Za-z0-9_.=+-]+', '_', name).strip('_')


def load_tomls(paths):
    """(cases, [(name, error)]) of the given spec files."""
    cases, bad = [], []
    for p in paths:
        try:
            cases.append(Case.from_toml(p))
        except (SpecError, OSError) as e:
            bad.append((Path(p).stem, str(e)))
    return cases, bad


def prebuild(cases):
    """Run the make targets the cases need (guest images), once each."""
    targets = sorted({t for c in cases for t in c.make})
    if not targets:
        return True
    p = subprocess.run(['make', '--no-print-directory'] + targets, cwd=REPO,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        print(f'FAIL make {" ".join(targets)} (exit {p.returncode}):\n{p.stdout[-3000:]}')
    return p.returncode == 0


def run_case(case, hv, out_dir):
    """Boot one case through tools/hvrun and judge it."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = out_dir / file_name(case.name)
    serial_log = Path(f'{base}.serial')
    if serial_log.exists():
        serial_log.unlink()
    argv = [sys.executable, str(HVRUN), '--quiet', '--serial-log', str(serial_log),
            '--workdir', f'{base}.run'] + case.hvrun_argv(hv)
    # hvrun enforces the case's timeout; this only guards against hvrun itself.
    limit = (case.timeout or 300) + HVRUN_SLACK
    t0 = time.monotonic()
    with open(f'{base}.out', 'w') as log:
        try:
            status = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=REPO, timeout=limit).returncode
        except subprocess.TimeoutExpired:
            log.write(f'harness: hvrun still running after {limit} s; killed\n')
            status = None
    secs = time.monotonic() - t0
    serial = serial_log.read_text(errors='replace') if serial_log.exists() else ''
    problems = []
    if case.status is None and (status is None or status in BAD_STATUS):
        problems.append(f'hvrun status {status}')   # nothing to judge
    elif case.status is not None and status != case.status:
        problems.append(f'hvrun exit {status}, want {case.status}')
    elif case.judge:
        problems += case.judge(serial, status)
    return Result(case, status, problems, secs, serial, Path(f'{base}.out'))


def explain(r):
    """The lines that say why: the problems, hvrun's verdict, the serial tail."""
    said = r.out.read_text(errors='replace').splitlines() if r.out.exists() else []
    lines = [f'    {p}' for p in r.problems] + [f'    {ln}' for ln in said[-25:]]
    return lines + [f'    | {ln}' for ln in r.serial.splitlines()[-12:]]


def run_all(items, hv, jobs=MAX_JOBS):
    """Run (case, log directory) items, at most `jobs` (<= MAX_JOBS) at a
    time; one PASS/FAIL line each, in the items' order. Returns the results."""
    jobs = max(1, min(jobs, MAX_JOBS))
    results = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_case, c, hv, d) for c, d in items]
        for (c, _), fut in zip(items, futures):
            r = fut.result()
            results.append(r)
            ok = not r.problems
            opts = f'  [{c.cmdline}]' if c.cmdline else ''
            print(f'{"PASS" if ok else "FAIL"} {c.name} ({r.secs:.1f} s; hvrun exit '
                  f'{r.status}){opts}', flush=True)
            if not ok:
                print('\n'.join(explain(r)), flush=True)
    return results


# Helpers for Python judges.
FAIL_LINE = re.compile(r'TEST (\S+) FAIL')


def failed_tests(serial):
    """['FAIL name', ...] for every `TEST name FAIL` line."""
    return [f'FAIL {n}' for n in FAIL_LINE.findall(serial)]


def summary_passed(serial, test):
    return re.search(rf'SUMMARY {test} passed=\d+ failed=0', serial) is not None
