"""The one bochsrc writer (tools/hvrun_lib/bochsrc.py) gives each of its
three callers the text it wrote before they shared it: the expected files in
test/hvrun/bochsrc/ are the outputs of the callers' own templates on ce0d9f1
for the same inputs. Run: python3 -m unittest (make test-hvrun)."""
import importlib.util
import sys
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXPECT = Path(__file__).resolve().parent / 'bochsrc'
sys.path.insert(0, str(REPO / 'tools'))
from hvrun_lib.bochs import Bochs  # noqa: E402
from hvrun_lib.bochsrc import bochsrc  # noqa: E402


def load(rel, name):
    spec = importlib.util.spec_from_file_location(name, REPO / rel)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Opts:
    mem_mib, bochs_cpu, cpus, ips, bochs_line = 512, None, 2, None, None


class Pty:
    path = '/dev/pts/9'


class Callers(unittest.TestCase):
    def check(self, name, text):
        self.assertEqual(text, (EXPECT / f'{name}.rc').read_text(), name)

    def test_hvrun(self):
        b = Bochs(Opts(), '/w/hv.iso', '/w/run')
        self.check('hvrun', b.rc_text())
        b.serial_pty = Pty()
        self.check('hvrun-pty', b.rc_text())
        o = Opts()
        o.bochs_cpu, o.ips = 'corei7_skylake_x', 50000000
        o.bochs_line = ['cpuid: x2apic=0', 'cpu: something']
        b = Bochs(o, '/w/hv.iso', '/w/run')
        b.serial_pty = Pty()
        self.check('hvrun-opts-pty', b.rc_text())

    def test_guest_bare(self):
        m = load('guest-shim/tests/run_bochs_bare.py', 'run_bochs_bare')
        self.check('guest-bare', m.rc_text('corei7_icelake_u', 4, '/t/g.iso',
                                           '/t/serial.txt', '/t/bochs.log'))

    def test_linux_bare(self):
        m = load('tools/linux/boot-bare.py', 'boot_bare')
        self.check('linux-bare', m.bochsrc_text(128, 'corei7_icelake_u', 2, '/w/linux.iso',
                                                '/w/serial', '/w/bochs.log'))
        self.check('linux-bareload', m.bochsrc_text(512, 'corei7_skylake_x', 1,
                                                    '/w/bareload.iso', '/w/serial',
                                                    '/w/bochs.log'))

    def test_extra_lines_last(self):
        # Bochs takes the last of repeated keys: extra lines must follow the
        # defaults so `--bochs-line "cpuid: ..."` overrides them.
        text = bochsrc(mem=1, iso='i', serial='s', log='l', model='m', cpus=1, ips=1,
                       extra=['clock: sync=realtime'])
        self.assertTrue(text.endswith('clock: sync=none, time0=1\nclock: sync=realtime\n'))


if __name__ == '__main__':
    unittest.main()
