// SPDX-License-Identifier: GPL-2.0
/*
 * flashvp_xler - the driver of FlashShare's I/O-stack accelerator (XLER,
 * OSDI'18 sec. 4.3, Fig 7b and 10) as FlashVP models it: an upper layer of
 * blk-mq. While switched on (flashvp_xler.enable=1), a bio with a non-zero
 * workload attribute for the NVMe disk (flashvp_xler.disk, default
 * nvme0n1) that one NVMe command can carry skips blk-mq: its segments are
 * DMA-mapped into a segment list ({u64 address, u32 length, u32 0} per
 * page piece, bi_io_vec), and its operation, first LBA, size, segment list,
 * segment count, a tag and the CPU's queue go into the accelerator's BAR
 * registers, then "go". The accelerator composes (or merges) the NVMe
 * command in an SQ of its own BAR and rings the SSD's doorbell peer to
 * peer; its MSI-X vector for the queue brings us here, where each read of
 * the queue's DONE register gives back one completed bio (tag, status, and
 * whether more wait), which is unmapped and ended.
 *
 * The accelerator's queue pairs are created on the first switch-on, through
 * nvme-pci (nvme.flashvp_xler_queues must reserve at least one; patch
 * 0012), one per CPU up to the reserved count and the accelerator's 15.
 * A bio the accelerator cannot take (a flush, FUA, larger than the drive's
 * largest transfer or 64 PRP entries, segments breaking the PRP rule, no
 * free tag) goes down the normal path. Register layout: FlashVP's
 * vp/accel/AccelRegs.hpp.
 */
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/pci.h>
#include <linux/spinlock.h>

#define XLER_VENDOR 0x10ee
#define XLER_DEVICE 0x9038
#define NVME_CLASS 0x010802

/* Registers (BAR0) */
#define BIO_OP 0x000
#define BIO_SLBA 0x008
#define BIO_BYTES 0x010
#define BIO_SEGS 0x018
#define BIO_NSEG 0x020
#define BIO_TAG 0x028
#define BIO_QUEUE 0x030
#define BIO_GO 0x038
#define QSEL 0x100
#define Q_SQ_DOORBELL 0x108
#define Q_CQ_DOORBELL 0x110
#define Q_ENTRIES 0x118
#define Q_VECTOR 0x120
#define Q_ENABLE 0x128
#define LBA_SHIFT 0x180
#define MAX_TRANSFER 0x188
#define NSID 0x190
#define DONE_Q(q) (0x200 + 8 * (q))
#define DONE_VALID (1ULL << 63)
#define DONE_MORE (1ULL << 62)
#define QUEUE_WINDOW(q) (0x100000ULL + (u64)(q) * 0x100000ULL)
#define CQ_OFFSET 0x10000
#define MAX_QUEUES 15
#define MAX_PRP_ENTRIES 64
#define MAX_SEGS (MAX_PRP_ENTRIES + 1)
#define SEG_BYTES 16
#define ENTRIES 256

static bool enable;
static char *disk = "nvme0n1";
module_param(disk, charp, 0444);
MODULE_PARM_DESC(disk, "the NVMe disk whose latency-critical bios go to the accelerator");

static atomic_long_t stat_bios, stat_done, stat_normal, stat_errors;

struct xler;

struct xler_queue {
	struct xler *x;
	spinlock_t lock;
	u16 sqid;
	u32 nfree;
	u16 free[ENTRIES];
	struct bio *bio[ENTRIES];
	u8 nseg[ENTRIES];
	__le64 *segs;	/* ENTRIES x MAX_SEGS entries of 16 bytes */
	dma_addr_t segs_dma;
};

struct xler {
	struct pci_dev *pdev;
	void __iomem *regs;
	spinlock_t reg_lock;	/* the BIO_* registers are one set for all queues */
	unsigned int nq;
	bool ready;
	u32 lba_shift, max_bytes;
	struct xler_queue q[MAX_QUEUES];
};

static struct xler *the_xler;
static DEFINE_MUTEX(xler_setup_lock);

