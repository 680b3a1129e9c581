"""The one bochsrc writer: every Bochs run of the tree (tools/hvrun,
tools/linux/boot-bare.py, guest-shim/tests/run_bochs_bare.py) boots a GRUB
ISO from the ATA CD-ROM on Bochs 2.7 with the `term` display and
"clock: sync=none", so its time is instruction counts and repeats exactly.
The callers differ only in the parameters below; test/hvrun/test_bochsrc.py
pins each caller's text byte for byte. It imports nothing else of
hvrun_lib, so scripts outside tools/ import it with tools/ on sys.path."""

BIOS = '/usr/share/bochs/BIOS-bochs-latest'
VGABIOS = '/usr/share/vgabios/vgabios.bin'


def bochsrc(*, mem, iso, serial, log, model, cpus, ips, com1_mode='file',
            triple_fault_reset=False, ignore_bad_msrs=False, sound=True,
            info='report', debug_ports=False, header=None, extra=()):
    """bochsrc text. mem in MiB; serial is COM1's file (or pty with
    com1_mode='term'); triple_fault_reset: a triple fault resets the machine
    instead of Bochs's panic; ignore_bad_msrs: unknown MSRs read 0 instead of
    #GP; sound: the dummy sound drivers (no host audio); info: action for
    Bochs's info messages; debug_ports: port 0xe9 output and the magic break
    (xchg bx,bx back to the debugger prompt); header: a first comment line;
    extra: lines appended as given (a later line overrides an earlier one)."""
    lines = [f'# {header}'] if header else []
    lines += [
        f'megs: {mem}',
        f'romimage: file={BIOS}',
        f'vgaromimage: file={VGABIOS}',
        f'cpu: model={model}, count={cpus}, ips={ips}, '
        f'reset_on_triple_fault={int(triple_fault_reset)}, ignore_bad_msrs={int(ignore_bad_msrs)}',
        'pci: enabled=1, chipset=i440fx',
        'display_library: term',
        'speaker: enabled=0',
    ]
    if sound:
        lines.append('sound: waveoutdrv=dummy, waveindrv=dummy, midioutdrv=dummy')
    lines += [
        'ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14',
        f'ata0-master: type=cdrom, path="{iso}", status=inserted',
        'boot: cdrom',
        f'com1: enabled=1, mode={com1_mode}, dev="{serial}"',
        f'log: "{log}"',
        'panic: action=fatal',
        'error: action=report',
        f'info: action={info}',
        'debug: action=ignore',
    ]
    if debug_ports:
        lines += ['port_e9_hack: enabled=1', 'magic_break: enabled=1']
    lines.append('clock: sync=none, time0=1')
    lines += list(extra)
    return ''.join(line + '\n' for line in lines)

