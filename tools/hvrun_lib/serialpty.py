"""Two-way serial console for --send-key: COM1 on a pseudo-terminal.

The emulator gets the pty's slave as its COM1 (Bochs `com1: mode=term`,
QEMU `-serial /dev/pts/N`); a thread copies what it writes into the serial
log file as it arrives (Bochs drops a byte whose write would block, so the
pty must never fill up), and keys are written to the master. The log file
is then read by the Session exactly as with `mode=file`.
"""
import codecs
import os
import pty
import re
import threading
import tty


class SendKeyError(ValueError):
    pass


def parse_send_key(text):
    """'REGEX=KEY' -> (compiled regex, key bytes). The key is the text after
    the last '=' with Python escapes (\\n, \\r, \\x3d for '=')."""
    regex, sep, key = text.rpartition('=')
    if not sep or not regex:
        raise SendKeyError(f'--send-key {text!r}: use REGEX=KEY')
    try:
        rx = re.compile(regex)
    except re.error as e:
        raise SendKeyError(f'--send-key {text!r}: bad regex: {e}') from None
    try:
        data = codecs.decode(key, 'unicode_escape').encode('latin-1')
    except (UnicodeDecodeError, UnicodeEncodeError) as e:
        raise SendKeyError(f'--send-key {text!r}: bad key: {e}') from None
    if not data:
        raise SendKeyError(f'--send-key {text!r}: empty key')
    return rx, data


class KeySender:
    """Each (regex, key) fires once, at the first serial line it matches;
    triggers are independent and keep their command-line order."""

    def __init__(self, specs):
        self.pending = [parse_send_key(s) for s in specs]
        self.sent = []

    def feed(self, line):
        """Keys to send now, for one cleaned serial line."""
        out = []
        for item in list(self.pending):
            if item[0].search(line):
                self.pending.remove(item)
                out.append(item[1])
        self.sent.extend(out)
        return out


class SerialPty:
    def __init__(self, log_path):
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)          # no echo of keys, no newline mangling
        self.path = os.ttyname(self.slave)
        self.log = open(log_path, 'wb')
        self.stopping = False
        self.thread = threading.Thread(target=self._copy, daemon=True)
        self.thread.start()

    def _copy(self):
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:             # EIO: closed; EBADF: we closed it
                data = b''
            if not data:
                break
            self.log.write(data)
            self.log.flush()

    def send(self, data):
        try:
            os.write(self.master, data)
        except OSError:
            pass

    def close(self):
        """After the emulator exited: copy what is left, close everything.
        The runner's own slave fd kept reads from failing while the emulator
        was starting; closing it lets the reader see EIO and finish."""
        if self.slave is not None:
            os.close(self.slave)
            self.slave = None
        self.thread.join(timeout=2.0)
        if self.master is not None:
            os.close(self.master)
            self.master = None
        self.thread.join(timeout=1.0)
        self.log.close()