/* Whether the bio's pieces satisfy the PRP rule and fit one command. */
static bool xler_fits(struct xler *x, struct bio *bio, unsigned int *nseg)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned int n = 0, size = bio->bi_iter.bi_size;
	bool first = true, ends_on_page = true;

	if (size == 0 || size > x->max_bytes || size & ((1u << x->lba_shift) - 1))
		return false;
	bio_for_each_segment(bv, bio, iter) {
		if (!ends_on_page || (first && (bv.bv_offset & 3)) || (!first && bv.bv_offset))
			return false;
		ends_on_page = bv.bv_offset + bv.bv_len == PAGE_SIZE;
		first = false;
		if (++n > MAX_SEGS)
			return false;
	}
	*nseg = n;
	return n > 0;
}

static void xler_unmap(struct xler *x, struct xler_queue *q, unsigned int tag, enum dma_data_direction dir)
{
	__le64 *s = q->segs + (size_t)tag * MAX_SEGS * 2;
	unsigned int i;

	for (i = 0; i < q->nseg[tag]; i++)
		dma_unmap_page(&x->pdev->dev, le64_to_cpu(s[2 * i]), le64_to_cpu(s[2 * i + 1]) & 0xffffffff, dir);
}

static bool xler_submit(struct bio *bio)
{
	struct xler *x = READ_ONCE(the_xler);
	enum dma_data_direction dir;
	struct xler_queue *q;
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned int nseg, qi, tag, i = 0;
	unsigned long flags;
	__le64 *s;

	if (!x || !x->ready || strcmp(bio->bi_bdev->bd_disk->disk_name, disk))
		return false;
	if ((bio_op(bio) != REQ_OP_READ && bio_op(bio) != REQ_OP_WRITE) ||
	    (bio->bi_opf & (REQ_FUA | REQ_PREFLUSH)) || bio_integrity(bio) || !xler_fits(x, bio, &nseg)) {
		atomic_long_inc(&stat_normal);
		return false;
	}
	dir = op_is_write(bio_op(bio)) ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	qi = raw_smp_processor_id() % x->nq;
	q = &x->q[qi];
	spin_lock_irqsave(&q->lock, flags);
	if (!q->nfree) {
		spin_unlock_irqrestore(&q->lock, flags);
		atomic_long_inc(&stat_normal);
		return false;
	}
	tag = q->free[--q->nfree];
	spin_unlock_irqrestore(&q->lock, flags);

	s = q->segs + (size_t)tag * MAX_SEGS * 2;
	bio_for_each_segment(bv, bio, iter) {
		dma_addr_t a = dma_map_page(&x->pdev->dev, bv.bv_page, bv.bv_offset, bv.bv_len, dir);

		if (dma_mapping_error(&x->pdev->dev, a)) {
			q->nseg[tag] = i;
			xler_unmap(x, q, tag, dir);
			spin_lock_irqsave(&q->lock, flags);
			q->free[q->nfree++] = tag;
			spin_unlock_irqrestore(&q->lock, flags);
			atomic_long_inc(&stat_normal);
			return false;
		}
		s[2 * i] = cpu_to_le64(a);
		s[2 * i + 1] = cpu_to_le64(bv.bv_len);
		i++;
	}
	q->nseg[tag] = nseg;
	q->bio[tag] = bio;
	atomic_long_inc(&stat_bios);
	/* The segment list is in coherent memory; the go write comes after it. */
	wmb();
	spin_lock_irqsave(&x->reg_lock, flags);
	writeq(op_is_write(bio_op(bio)) ? 1 : 0, x->regs + BIO_OP);
	writeq(bio->bi_iter.bi_sector >> (x->lba_shift - SECTOR_SHIFT), x->regs + BIO_SLBA);
	writeq(bio->bi_iter.bi_size, x->regs + BIO_BYTES);
	writeq(q->segs_dma + (u64)tag * MAX_SEGS * SEG_BYTES, x->regs + BIO_SEGS);
	writeq(nseg, x->regs + BIO_NSEG);
	writeq((u64)qi << 16 | tag, x->regs + BIO_TAG);
	writeq(qi, x->regs + BIO_QUEUE);
	writeq(1, x->regs + BIO_GO);
	spin_unlock_irqrestore(&x->reg_lock, flags);
	return true;
}

