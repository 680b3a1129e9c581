"""Hybrid BIOS+UEFI ISO from grub.cfg and the boot files, cached by content.

The cache key is a hash of grub.cfg and of every file's bytes, so an unchanged
boot description reuses its ISO and a rebuilt hv.elf makes a new one. Builds
write to a temporary name and rename, so parallel runs never see half an ISO.
"""
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

KEEP = 16            # cached ISOs kept (each is about 20 MB)
FRESH = 600          # s: an ISO this young may belong to a run that has not opened it yet


class IsoError(RuntimeError):
    pass


def cache_key(cfg_text, files):
    h = hashlib.sha256(cfg_text.encode())
    for name, path in sorted(files.items()):
        h.update(name.encode() + b'\0')
        with open(path, 'rb') as f:
            for block in iter(lambda: f.read(1 << 20), b''):
                h.update(block)
    return h.hexdigest()[:20]


def _stage(root, cfg_text, files):
    grub = root / 'boot' / 'grub'
    grub.mkdir(parents=True)
    (grub / 'grub.cfg').write_text(cfg_text)
    for name, path in files.items():
        shutil.copyfile(path, root / 'boot' / name)


def _mtime(path):
    try:
        return path.stat().st_mtime
    except FileNotFoundError:   # another run pruned it meanwhile
        return None


def _prune(cache):
    """Keep the KEEP newest ISOs, and every ISO touched in the last FRESH
    seconds: parallel runs (run_hv.py -j) prune the same cache, and one must
    not delete the ISO another has built but not yet handed to its emulator."""
    dated = [(t, p) for p in cache.glob('*.iso') if (t := _mtime(p)) is not None]
    now = time.time()
    for t, old in sorted(dated)[:-KEEP]:
        if now - t > FRESH:
            old.unlink(missing_ok=True)


def build(cache, cfg_text, files, out=None):
    """Return the path of an ISO holding grub.cfg and files {name: path}."""
    for path in files.values():
        if not Path(path).is_file():
            raise IsoError(f'no such file: {path}')
    cache = Path(cache)
    cache.mkdir(parents=True, exist_ok=True)
    iso = cache / f'{cache_key(cfg_text, files)}.iso'
    try:
        os.utime(iso)            # in use again: younger than FRESH for _prune
    except FileNotFoundError:
        _mkrescue(cache, cfg_text, files, iso)
        _prune(cache)
    if out:
        shutil.copyfile(iso, out)
        return Path(out)
    return iso


def _mkrescue(cache, cfg_text, files, iso):
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        root = Path(tmp) / 'root'
        _stage(root, cfg_text, files)
        part = Path(tmp) / 'out.iso'
        p = subprocess.run(['grub-mkrescue', '-o', str(part), str(root)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if p.returncode != 0 or not part.exists():
            raise IsoError('grub-mkrescue failed:\n' + p.stdout)
        os.replace(part, iso)
