// SPDX-License-Identifier: GPL-2.0-only
/*
 * Holds allocations that test_alloc_tag made and left behind when it
 * unloaded, for the alloc_tag kselftest, which frees them through this
 * module after the other one is gone:
 *
 *   free=1 (write)	free them now
 *   held (read)	how many allocations it holds
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "test_alloc_tag.h"

#define MAX_HELD	32

static struct {
	enum test_alloc_tag_kind kind;
	void *p;
	unsigned int order;
} kept[MAX_HELD];
static unsigned int held;
static DEFINE_MUTEX(keeper_lock);

module_param(held, uint, 0444);
MODULE_PARM_DESC(held, "number of allocations held");

/**
 * test_alloc_tag_keep - take over an allocation
 * @kind: how it was allocated
 * @p: the allocation (a struct page * for TEST_ALLOC_TAG_PAGES)
 * @order: the page order, for TEST_ALLOC_TAG_PAGES
 *
 * Return: 0, or -ENOSPC when the keeper is full.
 */
int test_alloc_tag_keep(enum test_alloc_tag_kind kind, void *p,
			unsigned int order)
{
	int err = -ENOSPC;

	mutex_lock(&keeper_lock);
	if (held < MAX_HELD) {
		kept[held].kind = kind;
		kept[held].p = p;
		kept[held].order = order;
		held++;
		err = 0;
	}
	mutex_unlock(&keeper_lock);
	return err;
}
EXPORT_SYMBOL_GPL(test_alloc_tag_keep);

static void free_held(void)
{
	mutex_lock(&keeper_lock);
	while (held) {
		held--;
		switch (kept[held].kind) {
		case TEST_ALLOC_TAG_PAGES:
			__free_pages(kept[held].p, kept[held].order);
			break;
		case TEST_ALLOC_TAG_KMALLOC:
			kfree(kept[held].p);
			break;
		case TEST_ALLOC_TAG_VMALLOC:
			vfree(kept[held].p);
			break;
		case TEST_ALLOC_TAG_PERCPU:
			free_percpu((void __percpu __force *)kept[held].p);
			break;
		}
	}
	mutex_unlock(&keeper_lock);
}

static int free_set(const char *val, const struct kernel_param *kp)
{
	bool now;
	int err = kstrtobool(val, &now);

	if (err)
		return err;
	if (now)
		free_held();
	return 0;
}

static const struct kernel_param_ops free_ops = {
	.set = free_set,
};
module_param_cb(free, &free_ops, NULL, 0200);
MODULE_PARM_DESC(free, "write 1 to free what is held");

static void __exit test_alloc_tag_keeper_exit(void)
{
	free_held();
}

module_exit(test_alloc_tag_keeper_exit);
MODULE_DESCRIPTION("Keeps allocations of test_alloc_tag past its unload");
MODULE_LICENSE("GPL");
