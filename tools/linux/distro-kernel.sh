#!/usr/bin/env bash
# Fetch Debian's stock kernel (the one linux-image-amd64 depends on) from the
# Debian archive once per machine and print the path of its vmlinuz. Only the
# bzImage is extracted: the project's initramfs needs no modules.
# The result is cached in $HV_CACHE/distro/<package>_<version>/vmlinuz.
#
# usage: tools/linux/distro-kernel.sh            -> prints the vmlinuz path
# env:   HV_CACHE (default /var/cache/hv as root, else ~/.cache/hv),
#        DISTRO_KERNEL (a linux-image-* package name, default: the current one)
set -euo pipefail

log() { echo "distro: $*" >&2; }
die() { log "error: $*"; exit 1; }

if [ -z "${HV_CACHE:-}" ]; then
	if [ "$(id -u)" = 0 ]; then HV_CACHE=/var/cache/hv; else HV_CACHE=$HOME/.cache/hv; fi
fi
command -v apt-get >/dev/null || die "apt-get missing: this needs a Debian machine"

pkg=${DISTRO_KERNEL:-}
if [ -z "$pkg" ]; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	      sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -1)
	if [ -z "$pkg" ]; then
		[ "$(id -u)" = 0 ] && apt-get update -q >/dev/null 2>&1 || true
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		      sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -1)
	fi
	[ -n "$pkg" ] || die "cannot resolve linux-image-amd64 to a kernel package (apt-get update?)"
fi
ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "no candidate version of $pkg"

top=$HV_CACHE/distro
out=$top/${pkg}_$ver
mkdir -p "$top"
exec 9>"$top/.lock"
flock 9
if [ -s "$out/vmlinuz" ]; then
	echo "$out/vmlinuz"
	exit 0
fi

tmp=$(mktemp -d "$top/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log "fetching $pkg $ver"
# apt's sandbox user cannot write into a root-only temporary directory.
chmod 755 "$tmp"
(cd "$tmp" && apt-get download -q "$pkg=$ver" >/dev/null 2>&1) ||
	die "apt-get download $pkg=$ver failed"
deb=$(ls "$tmp"/*.deb)
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
img=$(ls "$tmp"/boot/vmlinuz-* | head -1)
[ -s "$img" ] || die "$deb has no /boot/vmlinuz-*"
mkdir -p "$out.tmp"
cp "$img" "$out.tmp/vmlinuz"
echo "$pkg $ver $(basename "$img")" >"$out.tmp/ORIGIN"
rm -rf "$out"
mv "$out.tmp" "$out"
log "$out/vmlinuz ($(stat -c %s "$out/vmlinuz") B)"
echo "$out/vmlinuz"
