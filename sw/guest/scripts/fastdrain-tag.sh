#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# FastDrain page-victimization tags, patch 0010 (boot with
# nvme.flashvp_fastdrain=1). The host side (tests/guest/fastdrain.sh)
# checks the device-side trace by LBA range (4 KiB LBAs):
#   0-10239      ext4 (40 MiB): an 8 MiB file written buffered, then sync:
#                written back by do_writepages, so tagged
#   12288-14335  fio, 128 O_DIRECT 64 KiB writes at 48M: never tagged
#   16384-17407  4 MiB written buffered to the block device at 64M, sync:
#                tagged, each of its 1024 pages dirty when sync began
#   18432-19455  the same at 72M after the switch is turned off at run
#                time: not tagged
set -e
sw=/sys/module/nvme/parameters/flashvp_fastdrain
[ -w "$sw" ] || { echo "fastdrain-tag: no $sw (kernel without patch 0010?)"; exit 1; }
[ "$(cat $sw)" = Y ] || { echo "fastdrain-tag: boot with nvme.flashvp_fastdrain=1"; exit 1; }
dev=/dev/nvme0n1
mkdir -p /mnt/nvme
mkfs.ext4 -q -F -b 4096 $dev 40M
mount -t ext4 $dev /mnt/nvme
head -c 8388608 /dev/urandom > /mnt/nvme/victim
sync
echo "fastdrain-tag: 8 MiB file written back"
fio --name=direct --filename=$dev --direct=1 --rw=write --bs=64k --offset=48M --size=8M \
    --ioengine=psync >/tmp/fio-direct.out 2>&1 || { cat /tmp/fio-direct.out; exit 1; }
grep -o "issued rwts: total=[0-9,]*" /tmp/fio-direct.out
dd if=/dev/urandom of=$dev bs=1M seek=64 count=4 conv=notrunc 2>/dev/null
sync
echo 0 > $sw
echo "fastdrain-tag: switch now $(cat $sw)"
dd if=/dev/urandom of=$dev bs=1M seek=72 count=4 conv=notrunc 2>/dev/null
sync
umount /mnt/nvme
echo "FASTDRAIN-TAG done"
