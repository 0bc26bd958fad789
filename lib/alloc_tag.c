// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory allocation profiling: the "alloc_tags" code tag type, the
 * vm.mem_profiling switch and /proc/allocinfo.
 */
#include <linux/alloc_tag.h>
#include <linux/codetag.h>
#include <linux/init.h>
#include <linux/log2.h>
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
/* The state sysctl.vm.mem_profiling= asks for; -1 if not given. */
static int boot_enable __initdata = -1;
static DEFINE_MUTEX(mem_profiling_lock);

DEFINE_STATIC_KEY_FALSE(mem_alloc_compressed_key);
DEFINE_STATIC_KEY_FALSE(mem_alloc_page_ext_idx_key);
unsigned long alloc_tag_kernel_count __ro_after_init;
/*
 * Page tags compressed into page->flags: asked for on the command line,
 * or because profiling is off at boot and page_ext would be set aside for
 * nothing.
 */
static bool compressed_wanted __initdata =
	!IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT);
/* Page tags as pointers in page_ext, for more module tags than indices. */
static bool pointers_wanted __initdata;

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

/* Where page tags are asked to live, after the comma. */
enum page_tags_wanted {
	PAGE_TAGS_ANY,
	PAGE_TAGS_COMPRESSED,
	PAGE_TAGS_POINTERS,
};

/*
 * A value of sysctl.vm.mem_profiling= on the command line: "never", or a
 * boolean spelling of kstrtobool(), which upstream takes, but only as a
 * whole word ("1junk" and "nope" are junk, not 1 and 0); either may be
 * followed by ",compressed", as upstream spells it, or ",pointers".
 * Return: 0 with @enable and @where set, 1 for "never", -EINVAL for junk.
 */
static int parse_boot_value(const char *str, bool *enable,
			    enum page_tags_wanted *where)
{
	static const char * const words[][2] = {
		{ "0", "1" }, { "n", "y" }, { "no", "yes" }, { "off", "on" },
		{ "f", "t" }, { "false", "true" },
	};
	const char *comma = strchr(str, ',');
	size_t len = comma ? comma - str : strlen(str);
	unsigned int i, v;

	if (!comma)
		*where = PAGE_TAGS_ANY;
	else if (!strcmp(comma, ",compressed"))
		*where = PAGE_TAGS_COMPRESSED;
	else if (!strcmp(comma, ",pointers"))
		*where = PAGE_TAGS_POINTERS;
	else
		return -EINVAL;
	if (len == 5 && !strncmp(str, "never", len))
		return 1;
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		for (v = 0; v < 2; v++) {
			if (strlen(words[i][v]) == len &&
			    !strncasecmp(str, words[i][v], len)) {
				*enable = v;
				return 0;
			}
		}
	}
	return -EINVAL;
}

static unsigned long module_idx_limit(void)
{
	return min_t(unsigned long, ALLOC_TAG_MODULE_IDX_MAX,
		     page_tag_idx_empty() - 1 - alloc_tag_kernel_count);
}

/* Tags have indices: vmlinux's fit 16 bits (slab objects keep them). */
static bool alloc_tags_indexed __ro_after_init;

/*
 * Every tag gets an index if vmlinux's all fit 16 bits: slab objects keep
 * them in every mode. Where page tags live: indices in the free bits of
 * page->flags if asked for and they can hold every index of vmlinux, else
 * 16-bit indices in page_ext, else (or if asked for) pointers in page_ext.
 * Index 0 is no tag, the largest marks untagged memory. Called at the
 * early parameter's application, at page_ext's question and at the core
 * initcall, whichever is first; before any page is tagged.
 */
