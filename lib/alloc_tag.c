// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory allocation profiling: the "alloc_tags" code tag type, the
 * vm.mem_profiling switch and /proc/allocinfo.
 */
#include <linux/alloc_tag.h>
#include <linux/codetag.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/page_ext.h>
#include <linux/pgalloc_tag.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/sysctl.h>

static struct codetag_type *alloc_tag_cttype;

/* Exported: modules expand the allocation macros too. */
#ifdef CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT
DEFINE_STATIC_KEY_TRUE(mem_alloc_profiling_key);
#else
DEFINE_STATIC_KEY_FALSE(mem_alloc_profiling_key);
#endif
EXPORT_SYMBOL(mem_alloc_profiling_key);

#ifdef CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT
DEFINE_STATIC_KEY_TRUE(mem_alloc_tags_in_use_key);
#else
DEFINE_STATIC_KEY_FALSE(mem_alloc_tags_in_use_key);
#endif
EXPORT_SYMBOL(mem_alloc_tags_in_use_key);

/* False after sysctl.vm.mem_profiling=never, or if setup failed. */
static bool mem_profiling_support __ro_after_init = true;
/*
 * How many values sysctl.vm.mem_profiling= was accepted with: the generic
 * sysctl boot code writes each to the sysctl again once the early
 * parameter has taken effect.
 */
static unsigned int boot_replays_pending;
static bool booted_never __ro_after_init;
static DEFINE_MUTEX(mem_profiling_lock);

/**
 * alloc_tag_read - sum a tag's per-cpu counters
 * @tag: the tag
 *
 * Return: the bytes and calls the call site holds right now.
 */
struct alloc_tag_counters alloc_tag_read(struct alloc_tag *tag)
{
	struct alloc_tag_counters v = { 0, 0 };
	struct alloc_tag_counters *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(tag->counters, cpu);
		v.bytes += c->bytes;
		v.calls += c->calls;
	}
	return v;
}
EXPORT_SYMBOL_GPL(alloc_tag_read);

/**
 * alloc_tag_find - look up the tag of a call site
 * @filename: the file, as __FILE__ spells it
 * @lineno: the line
 *
 * For tests. The tag list lock is not held on return: the caller must
 * know that the tag cannot go away (it is in vmlinux or in the caller's
 * own module).
 *
 * Return: the tag, or NULL.
 */
struct alloc_tag *alloc_tag_find(const char *filename, unsigned int lineno)
{
	struct codetag_iterator iter;
	struct codetag *ct, *found = NULL;

	if (!alloc_tag_cttype)
		return NULL;
	codetag_lock_module_list(alloc_tag_cttype, true);
	iter = codetag_get_ct_iter(alloc_tag_cttype);
	while ((ct = codetag_next_ct(&iter))) {
		if (ct->lineno == lineno && !strcmp(ct->filename, filename)) {
			found = ct;
			break;
		}
	}
	codetag_lock_module_list(alloc_tag_cttype, false);
	return found ? ct_to_alloc_tag(found) : NULL;
}
EXPORT_SYMBOL_GPL(alloc_tag_find);

static void set_profiling_keys(bool enable)
{
	if (enable) {
		/* Frees must uncharge before the first charge can happen. */
		static_branch_enable(&mem_alloc_tags_in_use_key);
		static_branch_enable(&mem_alloc_profiling_key);
	} else {
		static_branch_disable(&mem_alloc_profiling_key);
	}
}

/**
 * mem_alloc_profiling_supported - whether profiling can ever be enabled
 *
 * Allocators that must prepare room for tags ahead of time (percpu
 * chunks) ask this rather than the current state, which can change.
 * Known from the early command line on.
 *
 * Return: false after sysctl.vm.mem_profiling=never.
 */
bool mem_alloc_profiling_supported(void)
{
	return mem_profiling_support;
}

