"""Run one emulator until the serial contract says the run is over.

The run ends at the HVRUN-EXIT line (authoritative), a short while after a
PANIC line (so the panic report is read whole), when the emulator stops by
itself, or at the timeout. At the timeout the hypervisor is first asked for
its state dump (the `w` key on COM1: scheduler, pending interrupts, timers,
vProfile; hv/vm/watchdog.c), so a hang explains itself in the log. The
emulator is then stopped and the Monitor gives the verdict.
"""
import sys
import time

from . import monitor as M
from .proc import SerialTail, stop

POLL = 0.05
AFTER_EXIT = 3.0      # the hypervisor ends the emulator itself after HVRUN-EXIT
AFTER_PANIC = 5.0     # quiet seconds after PANIC before we stop waiting
AFTER_GRUB = 1.0      # GRUB waits for a key after an error: do not wait
DUMP_KEY = b'w'       # hv/console_keys.c: the watchdog's state dump
DUMP_BEGIN = 'watchdog: ==== state dump ('
DUMP_END = 'watchdog: ==== end of state dump'
DUMP_START_WAIT = 20.0  # no dump begun by then: pCPU 0 does not read keys (stuck)
# The hypervisor reads keys once its run loop runs, which its watchdog's
# first line says: before that (or with another kernel) no key is typed.
KEYS_LIVE = ('watchdog: on', 'watchdog: off')
DUMP_WAIT = 30.0      # longest wait for a begun dump to end
AFTER_DUMP = 0.5


class Session:
    def __init__(self, emu, mon, timeout, echo=sys.stdout, prefix='', keys=None,
                 dump_key=False):
        self.emu, self.mon, self.timeout = emu, mon, timeout
        self.keys = keys            # serialpty.KeySender (--send-key) or None
        self.dump_key = dump_key    # type `w` at the timeout (COM1 on a pty)
        self.dump_sent = self.dump_begun = self.dump_seen = False
        self.keys_live = False
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
        if line.startswith(KEYS_LIVE):
            self.keys_live = True
        if self.dump_sent and DUMP_BEGIN in line:
            self.dump_begun = True
        if self.dump_sent and DUMP_END in line:
            self.dump_seen = True
        return self.mon.feed(line)

    def _drain(self):
        """Feed new lines; returns the last contract event seen."""
        event = None
        for raw in self.tail.lines():
            event = self._show(raw) or event
        return event

    def _ask_dump(self):
        """Type the state-dump key once; False when there is no way to."""
        pty = getattr(self.emu, 'serial_pty', None)
        if not self.dump_key or self.dump_sent or pty is None or not self.keys_live:
            return False
        self.dump_sent = True
        sys.stderr.write('hvrun: timeout: typing `w` for the hypervisor\'s state dump '
                         f'(waiting {DUMP_START_WAIT:.0f} s for it to begin, '
                         f'{DUMP_WAIT:.0f} s to end)\n')
        pty.send(DUMP_KEY)
        return True

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
        dump_wait = None        # end of the wait for a begun state dump
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
                if self.dump_sent:      # the dump came, or DUMP_WAIT is over
                    return 'timeout'
                if self._ask_dump():
                    deadline, dump_wait = now + DUMP_START_WAIT, now + DUMP_WAIT
                else:
                    return 'timeout'
            if self.dump_begun and not self.dump_seen and ending is None:
                deadline = dump_wait
            if self.dump_seen and ending is None:
                deadline = min(deadline, now + AFTER_DUMP)
            time.sleep(POLL)
