#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds the guest kernel: Linux 6.1 from Debian's linux-source-6.1, the
# configuration fragment sw/guest/kernel.config on top of tinyconfig, the
# project's patch series sw/kernel/patches/*.patch (applied in name order),
# and the guest drivers built in: the interrupt forwarder sw/guest/irqfwd
# and the accelerator's driver sw/guest/xler.
#
# Output: $FLASHVP_CACHE/kernel/<key>/bzImage (default cache ~/.cache/flashvp)
# where <key> hashes the fragment, the patches, the drivers' sources, this
# script and the linux-source package version. A cached key returns at once.
# The unpacked source (kernel/src) and object tree (kernel/obj) are reused,
# so a changed patch rebuilds only what it touches. Prints the bzImage path.
#
# Environment: FLASHVP_CACHE, JOBS (make -j, default 2).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

FRAGMENT=$HERE/kernel.config
DRIVERS=(irqfwd xler)  # sw/guest/NAME -> drivers/misc/flashvp_NAME, CONFIG_FLASHVP_<NAME>
DRIVER_FILES=()
for d in "${DRIVERS[@]}"; do DRIVER_FILES+=("$HERE/$d"/Kconfig "$HERE/$d"/Makefile "$HERE/$d"/*.c); done
PATCHES=()
for p in "$REPO"/sw/kernel/patches/*.patch; do [ -e "$p" ] && PATCHES+=("$p"); done
TARBALL=/usr/src/linux-source-6.1.tar.xz

# The package version goes into the key through a small stamp file.
KDIR=$FLASHVP_CACHE/kernel
mkdir -p "$KDIR"
srcver=$(pkg_version linux-source-6.1 || true)
key=$( { hash_inputs "$FRAGMENT" "${PATCHES[@]}" "${DRIVER_FILES[@]}" "$HERE/build-kernel.sh";
         echo "linux-source-6.1 $srcver"; } | sha256sum | cut -c1-16)
out=$KDIR/$key
if [ -f "$out/bzImage" ]; then echo "$out/bzImage"; exit 0; fi

ensure_pkgs linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev \
            dwarves cpio xz-utils kmod
srcver=$(pkg_version linux-source-6.1)

# One build at a time: the source and object trees are shared.
exec 9>"$KDIR/.lock"
flock 9
if [ -f "$out/bzImage" ]; then echo "$out/bzImage"; exit 0; fi
t0=$(date +%s)

src=$KDIR/src/linux-source-6.1
obj=$KDIR/obj
applied=$src/.flashvp-applied
unpack() {
  say "unpacking $TARBALL"
  rm -rf "$KDIR/src" "$obj"
  mkdir -p "$KDIR/src"
  tar -xf "$TARBALL" -C "$KDIR/src"
  mkdir -p "$applied"
  echo "$srcver" > "$src/.flashvp-srcver"
}
[ -f "$src/.flashvp-srcver" ] && [ "$(cat "$src/.flashvp-srcver")" = "$srcver" ] || unpack

# Keep the longest common prefix of the applied series and this one (same
# names, same contents: their files keep their times, so make rebuilds only
# what the changed patches touch); take the rest off in reverse order, then
# put this series' remainder on. A tree that does not revert cleanly is
# unpacked afresh.
keep=0
mapfile -t old < <(ls "$applied" 2>/dev/null)
while [ $keep -lt ${#old[@]} ] && [ $keep -lt ${#PATCHES[@]} ] &&
      [ "${old[$keep]}" = "$(basename "${PATCHES[$keep]}")" ] &&
      cmp -s "$applied/${old[$keep]}" "${PATCHES[$keep]}"; do
  keep=$((keep + 1))
done
revert_ok=1
for ((i = ${#old[@]} - 1; i >= keep; i--)); do
  if patch -p1 -R -s --no-backup-if-mismatch -d "$src" < "$applied/${old[$i]}"; then
    rm "$applied/${old[$i]}"
  else
    revert_ok=0; break
  fi
done
[ $revert_ok -eq 1 ] || { unpack; keep=0; }
for p in "${PATCHES[@]:$keep}"; do
  say "applying $(basename "$p")"
  patch -p1 -N -s --no-backup-if-mismatch -d "$src" < "$p" || die "patch $(basename "$p") does not apply to Linux $srcver"
  cp "$p" "$applied/$(basename "$p")"
done

# Each driver goes in as drivers/misc/flashvp_NAME.
for d in "${DRIVERS[@]}"; do
  dst=$src/drivers/misc/flashvp_$d
  rm -rf "$dst"
  mkdir -p "$dst"
  cp "$HERE/$d"/Kconfig "$HERE/$d"/Makefile "$HERE/$d"/*.c "$dst/"
  grep -q "flashvp_$d/" "$src/drivers/misc/Kconfig" ||
    sed -i '$s|^endmenu$|source "drivers/misc/flashvp_'"$d"'/Kconfig"\nendmenu|' "$src/drivers/misc/Kconfig"
  grep -q "flashvp_$d/" "$src/drivers/misc/Kconfig" || die "could not hook drivers/misc/Kconfig"
  grep -q "flashvp_$d/" "$src/drivers/misc/Makefile" ||
    echo "obj-\$(CONFIG_FLASHVP_${d^^}) += flashvp_$d/" >> "$src/drivers/misc/Makefile"
done

mkdir -p "$obj"
make -s -C "$src" O="$obj" tinyconfig >/dev/null
cat "$FRAGMENT" >> "$obj/.config"
# (olddefconfig warns for every fragment line overriding tinyconfig: expected)
make -s -C "$src" O="$obj" olddefconfig 2>&1 | grep -v "override: reassigning to symbol" >&2 || true
# Every line of the fragment must have survived (a dependency left unmet
# silently drops a symbol otherwise).
bad=0
while IFS= read -r line; do
  case "$line" in
    CONFIG_*=*) grep -qxF "$line" "$obj/.config" || { say "config: $line did not stick"; bad=1; } ;;
    "# CONFIG_"*" is not set")
      sym=${line#\# }; sym=${sym%% *}
      grep -q "^$sym=" "$obj/.config" && { say "config: $sym is still set"; bad=1; } ;;
  esac
done < "$FRAGMENT"
[ $bad -eq 0 ] || die "configuration fragment not satisfied (see $obj/.config)"

say "building bzImage with make -j${JOBS:-2} (log: $obj/build.log)"
if ! make -C "$src" O="$obj" -j"${JOBS:-2}" bzImage > "$obj/build.log" 2>&1; then
  tail -30 "$obj/build.log" >&2
  die "kernel build failed"
fi
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp "$obj/arch/x86/boot/bzImage" "$obj/.config" "$out.tmp/"
cp "$obj/build.log" "$out.tmp/build.log"
mv "$out.tmp" "$out"
say "kernel $key built in $(( $(date +%s) - t0 )) s"
echo "$out/bzImage"
