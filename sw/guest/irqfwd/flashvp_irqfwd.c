// SPDX-License-Identifier: GPL-2.0
/*
 * flashvp_irqfwd - deliver a FlashVP NVMe model's interrupts to the stock
 * nvme driver through an ivshmem-doorbell device.
 *
 * Why: under QEMU TCG the x-pci-proxy-dev that carries the NVMe model cannot
 * raise interrupts. FlashVP also serves an ivshmem-doorbell device, whose
 * MSI-X vectors QEMU raises from its main loop when FlashVP writes an
 * eventfd. This driver takes that interrupt and runs the NVMe device's own
 * interrupt handler(s), so nvme_irq() reaps the completion queues as if the
 * NVMe device had interrupted.
 *
 * Shared-memory protocol, version 1 (ivshmem BAR2, little endian):
 *   offset  0: u32 magic = 0x49505646 ("FVPI"), written by FlashVP
 *   offset  4: u32 version = 1, written by FlashVP
 *   offset 64: u64 pending[8]; bit i of the array (word i / 64, bit i % 64)
 *              set = NVMe interrupt vector i pending. i is the MSI-X (or
 *              MSI) table index; with INTx only bit 0 is meaningful.
 *   offset 128: u64 pending[8], the same for FlashShare's I/O-stack
 *              accelerator (PCI 10ee:9038) when FlashVP serves it; its
 *              vectors are forwarded once its driver has enabled MSI-X.
 *   offset 128 + 64 k (k = 1..7): u64 pending[8], the same for NVMe drive k
 *              when FlashVP serves several: the k-th device of class 0x010802
 *              after the first, in PCI order (QEMU places the proxies in the
 *              order vp-qemu lists them).
 * FlashVP sets bits with an atomic OR, then kicks the eventfd of the ivshmem
 * device's MSI-X vector 0. This handler exchanges each word with 0 and, for
 * every bit i that was set, calls generic_handle_irq_safe() on the Linux irq
 * of NVMe vector i: pci_irq_vector(nvme, i) when the device uses MSI-X or
 * MSI, else nvme->irq. A forwarded call when no completion is posted is
 * harmless: nvme_irq() returns IRQ_NONE.
 *
 * The NVMe device is the first PCI device of class 0x010802, or the one
 * named by the parameter nvme=DDDD:BB:DD.F (flashvp_irqfwd.nvme=... on the
 * kernel command line when built in). Without the magic (or with another
 * version) the driver logs and forwards nothing.
 */
#include <linux/atomic.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/irq.h>
#include <linux/module.h>
#include <linux/pci.h>

#define FVPI_MAGIC 0x49505646u
#define FVPI_VERSION 1u
#define FVPI_PENDING_OFFSET 64
#define FVPI_PENDING_WORDS 8
#define FVPI_ACCEL_OFFSET 128
#define FVPI_MORE_NVME 7
#define FVPI_MIN_SIZE (FVPI_ACCEL_OFFSET + (1 + FVPI_MORE_NVME) * FVPI_PENDING_WORDS * 8)
#define ACCEL_VENDOR 0x10ee
#define ACCEL_DEVICE 0x9038
#define NVME_CLASS 0x010802

#define IVSHMEM_VENDOR 0x1af4
#define IVSHMEM_DEVICE 0x1110
#define IVSHMEM_SHM_BAR 2

static char *nvme = "";
module_param(nvme, charp, 0444);
MODULE_PARM_DESC(nvme, "NVMe device as DDDD:BB:DD.F (default: first of class 0x010802)");

struct irqfwd {
	struct pci_dev *nvme;
	struct pci_dev *accel;	/* NULL: not served */
	struct pci_dev *more[FVPI_MORE_NVME];	/* drives 1.. (none with nvme=) */
	unsigned int n_more;
	void *shm;
	size_t shm_size;
	/* Vectors forwarded and vectors that had no Linux irq, for the log. */
	atomic64_t forwarded;
	atomic64_t dropped;
};

static struct pci_dev *irqfwd_find_nvme(void)
{
	unsigned int domain, bus, dev, fn;

