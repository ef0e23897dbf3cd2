#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Data integrity with both SQs of a queue busy at once: a latency-critical
# io_uring job (attr 1, iodepth 16, batched submissions through
# nvme_queue_rqs) and a plain libaio job write and crc32c-verify disjoint
# ranges concurrently (A: LBA bytes 0..16M, B: 32M..48M). Boot with
# nvme.flashvp_dual_sq=1 to have A's commands on the extra SQs. Exits
# non-zero if either job fails or a block does not verify.
common="--filename=/dev/nvme0n1 --direct=1 --bs=4k --size=16M --iodepth=16 --rw=randwrite --verify=crc32c --randseed=1234"
chworkload_attr 1 -- fio --name=A --offset=0 --ioengine=io_uring $common >/tmp/fio-A.out 2>&1 &
pa=$!
fio --name=B --offset=32M --ioengine=libaio $common >/tmp/fio-B.out 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
echo "dual-sq-verify: A (attr 1, io_uring) exit $ra; B (attr 0, libaio) exit $rb"
if [ "$ra" != 0 ] || [ "$rb" != 0 ]; then
  cat /tmp/fio-A.out /tmp/fio-B.out
  exit 1
fi
