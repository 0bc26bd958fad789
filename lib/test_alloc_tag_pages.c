// SPDX-License-Identifier: GPL-2.0-only
/*
 * A module for the alloc_tag page_owner kselftest: at load it allocates
 * whole pages in four ways, TATP_NR times each at one line of a function
 * of its own, so that /proc/allocinfo (which names the line) and
 * page_owner (which saved the stack of every page) can be compared page
 * for page:
 *
 *   tatp_alloc_page	alloc_page(): one page, one call
 *   tatp_alloc_order2	alloc_pages() of order 2: four pages, one call
 *   tatp_alloc_exact	alloc_pages_exact() of three pages: an order-2
 *			block split, its fourth page given back; three
 *			pages of order 0, three calls
 *   tatp_alloc_vmalloc	vmalloc() of four pages: four pages of order 0,
 *			four calls, plus the area's kmalloc'ed array of
 *			page pointers, one call, charged to the same line
 *
 * The functions are in regular text, not __init, so that the stacks
 * page_owner saved still resolve to their names once init memory is gone.
 *
 *   sites (read)	one line per kind, in the order above:
 *			"function file:line extra_bytes extra_calls", the
 *			extras being what the line is charged for each
 *			allocation beyond its pages (slab objects, which
 *			page_owner does not show as pages of the function)
 *   free_half=1 (write)	free the last half of each kind's allocations
 *
 * Unloading frees whatever is left.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

/* struct kmem_cache, for the size of a kmalloc cache's objects */
#include "test_alloc_tag.h"

#define TATP_NR			4	/* allocations of each kind */
#define TATP_ORDER		2
#define TATP_EXACT_SIZE		(3 * PAGE_SIZE)
#define TATP_VMALLOC_PAGES	4

static struct page *tatp_page[TATP_NR];
static struct page *tatp_order2[TATP_NR];
static void *tatp_exact[TATP_NR];
static void *tatp_area[TATP_NR];
/* Serializes free_half with unloading. */
static DEFINE_MUTEX(tatp_lock);

static char sites[512];
module_param_string(sites, sites, sizeof(sites), 0444);
MODULE_PARM_DESC(sites, "function file:line extra_bytes extra_calls");

static void tatp_add_site(const char *func, unsigned int line,
			  unsigned int extra_bytes, unsigned int extra_calls)
{
	size_t len = strlen(sites);

	snprintf(sites + len, sizeof(sites) - len, "%s %s:%u %u %u\n",
		 func, __FILE__, line, extra_bytes, extra_calls);
}

static noinline __noclone int tatp_alloc_page(void)
{
	unsigned int i, line = 0;
	struct page *page;

	for (i = 0; i < TATP_NR; i++) {
		page = alloc_page(GFP_KERNEL); line = __LINE__;
		if (!page)
			return -ENOMEM;
		tatp_page[i] = page;
	}
	tatp_add_site(__func__, line, 0, 0);
	return 0;
}

static noinline __noclone int tatp_alloc_order2(void)
{
	unsigned int i, line = 0;
	struct page *page;

	for (i = 0; i < TATP_NR; i++) {
		page = alloc_pages(GFP_KERNEL, TATP_ORDER); line = __LINE__;
		if (!page)
			return -ENOMEM;
		tatp_order2[i] = page;
	}
	tatp_add_site(__func__, line, 0, 0);
	return 0;
}

static noinline __noclone int tatp_alloc_exact(void)
{
	const size_t size = TATP_EXACT_SIZE;
	unsigned int i, line = 0;
	void *p;

	for (i = 0; i < TATP_NR; i++) {
		p = alloc_pages_exact(size, GFP_KERNEL); line = __LINE__;
		if (!p)
			return -ENOMEM;
		tatp_exact[i] = p;
	}
	tatp_add_site(__func__, line, 0, 0);
	return 0;
}

static noinline __noclone int tatp_alloc_vmalloc(void)
{
	unsigned int i, line = 0;
	void *p;

	for (i = 0; i < TATP_NR; i++) {
		p = vmalloc(TATP_VMALLOC_PAGES * PAGE_SIZE); line = __LINE__;
		if (!p)
			return -ENOMEM;
		tatp_area[i] = p;
	}
	/* Beyond the pages: their array, one more allocation. */
	tatp_add_site(__func__, line,
		      test_vmalloc_array_charge(TATP_VMALLOC_PAGES), 1);
	return 0;
}

/* Free the allocations from @first on, of every kind. */
static void tatp_free_from(unsigned int first)
{
	unsigned int i;

	mutex_lock(&tatp_lock);
	for (i = first; i < TATP_NR; i++) {
		if (tatp_page[i])
			__free_page(tatp_page[i]);
		if (tatp_order2[i])
			__free_pages(tatp_order2[i], TATP_ORDER);
		if (tatp_exact[i])
			free_pages_exact(tatp_exact[i], TATP_EXACT_SIZE);
		vfree(tatp_area[i]);
		tatp_page[i] = NULL;
		tatp_order2[i] = NULL;
		tatp_exact[i] = NULL;
		tatp_area[i] = NULL;
	}
	mutex_unlock(&tatp_lock);
}

static int free_half_set(const char *val, const struct kernel_param *kp)
{
	bool now;
	int err = kstrtobool(val, &now);

	if (err)
		return err;
	if (now)
		tatp_free_from(TATP_NR / 2);
	return 0;
}

static const struct kernel_param_ops free_half_ops = {
	.set = free_half_set,
};
module_param_cb(free_half, &free_half_ops, NULL, 0200);
MODULE_PARM_DESC(free_half, "write 1 to free half of each kind's allocations");

static int __init test_alloc_tag_pages_init(void)
{
	int err;

	err = tatp_alloc_page();
	if (!err)
		err = tatp_alloc_order2();
	if (!err)
		err = tatp_alloc_exact();
	if (!err)
		err = tatp_alloc_vmalloc();
	if (err)
		tatp_free_from(0);
	return err;
}

static void __exit test_alloc_tag_pages_exit(void)
{
	tatp_free_from(0);
}

module_init(test_alloc_tag_pages_init);
module_exit(test_alloc_tag_pages_exit);
MODULE_DESCRIPTION("Page allocations for the alloc_tag page_owner kselftest");
MODULE_LICENSE("GPL");
