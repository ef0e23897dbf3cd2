#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds a static fio for the guest image from Debian's fio source package
# (Debian's own fio needs 62 shared libraries). The source is fetched with
# apt-get source through a private sources list, so the system's apt
# configuration is left alone.
#
# Output: $FLASHVP_CACHE/fio/<key>/fio, <key> hashing this script. Prints the
# binary's path; a cached key returns at once. Environment: JOBS (default 2).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

FDIR=$FLASHVP_CACHE/fio
key=$(hash_inputs "$HERE/build-fio.sh")
out=$FDIR/$key
if [ -x "$out/fio" ]; then echo "$out/fio"; exit 0; fi

ensure_pkgs dpkg-dev build-essential libaio-dev zlib1g-dev debian-archive-keyring
mkdir -p "$FDIR"
exec 9>"$FDIR/.lock"
flock 9
if [ -x "$out/fio" ]; then echo "$out/fio"; exit 0; fi
t0=$(date +%s)

work=$FDIR/work
rm -rf "$work"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
# The same Debian mirror the system uses (a CI machine may have its own).
mirror=$( { awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' /etc/apt/sources.list.d/*.sources 2>/dev/null
            awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(http|https|file):/) { print $i; break } }' \
                /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null; } |
          grep -v -e security -e nodesource -e google | head -n 1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" > "$work/sources.list"
apt_opts=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent
          -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
          -o Debug::NoLocking=1)
say "fetching fio source"
apt-get "${apt_opts[@]}" update -qq >&2
(cd "$work" && apt-get "${apt_opts[@]}" source -qq fio >&2)
srcdir=$(find "$work" -maxdepth 1 -type d -name 'fio-*' | head -1)
[ -n "$srcdir" ] || die "apt-get source fio gave no source tree"

say "building static fio in $srcdir"
(cd "$srcdir" &&
 ./configure --build-static --disable-numa --disable-rdma --disable-rados --disable-rbd \
   --disable-http --disable-gfapi --disable-libnfs --disable-pmem --disable-xnvme \
   --disable-libzbc --disable-tcmalloc --disable-dfs --disable-native > "$work/configure.log" 2>&1 &&
 make -j"${JOBS:-2}" fio > "$work/build.log" 2>&1) || { tail -30 "$work/build.log" "$work/configure.log" >&2; die "fio build failed"; }
grep -E '^(Linux AIO|io_uring|Static build)' "$work/configure.log" >&2 || true
rm -rf "$out.tmp"; mkdir -p "$out.tmp"
strip -o "$out.tmp/fio" "$srcdir/fio"
basename "$srcdir" > "$out.tmp/VERSION"
mv "$out.tmp" "$out"
rm -rf "$work"
say "fio built in $(( $(date +%s) - t0 )) s"
echo "$out/fio"
