"""System-test specs: one TOML file per test in test/system/ (format in
docs/running.md), checked and turned into a tools/hvrun command line."""
import tomllib
from pathlib import Path

KEYS = {'description': str, 'emu': str, 'firmware': str, 'cpus': int, 'mem': str,
        'cmdline': str, 'timeout': (int, float), 'status': int, 'expect': list,
        'expect_per_cpu': list, 'reject': list, 'vm': list, 'hvrun_args': list,
        'make': list}
VM_KEYS = {'string': str, 'image': str, 'initrd': str}
STATUS_NAMES = {'pass': 0, 'test-failure': 1, 'panic': 2, 'no-vtx': 3}


class SpecError(ValueError):
    pass


class Spec:
    def __init__(self, path):
        self.path = Path(path)
        self.name = self.path.stem
        with open(path, 'rb') as f:
            try:
                self.d = tomllib.load(f)
            except tomllib.TOMLDecodeError as e:
                raise SpecError(f'{path}: {e}') from None
        self._check()

    def _check(self):
        for k, v in self.d.items():
            if k not in KEYS:
                raise SpecError(f'{self.path}: unknown key {k!r}')
            if not isinstance(v, KEYS[k]):
                raise SpecError(f'{self.path}: {k} has the wrong type')
        for k in ('emu', 'status'):
            if k not in self.d:
                raise SpecError(f'{self.path}: {k} is required')
        if self.d['emu'] not in ('qemu', 'bochs'):
            raise SpecError(f'{self.path}: emu is qemu or bochs')
        for vm in self.d.get('vm', []):
            if set(vm) - set(VM_KEYS) or 'string' not in vm or 'image' not in vm:
                raise SpecError(f'{self.path}: [[vm]] takes string, image, initrd')

    @property
    def emu(self):
        return self.d['emu']

    @property
    def cpus(self):
        return self.d.get('cpus', 1)

    @property
    def status(self):
        return self.d['status']

    def expects(self):
        """expect plus expect_per_cpu with {cpu} = 0..cpus-1; {cpus} anywhere."""
        out = list(self.d.get('expect', []))
        for tmpl in self.d.get('expect_per_cpu', []):
            out += [tmpl.replace('{cpu}', str(i)) for i in range(self.cpus)]
        return [e.replace('{cpus}', str(self.cpus)) for e in out]

    def hvrun_args(self, repo, hv):
        d = self.d
        args = ['--emu', self.emu, '--firmware', d.get('firmware', 'bios'),
                '--cpus', str(self.cpus), '--mem', d.get('mem', '256M'),
                '--cmdline', d.get('cmdline', ''), '--hv', str(hv)]
        if 'timeout' in d:
            args += ['--timeout', str(d['timeout'])]
        for e in self.expects():
            args += ['--expect', e]
        for r in d.get('reject', []):
            args += ['--reject', r]
        for vm in d.get('vm', []):
            args += ['--vm', vm['string'], '--image', str(Path(repo) / vm['image'])]
            if 'initrd' in vm:
                args += ['--initrd', str(Path(repo) / vm['initrd'])]
        return args + list(d.get('hvrun_args', []))