static void __init page_tags_setup(void)
{
	static bool done __initdata;
	unsigned long i, nr = __stop_alloc_tags - __start_alloc_tags;

	if (done || !mem_profiling_support)
		return;
	done = true;
	alloc_tag_kernel_count = nr;
	if (nr + 1 >= PAGE_EXT_TAG_IDX_EMPTY) {
		pr_warn("allocation profiling: vmlinux's %lu tags do not fit 16-bit indices: page tags are pointers in page_ext, slab objects are not counted\n",
			nr);
		return;
	}
	for (i = 0; i < nr; i++)
		__start_alloc_tags[i].ct.flags |= (i + 1) << CODETAG_IDX_SHIFT;
	alloc_tags_indexed = true;
	if (pointers_wanted) {
		pr_info("allocation profiling: page tags are pointers in page_ext\n");
		return;
	}
	if (compressed_wanted && nr + 1 < PAGE_TAG_IDX_EMPTY) {
		static_branch_enable(&mem_alloc_compressed_key);
		pr_info("allocation profiling: page tags compressed into %d of %d free page flag bits: %lu tags addressable, %lu in vmlinux\n",
			(int)PAGE_TAG_IDX_BITS, (int)PAGE_TAG_FREE_BITS,
			nr + module_idx_limit(), nr);
		return;
	}
	if (compressed_wanted)
		pr_info("allocation profiling: page->flags has %d free bits, compressed page tags need %d for vmlinux's %lu tags\n",
			(int)PAGE_TAG_FREE_BITS, order_base_2(nr + 2), nr);
	static_branch_enable(&mem_alloc_page_ext_idx_key);
	page_alloc_tagging_ops.size = sizeof(u16);
	pr_info("allocation profiling: page tags are 16-bit indices in page_ext: %lu tags addressable, %lu in vmlinux\n",
		nr + module_idx_limit(), nr);
}

/*
 * sysctl.vm.mem_profiling= on the command line. Parsed early so that
 * "never" is known before page_ext sizes itself.
 */
static int __init setup_early_mem_profiling(char *str)
{
	enum page_tags_wanted where;
	bool enable = false;
	int ret = parse_boot_value(str ?: "", &enable, &where);

	if (ret < 0) {
		pr_err("sysctl.vm.mem_profiling=%s: expected 0, 1, never, y/n, yes/no, on/off, t/f or true/false, optionally followed by ,compressed or ,pointers; keeping the default (%d)\n",
		       str ?: "", mem_alloc_profiling_enabled());
		return 0;
	}
	if (ret == 1) {
		mem_profiling_support = false;
		booted_never = true;
	}
	boot_replays_pending++;
	boot_enable = enable;
	pointers_wanted = where == PAGE_TAGS_POINTERS;
	compressed_wanted = where == PAGE_TAGS_COMPRESSED ||
			    (!enable && !pointers_wanted);
	return 0;
}
early_param("sysctl.vm.mem_profiling", setup_early_mem_profiling);

/**
 * mem_alloc_profiling_init_keys - apply sysctl.vm.mem_profiling= to the keys
 *
 * Some architectures (arm, mips, ...) parse early parameters before
 * jump_label_init(), which leaves a branch whose key was switched that
 * early as it was compiled: the parameter's choice is only recorded, and
 * applied here, from mm_init(), before the page allocator has any page.
 * The tags get their indices here too, before the slab allocator's first
 * object, which keeps one.
 */
void __init mem_alloc_profiling_init_keys(void)
{
	if (boot_enable >= 0) {
		set_profiling_keys(boot_enable);
		/* Nothing can have been charged yet: frees need not look. */
		if (!boot_enable)
			static_branch_disable(&mem_alloc_tags_in_use_key);
	}
	page_tags_setup();
}

