#!/usr/bin/env python3
"""Write the seed corpora of the libFuzzer harnesses (test/fuzz/fuzz_*.c).

usage: seeds.py OUTDIR [GUEST_DIR]
OUTDIR/<harness>/<name> gets small valid inputs of each format, so fuzzing
starts from what the parsers accept; GUEST_DIR (build/guest) adds the real
guest test kernels to the multiboot1 corpus when they are built.
"""
import os
import struct
import sys
from pathlib import Path


def put(buf, off, fmt, *v):
    struct.pack_into("<" + fmt, buf, off, *v)


def fix(buf, off, length, sum_off):
    buf[off + sum_off] = 0
    buf[off + sum_off] = (-sum(buf[off:off + length])) & 0xff


# ------------------------------------------------------------ decoder
def decode_seeds():
    m16, m32, m64 = b"\0", b"\1", b"\2"
    insns = {
        "mov_load32": m32 + bytes([0x8b, 0x03]),
        "mov_store32": m32 + bytes([0x89, 0x0b]),
        "mov_imm32": m32 + bytes([0xc7, 0x43, 0x10, 0x78, 0x56, 0x34, 0x12]),
        "mov_imm8": m32 + bytes([0xc6, 0x05, 0, 0, 0xe0, 0xfe, 0x5a]),
        "mov_ah": m32 + bytes([0x88, 0x23]),
        "opsize": m32 + bytes([0x66, 0x89, 0x03]),
        "moffs": m32 + bytes([0xa1, 0x20, 0x00, 0xe0, 0xfe]),
        "movzx": m32 + bytes([0x0f, 0xb6, 0x03]),
        "movsx_w": m32 + bytes([0x0f, 0xbf, 0x44, 0x24, 0x08]),
        "sib_disp32": m32 + bytes([0x8b, 0x84, 0x8b, 0x00, 0x03, 0xe0, 0xfe]),
        "seg_rep": m32 + bytes([0xf3, 0x64, 0x8b, 0x03]),
        "rex_w": m64 + bytes([0x48, 0x8b, 0x03]),
        "rex_r": m64 + bytes([0x44, 0x89, 0x00]),
        "rip_rel": m64 + bytes([0x8b, 0x05, 0x10, 0, 0, 0]),
        "moffs64": m64 + bytes([0x48, 0xa1]) + struct.pack("<Q", 0xfee00020),
        "addr16": m16 + bytes([0x8b, 0x07]),
        "addr32_in16": m16 + bytes([0x67, 0x66, 0x8b, 0x03]),
        "long_prefixes": m64 + bytes([0x66] * 14 + [0x8b]),
        "reg_operand": m32 + bytes([0x8b, 0xc3]),
    }
    return insns


# ------------------------------------------------------------ command line, module strings
def cmdline_seeds():
    return {
        "defaults": b"sched=credit loglvl=info console=com1",
        "many": b"loglvl=debug console=com1,e9,com2 maxcpus=2 exit=bochs apicv=off",
        "typed": b"f_flag f_int=-5 f_mem=256M f_name=abc f_mode=beta f_set=alpha,gamma f_custom=ok",
        "quoted": b'f_name="a b" f_int=0x10 f_mem=0x1000 f_flag=off unknown=1 f_set=',
        "bad": b'f_int=1000 f_mem=1T f_name=toolongname f_mode=delta "unterminated',
    }


def modstr_seeds():
    return {
        "full": b'vm=0 role=kernel kind=multiboot vcpus=2 mem=64M pcpus=0,1 weight=256 cap=0 '
                b'type=hit sa=on priv=on apicv=on kvm=on vprof=dedicated name=vm0 cmdline="a b"',
        "linux": b'vm=1 role=kernel kind=linux vcpus=1 mem=128M cmdline="console=ttyS0,115200 quiet"',
        "initrd": b"vm=1 role=initrd",
        "escaped": b'vm=2 kind=flat name=x\\ y cmdline="say \\"hi\\" \\\\ there" type=con sa=off',
        "pcpus": b"vm=3 vcpus=16 pcpus=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 cap=50",
    }


# ------------------------------------------------------------ multiboot2 information
def mb2_tag(t, payload):
    b = struct.pack("<II", t, 8 + len(payload)) + payload
    return b + b"\0" * (-len(b) % 8)


