"""Unit tests of tools/hvrun_lib (no emulator): quoting, module strings,
grub.cfg, the serial contract and the verdict. Run: python3 -m unittest."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'tools'))
from hvrun_lib import grubcfg, monitor as M, vms, words as W  # noqa: E402


class Words(unittest.TestCase):
    def test_split_plain_and_quoted(self):
        self.assertEqual(W.split_words('a=1  b="x y"\tc'), ['a=1', 'b=x y', 'c'])
        self.assertEqual(W.split_words("k='a \"b\"' z"), ['k=a "b"', 'z'])
        self.assertEqual(W.split_words(r'a\ b c\"d'), ['a b', 'c"d'])
        self.assertEqual(W.split_words(''), [])
        self.assertEqual(W.split_words('e=""'), ['e='])

    def test_split_errors(self):
        for bad in ('a="x', "a='x", 'a\\'):
            with self.assertRaises(W.WordError):
                W.split_words(bad)

    def test_received_form_matches_grub(self):
        # What grub_create_loader_cmdline() produced in a real GRUB 2.06 boot.
        ws = ['a=1', 'b=x y', 'c="q"', 'd=\\z', "e='s'"]
        self.assertEqual(W.received_form(ws),
                         'a=1 "b=x y" c=\\"q\\" d=\\\\z e=\\\'s\\\'')

    def test_received_form_splits_back(self):
        ws = ['vm=0', 'cmdline=console=ttyS0 init="/bin/sh -c x"', "it's", 'x\\y', '']
        self.assertEqual(W.split_words(W.received_form(ws)), ws[:-1] + [])

    def test_join_words_round_trip(self):
        ws = ['a b', 'q="x"', "it's", 'back\\slash', '', 'tab\there']
        self.assertEqual(W.split_words(W.join_words(ws)), ws)

    def test_grub_quote(self):
        self.assertEqual(W.grub_quote("it's"), "'it'\\''s'")
        self.assertEqual(W.grub_quote('$x;|&'), "'$x;|&'")
        with self.assertRaises(W.WordError):
            W.grub_quote('a\nb')


class Modules(unittest.TestCase):
    def spec(self, text, image='k.elf', initrd=None):
        s = vms.VmSpec(text)
        s.image, s.initrd = image, initrd
        return s

    def test_vm_and_role_come_first(self):
        mods = vms.vm_modules([self.spec('mem=64M kind=multiboot cmdline="a b"')])
        self.assertEqual(mods[0].words, ['vm=0', 'role=kernel', 'mem=64M',
                                         'kind=multiboot', 'cmdline=a b'])

    def test_explicit_vm_and_initrd(self):
        mods = vms.vm_modules([self.spec('kind=linux'),
                               self.spec('role=kernel vm=7 kind=linux', 'bz', 'ird.gz')])
        self.assertEqual([m.words[:2] for m in mods],
                         [['vm=0', 'role=kernel'], ['vm=7', 'role=kernel'],
                          ['vm=7', 'role=initrd']])
        self.assertEqual(mods[2].name, 'vm1-initrd-ird.gz')

    def test_bad_module_strings(self):
        for text in ('vm=x', 'role=disk', 'vm=1 vm=2'):
            with self.assertRaises(W.WordError, msg=text):
                vms.vm_modules([self.spec(text)])
        with self.assertRaises(W.WordError):
            vms.vm_modules([self.spec('kind=x', image=None)])

    def test_safe_names(self):
        self.assertEqual(vms.safe_name(2, 'kernel', '/a/my guest$.elf'),
                         'vm2-kernel-my_guest_.elf')


class GrubCfg(unittest.TestCase):
    def test_render(self):
        mods = vms.vm_modules([VmSpecFactory.make('cmdline="a b"', 'g.elf', 'i')])
        cfg = grubcfg.render(['sched=credit', 'exit=qemu'], mods)
        self.assertIn('set timeout=0\n', cfg)
        self.assertIn('serial --unit=0 --speed=115200', cfg)
        self.assertIn("\tmultiboot2 /boot/hv.elf 'sched=credit' 'exit=qemu'\n", cfg)
        self.assertIn("\tmodule2 --nounzip /boot/vm0-kernel-g.elf 'vm=0' "
                      "'role=kernel' 'cmdline=a b'\n", cfg)
        self.assertIn("\tmodule2 --nounzip /boot/vm0-initrd-i 'vm=0' 'role=initrd'\n", cfg)
        self.assertNotIn('timeout_style=hidden', cfg)   # costs 3 s per boot


class VmSpecFactory:
    @staticmethod
    def make(text, image, initrd=None):
        s = vms.VmSpec(text)
        s.image, s.initrd = image, initrd
        return s


def feed(mon, text):
    for line in text.strip('\n').split('\n'):
        mon.feed(M.clean_line(line))
    return mon


class Contract(unittest.TestCase):
    BOOT = 'hv: research hypervisor v0.1-3-gabc\nsmp: cpu0 online apic=0\n'

    def test_clean_line(self):
        self.assertEqual(M.clean_line(b'\x1b[H\x1b[J\x1b[1;1Hhv: x\r'), 'hv: x')
        self.assertEqual(M.clean_line(b'a\x07b\tc\xff'), 'ab c\ufffd')

    def test_pass(self):
        mon = feed(M.Monitor(['^smp: cpu0 online']), self.BOOT +
                   'vm0: TEST a PASS\nSUMMARY 1/1\nHVRUN-EXIT status=0 reason=done')
        self.assertEqual(mon.banner, 'v0.1-3-gabc')
        self.assertEqual(mon.verdict('exit-line')[0], M.PASS)
        self.assertEqual(mon.test_counts(), (1, 0))
        self.assertEqual(mon.summaries, ['SUMMARY 1/1'])

    def test_fail_line_fails_even_with_status_0(self):
        mon = feed(M.Monitor(), self.BOOT + 'TEST b FAIL\nHVRUN-EXIT status=0 reason=done')
        status, why = mon.verdict('exit-line')
        self.assertEqual(status, M.TEST_FAIL)
        self.assertIn('b', why)

    def test_missing_expect_and_reject(self):
        mon = feed(M.Monitor(['^smp: cpu1 online'], ['WARN']),
                   self.BOOT + 'HVRUN-EXIT status=0 reason=done')
        self.assertEqual(mon.verdict('exit-line'), (M.TEST_FAIL,
                         'never matched: ^smp: cpu1 online'))
        mon = feed(M.Monitor([], ['WARN']), 'WARN x\nHVRUN-EXIT status=0 reason=done')
        self.assertEqual(mon.verdict('exit-line')[0], M.TEST_FAIL)

    def test_nonzero_exit_status(self):
        mon = feed(M.Monitor(), 'HVRUN-EXIT status=5 reason=vmfail')
        self.assertEqual(mon.exit, (5, 'vmfail'))
        self.assertEqual(mon.verdict('exit-line')[0], M.TEST_FAIL)

    def test_no_vtx(self):
        mon = feed(M.Monitor(['^hv: ']), self.BOOT +
                   'vmx: VT-x not available: CPUID.1:ECX.VMX=0\nHVRUN-EXIT status=3 reason=novtx')
        self.assertEqual(mon.verdict('exit-line')[0], M.NO_VTX)
        # A failed expectation outranks the (expected) no-VT-x ending.
        mon = feed(M.Monitor(['^never']), 'vmx: VT-x not available: x\nHVRUN-EXIT status=3 reason=novtx')
        self.assertEqual(mon.verdict('exit-line')[0], M.TEST_FAIL)

    def test_panic_outranks_everything_but_no_start(self):
        mon = M.Monitor()
        self.assertEqual(mon.feed('PANIC: cpu1: bad thing'), 'panic')
        self.assertIsNone(mon.feed('  at foo.c:12'))
        self.assertEqual(mon.feed('HVRUN-EXIT status=2 reason=panic'), 'exit')
        for ending in ('exit-line', 'panic', 'timeout', 'stopped'):
            self.assertEqual(mon.verdict(ending)[0], M.PANIC)
        self.assertEqual(mon.verdict('no-start')[0], M.EMU_ERROR)

    def test_panic_must_start_the_line(self):
        mon = M.Monitor()
        self.assertIsNone(mon.feed('guest: no PANIC here'))
        self.assertIsNone(mon.panic)

    def test_grub_error_before_banner(self):
        mon = M.Monitor()
        self.assertEqual(mon.feed('error: no multiboot header found.'), 'grub-error')
        self.assertEqual(mon.verdict('grub-error')[0], M.EMU_ERROR)
        mon = feed(M.Monitor(), self.BOOT)      # after the banner it is the hv's line
        self.assertIsNone(mon.feed('error: something'))

    def test_timeout_and_silent_stop(self):
        self.assertEqual(feed(M.Monitor(), self.BOOT).verdict('timeout')[0], M.TIMEOUT)
        self.assertEqual(feed(M.Monitor(), self.BOOT).verdict('stopped')[0], M.NO_EXIT_LINE)


if __name__ == '__main__':
    unittest.main()
