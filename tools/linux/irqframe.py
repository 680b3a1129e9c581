#!/usr/bin/env python3
"""Read a hung Linux guest's interrupt state from a dump of its RAM (issue 17).

Dump the VM's RAM in the Bochs debugger at the hang (docs/linux-guest.md
"Replaying the backed-out hangs": `writemem "FILE" <host addr> <size>`; the
host address is the log's `vmN: ... at host 0x...`). For one guest CPU this
prints the kernel-text words of its IRQ stack (innermost last), the stack
pointer saved at the IRQ stack's top, and the interrupted context's hardware
frame on the task stack (RIP, CS, RFLAGS and whether IF was set), with the
kernel-text words above it. It also lists every hardware frame found on the
IRQ stack itself: an interrupt taken while a handler already ran there (a
nested one; with RFLAGS.IF = 0 in it, an interrupt delivered with
interrupts off). `--lock SYM` prints the 32-bit word at a data symbol (a
qspinlock: bit 0-7 locked byte, 3 = _Q_SLOW_VAL, tail CPU + 1 from bit 18);
`--percpu-lock SYM[+OFF]` the same for a per-CPU one on every CPU (e.g.
`runqueues`: a struct rq starts with its lock).

usage: irqframe.py DUMP --vmlinux VMLINUX [--cpu N] [--lock SYM]...
                   [--percpu-lock SYM[+OFF]]... [--cpus N]

Needs a guest kernel without KASLR (guest-shim/linux/guest.config) and
without VMAP_STACK, IRQ stacks in the per-CPU area (x86-64 6.1), and `nm`.
"""
import argparse
import bisect
import struct
import subprocess
import sys

KMAP = 0xffffffff80000000       # __START_KERNEL_map
DMAP = 0xffff888000000000       # page_offset_base without KASLR
IRQ_STACK = 16384               # IRQ_STACK_SIZE (x86-64, no KASAN)


class Guest:
    def __init__(self, dump, vmlinux):
        with open(dump, 'rb') as f:
            self.mem = f.read()
        out = subprocess.run(['nm', vmlinux], capture_output=True, text=True, check=True).stdout
        self.data, text = {}, []
        for ln in out.splitlines():
            p = ln.split()
            if len(p) < 3:
                continue
            a = int(p[0], 16)
            self.data[p[2]] = a
            if p[1] in 'tTwW' and a >= KMAP:
                text.append((a, p[2]))
        text.sort()
        self.text, self.text_addr = text, [a for a, _ in text]
        self.phys_base = self._q(self.data['phys_base'] - KMAP)

    def _q(self, pa):
        return struct.unpack_from('<Q', self.mem, pa)[0]

    def pa(self, va):
        if va >= KMAP:
            return va - KMAP + self.phys_base
        if DMAP <= va < DMAP + len(self.mem):
            return va - DMAP
        raise ValueError(f'{va:#x}: not in the kernel or direct map')

    def q(self, va):
        return self._q(self.pa(va))

    def u32(self, va):
        return struct.unpack_from('<I', self.mem, self.pa(va))[0]

    def sym(self, x):
        i = bisect.bisect_right(self.text_addr, x) - 1
        if i < 0 or x - self.text[i][0] >= 0x10000:
            return None
        return f'{self.text[i][1]}+{x - self.text[i][0]:#x}'

    def percpu(self, cpu, name):
        return self.q(self.data['__per_cpu_offset'] + 8 * cpu) + self.data[name]


def text_words(g, lo, hi):
    for a in range(hi - 8, lo - 8, -8):
        s = g.sym(g.q(a))
        if s:
            yield a, g.q(a), s


def iret_frame(g, sp, span=0x800):
    """The first CS=0x10 / SS=0x18 (or null) frame above sp (pt_regs' tail)."""
    for a in range(sp, sp + span, 8):
        if g.q(a) == 0x10 and g.q(a + 24) in (0, 0x18) and g.sym(g.q(a - 8)):
            return a - 8
    return None


def nested_frames(g, lo, hi):
    """Hardware frames on the IRQ stack: RIP in the kernel's text, CS 0x10,
    RFLAGS (bit 1 always set), RSP, SS 0x18 or 0 (a null SS is valid in
    64-bit mode, and a kernel-to-kernel interrupt pushes whatever SS was)."""
    for a in range(lo + 8, hi - 32, 8):
        rfl = g.q(a + 8)
        if (g.q(a) == 0x10 and g.q(a + 24) in (0, 0x18) and rfl & 2 and rfl < 1 << 22
                and g.sym(g.q(a - 8))):
            yield a - 8


def lock_line(name, w):
    tail = w >> 18
    return (f'{name}: lock word {w:#x} (locked byte {w & 0xff}, pending {(w >> 8) & 1}, '
            f'tail cpu {tail - 1 if tail else "none"})')


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dump')
    ap.add_argument('--vmlinux', required=True)
    ap.add_argument('--cpu', type=int, default=0)
    ap.add_argument('--lock', action='append', default=[])
    ap.add_argument('--percpu-lock', action='append', default=[])
    ap.add_argument('--cpus', type=int, default=4, help='for --percpu-lock')
    a = ap.parse_args(argv)
    g = Guest(a.dump, a.vmlinux)
    lo = g.percpu(a.cpu, 'irq_stack_backing_store')
    hi = lo + IRQ_STACK
    print(f'cpu{a.cpu}: IRQ stack {lo:#x}-{hi:#x}, kernel-text words (outermost first):')
    for addr, w, s in text_words(g, lo, hi):
        print(f'  {addr:#x}: {w:#x} {s}')
    saved = g.q(hi - 8)
    print(f'cpu{a.cpu}: stack pointer saved at the IRQ stack top: {saved:#x}')
    f = iret_frame(g, saved) if saved else None
    if f is None:
        print('  no interrupt frame found above it')
    else:
        rip, cs, rfl, rsp = (g.q(f + 8 * i) for i in range(4))
        print(f'  interrupted: rip={rip:#x} {g.sym(rip)} cs={cs:#x} rflags={rfl:#x} '
              f'IF={(rfl >> 9) & 1} rsp={rsp:#x}')
        print('  kernel-text words above the frame (innermost first):')
        for addr in range(f + 40, f + 40 + 0x200, 8):
            s = g.sym(g.q(addr))
            if s:
                print(f'    {addr:#x}: {s}')
    for f in nested_frames(g, lo, hi):
        rip, cs, rfl = (g.q(f + 8 * i) for i in range(3))
        print(f'  frame on the IRQ stack at {f:#x}: rip={rip:#x} {g.sym(rip)} '
              f'rflags={rfl:#x} IF={(rfl >> 9) & 1}')
    for name in a.lock:
        print(lock_line(name, g.u32(g.data[name])))
    for spec in a.percpu_lock:
        name, _, off = spec.partition('+')
        for c in range(a.cpus):
            va = g.percpu(c, name) + (int(off, 0) if off else 0)
            print(lock_line(f'cpu{c} {spec}', g.u32(va)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