/**
 * mem_alloc_profiling_set - switch profiling of new allocations on or off
 * @enable: the new state
 *
 * Memory charged while profiling was on is still uncharged when it is
 * freed after profiling was switched off.
 *
 * Return: 0; -EOPNOTSUPP when profiling is unavailable (booted with
 * sysctl.vm.mem_profiling=never) and @enable is set; -EPERM with
 * CONFIG_MEM_ALLOC_PROFILING_DEBUG, which pins the boot-time state.
 */
int mem_alloc_profiling_set(bool enable)
{
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		return -EPERM;
	if (!mem_profiling_support)
		return enable ? -EOPNOTSUPP : 0;
	mutex_lock(&mem_profiling_lock);
	set_profiling_keys(enable);
	mutex_unlock(&mem_profiling_lock);
	return 0;
}

/*
 * A value of sysctl.vm.mem_profiling= on the command line: "never", or a
 * boolean spelling of kstrtobool(), which upstream takes, but only as a
 * whole word ("1junk" and "nope" are junk, not 1 and 0).
 * Return: 0 with @enable set, 1 for "never", -EINVAL for junk.
 */
static int parse_boot_value(const char *str, bool *enable)
{
	static const char * const words[][2] = {
		{ "0", "1" }, { "n", "y" }, { "no", "yes" }, { "off", "on" },
		{ "f", "t" }, { "false", "true" },
	};
	unsigned int i, v;

	if (!strcmp(str, "never"))
		return 1;
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		for (v = 0; v < 2; v++) {
			if (!strcasecmp(str, words[i][v])) {
				*enable = v;
				return 0;
			}
		}
	}
	return -EINVAL;
}

/*
 * sysctl.vm.mem_profiling= on the command line. Parsed early so that
 * "never" is known before page_ext sizes itself.
 */
static int __init setup_early_mem_profiling(char *str)
{
	bool enable = false;
	int ret = parse_boot_value(str ?: "", &enable);

	if (ret < 0) {
		pr_err("sysctl.vm.mem_profiling=%s: expected 0, 1, never, y/n, yes/no, on/off, t/f or true/false; keeping the default (%d)\n",
		       str ?: "", mem_alloc_profiling_enabled());
		return 0;
	}
	if (ret == 1) {
		mem_profiling_support = false;
		booted_never = true;
	}
	boot_replays_pending++;
	set_profiling_keys(enable);
	/* Nothing can have been charged this early: frees need not look. */
	if (!enable)
		static_branch_disable(&mem_alloc_tags_in_use_key);
	return 0;
}
early_param("sysctl.vm.mem_profiling", setup_early_mem_profiling);

static int mem_profiling_sysctl(struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	const char *value = buffer;
	size_t len = *lenp;
	bool replay = false, enable;
	char word[8];
	int err;

	if (!write) {
		int enabled = mem_alloc_profiling_enabled();
		struct ctl_table t = {
			.data = &enabled,
			.maxlen = sizeof(enabled),
		};

		return proc_dointvec(&t, 0, buffer, lenp, ppos);
	}

	/* One whole value: "0" or "1", optionally with a newline. */
	if (*ppos)
		return -EINVAL;
	if (len && value[len - 1] == '\n')
		len--;
	if (boot_replays_pending && len < sizeof(word)) {
		memcpy(word, value, len);
		word[len] = '\0';
		replay = parse_boot_value(word, &enable) >= 0;
	}
	if (replay) {
		/* The command line's value, applied already: nothing to do. */
		boot_replays_pending--;
	} else if (len == 1 && (value[0] == '0' || value[0] == '1')) {
		err = mem_alloc_profiling_set(value[0] == '1');
		if (err)
			return err;
	} else {
		return -EINVAL;
	}
	*ppos += *lenp;
	return 0;
}

static struct ctl_table mem_profiling_sysctls[] = {
	{
		.procname	= "mem_profiling",
#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
		.mode		= 0444,
#else
		.mode		= 0644,
#endif
		.proc_handler	= mem_profiling_sysctl,
	},
	{ }
};

