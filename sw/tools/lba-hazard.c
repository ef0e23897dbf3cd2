// SPDX-License-Identifier: GPL-2.0
/*
 * lba-hazard: provokes FlashShare's same-LBA hazard (OSDI'18 section 3.3)
 * and counts how often it bites. Each round:
 *   0. FILLERS throughput writes (attribute 0) to every other block below
 *      OFFSET (not adjacent: no merges), in one io_submit, so that requests
 *      wait in blk-mq (with few
 *      driver tags, e.g. nvme.io_queue_depth=2, they queue in the I/O
 *      scheduler, which serves them, older and at lower sectors, first);
 *   1. a throughput write (workload attribute 0) of pattern A to block B,
 *      submitted asynchronously (it waits behind the fillers),
 *   2. a latency-critical write (attribute ATTR) of pattern B to the same
 *      block, submitted asynchronously right after (it bypasses blk-mq when
 *      block.flashvp_bypass is on),
 *   3. both reaped, then the block read back with O_DIRECT.
 * The block must hold pattern B (the later write). It holds A when the
 * bypassing write overtook the queued one: a stale round.
 *
 *   lba-hazard DEV OFFSET ROUNDS [ATTR [FILLERS]]
 * OFFSET in bytes (suffix K, M or G); ATTR 1 and FILLERS 32 by default.
 * Prints "LBA-HAZARD rounds=N stale=S"; exits 0 when every round ran (S may
 * be anything: the caller decides what it expects), 1 on an I/O error.
 * Blocks OFFSET + (round % 64) * 4 KiB, fillers from OFFSET - FILLERS * 8 KiB
 * up to OFFSET. Raw AIO system calls: no libaio.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_SET_WORKLOAD_ATTR
#define PR_SET_WORKLOAD_ATTR 0x46565701
#endif

#define BLOCK 4096
#define MAX_FILLERS 256

static void die(const char *what)
{
	fprintf(stderr, "lba-hazard: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void prep_write(struct iocb *cb, int fd, void *buf, off_t off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = fd;
	cb->aio_lio_opcode = IOCB_CMD_PWRITE;
	cb->aio_buf = (uint64_t)(uintptr_t)buf;
	cb->aio_nbytes = BLOCK;
	cb->aio_offset = off;
}

static void submit(aio_context_t ctx, struct iocb **list, long n)
{
	if (syscall(SYS_io_submit, ctx, n, list) != n)
		die("io_submit");
}

static void fill(unsigned char *buf, unsigned round, unsigned char tag)
{
	for (unsigned i = 0; i < BLOCK; i += 8) {
		buf[i] = tag;
		memcpy(buf + i + 1, &round, sizeof(round));
		buf[i + 5] = (unsigned char)(i >> 3);
		buf[i + 6] = tag ^ 0x5a;
		buf[i + 7] = 0;
	}
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 6) {
		fprintf(stderr, "usage: lba-hazard DEV OFFSET ROUNDS [ATTR [FILLERS]]\n");
		return 2;
	}
	char *end;
	off_t base = strtoll(argv[2], &end, 0);
	if (*end == 'K' || *end == 'M' || *end == 'G')
		base <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 30, end++;
	if (*end || base < 0 || base % BLOCK) {
		fprintf(stderr, "lba-hazard: OFFSET %s: not a multiple of %d (suffix K, M or G allowed)\n", argv[2], BLOCK);
		return 2;
	}
	unsigned rounds = strtoul(argv[3], NULL, 0);
	unsigned long attr = argc >= 5 ? strtoul(argv[4], NULL, 0) : 1;
	unsigned fillers = argc >= 6 ? strtoul(argv[5], NULL, 0) : 32;
	if (fillers > MAX_FILLERS || (off_t)fillers * 2 * BLOCK > base) {
		fprintf(stderr, "lba-hazard: FILLERS %u: at most %d and below OFFSET\n", fillers, MAX_FILLERS);
		return 2;
	}
	int fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0)
		die(argv[1]);

	unsigned char *a, *b, *r, *f;
	if (posix_memalign((void **)&a, BLOCK, BLOCK) || posix_memalign((void **)&b, BLOCK, BLOCK) ||
	    posix_memalign((void **)&r, BLOCK, BLOCK) || posix_memalign((void **)&f, BLOCK, BLOCK))
		die("posix_memalign");
	memset(f, 0xf1, BLOCK);
	aio_context_t ctx = 0;
	if (syscall(SYS_io_setup, fillers + 2, &ctx))
		die("io_setup");
	static struct iocb fcb[MAX_FILLERS];
	static struct iocb *flist[MAX_FILLERS];
	static struct io_event ev[MAX_FILLERS + 2];

	unsigned stale = 0;
	for (unsigned i = 0; i < rounds; i++) {
		off_t off = base + (off_t)(i % 64) * BLOCK;
		struct iocb wa, wb, *pa = &wa, *pb = &wb;
		long total = fillers + 2;

		fill(a, i, 'A');
		fill(b, i, 'B');
		if (prctl(PR_SET_WORKLOAD_ATTR, 0UL, 0UL, 0UL, 0UL))
			die("prctl(PR_SET_WORKLOAD_ATTR, 0)");
		for (unsigned k = 0; k < fillers; k++) {
			prep_write(&fcb[k], fd, f, base - (off_t)(fillers - k) * 2 * BLOCK);
			flist[k] = &fcb[k];
		}
		if (fillers)
			submit(ctx, flist, fillers);
		prep_write(&wa, fd, a, off);
		submit(ctx, &pa, 1);
		if (prctl(PR_SET_WORKLOAD_ATTR, attr, 0UL, 0UL, 0UL))
			die("prctl(PR_SET_WORKLOAD_ATTR)");
		prep_write(&wb, fd, b, off);
		submit(ctx, &pb, 1);
		for (long got = 0; got < total;) {
			long n = syscall(SYS_io_getevents, ctx, 1, total - got, ev + got, NULL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				die("io_getevents");
			got += n;
		}
		for (long k = 0; k < total; k++)
			if ((long)ev[k].res != BLOCK) {
				fprintf(stderr, "lba-hazard: round %u: write result %lld\n", i, (long long)ev[k].res);
				return 1;
			}
		if (pread(fd, r, BLOCK, off) != BLOCK)
			die("pread");
		if (memcmp(r, b, BLOCK) != 0) {
			if (memcmp(r, a, BLOCK) != 0) {
				fprintf(stderr, "lba-hazard: round %u: block at %lld holds neither write\n", i,
					(long long)off);
				return 1;
			}
			stale++;
		}
	}
	printf("LBA-HAZARD rounds=%u stale=%u\n", rounds, stale);
	return 0;
}
