#!/usr/bin/env python3
"""End-to-end checks of tools/hvrun with the self-test kernel (testkernel.asm)
standing in for the hypervisor: every exit status, the strings GRUB really
delivers, UEFI, Bochs SMP, keys sent to the serial input (--send-key), and
no listening socket. Prints one line per case
and `hvrun-smoke: N passed, N failed`.

usage: smoke.py TESTKERNEL [--emu qemu|bochs]
"""
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'tools'))
from hvrun_lib import words as W  # noqa: E402

HVRUN = os.path.join(REPO, 'tools', 'hvrun')
ISO_OUT = os.path.join(REPO, 'build', 'hvrun', 'smoke-iso-only.iso')
HV_WORDS = ['loglvl=debug', 'note=two words', 'q="x"', "it's", 'dollar=$HOME;|&']
VM_TEXT = 'kind=multiboot vcpus=1 mem=64M cmdline="console=ttyS0 init=\\"/bin/sh -c x\\""'


def received_expects(emu):
    """The exact strings the kernel must report, from words.received_form."""
    hv = W.received_form(HV_WORDS + [f'exit={emu}'])
    vm = W.received_form(['vm=0', 'role=kernel'] + W.split_words(VM_TEXT))
    return ['^testkernel: cmdline ' + re.escape(f'[{hv}]') + '$',
            r'^testkernel: module size=0x[0-9a-f]{8} ' + re.escape(f'[{vm}]') + '$',
            r'^testkernel: module size=0x[0-9a-f]{8} \[vm=0 role=initrd\]$']


def quoting_args(kernel, emu):
    args = ['--cmdline', W.join_words(HV_WORDS),
            '--vm', VM_TEXT, '--image', kernel, '--initrd', kernel]
    for e in received_expects(emu):
        args += ['--expect', e]
    return args


# --send-key: the kernel echoes each byte it receives; the second key is sent
# only once the first has come back, and '=' goes through its \x3d escape.
KEYS_ARGS = ['--cmdline', 'test=keys', '--timeout', '60',
             '--send-key', 'waiting for keys=x', '--send-key', r'key 0x00000078=\x3dq',
             '--expect', 'key 0x00000078$', '--expect', 'key 0x0000003d$',
             '--expect', 'key 0x00000071$']


def cases(kernel):
    k = ['--hv', kernel]
    q = ['--emu', 'qemu'] + k
    b = ['--emu', 'bochs'] + k
    return [
        ('qemu-bios-quoting', q + quoting_args(kernel, 'qemu'), 3),
        ('qemu-uefi-4cpu-quoting', q + ['--firmware', 'uefi', '--cpus', '4'] +
         quoting_args(kernel, 'qemu'), 3),
        ('qemu-test-fail', q + ['--cmdline', 'test=fail'], 1),
        ('qemu-expect-unmatched', q + ['--expect', '^no such line'], 1),
        ('qemu-panic', q + ['--cmdline', 'test=panic'], 2),
        ('qemu-hang-timeout', q + ['--cmdline', 'test=hang', '--timeout', '4'], 124),
        ('qemu-triple-fault', q + ['--cmdline', 'test=reset'], 4),
        ('qemu-send-key', q + KEYS_ARGS, 3),
        ('usage-send-key', q + ['--send-key', 'no-key-given'], 64),
        ('usage-missing-image', q + ['--vm', 'kind=x', '--image', '/nonexistent'], 64),
        ('usage-bochs-uefi', b + ['--firmware', 'uefi'], 64),
        ('usage-iso-only', q + ['--iso-only', ISO_OUT], 0),
        ('usage-not-multiboot2', ['--emu', 'qemu', '--hv', os.path.join(HERE, 'smoke.py')], 64),
        ('bochs-2cpu-pass', b + ['--cpus', '2', '--expect', 'CPUID.1:ECX.VMX is 1'], 0),
        ('bochs-quoting', b + quoting_args(kernel, 'bochs'), 0),
        ('bochs-novtx', b + ['--cmdline', 'test=novtx'], 3),
        ('bochs-triple-fault', b + ['--cmdline', 'test=reset', '--timeout', '60'], 4),
        ('bochs-send-key', b + KEYS_ARGS, 0),
    ]


def listening_bochs(stop, found):
    """Watch the listening sockets while an emulator runs (Bochs's rfb trap)."""
    while not stop.is_set():
        try:
            out = subprocess.run(['ss', '-H', '-ltnup'], capture_output=True,
                                 text=True).stdout
        except FileNotFoundError:       # no iproute2: nothing to watch with
            return
        found.extend(ln for ln in out.splitlines() if 'bochs' in ln or 'qemu' in ln)
        time.sleep(0.3)


def hybrid_iso(path):
    """El Torito boot images for both BIOS and UEFI."""
    rep = subprocess.run(['xorriso', '-indev', path, '-report_el_torito', 'plain'],
                         capture_output=True, text=True).stdout
    return bool(re.search(r'boot img :\s+\d+\s+BIOS', rep) and
                re.search(r'boot img :\s+\d+\s+UEFI', rep))


def run_case(name, args, want):
    """Returns (ok, report line, details)."""
    t0 = time.monotonic()
    p = subprocess.run([HVRUN, '--quiet'] + args, capture_output=True, text=True)
    ok = p.returncode == want
    if name == 'usage-iso-only':
        ok = ok and hybrid_iso(ISO_OUT)
    line = (f'{"PASS" if ok else "FAIL"} {name}: exit {p.returncode} '
            f'(want {want}) {time.monotonic() - t0:.1f} s')
    return ok, line, '' if ok else p.stderr


def main():
    kernel = sys.argv[1]
    emu = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == '--emu' else None
    todo = [c for c in cases(kernel)
            if emu is None or c[0].startswith(emu) or c[0].startswith('usage')]
    stop, found = threading.Event(), []
    watcher = threading.Thread(target=listening_bochs, args=(stop, found))
    watcher.start()
    with ThreadPoolExecutor(max_workers=2) as pool:     # 2 host cores
        futures = [pool.submit(run_case, *c) for c in todo]
        results = []
        for fut in futures:
            ok, line, details = fut.result()
            print(line, flush=True)
            sys.stdout.write(details)
            results.append(ok)
    stop.set()
    watcher.join()
    if found:
        print(f'FAIL no-listening-socket: {found[0]}')
        results.append(False)
    good = sum(results)
    print(f'hvrun-smoke: {good} passed, {len(results) - good} failed')
    return 0 if good == len(results) else 1


if __name__ == '__main__':
    sys.exit(main())