static int mem_profiling_sysctl(struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	const char *value = buffer;
	size_t len = *lenp;
	bool replay = false, enable;
	enum page_tags_wanted where;
	char word[24];
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
		replay = parse_boot_value(word, &enable, &where) >= 0;
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

/* Read-only: whether page tags live in page->flags. */
static int mem_profiling_compressed_sysctl(struct ctl_table *table, int write,
					   void *buffer, size_t *lenp,
					   loff_t *ppos)
{
	int compressed = page_tags_compressed();
	struct ctl_table t = {
		.data = &compressed,
		.maxlen = sizeof(compressed),
	};

	if (write)
		return -EPERM;
	return proc_dointvec(&t, 0, buffer, lenp, ppos);
}

/* Read-only: where page tags live, "none" without profiling. */
static int mem_profiling_page_tags_sysctl(struct ctl_table *table, int write,
					  void *buffer, size_t *lenp,
					  loff_t *ppos)
{
	char *where = "page_ext_pointer";
	struct ctl_table t;

	if (write)
		return -EPERM;
	if (!mem_profiling_support)
		where = "none";
	else if (page_tags_compressed())
		where = "page_flags";
	else if (page_tags_page_ext_idx())
		where = "page_ext_index";
	t = (struct ctl_table){ .data = where, .maxlen = strlen(where) + 1 };
	return proc_dostring(&t, 0, buffer, lenp, ppos);
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
	{
		.procname	= "mem_profiling_compressed",
		.mode		= 0444,
		.proc_handler	= mem_profiling_compressed_sysctl,
	},
	{
		.procname	= "mem_profiling_page_tags",
		.mode		= 0444,
		.proc_handler	= mem_profiling_page_tags_sysctl,
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
	struct list_head link;		/* in module_counters_list */
	struct module *mod;
	struct alloc_tag *start, *stop;
	unsigned long idx_first;	/* compressed: the tags' first slot */
	unsigned long nr_idx;		/* ... and how many have an index */
	unsigned int nr_chunks;
	struct alloc_tag_counters __percpu *chunk[];
};

/*
 * Slots of compressed indices: slot n is index alloc_tag_kernel_count +
 * 1 + n. A module takes a run as long as its tags, first fit.
 */
struct alloc_tag **alloc_tag_module_idx[ALLOC_TAG_MODULE_IDX_MAX /
					ALLOC_TAG_MODULE_IDX_PIECE];
static unsigned long *module_idx_used;
static DEFINE_MUTEX(module_idx_lock);

static void module_idx_assign(struct module_counters *mc,
			      struct alloc_tag *start, unsigned long nr)
{
	unsigned long limit = module_idx_limit(), first, slot, i;

	if (!alloc_tags_indexed || !nr)
		return;
	mutex_lock(&module_idx_lock);
	if (!module_idx_used)
		module_idx_used = bitmap_zalloc(limit, GFP_KERNEL);
	if (!module_idx_used)
		goto full;
	first = bitmap_find_next_zero_area(module_idx_used, limit, 0, nr, 0);
	if (first >= limit)
		goto full;
	for (i = first / ALLOC_TAG_MODULE_IDX_PIECE;
	     i <= (first + nr - 1) / ALLOC_TAG_MODULE_IDX_PIECE; i++) {
		if (alloc_tag_module_idx[i])
			continue;
		alloc_tag_module_idx[i] = kcalloc(ALLOC_TAG_MODULE_IDX_PIECE,
						  sizeof(struct alloc_tag *),
						  GFP_KERNEL);
		if (!alloc_tag_module_idx[i])
			goto full;
	}
	bitmap_set(module_idx_used, first, nr);
	mutex_unlock(&module_idx_lock);
	for (i = 0; i < nr; i++) {
		slot = first + i;
		alloc_tag_module_idx[slot / ALLOC_TAG_MODULE_IDX_PIECE]
				    [slot % ALLOC_TAG_MODULE_IDX_PIECE] = &start[i];
		start[i].ct.flags |= (alloc_tag_kernel_count + 1 + slot) <<
				     CODETAG_IDX_SHIFT;
	}
	mc->idx_first = first;
	mc->nr_idx = nr;
	return;
full:
	mutex_unlock(&module_idx_lock);
	pr_warn("%s: no room for the tag indices of its %lu allocation call sites: its slab objects and pages are not counted (sysctl.vm.mem_profiling=1,pointers on the command line counts its pages)\n",
		start->ct.modname, nr);
}

static void module_idx_release(struct module_counters *mc)
{
	if (!mc->nr_idx)
		return;
	mutex_lock(&module_idx_lock);
	bitmap_clear(module_idx_used, mc->idx_first, mc->nr_idx);
	mutex_unlock(&module_idx_lock);
}

/* The modules with tags, for the going notifier, which has no cmod. */
static LIST_HEAD(module_counters_list);
static DEFINE_MUTEX(module_counters_lock);

static void free_module_counters(struct module_counters *mc)
{
	unsigned int i;

	if (mc->mod) {
		mutex_lock(&module_counters_lock);
		list_del(&mc->link);
		mutex_unlock(&module_counters_lock);
	}
	module_idx_release(mc);
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
	module_idx_assign(mc, start, nr);
	mc->start = start;
	mc->stop = stop;
	mc->mod = cmod->mod;
	mutex_lock(&module_counters_lock);
	list_add(&mc->link, &module_counters_list);
	mutex_unlock(&module_counters_lock);
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

/*
 * A module going away whose tags hold memory: objects it gave to
 * kfree_rcu() may still wait in batches, and objects freed by RCU
 * callbacks (its own are waited for by its exit) in callbacks; both are
 * waited for here, before the unload takes the tag list's locks, which
 * readers of the tags would wait for too.
 */
static int alloc_tag_module_notify(struct notifier_block *nb,
				   unsigned long state, void *data)
{
	struct module_counters *mc;
	bool live = false;

	if (state != MODULE_STATE_GOING)
		return NOTIFY_OK;
	mutex_lock(&module_counters_lock);
	list_for_each_entry(mc, &module_counters_list, link) {
		if (mc->mod == data) {
			live = module_tags_live(mc->start, mc->stop);
			break;
		}
	}
	mutex_unlock(&module_counters_lock);
	if (live)
		kvfree_rcu_barrier();
	return NOTIFY_OK;
}

static struct notifier_block alloc_tag_module_nb = {
	.notifier_call = alloc_tag_module_notify,
};
#endif

static void __init init_page_alloc_tagging(void);

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
#ifdef CONFIG_MODULES
	register_module_notifier(&alloc_tag_module_nb);
#endif
	alloc_tag_control_init(cttype);
	/* Compressed, nothing else marks the pages allocated until now. */
	page_tags_setup();
	if (page_tags_compressed())
		init_page_alloc_tagging();
	register_sysctl_init("vm", mem_profiling_sysctls);
	if (!proc_create_seq_private("allocinfo", 0400, NULL, &allocinfo_seq_op,
				     sizeof(struct codetag_iterator), NULL))
		pr_err("failed to create /proc/allocinfo\n");
	return 0;
}

/* Before any module can be loaded: its tags need counters. */
core_initcall(alloc_tag_init);

/* page_ext for tags, unless they are compressed into page->flags. */
static bool __init need_page_alloc_tagging(void)
{
	page_tags_setup();
	return mem_profiling_support && !page_tags_compressed();
}

/* Clears an untagged page's tag to "deliberately untagged". */
static bool page_tag_mark_untagged(struct page *page)
{
	unsigned long old, new;
	struct page_tag_ref pt;
	bool marked;

	if (page_tags_page_ext_idx()) {
		struct page_ext *page_ext = page_ext_get(page);

		if (!page_ext)
			return false;
		marked = !cmpxchg(page_tag_idx_from_page_ext(page_ext), 0,
				  (u16)PAGE_EXT_TAG_IDX_EMPTY);
		page_ext_put(page_ext);
		return marked;
	}
	if (page_tags_compressed()) {
		old = READ_ONCE(page->flags);
		do {
			if (old & PAGE_TAG_IDX_MASK)
				return false;
			new = old | PAGE_TAG_IDX_MASK;
		} while (!try_cmpxchg(&page->flags, &old, new));
		return true;
	}
	if (!get_page_tag_ref(page, &pt))
		return false;
	marked = !cmpxchg(&pt.ref->ct, NULL, CODETAG_EMPTY);
	put_page_tag_ref(&pt);
	return marked;
}

#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
/* Set once pages that predate page tags are marked: frees may now check. */
bool alloc_tag_debug_checks __read_mostly;

/*
 * Pages allocated before page tags existed carry no tag; mark them so
 * that freeing them does not warn. Without the zone lock a free block can
 * be misread: then free pages get marked too, which is harmless, as the
 * mark is overwritten when they are allocated. Another CPU may allocate
 * and tag a page between our look and the mark: the mark is then not
 * made, as it is only made on an untagged page.
 */
static void __init init_page_alloc_tagging(void)
{
	unsigned long pfn, order, marked = 0;
	struct zone *zone;

	/* page_ext calls every client's init, needed or not. */
	if (!mem_profiling_support || alloc_tag_debug_checks)
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
			if (page_tag_mark_untagged(page))
				marked++;
		}
	}
	WRITE_ONCE(alloc_tag_debug_checks, true);
	pr_info("allocation profiling: %lu pages in use before page tags marked untagged\n",
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

/*
 * Indices with the DEBUG checks, a module tag without an index, or a
 * call site flagged in the control file; any page while a site is flagged.
 */
static noinline void pgalloc_tag_add_checked(struct page *page,
					     struct alloc_tag *tag,
					     unsigned int nr)
{
	struct page_tag_ref pt;

	if (!page_tag_storable(tag)) {
		/* Untagged on purpose: its free must not warn. */
		pgalloc_tag_mark_empty(page);
		return;
	}
	if (!get_page_tag_ref(page, &pt))
		return;
	alloc_tag_add(pt.ref, tag, PAGE_SIZE * nr, page);
	put_page_tag_ref(&pt);
}

/* Indices with the DEBUG checks; any page while a site is flagged. */
static noinline void pgalloc_tag_sub_checked(struct page *page,
					     unsigned int nr)
{
	struct page_tag_ref pt;

	if (!get_page_tag_ref(page, &pt))
		return;
	alloc_tag_sub(pt.ref, PAGE_SIZE * nr, page);
	put_page_tag_ref(&pt);
}

/*
 * Page tag pointers in page_ext, out of line: the hooks' index paths keep
 * their registers for their own lookup or, compressed, need none.
 * While some site is flagged, the checked path, which keeps the page for
 * the control file: here it would cost a register after the lookup.
 */
static noinline void pgalloc_tag_add_page_ext(struct page *page,
					      unsigned int nr)
{
	struct page_ext *page_ext;

	if (alloc_tag_control_active()) {
		pgalloc_tag_add_checked(page, current->alloc_tag, nr);
		return;
	}
	page_ext = page_ext_of_owned_page(page);
	if (page_ext)
		alloc_tag_add_unflagged(codetag_ref_from_page_ext(page_ext),
					current->alloc_tag, PAGE_SIZE * nr);
}

static noinline void pgalloc_tag_sub_page_ext(struct page *page,
					      unsigned int nr)
{
	struct page_ext *page_ext;

	if (alloc_tag_control_active()) {
		pgalloc_tag_sub_checked(page, nr);
		return;
	}
	page_ext = page_ext_of_owned_page(page);
	if (page_ext)
		alloc_tag_sub_unflagged(codetag_ref_from_page_ext(page_ext),
					PAGE_SIZE * nr);
}

/* Page tag indices in page_ext: the slot of a page being allocated or freed. */
static inline bool page_ext_tag_idx_set(struct page *page, unsigned long idx)
{
	struct page_ext *page_ext = page_ext_of_owned_page(page);

	if (!page_ext)
		return false;
	WRITE_ONCE(*page_tag_idx_from_page_ext(page_ext), idx);
	return true;
}

static inline unsigned long page_ext_tag_idx_take(struct page *page)
{
	struct page_ext *page_ext = page_ext_of_owned_page(page);
	unsigned long idx;
	u16 *slot;

	if (!page_ext)
		return 0;
	slot = page_tag_idx_from_page_ext(page_ext);
	idx = READ_ONCE(*slot);
	if (idx)
		WRITE_ONCE(*slot, 0);
	return idx;
}

/*
 * As indices, a free page's index is 0. The new page is ours alone: the
 * page allocator updates its flags without atomics here too
 * (prep_compound_page()). A concurrent TestSetPageHWPoison() from
 * memory_failure() can be lost in this window, as in the base's own
 * non-atomic updates of a page being allocated or freed
 * (free_pages_prepare()).
 */
void __pgalloc_tag_add(struct page *page, unsigned int nr)
{
	struct alloc_tag_counters __percpu *counters;
	struct alloc_tag *tag;
	unsigned long idx;
	unsigned int flags;

	if (!page_tags_indexed()) {
		pgalloc_tag_add_page_ext(page, nr);
		return;
	}
	tag = current->alloc_tag;
	/* DEBUG checks every page, with a tag or without. */
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG)) {
		pgalloc_tag_add_checked(page, tag, nr);
		return;
	}
	if (!tag)
		return;
	flags = READ_ONCE(tag->ct.flags);
	idx = flags >> CODETAG_IDX_SHIFT;
	if (unlikely(!idx) || alloc_tag_flags_controlled(flags)) {
		pgalloc_tag_add_checked(page, tag, nr);
		return;
	}
	if (page_tags_compressed())
		page->flags |= idx << PAGE_TAG_IDX_PGOFF;
	else if (!page_ext_tag_idx_set(page, idx))
		return;
	counters = tag->counters;
	this_cpu_add(counters->bytes, PAGE_SIZE * nr);
	this_cpu_inc(counters->calls);
}

