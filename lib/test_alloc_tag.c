// SPDX-License-Identifier: GPL-2.0-only
/*
 * A module for the alloc_tag kselftest: at load it allocates through the
 * page, kmalloc, vmalloc and percpu allocators, one call site each, and
 * reports each site in the "sites" parameter, one line per site:
 * "file:line bytes calls", so that the test can find them in
 * /proc/allocinfo under [test_alloc_tag].
 *
 *   free=1 (write, at run time)	free the allocations now
 *   split=1 (write, at run time)	split the order-2 pages into four
 *   leak=1 (at load)			at unload, hand the allocations over
 *					to test_alloc_tag_keeper instead
 *
 * One more allocation, reported in "rcu_site", is only freed at unload,
 * with kfree_rcu(): its line must be gone once the unload returns.
 */
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "test_alloc_tag.h"

static struct page *pages;	/* order 2 */
static bool pages_split;	/* ... now four pages of order 0 */
static unsigned long page;	/* one page */
static void *large;		/* a large kmalloc: order-2 pages */
static void *area;		/* four vmalloc'ed pages */
static u64 __percpu *counters;	/* four u64 per CPU */
static char sites[512];
static bool leak;

/* Large enough to be pages: its bytes are known exactly. */
struct rcu_freed {
	struct rcu_head rcu;
	char data[3 * PAGE_SIZE];
};

static struct rcu_freed *rcu_freed;
static char rcu_site[128];
module_param_string(rcu_site, rcu_site, sizeof(rcu_site), 0444);
MODULE_PARM_DESC(rcu_site, "file:line bytes calls of what the unload frees with kfree_rcu()");

module_param(leak, bool, 0400);
MODULE_PARM_DESC(leak, "leave the allocations to test_alloc_tag_keeper at unload");
module_param_string(sites, sites, sizeof(sites), 0444);
MODULE_PARM_DESC(sites, "file:line bytes calls of each allocation");

static void free_all(void)
{
	unsigned int i;

	if (pages && pages_split) {
		for (i = 0; i < 4; i++)
			__free_page(pages + i);
	} else if (pages) {
		__free_pages(pages, 2);
	}
	free_page(page);
	kfree(large);
	vfree(area);
	free_percpu(counters);
	pages = NULL;
	pages_split = false;
	page = 0;
	large = NULL;
	area = NULL;
	counters = NULL;
}

static int free_set(const char *val, const struct kernel_param *kp)
{
	bool now;
	int err = kstrtobool(val, &now);

	if (err)
		return err;
	if (now)
		free_all();
	return 0;
}

static const struct kernel_param_ops free_ops = {
	.set = free_set,
};
module_param_cb(free, &free_ops, NULL, 0200);
MODULE_PARM_DESC(free, "write 1 to free the allocations");

static int split_set(const char *val, const struct kernel_param *kp)
{
	bool now;
	int err = kstrtobool(val, &now);

	if (err)
		return err;
	if (now && pages && !pages_split) {
		split_page(pages, 2);
		pages_split = true;
	}
	return 0;
}

static const struct kernel_param_ops split_ops = {
	.set = split_set,
};
module_param_cb(split, &split_ops, NULL, 0200);
MODULE_PARM_DESC(split, "write 1 to split the order-2 pages into four");

static void add_site(char *buf, size_t size, unsigned int line, u64 bytes,
		     unsigned int calls)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s:%u %llu %u\n", __FILE__, line,
		 bytes, calls);
}

static int __init test_alloc_tag_init(void)
{
	unsigned int l_pages, l_page, l_large, l_area, l_counters, l_rcu;

	pages = alloc_pages(GFP_KERNEL, 2); l_pages = __LINE__;
	page = __get_free_page(GFP_KERNEL); l_page = __LINE__;
	large = kmalloc(4 * PAGE_SIZE, GFP_KERNEL); l_large = __LINE__;
	area = vmalloc(3 * PAGE_SIZE + 1); l_area = __LINE__;
	counters = __alloc_percpu(4 * sizeof(u64), 8); l_counters = __LINE__;
	rcu_freed = kmalloc(sizeof(*rcu_freed), GFP_KERNEL); l_rcu = __LINE__;
	if (!pages || !page || !large || !area || !counters || !rcu_freed) {
		free_all();
		kfree(rcu_freed);
		return -ENOMEM;
	}
	add_site(sites, sizeof(sites), l_pages, 4 * PAGE_SIZE, 1);
	add_site(sites, sizeof(sites), l_page, PAGE_SIZE, 1);
	add_site(sites, sizeof(sites), l_large, 4 * PAGE_SIZE, 1);
	/* Each vmalloc'ed page is one call, and so is its array of pages. */
	add_site(sites, sizeof(sites), l_area,
		 4 * PAGE_SIZE + test_vmalloc_array_charge(4),
		 4 + 1);
	/* A percpu area is charged once for every possible CPU. */
	add_site(sites, sizeof(sites), l_counters,
		 4 * sizeof(u64) * num_possible_cpus(), 1);
	add_site(rcu_site, sizeof(rcu_site), l_rcu,
		 PAGE_SIZE << get_order(sizeof(*rcu_freed)), 1);
	return 0;
}

static void __exit test_alloc_tag_exit(void)
{
	/* With leak=1, what is still allocated outlives the module. */
	if (leak) {
		if (pages && !pages_split &&
		    !test_alloc_tag_keep(TEST_ALLOC_TAG_PAGES, pages, 2))
			pages = NULL;
		if (page && !test_alloc_tag_keep(TEST_ALLOC_TAG_PAGES,
						 virt_to_page((void *)page), 0))
			page = 0;
		if (large && !test_alloc_tag_keep(TEST_ALLOC_TAG_KMALLOC, large, 0))
			large = NULL;
		if (area && !test_alloc_tag_keep(TEST_ALLOC_TAG_VMALLOC, area, 0))
			area = NULL;
		if (counters && !test_alloc_tag_keep(TEST_ALLOC_TAG_PERCPU,
						     (void __force *)counters, 0))
			counters = NULL;
	}
	/* Whatever the keeper did not take. */
	free_all();
	kfree_rcu(rcu_freed, rcu);
	/* Must no longer run if the module stays for its tags. */
	if (leak)
		test_alloc_tag_keep_text(free_set);
}

module_init(test_alloc_tag_init);
module_exit(test_alloc_tag_exit);
MODULE_DESCRIPTION("Allocations for the alloc_tag kselftest");
MODULE_LICENSE("GPL");
