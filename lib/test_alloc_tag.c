// SPDX-License-Identifier: GPL-2.0-only
/*
 * A module for the alloc_tag kselftest: it allocates pages at load, at two
 * call sites it reports in the "sites" parameter, so that the test can find
 * them in /proc/allocinfo under [test_alloc_tag].
 *
 *   free=1 (write, at run time)	free the pages now
 *   leak=1 (at load)			keep the pages when the module unloads
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static struct page *pages;	/* order 2 */
static unsigned long page;	/* one page */
static char sites[256];
static bool leak;

module_param(leak, bool, 0400);
MODULE_PARM_DESC(leak, "keep the allocations when unloading");
module_param_string(sites, sites, sizeof(sites), 0444);
MODULE_PARM_DESC(sites, "file:line of each allocation, with its bytes");

static void free_all(void)
{
	if (pages)
		__free_pages(pages, 2);
	if (page)
		free_page(page);
	pages = NULL;
	page = 0;
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

static int __init test_alloc_tag_init(void)
{
	unsigned int line_pages, line_page;

	pages = alloc_pages(GFP_KERNEL, 2); line_pages = __LINE__;
	page = __get_free_page(GFP_KERNEL); line_page = __LINE__;
	if (!pages || !page) {
		free_all();
		return -ENOMEM;
	}
	snprintf(sites, sizeof(sites), "%s:%u %lu\n%s:%u %lu\n",
		 __FILE__, line_pages, 4 * PAGE_SIZE,
		 __FILE__, line_page, PAGE_SIZE);
	return 0;
}

static void __exit test_alloc_tag_exit(void)
{
	if (!leak)
		free_all();
}

module_init(test_alloc_tag_init);
module_exit(test_alloc_tag_exit);
MODULE_DESCRIPTION("Allocations for the alloc_tag kselftest");
MODULE_LICENSE("GPL");
