"""Start and stop one emulator process (its own session and process group)."""
import os
import signal
import subprocess
import time


def spawn(argv, **kw):
    """Popen in a new session, so stopping it reaches all its children."""
    return subprocess.Popen(argv, start_new_session=True, **kw)


def stop(p, grace=3.0):
    """SIGTERM the emulator's process group, SIGKILL after grace seconds."""
    if p.poll() is not None:
        return p.returncode
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        if p.poll() is not None:
            break
    return p.wait()


class SerialTail:
    """Reads the serial file the emulator appends to, one line at a time."""

    def __init__(self, path):
        self.path, self.f, self.partial = path, None, b''

    def lines(self):
        """New complete lines since the last call (bytes, without \\n)."""
        if self.f is None:
            try:
                self.f = open(self.path, 'rb')
            except FileNotFoundError:
                return []
        data = self.f.read()
        if not data:
            return []
        parts = (self.partial + data).split(b'\n')
        self.partial = parts.pop()
        return parts

    def rest(self):
        """At the end: whatever follows the last newline."""
        out = self.lines()
        if self.partial:
            out.append(self.partial)
            self.partial = b''
        if self.f is not None:
            self.f.close()
            self.f = None
        return out
