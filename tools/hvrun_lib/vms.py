"""Turn the user's VM descriptions into boot modules with canonical strings.

A module string starts with `vm=<n> role=<kernel|initrd>` so the hypervisor
can tell what a module is before it reads the rest; hvrun puts these two words
first (filling them in when the user left them out) and keeps the user's other
words in order.
"""
import re
from pathlib import Path

from . import words as W
from .grubcfg import Module

ROLES = ('kernel', 'initrd')


class VmSpec:
    """--vm STRING --image PATH [--initrd PATH] as given on the command line."""

    def __init__(self, text):
        self.text, self.image, self.initrd = text, None, None


def safe_name(index, role, path):
    """/boot file name: unique per module, harmless for GRUB and ISO9660."""
    stem = re.sub(r'[^A-Za-z0-9._-]', '_', Path(path).name)[:48] or 'image'
    return f'vm{index}-{role}-{stem}'


def canonical_words(text, index, role):
    """vm= and role= first, then the user's words; checks they agree."""
    ws = [W.check_word(w) for w in W.split_words(text)]
    vm = [w for w in ws if W.word_key(w) == 'vm']
    rl = [w for w in ws if W.word_key(w) == 'role']
    if len(vm) > 1 or len(rl) > 1:
        raise W.WordError(f'vm= or role= given twice in {text!r}')
    vm_word = vm[0] if vm else f'vm={index}'
    if not re.fullmatch(r'vm=\d+', vm_word):
        raise W.WordError(f'{vm_word!r}: vm= takes a number')
    role_word = rl[0] if rl else f'role={role}'
    if role_word.split('=', 1)[1] not in ROLES:
        raise W.WordError(f'{role_word!r}: role is one of {", ".join(ROLES)}')
    rest = [w for w in ws if W.word_key(w) not in ('vm', 'role')]
    return [vm_word, role_word] + rest


def vm_modules(specs):
    """Modules for all VMs: each kernel, then its initrd (`vm=N role=initrd`)."""
    mods = []
    for i, spec in enumerate(specs):
        if spec.image is None:
            raise W.WordError(f'--vm {spec.text!r} has no --image')
        ws = canonical_words(spec.text, i, 'kernel')
        vm_word = ws[0]
        mods.append(Module(spec.image, safe_name(i, 'kernel', spec.image), ws))
        if spec.initrd is not None:
            mods.append(Module(spec.initrd, safe_name(i, 'initrd', spec.initrd),
                               [vm_word, 'role=initrd']))
    return mods
