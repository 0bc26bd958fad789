// SPDX-License-Identifier: GPL-2.0-only
/*
 * Code tagging: a tag type names an ELF section of fixed-size tags. The
 * vmlinux range is found through kallsyms (__start_/__stop_ symbols), a
 * module's range through its section headers while it is being loaded.
 */
#include <linux/codetag.h>
#include <linux/err.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

struct codetag_type {
	struct list_head link;		/* in codetag_types */
	struct codetag_type_desc desc;
	struct rw_semaphore mod_lock;	/* protects modules */
	struct list_head modules;	/* vmlinux first, then modules */
};

/* Serializes type registration against module load and unload. */
static DEFINE_MUTEX(codetag_types_lock);
static LIST_HEAD(codetag_types);

/**
 * codetag_lock_module_list - hold or release the list of tag ranges
 * @cttype: the tag type
 * @lock: true to take the lock (for reading), false to drop it
 *
 * Iteration with codetag_next_ct() must happen under this lock; module
 * load and unload wait for it.
 */
void codetag_lock_module_list(struct codetag_type *cttype, bool lock)
{
	if (lock)
		down_read(&cttype->mod_lock);
	else
		up_read(&cttype->mod_lock);
}

/**
 * codetag_trylock_module_list - take the list of tag ranges if it is free
 * @cttype: the tag type
 *
 * For readers that must not sleep; release with
 * codetag_lock_module_list(@cttype, false).
 *
 * Return: true if the lock was taken (for reading).
 */
bool codetag_trylock_module_list(struct codetag_type *cttype)
{
	return down_read_trylock(&cttype->mod_lock);
}

/**
 * codetag_get_ct_iter - start an iteration over all tags of a type
 * @cttype: the tag type, with its module list locked
 *
 * Return: an iterator positioned before the first tag.
 */
struct codetag_iterator codetag_get_ct_iter(struct codetag_type *cttype)
{
	struct codetag_iterator iter = { .cttype = cttype };

	lockdep_assert_held(&cttype->mod_lock);
	return iter;
}

/**
 * codetag_next_ct - advance to the next tag
 * @iter: iterator from codetag_get_ct_iter()
 *
 * Return: the next tag, vmlinux's first and then each module's in load
 * order, or NULL at the end.
 */
struct codetag *codetag_next_ct(struct codetag_iterator *iter)
{
	struct codetag_type *cttype = iter->cttype;
	struct codetag_module *cmod = iter->cmod;
	struct codetag *ct;

	lockdep_assert_held(&cttype->mod_lock);
	if (!cmod) {
		if (list_empty(&cttype->modules))
			return NULL;
		cmod = list_first_entry(&cttype->modules,
					struct codetag_module, link);
		ct = cmod->start;
	} else {
		ct = (void *)iter->ct + cttype->desc.tag_size;
	}
	while (ct >= cmod->stop) {
		if (list_is_last(&cmod->link, &cttype->modules)) {
			iter->cmod = cmod;
			iter->ct = cmod->stop;
			return NULL;
		}
		cmod = list_next_entry(cmod, link);
		ct = cmod->start;
	}
	iter->cmod = cmod;
	iter->ct = ct;
	return ct;
}

/**
 * codetag_to_text - print where a tag is
 * @m: output
 * @ct: the tag
 *
 * Prints "file:line func:function", with " [module]" after the line for
 * tags in a loadable module.
 */
void codetag_to_text(struct seq_file *m, const struct codetag *ct)
{
	if (ct->modname)
		seq_printf(m, "%s:%u [%s] func:%s", ct->filename, ct->lineno,
			   ct->modname, ct->function);
	else
		seq_printf(m, "%s:%u func:%s", ct->filename, ct->lineno,
			   ct->function);
}

static void *vmlinux_symbol(const char *prefix, const char *section)
{
	char name[KSYM_NAME_LEN];

	snprintf(name, sizeof(name), "%s%s", prefix, section);
	return (void *)kallsyms_lookup_name(name);
}