/* As indices, without atomics, as free_pages_prepare(): the page is ours. */
void __pgalloc_tag_sub(struct page *page, unsigned int nr)
{
	struct alloc_tag_counters __percpu *counters;
	unsigned long idx;

	if (!page_tags_indexed()) {
		pgalloc_tag_sub_page_ext(page, nr);
		return;
	}
	/* The control file may have a stack to forget. */
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG) ||
	    alloc_tag_control_active()) {
		pgalloc_tag_sub_checked(page, nr);
		return;
	}
	if (page_tags_compressed()) {
		idx = page_tag_idx(page);
		if (idx)
			page->flags &= ~PAGE_TAG_IDX_MASK;
	} else {
		idx = page_ext_tag_idx_take(page);
	}
	if (!idx)
		return;
	counters = ct_to_alloc_tag(page_tag_idx_to_ct(idx))->counters;
	this_cpu_sub(counters->bytes, PAGE_SIZE * nr);
	this_cpu_dec(counters->calls);
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
	struct page_tag_ref pt;
	struct codetag *ct;
	unsigned int i;

	if (!mem_alloc_tags_in_use() || !get_page_tag_ref(page, &pt))
		return;
	ct = pt.ref->ct;
	put_page_tag_ref(&pt);
	if (alloc_tag_control_active() && ct && ct != CODETAG_EMPTY &&
	    (READ_ONCE(ct->flags) & ALLOC_TAG_FLAG_STACKS))
		alloc_tag_stack_split(page, nr);
	for (i = 1; i < nr; i++) {
		if (!get_page_tag_ref(nth_page(page, i), &pt))
			continue;
		/* Untagged (or DEBUG-empty) pages stay so. */
		pt.ref->ct = ct;
		put_page_tag_ref(&pt);
		if (ct && ct != CODETAG_EMPTY)
			this_cpu_inc(ct_to_alloc_tag(ct)->counters->calls);
	}
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
	struct alloc_tag *head = NULL;
	struct page_tag_ref pt;
	unsigned int i;

	if (!mem_alloc_tags_in_use() || !get_page_tag_ref(page, &pt))
		return;
	if (pt.ref->ct && !is_codetag_empty(pt.ref))
		head = ct_to_alloc_tag(pt.ref->ct);
	put_page_tag_ref(&pt);
	for (i = 1; i < nr; i++) {
		if (!get_page_tag_ref(nth_page(page, i), &pt))
			continue;
		if (pt.ref->ct && !is_codetag_empty(pt.ref)) {
			alloc_tag_sub(pt.ref, PAGE_SIZE, nth_page(page, i));
			if (head) {
				this_cpu_add(head->counters->bytes, PAGE_SIZE);
				pgalloc_tag_stack_sub_pages(page, head, -1);
			}
		}
		pt.ref->ct = NULL;
		put_page_tag_ref(&pt);
	}
}