static void *allocinfo_start(struct seq_file *m, loff_t *pos)
{
	struct codetag_iterator *iter = m->private;
	loff_t skip = *pos;

	/* Each read from the start shows the current set of modules. */
	if (!skip)
		codetag_free_unused();
	codetag_lock_module_list(alloc_tag_cttype, true);
	*iter = codetag_get_ct_iter(alloc_tag_cttype);
	if (!skip)
		return SEQ_START_TOKEN;
	while (skip--)
		if (!codetag_next_ct(iter))
			return NULL;
	return iter;
}

static void *allocinfo_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct codetag_iterator *iter = m->private;

	++*pos;
	return codetag_next_ct(iter) ? iter : NULL;
}

static void allocinfo_stop(struct seq_file *m, void *v)
{
	codetag_lock_module_list(alloc_tag_cttype, false);
}

static int allocinfo_show(struct seq_file *m, void *v)
{
	struct codetag_iterator *iter = v;
	struct alloc_tag_counters counter;
	struct alloc_tag *tag;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "allocinfo - version: 2.0\n");
		seq_puts(m, "#     <size>  <calls> <tag info>\n");
		return 0;
	}
	tag = ct_to_alloc_tag(iter->ct);
	counter = alloc_tag_read(tag);
	/*
	 * The per-cpu counters are summed without stopping anyone: an
	 * object allocated on a CPU already summed and freed on one not yet
	 * summed makes the sum briefly negative. The true value never is.
	 */
	if ((s64)counter.bytes < 0 || (s64)counter.calls < 0) {
		counter.bytes = 0;
		counter.calls = 0;
	}
	seq_printf(m, "%12lli %8llu ", (s64)counter.bytes, counter.calls);
	codetag_to_text(m, iter->ct);
	if (alloc_tag_is_inaccurate(tag))
		seq_puts(m, " accurate:no");
	if (iter->cmod->unloaded)
		seq_puts(m, " module:unloaded");
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations allocinfo_seq_op = {
	.start	= allocinfo_start,
	.next	= allocinfo_next,
	.stop	= allocinfo_stop,
	.show	= allocinfo_show,
};

#define SHOW_MEM_TOP	10

/**
 * alloc_tag_show_mem - the call sites holding the most memory, for show_mem()
 *
 * Appended to the report of the OOM killer, of allocation failures and of
 * SysRq-m, so it may run in any context: it takes the tag list only if
 * no module is being loaded or unloaded, and allocates nothing.
 */
void alloc_tag_show_mem(void)
{
	struct {
		struct codetag *ct;
		s64 bytes;
		u64 calls;
	} top[SHOW_MEM_TOP];
	struct alloc_tag_counters c;
	struct codetag_iterator iter;
	unsigned int nr = 0, i;
	struct codetag *ct;
	char size[16];

	if (!mem_profiling_support) {
		pr_notice("Memory allocation profiling: unavailable (%s)\n",
			  booted_never ? "booted with sysctl.vm.mem_profiling=never" :
					 "setup failed");
		return;
	}
	if (!alloc_tag_cttype)
		return;
	pr_notice("Memory allocations, top %d call sites (profiling %s):\n",
		  SHOW_MEM_TOP, mem_alloc_profiling_enabled() ? "on" : "off");
	if (!codetag_trylock_module_list(alloc_tag_cttype)) {
		pr_notice("    (skipped: modules are being loaded or unloaded)\n");
		return;
	}
	iter = codetag_get_ct_iter(alloc_tag_cttype);
	while ((ct = codetag_next_ct(&iter))) {
		c = alloc_tag_read(ct_to_alloc_tag(ct));
		if ((s64)c.bytes <= 0 ||
		    (nr == SHOW_MEM_TOP && (s64)c.bytes <= top[nr - 1].bytes))
			continue;
		/* Insertion into the sorted top, dropping the last if full. */
		i = nr < SHOW_MEM_TOP ? nr++ : nr - 1;
		for (; i > 0 && top[i - 1].bytes < (s64)c.bytes; i--)
			top[i] = top[i - 1];
		top[i].ct = ct;
		top[i].bytes = c.bytes;
		top[i].calls = c.calls;
	}
	for (i = 0; i < nr; i++) {
		ct = top[i].ct;
		string_get_size(top[i].bytes, 1, STRING_UNITS_2, size,
				sizeof(size));
		pr_notice("%12s %8llu %s:%u%s%s%s func:%s\n", size, top[i].calls,
			  ct->filename, ct->lineno, ct->modname ? " [" : "",
			  ct->modname ?: "", ct->modname ? "]" : "",
			  ct->function);
	}
	codetag_lock_module_list(alloc_tag_cttype, false);
}

