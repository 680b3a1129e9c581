"""Unit tests of the system-test case library (tools/hvrun_lib/systest.py):
the TOML spec reader, the runner's judgement, and that every suite loads."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, '..', '..')
sys.path.insert(0, os.path.join(REPO, 'tools'))
sys.path.insert(0, os.path.join(REPO, 'test', 'system'))
from hvrun_lib import systest  # noqa: E402
from hvrun_lib.systest import Case, SpecError  # noqa: E402
import run  # noqa: E402  test/system/run.py

GOOD = """
emu = "bochs"
cpus = 3
status = 0
cmdline = 'sched=credit note="a b"'
expect = ['^smp: {cpus} of {cpus} CPUs online$']
expect_per_cpu = ['^smp: cpu{cpu} online apic=\\d+$', 'x{2}']
reject = ['^WARN']
hvrun_args = ["--ips", "20000000"]
[[vm]]
string = 'kind=multiboot cmdline="x y"'
image = "build/g.elf"
initrd = "build/i"
"""


def spec_from(text):
    with tempfile.NamedTemporaryFile('w', suffix='.toml', delete=False) as f:
        f.write(text)
    try:
        return Case.from_toml(f.name)
    finally:
        os.unlink(f.name)


class SpecTest(unittest.TestCase):
    def test_expects_expand_per_cpu(self):
        s = spec_from(GOOD)
        self.assertEqual(s.expect, ['^smp: 3 of 3 CPUs online$',
                                       '^smp: cpu0 online apic=\\d+$', '^smp: cpu1 online apic=\\d+$',
                                       '^smp: cpu2 online apic=\\d+$', 'x{2}', 'x{2}', 'x{2}'])

    def test_hvrun_args(self):
        a = spec_from(GOOD).hvrun_argv('/repo/build/hv.elf', repo='/repo')
        self.assertEqual(a[:12], ['--emu', 'bochs', '--firmware', 'bios', '--cpus', '3',
                                  '--mem', '256M', '--cmdline', 'sched=credit note="a b"',
                                  '--hv', '/repo/build/hv.elf'])
        i = a.index('--vm')
        self.assertEqual(a[i:i + 6], ['--vm', 'kind=multiboot cmdline="x y"', '--image',
                                      '/repo/build/g.elf', '--initrd', '/repo/build/i'])
        self.assertEqual(a[-2:], ['--ips', '20000000'])
        self.assertIn('--reject', a)

    def test_bad_specs(self):
        for text in ('emu = "qemu"\n',                       # no status
                     'emu = "kvm"\nstatus = 0\n',            # bad emulator
                     'emu = "qemu"\nstatus = 0\ncpu = 2\n',  # unknown key
                     'emu = "qemu"\nstatus = "0"\n',         # wrong type
                     'emu = "qemu"\nstatus = 0\n[[vm]]\nstring = "x"\n',  # no image
                     'emu = = "qemu"\n'):                    # not TOML
            with self.assertRaises(SpecError, msg=text):
                spec_from(text)

    def test_every_spec_loads(self):
        system = os.path.join(REPO, 'test', 'system')
        paths = [os.path.join(d, f) for d, _, fs in os.walk(system) for f in fs
                 if f.endswith('.toml')]
        self.assertGreaterEqual(len(paths), 14)
        for p in paths:
            s = Case.from_toml(p)
            self.assertIn(s.emu, ('qemu', 'bochs'))

    def test_guest_suite_loads(self):
        opts = run.parse_args(['--suite', 'guest-hv'])
        suite, cases, bad, jobs = run.load_cases(opts)
        names = [c.name for c in cases]
        self.assertEqual((suite, bad, jobs), ('guest-hv', [], 1))
        self.assertEqual(len(names), len(set(names)))
        self.assertIn('cpuid.elf:multiboot', names)
        self.assertTrue(all(c.status is None and c.judge for c in cases))
        more = run.load_cases(run.parse_args(['--suite', 'guest-hv', '--all']))[1]
        self.assertGreater(len(more), len(cases))

    def test_default_suite_is_top_level_specs(self):
        suite, cases, bad, _ = run.load_cases(run.parse_args([]))
        self.assertEqual((suite, bad), ('system', []))
        self.assertIn('bochs-bios-2cpu', [c.name for c in cases])
        self.assertNotIn('kvm-pv', [c.name for c in cases])   # test/system/linux/

    def test_pass_cmdline_goes_first(self):
        c = Case(name='x', cmdline='vnmi=on')
        self.assertEqual(c.with_cmdline('apicv=off').cmdline, 'apicv=off vnmi=on')
        self.assertEqual(c.with_cmdline('').cmdline, 'vnmi=on')
        self.assertEqual(c.cmdline, 'vnmi=on')


class JudgeTest(unittest.TestCase):
    """run_case's verdict, with hvrun replaced by a script that prints a
    serial log and exits with a given status."""

    def run_with(self, case, status, serial):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, 'hvrun')
            with open(fake, 'w') as f:
                f.write('import sys\n'
                        'a = sys.argv\n'
                        f'open(a[a.index("--serial-log") + 1], "w").write({serial!r})\n'
                        f'sys.exit({status})\n')
            old = systest.HVRUN
            systest.HVRUN = fake
            try:
                return systest.run_case(case, '/nonexistent/hv.elf', d)
            finally:
                systest.HVRUN = old

    def test_status(self):
        self.assertEqual(self.run_with(Case(name='a'), 0, '').problems, [])
        self.assertEqual(self.run_with(Case(name='a'), 1, '').problems,
                         ['hvrun exit 1, want 0'])
        self.assertEqual(self.run_with(Case(name='a', status=1), 1, '').problems, [])

    def test_judge(self):
        def judge(serial, status):
            return systest.failed_tests(serial) + \
                ([] if systest.summary_passed(serial, 'g') else ['no SUMMARY'])
        c = Case(name='g', status=None, judge=judge)
        self.assertEqual(self.run_with(c, 0, 'SUMMARY g passed=3 failed=0\n').problems, [])
        self.assertEqual(self.run_with(c, 1, 'TEST x FAIL\n').problems,
                         ['FAIL x', 'no SUMMARY'])
        # A panic or timeout fails without the judge.
        self.assertEqual(self.run_with(c, 124, 'SUMMARY g passed=3 failed=0\n').problems,
                         ['hvrun status 124'])


if __name__ == '__main__':
    unittest.main()