def bootinfo_seeds():
    rsdp_old = b"RSD PTR " + bytes(12)
    rsdp_new = b"RSD PTR " + bytes([0]) + b"TESTOE" + bytes([2]) + bytes(20)
    mmap = struct.pack("<II", 24, 0) + b"".join(
        struct.pack("<QQII", a, l, t, 0) for a, l, t in
        [(0, 0x9fc00, 1), (0x9fc00, 0x400, 2), (0x100000, 0x7f00000, 1), (0xfffc0000, 0x40000, 2)])
    efi = struct.pack("<II", 40, 1) + b"".join(
        struct.pack("<IIQQQQ", t, 0, a, 0, n, 0) for t, a, n in
        [(7, 0, 0x9f), (4, 0x100000, 0x100), (7, 0x200000, 0x7e00), (9, 0xf0000000, 1)])
    common = (mb2_tag(1, b"sched=credit loglvl=debug\0") + mb2_tag(2, b"GRUB 2.06\0") +
              mb2_tag(3, struct.pack("<II", 0x200000, 0x210000) + b"vm=0 kind=multiboot\0") +
              mb2_tag(3, struct.pack("<II", 0x210000, 0x220000) + b"vm=1 role=initrd\0") +
              mb2_tag(4, struct.pack("<II", 639, 130048)))
    out = {}
    for name, body in [
        ("bios", common + mb2_tag(6, mmap) + mb2_tag(14, rsdp_old) + mb2_tag(21, struct.pack("<I", 0x200000))),
        ("uefi", common + mb2_tag(17, efi) + mb2_tag(15, rsdp_new) +
         mb2_tag(12, struct.pack("<Q", 0x7f000000)) + mb2_tag(18, b"")),
        ("minimal", b""),
    ]:
        body += struct.pack("<II", 0, 8)
        out[name] = struct.pack("<II", 8 + len(body), 0) + body
    return out


# ------------------------------------------------------------ ACPI and MP tables
def acpi_seed(base=0xe0000, xsdt=True):
    mem = bytearray(0x1000)
    rsdt, xsdt_o, madt, fadt, dsdt = 0x40, 0x80, 0x100, 0x300, 0x400
    mem[0:8] = b"RSD PTR "
    mem[9:15] = b"TESTOE"
    mem[15] = 2 if xsdt else 0
    put(mem, 16, "I", base + rsdt)
    put(mem, 20, "I", 36)
    put(mem, 24, "Q", base + xsdt_o if xsdt else 0)
    fix(mem, 0, 20, 8)
    fix(mem, 0, 36, 32)

    def header(off, sig, length, rev):
        mem[off:off + 4] = sig
        put(mem, off + 4, "I", length)
        mem[off + 8] = rev
        mem[off + 10:off + 16] = b"TESTOE"
        fix(mem, off, length, 9)

    ents = [base + fadt, base + madt]
    for i, e in enumerate(ents):
        put(mem, rsdt + 36 + 4 * i, "I", e)
        put(mem, xsdt_o + 36 + 8 * i, "Q", e)
    header(rsdt, b"RSDT", 36 + 4 * len(ents), 1)
    header(xsdt_o, b"XSDT", 36 + 8 * len(ents), 1)
    e = bytearray()
    for uid, aid, fl in [(0, 0, 1), (1, 1, 1), (2, 2, 0), (3, 3, 2)]:
        e += struct.pack("<BBBBI", 0, 8, uid, aid, fl)
    e += struct.pack("<BBBBIIII", 9, 16, 0, 0, 0x100, 1, 4, 0)[:16]
    e += struct.pack("<BBBBII", 1, 12, 4, 0, 0xfec00000, 0)
    e += struct.pack("<BBBBIH", 2, 10, 0, 0, 2, 0)
    e += struct.pack("<BBBBIH", 2, 10, 0, 9, 9, 0xd)
    e += struct.pack("<BBHQ", 5, 12, 0, 0xfee00000)
    e += struct.pack("<BBBHB", 4, 6, 0xff, 5, 1)
    mem[madt + 44:madt + 44 + len(e)] = e
    put(mem, madt + 36, "II", 0xfee00000, 1)
    header(madt, b"APIC", 44 + len(e), 4)
    put(mem, fadt + 40, "I", base + dsdt)
    put(mem, fadt + 46, "H", 9)
    put(mem, fadt + 48, "I", 0xb2)
    mem[fadt + 52] = 0xf1
    put(mem, fadt + 64, "I", 0x604)
    put(mem, fadt + 76, "I", 0x608)
    put(mem, fadt + 109, "H", 3)
    put(mem, fadt + 112, "I", (1 << 10) | (1 << 8))
    mem[fadt + 116] = 1
    put(mem, fadt + 120, "Q", 0xcf9)
    mem[fadt + 128] = 6
    put(mem, fadt + 140, "Q", base + dsdt)
    header(fadt, b"FACP", 244, 3)
    aml = bytes([0x10, 0x05, 0x5f, 0x53, 0x42, 0x5f, 0x08, 0x5c, 0x5f, 0x53, 0x35, 0x5f,
                 0x12, 0x08, 0x04, 0x0a, 0x05, 0x00, 0x00, 0x00, 0xa0])
    mem[dsdt + 36:dsdt + 36 + len(aml)] = aml
    header(dsdt, b"DSDT", 36 + len(aml), 2)
    return bytes(mem[:dsdt + 36 + len(aml)])


