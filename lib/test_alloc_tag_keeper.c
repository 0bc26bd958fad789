// SPDX-License-Identifier: GPL-2.0-only
/*
 * Holds allocations that test_alloc_tag made and left behind when it
 * unloaded, for the alloc_tag kselftest, which frees them through this
 * module after the other one is gone:
 *
 *   free=1 (write)	free them now
 *   held (read)	how many allocations it holds
 *   exec (read)	"OWN KEPT": whether the keeper's own code and the code
 *			test_alloc_tag left (as its module stays for its
 *			tags) are executable, 1 or 0 (x86 with NX; -EOPNOTSUPP
 *			elsewhere)
 *   going_delay_ms (write)	sleep that long when test_alloc_tag is going,
 *			after the other notifiers of its going
 */
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/mm.h>
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

static const void *kept_text;

/**
 * test_alloc_tag_keep_text - remember code of a module being unloaded
 * @text: an address in its text
 */
void test_alloc_tag_keep_text(const void *text)
{
	WRITE_ONCE(kept_text, text);
}
EXPORT_SYMBOL_GPL(test_alloc_tag_keep_text);

static int text_executable(const void *text)
{
#ifdef CONFIG_X86
	unsigned int level;
	pte_t *pte;

	if (!text)
		return -ENOENT;
	/* No NX bit (32-bit without PAE, or the CPU has none): all runs. */
	if (!(__supported_pte_mask & _PAGE_NX))
		return -EOPNOTSUPP;
	pte = lookup_address((unsigned long)text, &level);
	if (!pte || !pte_present(*pte))
		return 0;
	return pte_exec(*pte);
#else
	return -EOPNOTSUPP;
#endif
}

static int exec_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d %d\n", text_executable(exec_get),
			  text_executable(READ_ONCE(kept_text)));
}

static const struct kernel_param_ops exec_ops = {
	.get = exec_get,
};
module_param_cb(exec, &exec_ops, NULL, 0444);
MODULE_PARM_DESC(exec, "whether the keeper's code and the kept code are executable");

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

/* Widens the window between a module's going and its being freed. */
static unsigned int going_delay_ms;
module_param(going_delay_ms, uint, 0644);
MODULE_PARM_DESC(going_delay_ms, "sleep when test_alloc_tag is going, in ms");

static int keeper_module_notify(struct notifier_block *nb,
				unsigned long state, void *data)
{
	struct module *mod = data;
	unsigned int ms = READ_ONCE(going_delay_ms);

	if (state == MODULE_STATE_GOING && ms &&
	    !strcmp(mod->name, "test_alloc_tag"))
		msleep(ms);
	return NOTIFY_OK;
}

static struct notifier_block keeper_module_nb = {
	.notifier_call = keeper_module_notify,
	.priority = INT_MIN,
};

static int __init test_alloc_tag_keeper_init(void)
{
	return register_module_notifier(&keeper_module_nb);
}

static void __exit test_alloc_tag_keeper_exit(void)
{
	unregister_module_notifier(&keeper_module_nb);
	free_held();
}

module_init(test_alloc_tag_keeper_init);
module_exit(test_alloc_tag_keeper_exit);
MODULE_DESCRIPTION("Keeps allocations of test_alloc_tag past its unload");
MODULE_LICENSE("GPL");