#ifdef CONFIG_MODULES
/*
 * Module tags count in per-cpu arrays allocated for the module from the
 * general percpu allocator (not the small module reserve), in chunks as
 * large as one percpu allocation may be.
 */
#define COUNTERS_PER_CHUNK (PCPU_MIN_UNIT_SIZE / sizeof(struct alloc_tag_counters))

struct module_counters {
	unsigned int nr_chunks;
	struct alloc_tag_counters __percpu *chunk[];
};

static void free_module_counters(struct module_counters *mc)
{
	unsigned int i;

	for (i = 0; i < mc->nr_chunks; i++)
		free_percpu(mc->chunk[i]);
	kfree(mc);
}

static int alloc_tag_module_load(struct codetag_type *cttype,
				 struct codetag_module *cmod)
{
	struct alloc_tag *start = (struct alloc_tag *)cmod->start;
	struct alloc_tag *stop = (struct alloc_tag *)cmod->stop;
	unsigned long nr = stop - start, i, n;
	unsigned int nr_chunks = DIV_ROUND_UP(nr, COUNTERS_PER_CHUNK);
	struct module_counters *mc;

	mc = kzalloc(struct_size(mc, chunk, nr_chunks), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	for (i = 0; i < nr_chunks; i++) {
		n = min_t(unsigned long, nr - i * COUNTERS_PER_CHUNK,
			  COUNTERS_PER_CHUNK);
		mc->chunk[i] = __alloc_percpu(n * sizeof(struct alloc_tag_counters),
					      __alignof__(struct alloc_tag_counters));
		if (!mc->chunk[i]) {
			free_module_counters(mc);
			return -ENOMEM;
		}
		mc->nr_chunks++;
	}
	for (i = 0; i < nr; i++)
		start[i].counters = mc->chunk[i / COUNTERS_PER_CHUNK] +
				    i % COUNTERS_PER_CHUNK;
	cmod->data = mc;
	return 0;
}

static bool module_tags_live(struct alloc_tag *start, struct alloc_tag *stop)
{
	struct alloc_tag_counters counter;
	struct alloc_tag *tag;

	for (tag = start; tag < stop; tag++) {
		counter = alloc_tag_read(tag);
		if (counter.bytes || counter.calls)
			return true;
	}
	return false;
}

/*
 * Keep the tags (and so the module's core) while they hold memory. No
 * allocation can charge the tags of an unloaded module; once its bytes
 * and calls both read zero, no free is still on its way to the counters.
 */
static bool alloc_tag_module_unload(struct codetag_type *cttype,
				    struct codetag_module *cmod)
{
	struct alloc_tag *start = (struct alloc_tag *)cmod->start;
	struct alloc_tag *stop = (struct alloc_tag *)cmod->stop;
	struct alloc_tag_counters counter;
	struct alloc_tag *tag;
	bool live = false;