/**
 * codetag_register_type - register a kind of tag and find vmlinux's tags
 * @desc: the section, tag size and module callbacks; copied
 *
 * Return: the type, or an ERR_PTR.
 */
struct codetag_type *
codetag_register_type(const struct codetag_type_desc *desc)
{
	struct codetag_module *cmod;
	struct codetag_type *cttype;
	void *start, *stop;

	if (WARN_ON(desc->tag_size < sizeof(struct codetag) ||
		    !IS_ALIGNED(desc->tag_size, sizeof(u64))))
		return ERR_PTR(-EINVAL);

	start = vmlinux_symbol("__start_", desc->section);
	stop = vmlinux_symbol("__stop_", desc->section);
	if (!start || !stop || stop < start ||
	    (stop - start) % desc->tag_size) {
		pr_err("codetag: no valid __start_/__stop_%s in kallsyms\n",
		       desc->section);
		return ERR_PTR(-ENOENT);
	}

	cttype = kzalloc(sizeof(*cttype), GFP_KERNEL);
	cmod = kzalloc(sizeof(*cmod), GFP_KERNEL);
	if (!cttype || !cmod) {
		kfree(cttype);
		kfree(cmod);
		return ERR_PTR(-ENOMEM);
	}
	cttype->desc = *desc;
	init_rwsem(&cttype->mod_lock);
	INIT_LIST_HEAD(&cttype->modules);
	cmod->start = start;
	cmod->stop = stop;
	list_add(&cmod->link, &cttype->modules);

	mutex_lock(&codetag_types_lock);
	list_add_tail(&cttype->link, &codetag_types);
	mutex_unlock(&codetag_types_lock);
	return cttype;
}

#ifdef CONFIG_MODULES
/* Tag ranges of unloaded modules, kept while their tags are in use. */
static unsigned int nr_unloaded_cmods;
static void free_unused_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(free_unused_work, free_unused_workfn);
/* Looked at every 10 s, less often while nothing is freed. */
#define FREE_UNUSED_INTERVAL_MIN	(10 * HZ)
#define FREE_UNUSED_INTERVAL_MAX	(600 * HZ)
static unsigned long free_unused_interval = FREE_UNUSED_INTERVAL_MIN;

static void unload_cmods(struct codetag_type *cttype, struct module *mod)
{
	struct codetag_module *cmod, *tmp;
	bool kept = false;

	down_write(&cttype->mod_lock);
	list_for_each_entry_safe(cmod, tmp, &cttype->modules, link) {
		if (cmod->mod != mod || cmod->unloaded)
			continue;
		if (!cttype->desc.module_unload ||
		    cttype->desc.module_unload(cttype, cmod)) {
			list_del(&cmod->link);
			kfree(cmod);
		} else {
			cmod->unloaded = true;
			WRITE_ONCE(nr_unloaded_cmods, nr_unloaded_cmods + 1);
			kept = true;
		}
	}
	up_write(&cttype->mod_lock);
	if (kept) {
		free_unused_interval = FREE_UNUSED_INTERVAL_MIN;
		mod_delayed_work(system_wq, &free_unused_work,
				 free_unused_interval);
	}
}

/* Does any tag type still use memory of @mod? */
static bool module_has_cmods(struct module *mod)
{
	struct codetag_module *cmod;
	struct codetag_type *cttype;

	lockdep_assert_held(&codetag_types_lock);
	list_for_each_entry(cttype, &codetag_types, link)
		list_for_each_entry(cmod, &cttype->modules, link)
			if (cmod->mod == mod)
				return true;
	return false;
}

/**
 * codetag_free_unused - drop the tags of unloaded modules once unused
 *
 * Asks each tag type again about the tags it kept at module unload; those
 * no longer in use leave the iteration, and the module's core is freed
 * when no type keeps tags in it. Runs periodically while such tags exist;
 * readers of the tags call it to see the current state.
 */
