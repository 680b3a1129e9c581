#!/usr/bin/env bash
# Install what the build and tests need from Debian's packages (idempotent).
# Runs as root on a fresh Debian 12 machine; a no-op when all are present.
# clang + libclang-rt-14-dev (libFuzzer): the parser harnesses of mk/fuzz.mk.
set -euo pipefail
PKGS="nasm gcc make binutils python3 grub-pc-bin grub-efi-amd64-bin grub-common xorriso mtools
      qemu-system-x86 ovmf bochs bochs-term bochsbios vgabios check pkg-config
      bison flex patch libelf-dev cpio bc busybox-static linux-source-6.1 valgrind
      clang libclang-rt-14-dev python3-matplotlib"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
# bochs-term satisfies bochs' display dependency, so the X11 front end is not needed.
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
