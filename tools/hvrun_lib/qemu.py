"""QEMU (TCG, or KVM with --accel kvm) command line: a PC with SeaBIOS or OVMF, no VT-x, no network,
no display and no monitor, serial to a file, isa-debug-exit at port 0xf4."""
import shutil
from pathlib import Path

from .proc import spawn

DEFAULT_CPU = 'Nehalem'     # Intel vendor, no VMX: TCG cannot emulate VT-x
OVMF_PAIRS = [('/usr/share/OVMF/OVMF_CODE.fd', '/usr/share/OVMF/OVMF_VARS.fd'),
              ('/usr/share/OVMF/OVMF_CODE_4M.fd', '/usr/share/OVMF/OVMF_VARS_4M.fd')]
OVMF_SINGLE = '/usr/share/ovmf/OVMF.fd'


class FirmwareError(RuntimeError):
    pass


def ovmf_drives(workdir):
    """pflash code (read-only) plus a private copy of the variable store."""
    for code, vars_ in OVMF_PAIRS:
        if Path(code).is_file() and Path(vars_).is_file():
            mine = Path(workdir) / 'OVMF_VARS.fd'
            shutil.copyfile(vars_, mine)
            return ['-drive', f'if=pflash,format=raw,unit=0,readonly=on,file={code}',
                    '-drive', f'if=pflash,format=raw,unit=1,file={mine}']
    if Path(OVMF_SINGLE).is_file():
        return ['-bios', OVMF_SINGLE]
    raise FirmwareError('no OVMF firmware found (apt-get install ovmf)')


class Qemu:
    name = 'qemu'
    default_timeout = 60

    def __init__(self, opts, iso, workdir):
        self.opts, self.iso, self.workdir = opts, iso, Path(workdir)
        self.serial_path = self.workdir / 'serial.log'
        self.out_path = self.workdir / 'qemu.out'
        self.serial_pty = None      # --send-key: COM1 on a pty (serialpty.py)

    def argv(self):
        o = self.opts
        # KVM on an Intel host with nested VMX (kvm_intel nested=1) passes
        # VT-x through with -cpu host; TCG never has VT-x.
        cpu = o.qemu_cpu or (DEFAULT_CPU if o.accel == 'tcg' else 'host')
        cmd = ['qemu-system-x86_64', '-machine', f'{o.machine},accel={o.accel}',
               '-cpu', cpu, '-smp', str(o.cpus),
               '-m', f'{o.mem_mib}M', '-display', 'none', '-monitor', 'none',
               '-nic', 'none', '-no-reboot', '-serial',
               self.serial_pty.path if self.serial_pty else f'file:{self.serial_path}',
               '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
               '-cdrom', str(self.iso), '-boot', 'order=d']
        if o.firmware == 'uefi':
            cmd += ovmf_drives(self.workdir)
        return cmd + list(o.qemu_arg or [])

    def spawn(self, argv):
        with open(self.out_path, 'wb') as out, open('/dev/null', 'rb') as null:
            return spawn(argv, stdin=null, stdout=out, stderr=out)

    def pump(self):
        """Nothing to drain: QEMU writes its own messages to qemu.out."""

    def close(self):
        if self.serial_pty is not None:
            self.serial_pty.close()

    def stats(self):
        return None

    def failure_lines(self):
        """QEMU's own messages (warnings, errors) for a failed run."""
        try:
            return self.out_path.read_text(errors='replace').splitlines()[-30:]
        except OSError:
            return []