static irqreturn_t xler_irq(int irq, void *data)
{
	struct xler_queue *q = data;
	struct xler *x = q->x;
	unsigned int qi = q - x->q;
	irqreturn_t ret = IRQ_NONE;

	for (;;) {
		u64 v = readq(x->regs + DONE_Q(qi));
		unsigned int tag = v & 0xffff;
		u16 status = (v >> 32) & 0x7fff;
		struct bio *bio;
		unsigned long flags;

		if (!(v & DONE_VALID))
			break;
		ret = IRQ_HANDLED;
		if (((v >> 16) & 0xffff) != qi || tag >= ENTRIES || !q->bio[tag]) {
			atomic_long_inc(&stat_errors);
			dev_err_ratelimited(&x->pdev->dev, "completion for unknown tag %#llx on queue %u\n",
					    v & 0xffffffff, qi);
		} else {
			bio = q->bio[tag];
			q->bio[tag] = NULL;
			xler_unmap(x, q, tag, op_is_write(bio_op(bio)) ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
			spin_lock_irqsave(&q->lock, flags);
			q->free[q->nfree++] = tag;
			spin_unlock_irqrestore(&q->lock, flags);
			if (status)
				atomic_long_inc(&stat_errors);
			bio->bi_status = status ? BLK_STS_IOERR : BLK_STS_OK;
			atomic_long_inc(&stat_done);
			bio_endio(bio);
		}
		if (!(v & DONE_MORE))
			break;
	}
	return ret;
}

/* The accelerator's queue pairs on the NVMe controller, and its geometry. */
static int xler_setup(struct xler *x)
{
	struct pci_dev *nvme = pci_get_class(NVME_CLASS, NULL);
	struct block_device *bdev;
	char *path = kasprintf(GFP_KERNEL, "/dev/%s", disk);
	u64 bar = pci_resource_start(x->pdev, 0);
	unsigned int i;
	int ret = 0;

	if (!nvme || !path) {
		ret = -ENODEV;
		goto out;
	}
	bdev = blkdev_get_by_path(path, FMODE_READ, NULL);
	if (IS_ERR(bdev)) {
		ret = PTR_ERR(bdev);
		pr_err("flashvp_xler: no disk /dev/%s (%d)\n", disk, ret);
		goto out;
	}
	x->lba_shift = ilog2(bdev_logical_block_size(bdev));
	x->max_bytes = min_t(u32, queue_max_hw_sectors(bdev_get_queue(bdev)) << SECTOR_SHIFT,
			     MAX_PRP_ENTRIES * PAGE_SIZE);
	blkdev_put(bdev, FMODE_READ);
	writeq(x->lba_shift, x->regs + LBA_SHIFT);
	writeq(x->max_bytes, x->regs + MAX_TRANSFER);
	writeq(1, x->regs + NSID);
	for (i = 0; i < x->nq; i++) {
		struct xler_queue *q = &x->q[i];
		u64 sq_db, cq_db;
		u16 qid;
		unsigned int t;

		ret = nvme_flashvp_xler_pair(nvme, i, bar + QUEUE_WINDOW(i), bar + QUEUE_WINDOW(i) + CQ_OFFSET, ENTRIES,
					     &qid, &sq_db, &cq_db);
		if (ret) {
			if (i == 0) {
				pr_err("flashvp_xler: no queue pair on the NVMe controller (%d): boot with "
				       "nvme.flashvp_xler_queues=N\n", ret);
				goto out;
			}
			x->nq = i;	/* fewer queues than CPUs: they share */
			ret = 0;
			break;
		}
		q->sqid = qid;
		for (t = 0; t < ENTRIES; t++)
			q->free[t] = ENTRIES - 1 - t;
		q->nfree = ENTRIES;
		writeq(i, x->regs + QSEL);
		writeq(sq_db, x->regs + Q_SQ_DOORBELL);
		writeq(cq_db, x->regs + Q_CQ_DOORBELL);
		writeq(ENTRIES, x->regs + Q_ENTRIES);
		writeq(i, x->regs + Q_VECTOR);
		writeq(1, x->regs + Q_ENABLE);
	}
	readq(x->regs + Q_ENABLE);	/* the queues are on once the writes have landed */
	x->ready = true;
	pr_info("flashvp_xler: %u queues (SQ ids %u-%u), LBA %u bytes, largest bio %u bytes\n", x->nq, x->q[0].sqid,
		x->q[x->nq - 1].sqid, 1u << x->lba_shift, x->max_bytes);
out:
	kfree(path);
	pci_dev_put(nvme);
	return ret;
}

static int xler_enable_set(const char *val, const struct kernel_param *kp)
{
	struct xler *x = READ_ONCE(the_xler);
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on && !x)
		return -ENODEV;
	mutex_lock(&xler_setup_lock);
	if (on && !x->ready)
		ret = xler_setup(x);
	if (!ret) {
		enable = on;
		blk_mq_flashvp_set_xler(on ? xler_submit : NULL);
	}
	mutex_unlock(&xler_setup_lock);
	return ret;
}

