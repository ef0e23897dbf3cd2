#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Direct random writes with crc32c verification through io_uring (fio reads
# every block back and checks it at the end of the job), then a second,
# read-only verification pass of the same blocks through libaio.
set -e
common="--filename=/dev/nvme0n1 --direct=1 --bs=4k --size=16M --iodepth=16 --verify=crc32c --randseed=1234"
fio --name=write-verify --rw=randwrite --ioengine=io_uring $common
fio --name=write-verify --rw=randwrite --ioengine=libaio --verify_only $common
