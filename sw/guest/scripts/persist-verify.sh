#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Second half: after a restart of vp-qemu with the same ssd.image, the
# filesystem mounts and every file matches its recorded md5sum.
set -e
mkdir -p /mnt/p
mount -t ext4 /dev/nvme0n1 /mnt/p
cd /mnt/p
md5sum -c SUMS > /tmp/check
grep -c ': OK' /tmp/check | sed 's/^/persist-verify: files OK: /'
cd /
umount /mnt/p