static const struct kernel_param_ops xler_enable_ops = {
	.set = xler_enable_set,
	.get = param_get_bool,
};
module_param_cb(enable, &xler_enable_ops, &enable, 0644);
MODULE_PARM_DESC(enable, "latency-critical bios go to the I/O-stack accelerator (sets up its queues the first time)");

static int xler_stats_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "bios %ld done %ld normal_path %ld errors %ld\n", atomic_long_read(&stat_bios),
			  atomic_long_read(&stat_done), atomic_long_read(&stat_normal), atomic_long_read(&stat_errors));
}

static const struct kernel_param_ops xler_stats_ops = {
	.get = xler_stats_get,
};
module_param_cb(stats, &xler_stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats, "bios handed to the accelerator, completed, left to blk-mq, completed with an error");

static int xler_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct xler *x;
	unsigned int i;
	int ret;

	x = devm_kzalloc(&pdev->dev, sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	x->regs = pcim_iomap(pdev, 0, 0);
	if (!x->regs)
		return -ENOMEM;
	x->pdev = pdev;
	spin_lock_init(&x->reg_lock);
	pci_set_master(pdev);
	x->nq = min_t(unsigned int, num_possible_cpus(), MAX_QUEUES);
	ret = pci_alloc_irq_vectors(pdev, x->nq, x->nq, PCI_IRQ_MSIX);
	if (ret < 0)
		return ret;
	for (i = 0; i < x->nq; i++) {
		struct xler_queue *q = &x->q[i];

		q->x = x;
		spin_lock_init(&q->lock);
		q->segs = dmam_alloc_coherent(&pdev->dev, (size_t)ENTRIES * MAX_SEGS * SEG_BYTES, &q->segs_dma,
					      GFP_KERNEL);
		if (!q->segs)
			return -ENOMEM;
		ret = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, i), xler_irq, 0, "flashvp_xler", q);
		if (ret)
			return ret;
	}
	pci_set_drvdata(pdev, x);
	WRITE_ONCE(the_xler, x);
	dev_info(&pdev->dev, "I/O-stack accelerator, %u MSI-X vectors; switch on with flashvp_xler.enable=1\n",
		 x->nq);
	return 0;
}

static void xler_remove(struct pci_dev *pdev)
{
	blk_mq_flashvp_set_xler(NULL);
	WRITE_ONCE(the_xler, NULL);
	pci_free_irq_vectors(pdev);
}

static const struct pci_device_id xler_ids[] = {
	{ PCI_DEVICE(XLER_VENDOR, XLER_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, xler_ids);

static struct pci_driver xler_driver = {
	.name = "flashvp_xler",
	.id_table = xler_ids,
	.probe = xler_probe,
	.remove = xler_remove,
};
module_pci_driver(xler_driver);

MODULE_DESCRIPTION("FlashVP: the driver of FlashShare's I/O-stack accelerator, above blk-mq");
MODULE_LICENSE("GPL");
