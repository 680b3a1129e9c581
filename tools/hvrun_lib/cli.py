"""tools/hvrun command line: parse, build the ISO, boot it, report."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import grubcfg, iso, monitor as M, serialpty, vms, words as W
from .bochs import Bochs
from .qemu import FirmwareError, Qemu
from .session import Session

REPO = Path(__file__).resolve().parents[2]
KEEP_RUNS = 20       # run directories kept under build/hvrun/runs ...
STALE_RUN = 3600     # ... and only those older than this are ever removed


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write(f'hvrun: {message}\n')
        sys.exit(M.USAGE)


class VmAction(argparse.Action):
    """--vm starts a VM description; --image/--initrd fill in the last one."""

    def __call__(self, parser, ns, value, option=None):
        specs = getattr(ns, 'vms', None) or []
        if option == '--vm':
            specs.append(vms.VmSpec(value))
        elif not specs:
            parser.error(f'{option} must follow a --vm')
        elif getattr(specs[-1], self.dest) is not None:
            parser.error(f'{option} given twice for --vm {specs[-1].text!r}')
        else:
            setattr(specs[-1], self.dest, value)
        ns.vms = specs


def parse_mem(text):
    m = re.fullmatch(r'(\d+)([MmGg]?)', text)
    if not m:
        raise argparse.ArgumentTypeError(f'{text!r}: use e.g. 256M or 1G')
    return int(m[1]) * (1024 if m[2] in 'Gg' and m[2] else 1)


def build_parser():
    p = Parser(prog='hvrun', description='Boot the hypervisor and its guests '
               'in QEMU or Bochs and report what happened (docs/running.md).',
               epilog='exit status: ' + ', '.join(f'{k} {v}' for k, v in M.NAMES.items()))
    a = p.add_argument
    a('--emu', choices=('qemu', 'bochs'), default='bochs')
    a('--firmware', choices=('bios', 'uefi'), default='bios')
    a('--cpus', type=int, default=1)
    a('--mem', dest='mem_mib', type=parse_mem, default=256, metavar='SIZE')
    a('--cmdline', default='', help='hypervisor command line')
    a('--vm', dest='vms', action=VmAction, metavar='STRING',
      help='start a VM: its module string')
    a('--image', action=VmAction, metavar='PATH', help="the last --vm's kernel")
    a('--initrd', action=VmAction, metavar='PATH', help="the last --vm's initrd")
    a('--hv', default=str(REPO / 'build' / 'hv.elf'), metavar='ELF')
    a('--timeout', type=float, help='seconds (qemu 60, bochs 300)')
    a('--expect', action='append', default=[], metavar='REGEX')
    a('--reject', action='append', default=[], metavar='REGEX')
    a('--no-exit-arg', action='store_true', help='do not append exit=<emu>')
    a('--iso-only', metavar='OUT', help='build the ISO, copy it to OUT, stop')
    a('--dry-run', action='store_true', help='print grub.cfg and the command')
    a('--serial-log', metavar='FILE')
    a('--send-key', action='append', default=[], metavar='REGEX=KEY',
      help='type KEY on the serial input once a serial line matches REGEX '
      '(repeatable; KEY takes \\n, \\xNN escapes; COM1 then runs on a pty)')
    a('--no-timeout-dump', dest='timeout_dump', action='store_false',
      help="at the timeout, do not type the hypervisor's state-dump key `w` and wait "
      'for its dump before stopping the emulator (the dump needs COM1 on a pty)')
    a('--workdir', metavar='DIR')
    a('--quiet', action='store_true', help='do not echo the serial console')
    a('--prefix', default='', help='put this before each echoed serial line')
    a('--machine', choices=('pc', 'q35'), default='pc', help='QEMU machine')
    a('--accel', choices=('tcg', 'kvm'), default='tcg',
      help='QEMU accelerator; kvm needs an Intel host with nested VMX')
    a('--qemu-cpu', metavar='MODEL')
    a('--qemu-arg', action='append', metavar='ARG', help='extra QEMU argument')
    a('--bochs-cpu', metavar='MODEL')
    a('--ips', type=int, help='Bochs instructions per second (10000000)')
    a('--bochs-line', action='append', metavar='LINE',
      help='extra bochsrc line, e.g. "cpuid: x2apic=0"; repeatable')
    return p


def say(msg):
    sys.stderr.write(f'hvrun: {msg}\n')
    sys.stderr.flush()


def hv_words(opts):
    ws = [W.check_word(w) for w in W.split_words(opts.cmdline)]
    # An --iso-only image may boot anywhere (real hardware): no exit= then.
    if not (opts.no_exit_arg or opts.iso_only or W.has_key(ws, 'exit')):
        ws.append(f'exit={opts.emu}')
    return ws


def boot_description(opts):
    """(grub.cfg text, {name in /boot: host path}, [(what, received string)])."""
    mods = vms.vm_modules(opts.vms or [])
    hv = hv_words(opts)
    cfg = grubcfg.render(hv, mods)
    files = {'hv.elf': opts.hv}
    files.update({m.name: m.path for m in mods})
    strings = [('hv.elf', W.received_form(hv))]
    strings += [(m.name, W.received_form(m.words)) for m in mods]
    return cfg, files, strings


LINUX_DEFAULTS = ('build/linux/bzImage', 'build/linux/initramfs.cpio')


def linux_defaults(opts):
    """A kind=linux VM without --image/--initrd gets the project's guest
    kernel and initramfs, built (and cached) by `make linux-guest` first."""
    need = [s for s in opts.vms or []
            if 'kind=linux' in s.text.split() and (s.image is None or s.initrd is None)]
    if not need:
        return
    say('building the default Linux guest (make linux-guest; the first kernel '
        'build takes minutes, later ones are cached)')
    r = subprocess.run(['make', '-C', str(REPO), '--no-print-directory', 'linux-guest'],
                       stdout=sys.stderr)
    if r.returncode:
        raise UsageError('make linux-guest failed; give --image and --initrd')
    for s in need:
        s.image = s.image or str(REPO / LINUX_DEFAULTS[0])
        s.initrd = s.initrd or str(REPO / LINUX_DEFAULTS[1])


def check_opts(opts):
    # QEMU's q35 takes up to 288 CPUs (APIC IDs above 254 need x2APIC: issue
    # 17's 256 pCPUs); i440fx (pc) and Bochs stop at 255.
    top = 288 if opts.emu == 'qemu' and opts.machine == 'q35' else 255
    if opts.cpus < 1 or opts.cpus > top:
        raise UsageError(f'--cpus takes 1..{top}' + (' (up to 288 with --machine q35)'
                                                      if top == 255 and opts.emu == 'qemu' else ''))
    if opts.emu == 'bochs' and opts.firmware == 'uefi':
        raise UsageError('Bochs has no UEFI firmware here; use --emu qemu')
    if not Path(opts.hv).is_file():
        raise UsageError(f'{opts.hv}: no such file (run `make` first)')
    if subprocess.run(['grub-file', '--is-x86-multiboot2', opts.hv]).returncode:
        raise UsageError(f'{opts.hv}: not a multiboot2 image (grub-file)')
    for spec in opts.send_key:
        try:
            serialpty.parse_send_key(spec)
        except serialpty.SendKeyError as e:
            raise UsageError(str(e)) from None
    for spec in opts.vms or []:
        for path in (spec.image, spec.initrd):
            if path is not None and not Path(path).is_file():
                raise UsageError(f'{path}: no such file (--vm {spec.text!r})')


def new_workdir(opts):
    if opts.workdir:
        d = Path(opts.workdir)
        d.mkdir(parents=True, exist_ok=True)
        return d
    runs = REPO / 'build' / 'hvrun' / 'runs'
    runs.mkdir(parents=True, exist_ok=True)
    # Parallel runs prune the same folder: a run dir may vanish between
    # listing it and looking at it.
    dated = []
    for q in runs.iterdir():
        try:
            dated.append((q.stat().st_mtime, q))
        except FileNotFoundError:
            pass
    for t, q in sorted(dated)[:-KEEP_RUNS]:
        if time.time() - t > STALE_RUN:   # never a live run's
            shutil.rmtree(q, ignore_errors=True)
    d = runs / f'{time.strftime("%Y%m%d-%H%M%S")}-{os.getpid()}'
    d.mkdir()
    return d


def make_emu(opts, iso_path, workdir):
    emu = (Qemu if opts.emu == 'qemu' else Bochs)(opts, iso_path, workdir)
    if opts.serial_log:
        emu.serial_path = Path(opts.serial_log).resolve()
        emu.serial_path.parent.mkdir(parents=True, exist_ok=True)
    emu.serial_path.unlink(missing_ok=True)
    if opts.send_key or opts.timeout_dump:
        emu.serial_pty = serialpty.SerialPty(emu.serial_path)
    return emu


def report(opts, sess, status, why):
    passed, failed = sess.mon.test_counts()
    say(f'{opts.emu}/{opts.firmware} cpus={opts.cpus}: {M.NAMES[status]} '
        f'(exit {status}): {why}')
    say(f'tests: {passed} passed, {failed} failed; summaries: {len(sess.mon.summaries)}; '
        f'{sess.elapsed:.1f} s; emulator exit {sess.emu_rc}')
    if sess.emu.stats():
        say(sess.emu.stats())
    if status != M.PASS and not (status == M.NO_VTX and opts.emu == 'qemu'):
        lines = sess.emu.failure_lines()
        if lines:
            say(f'{opts.emu} says:')
            for ln in lines:
                sys.stderr.write(f'  {ln}\n')


def boot(opts):
    cfg, files, strings = boot_description(opts)
    cache = REPO / 'build' / 'hvrun' / 'iso'
    if opts.dry_run:
        sys.stdout.write(cfg)
        return M.PASS
    t0 = time.monotonic()
    iso_path = iso.build(cache, cfg, files, opts.iso_only)
    if opts.iso_only:
        say(f'ISO written to {iso_path}')
        return M.PASS
    workdir = new_workdir(opts)
    (workdir / 'grub.cfg').write_text(cfg)
    emu = make_emu(opts, iso_path, workdir)
    argv = emu.argv()
    say(f'ISO {iso_path.name} ready in {time.monotonic() - t0:.1f} s; run files in {workdir}')
    for name, text in strings:
        say(f'{name} gets: {text}')
    say('booting: ' + ' '.join(argv))
    timeout = opts.timeout or emu.default_timeout
    sess = Session(emu, M.Monitor(opts.expect, opts.reject), timeout,
                   echo=None if opts.quiet else sys.stdout, prefix=opts.prefix,
                   keys=serialpty.KeySender(opts.send_key) if opts.send_key else None,
                   dump_key=opts.timeout_dump)
    status, why = sess.mon.verdict(sess.run(argv))
    report(opts, sess, status, why)
    return status


def main(argv=None):
    opts = build_parser().parse_args(argv)
    try:
        linux_defaults(opts)
        check_opts(opts)
        return boot(opts)
    except (UsageError, W.WordError) as e:
        say(f'error: {e}')
        return M.USAGE
    except (iso.IsoError, FirmwareError, OSError) as e:
        say(f'error: {e}')
        return M.EMU_ERROR
    except KeyboardInterrupt:
        say('interrupted')
        return 130
