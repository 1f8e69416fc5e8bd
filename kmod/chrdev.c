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
	struct ns_slice *slices;
	unsigned int count;
} ns_chrdev;

static int ns_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode) - MINOR(ns_chrdev.base);

	if (minor >= ns_chrdev.count)
		return -ENXIO;
	file->private_data = &ns_chrdev.slices[minor];
	/*
	 * RX checks for a reader before it queues: a packet that raced the
	 * last close is still queued. The first open frees it, unread.
	 */
	if (atomic_inc_return(&ns_chrdev.slices[minor].open_files) == 1)
		ns_slice_purge(&ns_chrdev.slices[minor], 0);
	return stream_open(inode, file);
}

static int ns_release(struct inode *inode, struct file *file)
{
	struct ns_slice *slice = file->private_data;

	ns_ring_release(file);
	ns_store_release(&slice->store, file);
	cmpxchg(&slice->reader, file, NULL);
	/* Nobody will read what is queued: free it now, not at unload. */
	if (atomic_dec_and_test(&slice->open_files))
		ns_slice_purge(slice, 0);
	file->private_data = NULL;
	return 0;
}

/*
 * A file in ring mode moves packets through its mmapped rings only:
 * read() and write() are for the other mode (-EINVAL), and while another
 * file's rings take the slice's packets, read() has none (-EBUSY).
 */
static ssize_t ns_fop_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct ns_slice *slice = file->private_data;

	if (rcu_access_pointer(slice->ring))
		return ns_ring_of(file) ? -EINVAL : -EBUSY;
	return ns_read(file, buf, count, ppos);
}

static ssize_t ns_fop_write(struct file *file, const char __user *buf, size_t count,
			    loff_t *ppos)
{
	if (ns_ring_of(file))
		return -EINVAL;
	return ns_write(file, buf, count, ppos);
}

static __poll_t ns_fop_poll(struct file *file, poll_table *wait)
{
	struct ns_ring *ring = ns_ring_of(file);

	if (ring)
		return ns_ring_poll(ring, file, wait);
	return ns_poll(file, wait);
}

static const struct file_operations ns_fops = {
	.owner		= THIS_MODULE,
	.open		= ns_open,
	.release	= ns_release,
	.read		= ns_fop_read,
	.write		= ns_fop_write,
	.poll		= ns_fop_poll,
	.mmap		= ns_ring_mmap,
	.unlocked_ioctl	= ns_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/* Root-only by default; a udev rule may widen it. */
static char *ns_devnode(ns_devnode_dev_t *dev, umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

static void ns_destroy_nodes(unsigned int count)
{
	while (count--)
		device_destroy(ns_chrdev.class, ns_chrdev.base + count);
}

int ns_chrdev_init(struct ns_slice *slices, unsigned int count)
{
	struct device *dev;
	unsigned int i;
	int err;

	ns_chrdev.slices = slices;
	ns_chrdev.count = count;

	err = alloc_chrdev_region(&ns_chrdev.base, 0, count, KBUILD_MODNAME);
	if (err) {
		pr_err("cannot allocate %u device numbers: %d\n", count, err);
		return err;
	}

	ns_chrdev.class = ns_class_create(KBUILD_MODNAME);
	if (IS_ERR(ns_chrdev.class)) {
		err = PTR_ERR(ns_chrdev.class);
		goto err_unregister_region;
	}
	ns_chrdev.class->devnode = ns_devnode;

	cdev_init(&ns_chrdev.cdev, &ns_fops);
	ns_chrdev.cdev.owner = THIS_MODULE;
	err = cdev_add(&ns_chrdev.cdev, ns_chrdev.base, count);
	if (err)
		goto err_destroy_class;

	for (i = 0; i < count; i++) {
		dev = device_create(ns_chrdev.class, NULL, ns_chrdev.base + i,
				    NULL, NETSLICE_DEV_PREFIX "%u", i);
		if (IS_ERR(dev)) {
			err = PTR_ERR(dev);
			pr_err("cannot create %s%u: %d\n", NETSLICE_DEV_PREFIX, i, err);
			goto err_destroy_nodes;
		}
	}
	return 0;

err_destroy_nodes:
	ns_destroy_nodes(i);
	cdev_del(&ns_chrdev.cdev);
err_destroy_class:
	class_destroy(ns_chrdev.class);
err_unregister_region:
	unregister_chrdev_region(ns_chrdev.base, count);
	return err;
}

void ns_chrdev_exit(void)
{
	ns_destroy_nodes(ns_chrdev.count);
	cdev_del(&ns_chrdev.cdev);
	class_destroy(ns_chrdev.class);
	unregister_chrdev_region(ns_chrdev.base, ns_chrdev.count);
}
