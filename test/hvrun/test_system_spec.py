"""Unit tests of the system-test spec reader (test/system/spec.py)."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'system'))
from spec import Spec, SpecError  # noqa: E402

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
        return Spec(f.name)
    finally:
        os.unlink(f.name)


class SpecTest(unittest.TestCase):
    def test_expects_expand_per_cpu(self):
        s = spec_from(GOOD)
        self.assertEqual(s.expects(), ['^smp: 3 of 3 CPUs online$',
                                       '^smp: cpu0 online apic=\\d+$', '^smp: cpu1 online apic=\\d+$',
                                       '^smp: cpu2 online apic=\\d+$', 'x{2}', 'x{2}', 'x{2}'])

    def test_hvrun_args(self):
        a = spec_from(GOOD).hvrun_args('/repo', '/repo/build/hv.elf')
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

    def test_issue2_specs_load(self):
        system = os.path.join(HERE, '..', 'system')
        names = sorted(f for f in os.listdir(system) if f.endswith('.toml'))
        self.assertGreaterEqual(len(names), 5)
        for n in names:
            s = Spec(os.path.join(system, n))
            self.assertIn(s.emu, ('qemu', 'bochs'))


if __name__ == '__main__':
    unittest.main()
