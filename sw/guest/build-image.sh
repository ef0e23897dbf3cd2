#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds the guest initramfs: busybox-static, nvme-cli and mkfs.ext4 (Debian
# binaries with the shared libraries ldd reports), a static fio
# (build-fio.sh), the tools of sw/tools (static, in /bin), /init
# (sw/guest/init) and the scripts of sw/guest/scripts under /scripts.
#
# Output: $FLASHVP_CACHE/image/<key>/initramfs.cpio.gz, <key> hashing this
# script, init, the scripts, the tools' sources, the fio binary and the
# package versions. A cached key returns at once. Prints the image path.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

PKGS=(busybox-static nvme-cli e2fsprogs libc6)
ensure_pkgs "${PKGS[@]}" cpio gzip gcc libc6-dev
fio=$("$HERE/build-fio.sh")
TOOLS=("$REPO"/sw/tools/*.c)

key=$( { hash_inputs "$HERE/build-image.sh" "$HERE/init" "$HERE"/scripts/*.sh "${TOOLS[@]}" "$fio";
         for p in "${PKGS[@]}"; do echo "$p $(pkg_version "$p")"; done; } | sha256sum | cut -c1-16)
IDIR=$FLASHVP_CACHE/image
out=$IDIR/$key
if [ -f "$out/initramfs.cpio.gz" ]; then echo "$out/initramfs.cpio.gz"; exit 0; fi
mkdir -p "$IDIR"
t0=$(date +%s)

root=$(mktemp -d "$IDIR/root.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib64,etc,proc,sys,dev,tmp,mnt,scripts}
[ "$(id -u)" -eq 0 ] && mknod -m 600 "$root/dev/console" c 5 1

cp /bin/busybox "$root/bin/busybox"
for applet in $(busybox --list-full); do
  [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done

# A dynamically linked binary and every library ldd lists, at the same paths.
copy_with_libs() {
  local bin=$1 dest=$2 lib
  cp -L "$bin" "$root/$dest"
  for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$lib")"
    [ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
  done
}
copy_with_libs "$(command -v nvme)" usr/sbin/nvme
copy_with_libs /sbin/mke2fs usr/sbin/mke2fs
ln -sf mke2fs "$root/usr/sbin/mkfs.ext4"
cp /etc/mke2fs.conf "$root/etc/"
# The loader finds the multiarch directories through its cache.
printf '/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' > "$root/etc/ld.so.conf"
ldconfig -r "$root"
cp "$fio" "$root/usr/bin/fio"
# sw/tools/NAME.c becomes /bin/NAME, static like busybox.
for t in "${TOOLS[@]}"; do
  gcc -static -O2 -Wall -Werror -o "$root/bin/$(basename "$t" .c)" "$t" || die "cannot build $t"
  strip "$root/bin/$(basename "$t" .c)"
done

install -m 755 "$HERE/init" "$root/init"
install -m 755 "$HERE"/scripts/*.sh "$root/scripts/"

rm -rf "$out.tmp"; mkdir -p "$out.tmp"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -6 > "$out.tmp/initramfs.cpio.gz"
mv "$out.tmp" "$out"
say "image $key: $(du -k "$out/initramfs.cpio.gz" | cut -f1) KiB in $(( $(date +%s) - t0 )) s"
echo "$out/initramfs.cpio.gz"
