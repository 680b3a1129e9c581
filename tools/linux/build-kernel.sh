#!/usr/bin/env bash
# Build the guest Linux kernel once per machine: Debian's linux-source-6.1,
# patched with guest-shim/linux/patches/*.patch (applied with `patch -p1` in
# file-name order; a patch that does not apply fails the build), then
# `make tinyconfig` plus guest-shim/linux/guest.config, LZ4 bzImage.
# The result is cached in $HV_CACHE/linux/<key>/ where key hashes the fragment,
# the patches and the source package version; a second call only prints the
# cached path.
#
# usage: tools/linux/build-kernel.sh [fragment]    -> prints the bzImage path
# env:   HV_CACHE (default /var/cache/hv as root, else ~/.cache/hv), JOBS (2)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
frag=$(readlink -f "${1:-$root/guest-shim/linux/guest.config}")
src_tar=/usr/src/linux-source-6.1.tar.xz
jobs=${JOBS:-2}

if [ -z "${HV_CACHE:-}" ]; then
	if [ "$(id -u)" = 0 ]; then HV_CACHE=/var/cache/hv; else HV_CACHE=$HOME/.cache/hv; fi
fi

log() { echo "linux: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ -r "$frag" ] || die "no config fragment $frag"
[ -r "$src_tar" ] || die "$src_tar missing (apt-get install linux-source-6.1)"
for t in bison flex bc cpio gcc make; do
	command -v $t >/dev/null || die "$t missing (make deps)"
done
[ -e /usr/include/gelf.h ] || die "libelf-dev missing (objtool needs it)"

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %s "$src_tar")
# Patch series: every *.patch in the folder, in C-locale file-name order.
patchdir=${HV_LINUX_PATCHES:-$root/guest-shim/linux/patches}
patches=()
if [ -d "$patchdir" ]; then
	while IFS= read -r f; do patches+=("$f"); done < <(LC_ALL=C ls -1 "$patchdir"/*.patch 2>/dev/null || true)
fi
phash=
if [ ${#patches[@]} -gt 0 ]; then
	command -v patch >/dev/null || die "patch missing (make deps)"
	phash=$(for f in "${patches[@]}"; do basename "$f"; sha256sum <"$f"; done | sha256sum | cut -c1-12)
fi
key=$( { echo "pkg=$pkgver"; [ -z "$phash" ] || echo "patches=$phash"; cat "$frag"; } | sha256sum | cut -c1-16)
top=$HV_CACHE/linux
out=$top/$key
mkdir -p "$top"

# Serialise concurrent builds (two `make` runs must not build twice).
exec 9>"$top/.lock"
flock 9

if [ -f "$out/bzImage" ] && [ -f "$out/.done" ]; then
	echo "$out/bzImage"
	exit 0
fi

# Verify that every line of the fragment landed in .config: "CONFIG_X=v" must
# appear verbatim; "# CONFIG_X is not set" must not appear as CONFIG_X=...
config_verify() {
	local cfg=$1 bad=0 line sym
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$cfg" || { log "fragment line not in .config: $line"; bad=1; } ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			if grep -q "^$sym=" "$cfg"; then
				log "fragment wants $sym off, .config has: $(grep "^$sym=" "$cfg")"; bad=1
			fi ;;
		esac
	done <"$frag"
	return $bad
}

# One source tree per (package version, patch series); a patched tree is
# unpacked afresh so the pristine one is never modified.
srcdir=$top/src-$pkgver${phash:+-p$phash}
if [ ! -f "$srcdir/.unpacked" ]; then
	log "unpacking $src_tar"
	rm -rf "$srcdir" "$srcdir.tmp"
	mkdir -p "$srcdir.tmp"
	tar -xJf "$src_tar" -C "$srcdir.tmp" --strip-components=1
	for f in "${patches[@]}"; do
		log "applying $(basename "$f")"
		patch -d "$srcdir.tmp" -p1 --batch --forward --no-backup-if-mismatch -s <"$f" ||
			{ rm -rf "$srcdir.tmp"; die "patch $(basename "$f") does not apply to linux-source $pkgver"; }
	done
	touch "$srcdir.tmp/.unpacked"
	mv "$srcdir.tmp" "$srcdir"
fi

obj=$out/obj
rm -rf "$out"
mkdir -p "$obj"
cp "$frag" "$out/frag.config"
kmake() { nice -n 10 make -s -C "$srcdir" O="$obj" ARCH=x86_64 "$@"; }

log "building kernel $key (fragment $(basename "$frag"), source $pkgver, -j$jobs) ..."
start=$(date +%s)
kmake tinyconfig >"$out/build.log" 2>&1 || die "tinyconfig failed, see $out/build.log"
(cd "$obj" && "$srcdir/scripts/kconfig/merge_config.sh" -m .config "$out/frag.config") \
	>>"$out/build.log" 2>&1 || die "merge_config failed"
kmake olddefconfig >>"$out/build.log" 2>&1 || die "olddefconfig failed"
config_verify "$obj/.config" || die "config fragment did not apply (see above)"
kmake -j"$jobs" bzImage >>"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2; die "kernel build failed, see $out/build.log"; }
end=$(date +%s)

cp "$obj/arch/x86/boot/bzImage" "$out/bzImage"
cp "$obj/.config" "$out/config"
cp "$obj/vmlinux" "$out/vmlinux" 2>/dev/null || true
echo "$((end - start))" >"$out/build-seconds"
# The object tree is large (~250 MB) and not needed once the image exists.
[ "${HV_KEEP_OBJ:-0}" = 1 ] || rm -rf "$obj"
touch "$out/.done"
log "kernel built in $((end - start)) s: $out/bzImage ($(stat -c %s "$out/bzImage") B)"
echo "$out/bzImage"
