#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ext4 round trip on /dev/nvme0n1: 200 files of random data of various
# sizes, md5sums recorded, unmount, page cache dropped, remount, verify.
# Exits non-zero on any mismatch or failed step.
set -e
dev=/dev/nvme0n1
mnt=/mnt/nvme
sums=/tmp/fs-roundtrip.md5
mkdir -p $mnt
mkfs.ext4 -q -F $dev
mount -t ext4 $dev $mnt
i=1
total=0
while [ $i -le 200 ]; do
  # sizes from 1 byte to about 256 KiB, odd ones not block aligned
  size=$(( (i * i * 7919 + i * 104729) % 262144 + 1 ))
  head -c $size /dev/urandom > $mnt/f$i
  total=$((total + size))
  i=$((i + 1))
done
(cd $mnt && md5sum f* > $sums)
echo "wrote 200 files, $total bytes"
sync
umount $mnt
echo 3 > /proc/sys/vm/drop_caches
mount -t ext4 $dev $mnt
if (cd $mnt && md5sum -c -s $sums); then
  n=$(ls $mnt/f* | wc -l)
  echo "verified $n files"
  umount $mnt
  [ "$n" -eq 200 ]
else
  echo "md5 MISMATCH after remount:"
  (cd $mnt && md5sum -c $sums | grep -v ': OK$') || true
  umount $mnt
  exit 1
fi
