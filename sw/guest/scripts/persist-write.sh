#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# First half of the persistence check: an ext4 filesystem with 50 files of
# random data and their md5sums, unmounted cleanly before power-off.
set -e
mkfs.ext4 -q -F /dev/nvme0n1
mkdir -p /mnt/p
mount -t ext4 /dev/nvme0n1 /mnt/p
i=1
while [ $i -le 50 ]; do
  head -c $(( (i * 7919) % 65536 + 1 )) /dev/urandom > /mnt/p/f$i
  i=$((i + 1))
done
(cd /mnt/p && md5sum f* > SUMS)
umount /mnt/p
echo "persist-write: 50 files written"
