"""tools/hvrun's ISO cache under parallel runs: pruning keeps the KEEP newest
ISOs and every ISO younger than FRESH (another run may not have opened it
yet), and a file that vanishes meanwhile is no error."""
import os
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'tools'))
from hvrun_lib import iso  # noqa: E402


class Prune(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cache = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def make(self, name, age):
        p = self.cache / f'{name}.iso'
        p.write_bytes(b'x')
        t = time.time() - age
        os.utime(p, (t, t))
        return p

    def test_keeps_newest_and_fresh(self):
        old = [self.make(f'old{i}', iso.FRESH + 100 + i) for i in range(iso.KEEP + 3)]
        fresh = [self.make(f'new{i}', 5 + i) for i in range(iso.KEEP + 3)]
        iso._prune(self.cache)
        left = {p.name for p in self.cache.glob('*.iso')}
        self.assertTrue(all(p.name in left for p in fresh), 'a fresh ISO was pruned')
        self.assertFalse(any(p.name in left for p in old), 'stale ISOs beyond KEEP stay')

    def test_keeps_keep_newest_when_all_stale(self):
        for i in range(iso.KEEP + 4):
            self.make(f'a{i:02d}', iso.FRESH + 10 + i)
        iso._prune(self.cache)
        left = sorted(p.name for p in self.cache.glob('*.iso'))
        self.assertEqual(left, [f'a{i:02d}.iso' for i in range(iso.KEEP)])

    def test_vanishing_file(self):
        p = self.make('gone', iso.FRESH + 50)
        real = iso._mtime

        def racy(path):
            if path.name == 'gone.iso':
                path.unlink()
            return real(path)
        with mock.patch.object(iso, '_mtime', racy):
            iso._prune(self.cache)
        self.assertFalse(p.exists())

    def test_build_reuses_and_survives_pruned_iso(self):
        f = self.cache / 'hv.elf'
        f.write_bytes(b'elf')
        with mock.patch.object(iso, '_mkrescue',
                               side_effect=lambda c, t, fs, out: out.write_bytes(b'iso')) as mk:
            a = iso.build(self.cache, 'cfg', {'hv.elf': str(f)})
            b = iso.build(self.cache, 'cfg', {'hv.elf': str(f)})
            self.assertEqual(a, b)
            self.assertEqual(mk.call_count, 1)
            a.unlink()                     # pruned by another run
            iso.build(self.cache, 'cfg', {'hv.elf': str(f)})
            self.assertEqual(mk.call_count, 2)


if __name__ == '__main__':
    unittest.main()