	if (!module_tags_live(start, stop))
		goto free;
	/* Said once, at the unload; later calls only look. */
	if (cmod->unloaded)
		return false;
	/* Objects the module gave to kfree_rcu() may still wait in batches. */
	kvfree_rcu_barrier();
	for (tag = start; tag < stop; tag++) {
		counter = alloc_tag_read(tag);
		if (!counter.bytes && !counter.calls)
			continue;
		live = true;
		pr_warn("%s unloaded with %lld bytes still allocated at %s:%u\n",
			tag->ct.modname, (s64)counter.bytes,
			tag->ct.filename, tag->ct.lineno);
	}
	if (live)
		return false;
free:
	free_module_counters(cmod->data);
	return true;
}
#endif

static int __init alloc_tag_init(void)
{
	const struct codetag_type_desc desc = {
		.section	= "alloc_tags",
		.tag_size	= sizeof(struct alloc_tag),
#ifdef CONFIG_MODULES
		.module_load	= alloc_tag_module_load,
		.module_unload	= alloc_tag_module_unload,
#endif
	};
	struct codetag_type *cttype;

	cttype = codetag_register_type(&desc);
	if (IS_ERR(cttype)) {
		pr_err("allocation profiling unavailable: %ld\n",
		       PTR_ERR(cttype));
		mem_profiling_support = false;
		static_branch_disable(&mem_alloc_profiling_key);
		return PTR_ERR(cttype);
	}
	alloc_tag_cttype = cttype;
	register_sysctl_init("vm", mem_profiling_sysctls);
	if (!proc_create_seq_private("allocinfo", 0400, NULL, &allocinfo_seq_op,
				     sizeof(struct codetag_iterator), NULL))
		pr_err("failed to create /proc/allocinfo\n");
	return 0;
}

/* Before any module can be loaded: its tags need counters. */
core_initcall(alloc_tag_init);

static bool need_page_alloc_tagging(void)
{
	return mem_profiling_support;
}

#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
/* Set once pages that predate page_ext are marked: frees may now check. */
bool alloc_tag_debug_checks __read_mostly;

/*
 * Pages allocated before page_ext existed carry no tag; mark them so that
 * freeing them does not warn. Without the zone lock a free block can be
 * misread: then free pages get marked too, which is harmless, as the mark
 * is overwritten when they are allocated.
 */
static void __init init_page_alloc_tagging(void)
{
	unsigned long pfn, order, marked = 0;
	union codetag_ref *ref;
	struct zone *zone;

	/* page_ext calls every client's init, needed or not. */
	if (!mem_profiling_support)
		return;
	for_each_populated_zone(zone) {
		for (pfn = zone->zone_start_pfn; pfn < zone_end_pfn(zone); pfn++) {
			struct page *page;

			if (!(pfn % 4096))
				cond_resched();
			if (!pfn_valid(pfn))
				continue;
			page = pfn_to_page(pfn);
			if (page_zone(page) != zone)
				continue;
			if (PageBuddy(page)) {
				/* A free block: its order is in ->private. */
				order = READ_ONCE(page->private);
				if (order < MAX_ORDER)
					pfn += (1UL << order) - 1;
				continue;
			}
			ref = get_page_tag_ref(page);
			if (!ref)
				continue;
			if (!cmpxchg(&ref->ct, NULL, CODETAG_EMPTY))
				marked++;
			put_page_tag_ref(ref);
		}
	}
	WRITE_ONCE(alloc_tag_debug_checks, true);
	pr_info("allocation profiling: %lu pages in use before page_ext marked untagged\n",
		marked);
}
#else
static void __init init_page_alloc_tagging(void) {}
#endif

struct page_ext_operations page_alloc_tagging_ops = {
	.size = sizeof(union codetag_ref),
	.need = need_page_alloc_tagging,
	.init = init_page_alloc_tagging,
};

void __pgalloc_tag_add(struct page *page, unsigned int nr)
{
	union codetag_ref *ref = get_page_tag_ref(page);

	if (ref) {
		alloc_tag_add(ref, current->alloc_tag, PAGE_SIZE * nr);
		put_page_tag_ref(ref);
	}
}

void __pgalloc_tag_sub(struct page *page, unsigned int nr)
{
	union codetag_ref *ref = get_page_tag_ref(page);

	if (ref) {
		alloc_tag_sub(ref, PAGE_SIZE * nr);
		put_page_tag_ref(ref);
	}
}

/**
 * pgalloc_tag_split - a tagged high-order page became @nr order-0 pages
 * @page: the first page, which carries the tag
 * @nr: number of pages
 *
 * Each page now carries the tag and is freed on its own, so each counts
 * as one call; the bytes do not change.
 */
void pgalloc_tag_split(struct page *page, unsigned int nr)
{
	struct page_ext *first, *page_ext;
	union codetag_ref *ref;
	struct codetag *ct;
	unsigned int i;

	if (!mem_alloc_tags_in_use())
		return;
	first = page_ext_get(page);
	if (!first)
		return;
	ct = codetag_ref_from_page_ext(first)->ct;
	page_ext = first;
	for (i = 1; i < nr; i++) {
		page_ext = page_ext_next(page_ext);
		ref = codetag_ref_from_page_ext(page_ext);
		/* Untagged (or DEBUG-empty) pages stay so. */
		ref->ct = ct;
		if (ct && ct != CODETAG_EMPTY)
			this_cpu_inc(ct_to_alloc_tag(ct)->counters->calls);
	}
	page_ext_put(first);
}

/**
 * pgalloc_tag_join - @nr order-0 pages become one allocation again
 * @page: the first page
 * @nr: number of pages
 *
 * The reverse of pgalloc_tag_split(), for pages that are about to be
 * freed as one compound page (hugetlb demotion): the first page's tag
 * takes over the bytes of the others, and they stop counting as calls.
 */
void pgalloc_tag_join(struct page *page, unsigned int nr)
{
	struct page_ext *first, *page_ext;
	struct alloc_tag *head = NULL;
	union codetag_ref *ref;
	unsigned int i;

	if (!mem_alloc_tags_in_use())
		return;
	first = page_ext_get(page);
	if (!first)
		return;
	ref = codetag_ref_from_page_ext(first);
	if (ref->ct && !is_codetag_empty(ref))
		head = ct_to_alloc_tag(ref->ct);
	page_ext = first;
	for (i = 1; i < nr; i++) {
		page_ext = page_ext_next(page_ext);
		ref = codetag_ref_from_page_ext(page_ext);
		if (ref->ct && !is_codetag_empty(ref)) {
			alloc_tag_sub(ref, PAGE_SIZE);
			if (head)
				this_cpu_add(head->counters->bytes, PAGE_SIZE);
		}
		ref->ct = NULL;
	}
	page_ext_put(first);
}

/**
 * pgalloc_tag_swap - migration: @new takes over @old's charge
 * @new: the page the contents moved to
 * @old: the page about to be freed
 *
 * The original call site stays charged; freeing @old uncharges whatever
 * allocated @new.
 */
void pgalloc_tag_swap(struct page *new, struct page *old)
{
	union codetag_ref *ref_new, *ref_old;
	struct codetag *ct;

	if (!mem_alloc_tags_in_use())
		return;
	ref_old = get_page_tag_ref(old);
	if (!ref_old)
		return;
	ref_new = get_page_tag_ref(new);
	if (ref_new) {
		ct = ref_old->ct;
		ref_old->ct = ref_new->ct;
		ref_new->ct = ct;
		put_page_tag_ref(ref_new);
	}
	put_page_tag_ref(ref_old);
}

/* A page enters the allocator without ever having been allocated. */
void pgalloc_tag_mark_empty(struct page *page)
{
	union codetag_ref *ref;

	if (!IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG) ||
	    !mem_alloc_tags_in_use())
		return;
	ref = get_page_tag_ref(page);
	if (ref) {
		if (!ref->ct)
			ref->ct = CODETAG_EMPTY;
		put_page_tag_ref(ref);
	}
}