def acpi_seeds():
    return {"v2_xsdt": acpi_seed(xsdt=True), "v1_rsdt": acpi_seed(xsdt=False)}


def mptable_seed(base=0xf0000):
    mem = bytearray(0x200)
    cfg = 0x10
    mem[0:4] = b"_MP_"
    put(mem, 4, "I", base + cfg)
    mem[8], mem[9] = 1, 4
    fix(mem, 0, 16, 10)
    ents = bytearray()
    for i in range(2):
        ents += struct.pack("<BBBBIII", 0, i, 0x14, 1 | (2 if i == 0 else 0), 0x663, 0x200, 0) + bytes(4)
    ents += struct.pack("<BB6s", 1, 0, b"ISA   ")
    ents += struct.pack("<BBBBI", 2, 2, 0x11, 1, 0xfec00000)
    for irq in (0, 1, 9):
        ents += struct.pack("<BBHBBBB", 3, 0, 0xd if irq == 9 else 0, 0, irq, 2, 2 if irq == 0 else irq)
    ents += struct.pack("<BBHBBBB", 4, 3, 0, 0, 0, 0xff, 0)
    mem[cfg:cfg + 4] = b"PCMP"
    put(mem, cfg + 4, "H", 44 + len(ents))
    mem[cfg + 6] = 4
    mem[cfg + 8:cfg + 16] = b"TESTOEM "
    put(mem, cfg + 28, "I", (7 + 2) << 16 | 0)
    put(mem, cfg + 28, "HH", 0, 9)
    put(mem, cfg + 36, "I", 0xfee00000)
    mem[cfg + 44:cfg + 44 + len(ents)] = ents
    fix(mem, cfg, 44 + len(ents), 7)
    return bytes(mem[:cfg + 44 + len(ents)])


# ------------------------------------------------------------ loaders
def mb1_header(flags, aout=None):
    magic = 0x1BADB002
    h = struct.pack("<III", magic, flags, (-(magic + flags)) & 0xffffffff)
    return h + (struct.pack("<5I", *aout) if aout else b"")


def elf32(paddr=0x100000, entry=0x100000, memsz=0x2000):
    img = bytearray(0x1800)
    img[0:16] = b"\x7fELF\x01\x01\x01" + bytes(9)
    put(img, 16, "HHIIIIIHHHHHH", 2, 3, 1, entry, 52, 0, 0, 52, 32, 1, 40, 0, 0)
    put(img, 52, "8I", 1, 0x1000, paddr, paddr, 0x800, memsz, 5, 0x1000)
    img[0x200:0x20c] = mb1_header(3)
    for i in range(0x800):
        img[0x1000 + i] = (i * 7 + 1) & 0xff
    return bytes(img)


def elf64(paddr=0x200000):
    img = bytearray(0x1800)
    img[0:16] = b"\x7fELF\x02\x01\x01" + bytes(9)
    put(img, 16, "HHIQQQIHHHHHH", 2, 62, 1, paddr, 64, 0, 0, 64, 56, 1, 64, 0, 0)
    put(img, 64, "IIQQQQQQ", 1, 5, 0x1000, paddr, paddr, 0x800, 0x2000, 0x1000)
    img[0x100:0x10c] = mb1_header(3)
    return bytes(img)


def aout():
    img = bytearray(0x1000)
    # header_addr, load_addr, load_end_addr, bss_end_addr, entry_addr
    img[0:32] = mb1_header(0x10003, (0x100000, 0x100000, 0x100800, 0x102000, 0x100020))
    return bytes(img)