void codetag_free_unused(void)
{
	struct codetag_module *cmod, *tmp;
	struct codetag_type *cttype;
	struct module *mod;
	unsigned int before;

	if (!READ_ONCE(nr_unloaded_cmods))
		return;
	mutex_lock(&codetag_types_lock);
	before = nr_unloaded_cmods;
	list_for_each_entry(cttype, &codetag_types, link) {
		down_write(&cttype->mod_lock);
		list_for_each_entry_safe(cmod, tmp, &cttype->modules, link) {
			if (!cmod->unloaded ||
			    !cttype->desc.module_unload(cttype, cmod))
				continue;
			mod = cmod->mod;
			list_del(&cmod->link);
			kfree(cmod);
			WRITE_ONCE(nr_unloaded_cmods, nr_unloaded_cmods - 1);
			if (!module_has_cmods(mod))
				module_free_core(mod);
		}
		up_write(&cttype->mod_lock);
	}
	if (nr_unloaded_cmods == before)
		free_unused_interval = min(2 * free_unused_interval,
					   FREE_UNUSED_INTERVAL_MAX);
	else
		free_unused_interval = FREE_UNUSED_INTERVAL_MIN;
	mutex_unlock(&codetag_types_lock);
}

static void free_unused_workfn(struct work_struct *work)
{
	codetag_free_unused();
	if (READ_ONCE(nr_unloaded_cmods))
		schedule_delayed_work(&free_unused_work,
				      READ_ONCE(free_unused_interval));
}

/**
 * codetag_load_module - add a module's tags, before its code runs
 * @mod: the module being loaded
 * @find: looks up a section of @mod by name
 * @info: passed to @find
 *
 * Return: 0, or an error that must fail the load.
 */
int codetag_load_module(struct module *mod, codetag_find_section_t find,
			void *info)
{
	struct codetag_module *cmod;
	struct codetag_type *cttype;
	size_t size;
	void *start;
	int err = 0;

	codetag_free_unused();
	mutex_lock(&codetag_types_lock);
	list_for_each_entry(cttype, &codetag_types, link) {
		start = find(info, cttype->desc.section, &size);
		if (!start || !size)
			continue;
		if (size % cttype->desc.tag_size) {
			pr_err("codetag: %s: section %s is not a tag array\n",
			       mod->name, cttype->desc.section);
			err = -ENOEXEC;
			break;
		}
		cmod = kzalloc(sizeof(*cmod), GFP_KERNEL);
		if (!cmod) {
			err = -ENOMEM;
			break;
		}
		cmod->mod = mod;
		cmod->start = start;
		cmod->stop = start + size;
		if (cttype->desc.module_load) {
			err = cttype->desc.module_load(cttype, cmod);
			if (err) {
				kfree(cmod);
				break;
			}
		}
		down_write(&cttype->mod_lock);
		list_add_tail(&cmod->link, &cttype->modules);
		up_write(&cttype->mod_lock);
	}
	if (err)
		list_for_each_entry(cttype, &codetag_types, link)
			unload_cmods(cttype, mod);
	mutex_unlock(&codetag_types_lock);
	return err;
}

/**
 * codetag_unload_module - drop a module's tags
 * @mod: the module going away
 *
 * Return: true if the module's memory may be freed; false if some of its
 * tags are still in use, in which case they stay listed (marked unloaded)
 * and the caller must keep the memory holding them.
 */
bool codetag_unload_module(struct module *mod)
{
	struct codetag_type *cttype;
	bool freed;

	mutex_lock(&codetag_types_lock);
	list_for_each_entry(cttype, &codetag_types, link)
		unload_cmods(cttype, mod);
	/* Also counts tags kept by an earlier call for the same module. */
	freed = !module_has_cmods(mod);
	mutex_unlock(&codetag_types_lock);
	return freed;
}
#endif /* CONFIG_MODULES */
