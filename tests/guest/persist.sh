#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A guest filesystem survives a restart: boot once to write files on a
# fresh image (--set ssd.image=FILE), boot again on the same image and
# verify them.
#   persist.sh VP_QEMU
set -uo pipefail
vpq=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export FLASHVP_EXTRA_SET="ssd.image=$dir/ssd.img"
"$here/run-guest.sh" "$vpq" persist-write "persist-write: 50 files written" || exit 1
[ -s "$dir/ssd.img" ] || { echo "no image was saved"; exit 1; }
printf 'image: %s bytes, %s KiB allocated\n' "$(stat -c %s "$dir/ssd.img")" "$(du -k "$dir/ssd.img" | cut -f1)"
"$here/run-guest.sh" "$vpq" persist-verify "persist-verify: files OK: 50" || exit 1