def mb1_seeds(guest_dir):
    out = {"elf32": elf32(), "elf64": elf64(), "aout": aout(), "elf32_bss": elf32(memsz=0x100000)}
    if guest_dir and Path(guest_dir).is_dir():
        for f in sorted(Path(guest_dir).glob("*")):
            if f.suffix in (".elf", ".bin") and f.stat().st_size <= 128 * 1024 and \
                    f.name.startswith(("cpuid", "timer", "hostile")):
                out["guest_" + f.name] = f.read_bytes()
    return out


def bzimage_seeds():
    def image(sects=4, pm=4096, version=0x020f, xlf=1, pref=16 << 20, init=2 << 20):
        img = bytearray((sects + 1) * 512 + pm)
        img[0x1ef] = 0xff
        img[0x1f1] = sects
        put(img, 0x1fe, "H", 0xaa55)
        img[0x200], img[0x201] = 0xeb, 0x6a
        img[0x202:0x206] = b"HdrS"
        put(img, 0x206, "H", version)
        img[0x211] = 1
        put(img, 0x22c, "I", 0x7fffffff)
        put(img, 0x236, "H", xlf)
        put(img, 0x238, "I", 2047)
        put(img, 0x258, "Q", pref)
        put(img, 0x260, "I", init)
        for i in range(pm):
            img[(sects + 1) * 512 + i] = (i * 7 + 3) & 0xff
        return bytes(img)
    return {"linux61": image(), "initrd_flag": b"\1" + image()[1:], "low_pref": image(pref=1 << 20),
            "old_proto": image(version=0x020b, xlf=0)}


# ------------------------------------------------------------ page walker
def gwalk_seeds():
    def one(cr0, cr3, cr4, efer, la, write, tables, size=0x8000):
        ram = bytearray(size)
        for off, fmt, v in tables:
            put(ram, off, fmt, v)
        return struct.pack("<QQQQQB", cr0, cr3, cr4, efer, la, write) + bytes(ram)
    pg, pe = 1 << 31, 1
    return {
        "nopaging": one(pe, 0, 0, 0, 0x12345678, 0, [], 0x100),
        "bits32_4k": one(pg | pe, 0x1000, 0, 0, 0x00405abc, 0,
                         [(0x1000 + 4, "I", 0x2000 | 1), (0x2000 + 5 * 4, "I", 0x345000 | 1)]),
        "bits32_4m": one(pg | pe, 0x1000, 1 << 4, 0, 0x00812345, 1,
                         [(0x1000 + 8, "I", 0x00400000 | 0x81 | (0x3 << 13))]),
        "pae_2m": one(pg | pe, 0x1000, 1 << 5, 0, 0x40000000 + 3 * 0x200000 + 0x1234, 0,
                      [(0x1000 + 8, "Q", 0x2000 | 1), (0x2000 + 3 * 8, "Q", 0x600000 | 0x83)]),
        "long_4k": one(pg | pe, 0x1000, 1 << 5, (1 << 8) | (1 << 10), 0x7f0000401234, 1,
                       [(0x1000 + 254 * 8, "Q", 0x2000 | 3), (0x2000 + 0 * 8, "Q", 0x3000 | 3),
                        (0x3000 + 2 * 8, "Q", 0x4000 | 3), (0x4000 + 1 * 8, "Q", 0x7000 | 3)]),
        "long_1g": one(pg | pe, 0x1000, 1 << 5, (1 << 8) | (1 << 10), 0x40001234, 0,
                       [(0x1000, "Q", 0x2000 | 3), (0x2000 + 8, "Q", 0x80000000 | 0x83)]),
    }


def main():
    out = Path(sys.argv[1])
    guest = sys.argv[2] if len(sys.argv) > 2 else None
    sets = {
        "decode": decode_seeds(), "cmdline": cmdline_seeds(), "modstr": modstr_seeds(),
        "bootinfo": bootinfo_seeds(), "acpi": acpi_seeds(),
        "mptable": {"two_cpus": mptable_seed()}, "mb1": mb1_seeds(guest),
        "bzimage": bzimage_seeds(), "gwalk": gwalk_seeds(),
    }
    for harness, seeds in sets.items():
        d = out / harness
        d.mkdir(parents=True, exist_ok=True)
        for name, data in seeds.items():
            p = d / ("seed-" + name)
            if not p.exists() or p.read_bytes() != data:
                p.write_bytes(data)
    print(f"seeds: {sum(len(s) for s in sets.values())} inputs for {len(sets)} harnesses in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
