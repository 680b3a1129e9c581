"""The hypervisor's serial contract, read line by line, and the run's verdict.

Contract (docs/running.md): `hv: research hypervisor <version>`,
`smp: cpu<N> online apic=<id>`, `smp: <n> of <m> CPUs online`,
`vmx: cpu<N> VMXON ok`, `vmx: VT-x not available: <reason>`, a line starting
`PANIC`, and always last `HVRUN-EXIT status=<n> reason=<word>`. Guest tests
print `TEST <name> PASS|FAIL` and `SUMMARY ...` (possibly behind a prefix).
"""
import re

# Exit statuses of tools/hvrun (documented in docs/running.md).
PASS, TEST_FAIL, PANIC, NO_VTX, NO_EXIT_LINE = 0, 1, 2, 3, 4
USAGE, TIMEOUT, EMU_ERROR = 64, 124, 125
NAMES = {PASS: 'pass', TEST_FAIL: 'test failure', PANIC: 'hypervisor panic',
         NO_VTX: 'no VT-x', NO_EXIT_LINE: 'machine stopped without HVRUN-EXIT',
         USAGE: 'usage error', TIMEOUT: 'timeout', EMU_ERROR: 'emulator error'}

ANSI = re.compile(r'\x1b(\[[0-?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[@-Z\\-_])')
CTRL = re.compile(r'[\x00-\x08\x0b-\x1f\x7f]')
RE_BANNER = re.compile(r'^hv: research hypervisor (\S+)')
RE_EXIT = re.compile(r'^HVRUN-EXIT status=(\d+) reason=(\S+)')
RE_PANIC = re.compile(r'^PANIC')
RE_NO_VTX = re.compile(r'^vmx: VT-x not available: (.*)')
RE_TEST = re.compile(r'\bTEST (\S+) (PASS|FAIL)\b')
RE_SUMMARY = re.compile(r'\bSUMMARY\b.*')
# GRUB's own failures (bad image, missing file) come before the banner.
RE_GRUB_ERROR = re.compile(r'^error: ')


def clean_line(raw):
    """Serial bytes of one line -> text without escapes or control chars."""
    text = raw.decode('utf-8', 'replace') if isinstance(raw, bytes) else raw
    return CTRL.sub('', ANSI.sub('', text.replace('\t', ' '))).rstrip()


class Monitor:
    """Feeds on serial lines; knows when the run is over and how it went."""

    def __init__(self, expects=(), rejects=()):
        self.expects = [(e, re.compile(e)) for e in expects]
        self.rejects = [(r, re.compile(r)) for r in rejects]
        self.matched = set()
        self.rejected = []
        self.tests = []             # (name, 'PASS'|'FAIL') in order
        self.summaries = []
        self.banner = None
        self.panic = None
        self.no_vtx = None
        self.exit = None            # (status, reason)
        self.grub_error = None
        self.lines = 0

    def feed(self, line):
        """Take one cleaned line; returns 'exit', 'panic' or None."""
        self.lines += 1
        self._match_user(line)
        m = RE_TEST.search(line)
        if m:
            self.tests.append((m[1], m[2]))
        if RE_SUMMARY.search(line):
            self.summaries.append(RE_SUMMARY.search(line)[0])
        return self._match_contract(line)

    def _match_user(self, line):
        for text, rx in self.expects:
            if text not in self.matched and rx.search(line):
                self.matched.add(text)
        for text, rx in self.rejects:
            if rx.search(line):
                self.rejected.append(line)

    def _match_contract(self, line):
        if self.banner is None and RE_BANNER.match(line):
            self.banner = RE_BANNER.match(line)[1]
        if self.banner is None and RE_GRUB_ERROR.match(line):
            self.grub_error = self.grub_error or line
            return 'grub-error'
        if RE_NO_VTX.match(line) and self.no_vtx is None:
            self.no_vtx = RE_NO_VTX.match(line)[1]
        m = RE_EXIT.match(line)
        if m:
            self.exit = (int(m[1]), m[2])
            return 'exit'
        if RE_PANIC.match(line) and self.panic is None:
            self.panic = line
            return 'panic'
        return None

    def missing(self):
        return [t for t, _ in self.expects if t not in self.matched]

    def failed_tests(self):
        return [n for n, r in self.tests if r == 'FAIL']

    def verdict(self, ending):
        """ending: 'exit-line', 'panic', 'timeout', 'stopped' (the emulator
        ended by itself), 'grub-error' or 'no-start'. Returns (status, why)."""
        if ending == 'no-start':
            return EMU_ERROR, 'the emulator did not start or printed nothing'
        if self.grub_error is not None and self.banner is None:
            return EMU_ERROR, 'GRUB could not boot it: ' + self.grub_error
        if self.panic is not None:
            return PANIC, self.panic
        if ending == 'timeout':
            return TIMEOUT, 'no HVRUN-EXIT line before the timeout'
        problems = self._problems()
        if self.exit is None:
            return NO_EXIT_LINE, '; '.join(
                ['the machine stopped without an HVRUN-EXIT line'] + problems)
        if problems:
            return TEST_FAIL, '; '.join(problems)
        if self.no_vtx is not None:
            return NO_VTX, 'VT-x not available: ' + self.no_vtx
        if self.exit[0] != 0:
            return TEST_FAIL, 'HVRUN-EXIT status=%d reason=%s' % self.exit
        return PASS, 'HVRUN-EXIT status=0 reason=%s' % self.exit[1]

    def _problems(self):
        out = []
        if self.failed_tests():
            out.append('failed tests: ' + ' '.join(self.failed_tests()))
        if self.missing():
            out.append('never matched: ' + ' | '.join(self.missing()))
        if self.rejected:
            out.append('rejected line: ' + self.rejected[0])
        return out

    def test_counts(self):
        fails = len(self.failed_tests())
        return len(self.tests) - fails, fails
