"""hvrun: build a GRUB ISO for the hypervisor and its guests, boot it in QEMU or
Bochs, watch the serial console and turn what it says into an exit status.

Modules: words (module-string quoting), grubcfg (grub.cfg text), iso (ISO
cache), monitor (serial contract -> verdict), qemu / bochs (emulator set-up),
session (run one emulator to a verdict), cli (the command line).
"""
