"""Unit tests of tools/hvrun --send-key: parsing REGEX=KEY, firing each key
once at the first matching line, and the pty carrying bytes both ways."""
import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'tools'))
from hvrun_lib import serialpty as S  # noqa: E402


class Parse(unittest.TestCase):
    def test_plain(self):
        rx, key = S.parse_send_key('ready$=v')
        self.assertTrue(rx.search('guest ready'))
        self.assertEqual(key, b'v')

    def test_last_equals_splits_and_escapes(self):
        rx, key = S.parse_send_key(r'a=b=\x3d\n')
        self.assertTrue(rx.search('a=b'))
        self.assertEqual(key, b'=\n')

    def test_errors(self):
        for bad in ('noequals', '=v', 'x=', '(=v', r'x=\x4'):
            with self.assertRaises(S.SendKeyError, msg=bad):
                S.parse_send_key(bad)


class Sender(unittest.TestCase):
    def test_each_fires_once_in_order(self):
        k = S.KeySender(['^go=a', 'go=b', 'later=c'])
        self.assertEqual(k.feed('nothing'), [])
        self.assertEqual(k.feed('now go'), [b'b'])
        self.assertEqual(k.feed('go'), [b'a'])
        self.assertEqual(k.feed('go'), [])
        self.assertEqual(k.feed('later go'), [b'c'])
        self.assertEqual(k.sent, [b'b', b'a', b'c'])
        self.assertEqual(k.pending, [])


class Pty(unittest.TestCase):
    def test_both_directions(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, 'serial.log')
            p = S.SerialPty(log)
            emu = os.open(p.path, os.O_RDWR | os.O_NOCTTY)   # the emulator's side
            os.write(emu, b'line one\r\n')
            p.send(b'v')
            self.assertEqual(os.read(emu, 16), b'v')          # raw: no echo, no buffering
            os.close(emu)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and os.path.getsize(log) < 10:
                time.sleep(0.01)
            p.close()
            with open(log, 'rb') as f:
                self.assertEqual(f.read(), b'line one\r\n')   # the key is not echoed


if __name__ == '__main__':
    unittest.main()
