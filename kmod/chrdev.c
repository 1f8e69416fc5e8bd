// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/netslice-N character devices: one minor per slice.
 *
 * The file operations name THIS_MODULE as owner, so every open file holds
 * a module reference: rmmod is refused (-EBUSY) while any node is open, and
 * the slices outlive every file that points at them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <linux/netslice.h>

#include "chrdev.h"
#include "compat.h"
#include "ioctl.h"
#include "read.h"
#include "ring.h"
#include "slice.h"
#include "write.h"

static struct {
	dev_t base;
	struct cdev cdev;
	struct class *class;
	struct nsl_slice *slices;
	unsigned int count;
} nsl_chrdev;

static int nsl_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode) - MINOR(nsl_chrdev.base);
	struct nsl_slice *slice;
	struct nsl_file *nf;

	if (minor >= nsl_chrdev.count)
		return -ENXIO;
	slice = &nsl_chrdev.slices[minor];
	nf = kzalloc_obj(*nf, GFP_KERNEL_ACCOUNT);
	if (!nf)
		return -ENOMEM;
	nf->slice = slice;
	file->private_data = nf;
	/*
	 * RX checks for a reader before it queues: a packet that raced the
	 * last close is still queued. The first open frees it, unread.
	 */
	if (atomic_inc_return(&slice->open_files) == 1)
		nsl_slice_purge(slice, 0);
	return stream_open(inode, file);
}

static int nsl_release(struct inode *inode, struct file *file)
{
	struct nsl_slice *slice = nsl_file_slice(file);

	nsl_ring_release(file);
	nsl_store_release(&slice->store, file);
	nsl_slice_drop_reader(slice, file);
	/* Nobody will read what is queued: free it now, not at unload. */
	if (atomic_dec_and_test(&slice->open_files))
		nsl_slice_purge(slice, 0);
	kfree(file->private_data);
	file->private_data = NULL;
	return 0;
}

/*
 * A file in ring mode moves packets through its mmapped rings only:
 * read() and write() are for the other mode (-EINVAL), and while another
 * file's rings take the slice's packets, read() has none (-EBUSY).
 */
static ssize_t nsl_fop_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct nsl_slice *slice = nsl_file_slice(file);

	if (rcu_access_pointer(slice->ring))
		return nsl_ring_of(file) ? -EINVAL : -EBUSY;
	return nsl_read(file, buf, count, ppos);
}

static ssize_t nsl_fop_write(struct file *file, const char __user *buf, size_t count,
			     loff_t *ppos)
{
	if (nsl_ring_of(file))
		return -EINVAL;
	return nsl_write(file, buf, count, ppos);
}

static __poll_t nsl_fop_poll(struct file *file, poll_table *wait)
{
	struct nsl_ring *ring = nsl_ring_of(file);

	if (ring)
		return nsl_ring_poll(ring, file, wait);
	return nsl_poll(file, wait);
}

static const struct file_operations nsl_fops = {
	.owner		= THIS_MODULE,
	.open		= nsl_open,
	.release	= nsl_release,
	.read		= nsl_fop_read,
	.write		= nsl_fop_write,
	.poll		= nsl_fop_poll,
	.mmap		= nsl_ring_mmap,
	.unlocked_ioctl	= nsl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/* Root-only by default; a udev rule may widen it. */
static char *nsl_devnode(nsl_devnode_dev_t *dev, umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

static void nsl_destroy_nodes(unsigned int count)
{
	while (count--)
		device_destroy(nsl_chrdev.class, nsl_chrdev.base + count);
}

int nsl_chrdev_init(struct nsl_slice *slices, unsigned int count)
{
	struct device *dev;
	unsigned int i;
	int err;

	nsl_chrdev.slices = slices;
	nsl_chrdev.count = count;

	err = alloc_chrdev_region(&nsl_chrdev.base, 0, count, KBUILD_MODNAME);
	if (err) {
		pr_err("cannot allocate %u device numbers: %d\n", count, err);
		return err;
	}

	nsl_chrdev.class = nsl_class_create(KBUILD_MODNAME);
	if (IS_ERR(nsl_chrdev.class)) {
		err = PTR_ERR(nsl_chrdev.class);
		goto err_unregister_region;
	}
	nsl_chrdev.class->devnode = nsl_devnode;

	cdev_init(&nsl_chrdev.cdev, &nsl_fops);
	nsl_chrdev.cdev.owner = THIS_MODULE;
	err = cdev_add(&nsl_chrdev.cdev, nsl_chrdev.base, count);
	if (err)
		goto err_destroy_class;

	for (i = 0; i < count; i++) {
		dev = device_create(nsl_chrdev.class, NULL, nsl_chrdev.base + i,
				    NULL, NETSLICE_DEV_PREFIX "%u", i);
		if (IS_ERR(dev)) {
			err = PTR_ERR(dev);
			pr_err("cannot create %s%u: %d\n", NETSLICE_DEV_PREFIX, i, err);
			goto err_destroy_nodes;
		}
	}
	return 0;

err_destroy_nodes:
	nsl_destroy_nodes(i);
	cdev_del(&nsl_chrdev.cdev);
err_destroy_class:
	class_destroy(nsl_chrdev.class);
err_unregister_region:
	unregister_chrdev_region(nsl_chrdev.base, count);
	return err;
}

void nsl_chrdev_exit(void)
{
	nsl_destroy_nodes(nsl_chrdev.count);
	cdev_del(&nsl_chrdev.cdev);
	class_destroy(nsl_chrdev.class);
	unregister_chrdev_region(nsl_chrdev.base, nsl_chrdev.count);
}
