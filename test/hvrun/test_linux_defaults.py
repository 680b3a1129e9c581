"""tools/hvrun: a kind=linux VM without --image/--initrd gets the default
guest kernel and initramfs after `make linux-guest`; other VMs and VMs that
name their files are left alone; a failed build is a usage error."""
import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'tools'))
from hvrun_lib import cli  # noqa: E402


def parse(*argv):
    return cli.build_parser().parse_args(list(argv))


class LinuxDefaults(unittest.TestCase):
    def test_fills_missing_files(self):
        o = parse('--vm', 'kind=linux vcpus=2 mem=128M', '--vm', 'kind=linux vcpus=1',
                  '--initrd', '/x/my.cpio', '--vm', 'kind=multiboot', '--image', '/x/t.elf')
        with mock.patch.object(cli.subprocess, 'run') as run:
            run.return_value.returncode = 0
            cli.linux_defaults(o)
        self.assertEqual(run.call_count, 1)
        self.assertIn('linux-guest', run.call_args[0][0])
        self.assertTrue(o.vms[0].image.endswith('build/linux/bzImage'))
        self.assertTrue(o.vms[0].initrd.endswith('build/linux/initramfs.cpio'))
        self.assertTrue(o.vms[1].image.endswith('build/linux/bzImage'))
        self.assertEqual(o.vms[1].initrd, '/x/my.cpio')
        self.assertEqual(o.vms[2].image, '/x/t.elf')
        self.assertIsNone(o.vms[2].initrd)

    def test_no_build_when_given(self):
        o = parse('--vm', 'kind=linux', '--image', '/k', '--initrd', '/i')
        with mock.patch.object(cli.subprocess, 'run') as run:
            cli.linux_defaults(o)
        run.assert_not_called()

    def test_build_failure(self):
        o = parse('--vm', 'kind=linux')
        with mock.patch.object(cli.subprocess, 'run') as run:
            run.return_value.returncode = 2
            with self.assertRaises(cli.UsageError):
                cli.linux_defaults(o)


if __name__ == '__main__':
    unittest.main()
