#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# FastDrain's host side end to end (patches 0010-0011), one guest boot per mode:
#   tag      boot with nvme.flashvp_fastdrain=1, run fastdrain-tag: the
#            device-side trace must show the writeback of buffered writes
#            tagged (victim 1, victim_pages > 0), the O_DIRECT job's and the
#            writes after the run-time switch-off untagged
#   full     --set ssd.nvme.buffer_status_force=full, switch on at boot:
#            vm.dirty_ratio 10, dirty_background_ratio 5 (the high set)
#   drained  force=drained: 5 and 3 (the low set)
#   off      force=full, switch off at boot: the kernel's 20 and 10 stay
#            and a buffered write is not tagged; switched on at run time: 10 and 5
#   fastdrain.sh MODE VP_QEMU
set -uo pipefail
mode=$1 vpq=$2
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status="--set ssd.nvme.buffer_status_field=sq_head"
export FLASHVP_EXTRA_ARGS="--requests $dir/device.csv $status"
case $mode in
  tag)
    export FLASHVP_EXTRA_APPEND="nvme.flashvp_fastdrain=1"
    "$here/run-guest.sh" "$vpq" fastdrain-tag "FASTDRAIN-TAG done" || exit 1 ;;
  full)
    FLASHVP_EXTRA_ARGS+=" --set ssd.nvme.buffer_status_force=full"
    export FLASHVP_EXTRA_APPEND="nvme.flashvp_fastdrain=1"
    exec "$here/run-guest.sh" "$vpq" fastdrain-ratios "FASTDRAIN dirty_ratio=10 dirty_background_ratio=5" ;;
  drained)
    FLASHVP_EXTRA_ARGS+=" --set ssd.nvme.buffer_status_force=drained"
    export FLASHVP_EXTRA_APPEND="nvme.flashvp_fastdrain=1"
    exec "$here/run-guest.sh" "$vpq" fastdrain-ratios "FASTDRAIN dirty_ratio=5 dirty_background_ratio=3" ;;
  off)
    FLASHVP_EXTRA_ARGS+=" --set ssd.nvme.buffer_status_force=full"
    "$here/run-guest.sh" "$vpq" fastdrain-ratios "FASTDRAIN-OFF dirty_ratio=20 dirty_background_ratio=10" \
      "FASTDRAIN-ON dirty_ratio=10 dirty_background_ratio=5" || exit 1 ;;
  *) echo "fastdrain.sh: unknown mode $mode"; exit 2 ;;
esac
# columns: sqid,cid,opcode,slba,nlb,attr,status,fetch_ps,complete_ps,victim,victim_pages,buffer_status
# opcode 1 = Write; LBA ranges as in sw/guest/scripts/fastdrain-tag.sh.
# range NAME FIRST LAST: writes, LBAs written, tagged writes, LBAs of tagged writes, largest victim_pages
range() {
  awk -F, -v lo="$2" -v hi="$3" -v name="$1" 'NR > 1 && $3 == 1 && $4 >= lo && $4 <= hi {
      w++; l += $5; if ($10 == 1) { t++; tl += $5; if ($11 > m) m = $11; if ($11 == 0) zero++ } }
    END { printf "%s %d %d %d %d %d %d\n", name, w, l, t, tl, m, zero }' "$dir/device.csv"
}
if [ "$mode" = off ]; then
  read -r _ w l t tl m zero < <(range off 16384 17407)
  echo "switch off at boot, buffered 4 MiB at 64M: $w writes of $l LBAs, $t tagged"
  # 4 MiB / 4 KiB = 1024 LBAs, none tagged
  [ "$l" -eq 1024 ] && [ "$t" -eq 0 ] || exit 1
  exit 0
fi
read -r _ fw fl ft ftl fm fz < <(range ext4 0 10239)
read -r _ dw dl dt _ _ _ < <(range direct 12288 14335)
read -r _ bw bl bt btl bm bz < <(range on 16384 17407)
read -r _ ow ol ot _ _ _ < <(range off 18432 19455)
echo "ext4 (8 MiB file + sync): $fw writes of $fl LBAs, $ft tagged of $ftl LBAs, largest victim_pages $fm"
echo "O_DIRECT job: $dw writes of $dl LBAs, $dt tagged"
echo "block device buffered, switch on: $bw writes of $bl LBAs, $bt tagged of $btl LBAs, largest victim_pages $bm"
echo "block device buffered, switch off at run time: $ow writes of $ol LBAs, $ot tagged"
fail=0
# The file's 8 MiB = 2048 LBAs all go out by writeback, tagged; at the sync
# its 2048 pages were dirty, so some write says at least 2048.
{ [ "$ftl" -ge 2048 ] && [ "$fm" -ge 2048 ] && [ "$fz" -eq 0 ]; } || { echo "FAIL: ext4 writeback not tagged as expected"; fail=1; }
# fio: 8 MiB / 64 KiB = 128 writes of 16 LBAs = 2048 LBAs, none tagged.
{ [ "$dl" -eq 2048 ] && [ "$dt" -eq 0 ]; } || { echo "FAIL: direct writes tagged or missing"; fail=1; }
# 4 MiB / 4 KiB = 1024 LBAs, every write tagged, 1024 pages dirty at the sync.
{ [ "$bl" -eq 1024 ] && [ "$bt" -eq "$bw" ] && [ "$bm" -ge 1024 ] && [ "$bz" -eq 0 ]; } || { echo "FAIL: block device writeback not tagged as expected"; fail=1; }
{ [ "$ol" -eq 1024 ] && [ "$ot" -eq 0 ]; } || { echo "FAIL: writes tagged with the switch off"; fail=1; }
exit $fail