	if (nvme && nvme[0]) {
		if (sscanf(nvme, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) {
			pr_err("flashvp_irqfwd: nvme=%s is not DDDD:BB:DD.F\n", nvme);
			return NULL;
		}
		return pci_get_domain_bus_and_slot(domain, bus, PCI_DEVFN(dev, fn));
	}
	return pci_get_class(NVME_CLASS, NULL);
}

static bool irqfwd_magic_ok(const struct irqfwd *fwd)
{
	const u32 *hdr = fwd->shm;

	return le32_to_cpu(READ_ONCE(hdr[0])) == FVPI_MAGIC &&
	       le32_to_cpu(READ_ONCE(hdr[1])) == FVPI_VERSION;
}

/* Linux irq for NVMe vector i, or a negative errno. Decided per interrupt
 * because the nvme driver switches from one vector to many during probe. */
static int irqfwd_nvme_irq(struct pci_dev *pdev, unsigned int i)
{
	if (pdev->msix_enabled || pdev->msi_enabled)
		return pci_irq_vector(pdev, i);
	return i == 0 && pdev->irq ? pdev->irq : -EINVAL;
}

/* Runs the handlers of the vectors of `pdev` marked in the words at `offset`. */
static void irqfwd_forward(struct irqfwd *fwd, struct pci_dev *pdev, unsigned int offset)
{
	u64 *pending = fwd->shm + offset;
	unsigned int w, b;

	for (w = 0; w < FVPI_PENDING_WORDS; w++) {
		u64 bits = le64_to_cpu(xchg(&pending[w], 0));

		while (bits) {
			int nirq;

			b = __ffs64(bits);
			bits &= bits - 1;
			nirq = pdev ? irqfwd_nvme_irq(pdev, w * 64 + b) : -ENODEV;
			if (nirq < 0 || generic_handle_irq_safe(nirq)) {
				atomic64_inc(&fwd->dropped);
				pr_warn_ratelimited("flashvp_irqfwd: %s vector %u has no irq\n",
						    pdev ? pci_name(pdev) : "(none)", w * 64 + b);
				continue;
			}
			atomic64_inc(&fwd->forwarded);
		}
	}
}

static irqreturn_t irqfwd_doorbell(int irq, void *data)
{
	struct irqfwd *fwd = data;
	unsigned int k;

	if (!irqfwd_magic_ok(fwd)) {
		pr_warn_ratelimited("flashvp_irqfwd: doorbell without FVPI v1 header, ignored\n");
		return IRQ_HANDLED;
	}
	irqfwd_forward(fwd, fwd->nvme, FVPI_PENDING_OFFSET);
	irqfwd_forward(fwd, fwd->accel, FVPI_ACCEL_OFFSET);
	for (k = 0; k < fwd->n_more; k++)
		irqfwd_forward(fwd, fwd->more[k], FVPI_ACCEL_OFFSET + (k + 1) * FVPI_PENDING_WORDS * 8);
	return IRQ_HANDLED;
}

static void irqfwd_put_devices(struct irqfwd *fwd)
{
	unsigned int k;

	for (k = 0; k < fwd->n_more; k++)
		pci_dev_put(fwd->more[k]);
	pci_dev_put(fwd->accel);
	pci_dev_put(fwd->nvme);
}

static int irqfwd_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct irqfwd *fwd;
	resource_size_t start, len;
	int ret;

	fwd = devm_kzalloc(&pdev->dev, sizeof(*fwd), GFP_KERNEL);
	if (!fwd)
		return -ENOMEM;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	start = pci_resource_start(pdev, IVSHMEM_SHM_BAR);
	len = pci_resource_len(pdev, IVSHMEM_SHM_BAR);
	if (len < FVPI_MIN_SIZE) {
		dev_err(&pdev->dev, "shared memory of %llu bytes is too small\n",
			(unsigned long long)len);
		return -ENODEV;
	}
	/* Plain RAM on the host side, so map it cacheable: xchg needs it. */
	fwd->shm = devm_memremap(&pdev->dev, start, len, MEMREMAP_WB);
	if (IS_ERR(fwd->shm))
		return PTR_ERR(fwd->shm);
	fwd->shm_size = len;

	fwd->nvme = irqfwd_find_nvme();
	if (!fwd->nvme) {
		dev_err(&pdev->dev, "no NVMe device (nvme=%s)\n", nvme);
		return -ENODEV;
	}
	fwd->accel = pci_get_device(ACCEL_VENDOR, ACCEL_DEVICE, NULL);
	if (!(nvme && nvme[0])) {
		struct pci_dev *d = pci_dev_get(fwd->nvme);

		while (fwd->n_more < FVPI_MORE_NVME && (d = pci_get_class(NVME_CLASS, d)))
			fwd->more[fwd->n_more++] = pci_dev_get(d);
		pci_dev_put(d);
	}

	/* MSI-X messages are memory writes by the device: needs bus master. */
	pci_set_master(pdev);
	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX);
	if (ret < 0)
		goto put_nvme;
	ret = request_irq(pci_irq_vector(pdev, 0), irqfwd_doorbell, 0,
			  "flashvp_irqfwd", fwd);
	if (ret)
		goto free_vectors;
	pci_set_drvdata(pdev, fwd);

	if (irqfwd_magic_ok(fwd))
		dev_info(&pdev->dev, "forwarding to nvme %s and %u more%s%s (shm %llu bytes, FVPI v1)\n",
			 pci_name(fwd->nvme), fwd->n_more, fwd->accel ? ", accelerator " : "",
			 fwd->accel ? pci_name(fwd->accel) : "", (unsigned long long)len);
	else
		dev_warn(&pdev->dev, "no FVPI v1 header in shared memory: forwarding nothing until it appears (nvme %s)\n",
			 pci_name(fwd->nvme));
	return 0;

free_vectors:
	pci_free_irq_vectors(pdev);
put_nvme:
	irqfwd_put_devices(fwd);
	return ret;
}

static void irqfwd_remove(struct pci_dev *pdev)
{
	struct irqfwd *fwd = pci_get_drvdata(pdev);

	free_irq(pci_irq_vector(pdev, 0), fwd);
	pci_free_irq_vectors(pdev);
	dev_info(&pdev->dev, "forwarded %lld vectors, %lld without irq\n",
		 (long long)atomic64_read(&fwd->forwarded),
		 (long long)atomic64_read(&fwd->dropped));
	irqfwd_put_devices(fwd);
}

static const struct pci_device_id irqfwd_ids[] = {
	{ PCI_DEVICE(IVSHMEM_VENDOR, IVSHMEM_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, irqfwd_ids);

static struct pci_driver irqfwd_driver = {
	.name = "flashvp_irqfwd",
	.id_table = irqfwd_ids,
	.probe = irqfwd_probe,
	.remove = irqfwd_remove,
};
module_pci_driver(irqfwd_driver);

MODULE_DESCRIPTION("FlashVP: NVMe interrupts forwarded through an ivshmem doorbell");
MODULE_LICENSE("GPL");
