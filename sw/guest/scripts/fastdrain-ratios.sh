#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# FastDrain dirty ratios, patch 0011, on a device whose completions carry
# a forced buffer status (vp-qemu --set ssd.nvme.buffer_status_field=sq_head
# --set ssd.nvme.buffer_status_force=full|drained). Reads a little from
# the device, so that completions report, and prints the ratios:
#   "FASTDRAIN dirty_ratio=R dirty_background_ratio=B"
# Booted with nvme.flashvp_fastdrain=1 that is all. Booted without it:
# prints "FASTDRAIN-OFF ..." after I/O (the kernel's defaults must stay),
# writes 4 MiB buffered at 64M and syncs (not tagged: the host side checks
# LBAs 16384-17407), then switches it on at run time and prints
# "FASTDRAIN-ON ..." after more I/O.
sw=/sys/module/nvme/parameters/flashvp_fastdrain
[ -w "$sw" ] || { echo "fastdrain-ratios: no $sw (kernel without patch 0011?)"; exit 1; }
dev=/dev/nvme0n1
ratios() { echo "dirty_ratio=$(cat /proc/sys/vm/dirty_ratio) dirty_background_ratio=$(cat /proc/sys/vm/dirty_background_ratio)"; }
# I/O that completes: 64 direct 4 KiB reads at OFFSET, then time for the work item.
io() {
  fio --name=io --filename=$dev --direct=1 --rw=read --bs=4k --offset="$1" --size=256k \
      --ioengine=psync >/tmp/fio-io.out 2>&1 || { cat /tmp/fio-io.out; exit 1; }
  sleep 1
}
echo "fastdrain-ratios: switch $(cat $sw), field $(cat /sys/module/nvme/parameters/flashvp_fastdrain_field), before I/O $(ratios)"
if [ "$(cat $sw)" = Y ]; then
  io 0
  echo "FASTDRAIN $(ratios)"
else
  io 0
  echo "FASTDRAIN-OFF $(ratios)"
  dd if=/dev/urandom of=$dev bs=1M seek=64 count=4 conv=notrunc 2>/dev/null
  sync
  echo 1 > $sw
  io 1M
  echo "FASTDRAIN-ON $(ratios)"
fi
dmesg | grep "flashvp: fastdrain" || true
