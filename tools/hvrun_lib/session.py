"""Run one emulator until the serial contract says the run is over.

The run ends at the HVRUN-EXIT line (authoritative), a short while after a
PANIC line (so the panic report is read whole), when the emulator stops by
itself, or at the timeout. The emulator is then stopped and the Monitor gives
the verdict.
"""
import sys
import time

from . import monitor as M
from .proc import SerialTail, stop

POLL = 0.05
AFTER_EXIT = 3.0      # the hypervisor ends the emulator itself after HVRUN-EXIT
AFTER_PANIC = 5.0     # quiet seconds after PANIC before we stop waiting
AFTER_GRUB = 1.0      # GRUB waits for a key after an error: do not wait


class Session:
    def __init__(self, emu, mon, timeout, echo=sys.stdout, prefix='', keys=None):
        self.emu, self.mon, self.timeout = emu, mon, timeout
        self.keys = keys            # serialpty.KeySender (--send-key) or None
        self.echo, self.prefix = echo, prefix
        self.tail = SerialTail(emu.serial_path)
        self.emu_rc = None
        self.elapsed = 0.0

    def _show(self, raw):
        line = M.clean_line(raw)
        if self.echo is not None:
            try:
                self.echo.write(self.prefix + line + '\n')
                self.echo.flush()
            except BrokenPipeError:     # `hvrun | head`: keep running, stop echoing
                self.echo = None
        for key in self.keys.feed(line) if self.keys else ():
            self.emu.serial_pty.send(key)
        return self.mon.feed(line)

    def _drain(self):
        """Feed new lines; returns the last contract event seen."""
        event = None
        for raw in self.tail.lines():
            event = self._show(raw) or event
        return event

    def run(self, argv):
        """Returns the ending: exit-line, panic, grub-error, timeout, stopped,
        no-start."""
        start = time.monotonic()
        p = self.emu.spawn(argv)
        try:
            ending = self._watch(p, start)
        finally:
            self.emu_rc = stop(p)
            self.emu.close()
            for raw in self.tail.rest():
                self._show(raw)
            self.elapsed = time.monotonic() - start
        if ending == 'stopped' and self.mon.lines == 0 and self.emu_rc != 0:
            ending = 'no-start'
        return ending

    def _watch(self, p, start):
        deadline = start + self.timeout
        quiet_until = None      # set once the end is in sight
        ending = None
        while True:
            self.emu.pump()
            seen = self.mon.lines
            event = self._drain()
            now = time.monotonic()
            if event == 'exit':
                ending, quiet_until = 'exit-line', now + AFTER_EXIT
            elif event == 'panic' and ending is None:
                ending, quiet_until = 'panic', now + AFTER_PANIC
            elif event == 'grub-error' and ending is None:
                ending, quiet_until = 'grub-error', now + AFTER_GRUB
            elif ending == 'panic' and self.mon.lines != seen:
                quiet_until = now + AFTER_PANIC     # the panic report goes on
            if p.poll() is not None:
                self.emu.pump()
                self._drain()
                return ending or 'stopped'
            if quiet_until is not None and now >= quiet_until:
                return ending
            if ending is None and now >= deadline:
                return 'timeout'
            time.sleep(POLL)