/**
 * pgalloc_tag_swap - migration: @new takes over @old's charge
 * @new: the page the contents moved to
 * @old: the page about to be freed
 *
 * The original call site stays charged; freeing @old uncharges whatever
 * allocated @new. Device memory (ZONE_DEVICE) is not charged: a page that
 * moves to it leaves its call site, one that moves back to RAM is charged
 * to the call that allocated its new page.
 */
void pgalloc_tag_swap(struct page *new, struct page *old)
{
	struct page_tag_ref pt_new, pt_old;
	struct codetag *ct;

	/* Device pages are freed to their driver: their tags never uncharge. */
	if (!mem_alloc_tags_in_use() || is_zone_device_page(new) ||
	    is_zone_device_page(old) || !get_page_tag_ref(old, &pt_old))
		return;
	if (get_page_tag_ref(new, &pt_new)) {
		if (alloc_tag_control_active())
			alloc_tag_stack_swap(new, old);
		ct = pt_old.ref->ct;
		pt_old.ref->ct = pt_new.ref->ct;
		pt_new.ref->ct = ct;
		put_page_tag_ref(&pt_new);
	}
	put_page_tag_ref(&pt_old);
}

/* A page enters the allocator without ever having been allocated. */
void pgalloc_tag_mark_empty(struct page *page)
{
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG) &&
	    mem_alloc_tags_in_use())
		page_tag_mark_untagged(page);
}
