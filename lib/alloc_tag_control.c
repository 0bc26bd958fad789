// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-call-site switches of allocation profiling, set with the query
 * language of dynamic debug: /sys/kernel/debug/alloc_tag/control,
 * alloc_tag.control= on the command line, <module>.alloc_tag= at module
 * load. For example:
 *
 *   module xfs -p                   stop charging xfs's allocations
 *   file mm/slub.c line 100-200 =p  back to the default
 *
 * A site's flags are bits of its tag's ct.flags. The allocation paths
 * look at them only while some site has one (alloc_tag_control_key). A
 * site flagged f has its fault attributes in fail_sites, found by tag.
 */
#include <linux/alloc_tag.h>
#include <linux/codetag.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/parser.h>
#include <linux/prandom.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* Only mm's charge and allocation paths look: not exported. */
DEFINE_STATIC_KEY_FALSE(alloc_tag_control_key);

/* The flags as written; a site has only p (profiled) by default. */
#define SITE_PROFILED	BIT(0)
#define SITE_FAIL	BIT(1)
#define SITE_DEFAULT	SITE_PROFILED
static const char site_flag_chars[] = "pf";

/* Fault attributes, as Documentation/fault-injection/ describes them. */
enum fail_attr { FAIL_PROBABILITY, FAIL_INTERVAL, FAIL_TIMES, FAIL_SPACE,
		 NR_FAIL_ATTRS };
static const char * const fail_attr_names[NR_FAIL_ATTRS] = {
	"probability", "interval", "times", "space",
};

/* Each allocation fails, for ever, until the flag is removed. */
static const long fail_attr_default[NR_FAIL_ATTRS] = { 100, 1, -1, 0 };
static const long fail_attr_min[NR_FAIL_ATTRS] = { 0, 1, -1, 0 };
static const long fail_attr_max[NR_FAIL_ATTRS] = {
	100, LONG_MAX, INT_MAX, LONG_MAX,
};

/* A site flagged f. */
struct site_fail {
	struct hlist_node node;		/* in fail_sites, by tag */
	struct alloc_tag *tag;
	struct rcu_head rcu;
	unsigned int probability;	/* percent */
	unsigned long interval;
	atomic_t times;			/* failures left, -1: no limit */
	atomic_long_t space;		/* bytes let through before any */
	atomic_long_t calls;		/* calls that reached the interval */
	atomic_long_t injected;
	atomic_long_t nofail;		/* __GFP_NOFAIL calls let through */
};

static DEFINE_HASHTABLE(fail_sites, 6);

#define MAX_WORDS	16
#define MAX_COMMANDS	1024
/* A write larger than this is refused whole (-E2BIG). */
#define MAX_WRITE	(256 * 1024)
#define MAX_BOOT_CMDS	8

struct site_query {
	const char *file;
	const char *func;
	const char *module;
	unsigned int first_line;
	unsigned int last_line;
	char op;		/* '+', '-' or '=' */
	unsigned int flags;	/* SITE_* */
	bool pending;		/* names a module not loaded (yet) */
	unsigned int attrs_given;	/* BIT(enum fail_attr) */
	long attrs[NR_FAIL_ATTRS];
};

/* A command kept until the module it names is loaded. */
struct pending_query {
	struct list_head link;
	struct site_query query;
	char strings[];		/* what query's pointers point to */
};

static struct codetag_type *alloc_tag_cttype;
/* Serializes changes of flags, the flagged count and the pending list. */
static DEFINE_MUTEX(control_lock);
static LIST_HEAD(pending_queries);
static unsigned long nr_flagged_sites;

static char *boot_cmds[MAX_BOOT_CMDS] __initdata;
static unsigned int nr_boot_cmds __initdata;

static unsigned int site_flags(const struct codetag *ct)
{
	unsigned int flags = READ_ONCE(ct->flags);

	return (flags & ALLOC_TAG_FLAG_OFF ? 0 : SITE_PROFILED) |
	       (flags & ALLOC_TAG_FLAG_FAIL ? SITE_FAIL : 0);
}

/* Under rcu_read_lock() or control_lock. */
static struct site_fail *find_site_fail(struct alloc_tag *tag)
{
	struct site_fail *sf;

	hash_for_each_possible_rcu(fail_sites, sf, node, (unsigned long)tag,
				   lockdep_is_held(&control_lock))
		if (sf->tag == tag)
			return sf;
	return NULL;
}

/* In the order of fault-inject.c's should_fail(), which it means. */
static bool site_should_fail(struct site_fail *sf, gfp_t gfp, size_t size)
{
	if (gfp & __GFP_NOFAIL) {
		atomic_long_inc(&sf->nofail);
		return false;
	}
	if (!atomic_read(&sf->times))
		return false;
	if (atomic_long_read(&sf->space) > size) {
		atomic_long_sub(size, &sf->space);
		return false;
	}
	if (sf->interval > 1 &&
	    atomic_long_inc_return(&sf->calls) % sf->interval)
		return false;
	if (sf->probability <= prandom_u32_max(100))
		return false;
	/* Exactly times failures, however many CPUs race for the last. */
	if (atomic_read(&sf->times) != -1 &&
	    atomic_dec_if_positive(&sf->times) < 0)
		return false;
	atomic_long_inc(&sf->injected);
	return true;
}

/**
 * __alloc_tag_should_fail - whether an allocation is to fail (flag f)
 * @tag: the allocation's call site
 * @gfp: its flags: never with __GFP_NOFAIL
 * @size: the bytes it asks for, for the attribute space
 *
 * Called through alloc_tag_should_fail(), while some site has a flag.
 * Decided once per allocation: not again for what an allocator allocates
 * for it at the same site (alloc_tag_fail_nest_begin()). Sites act while
 * profiling is on.
 *
 * Return: true if the allocator is to fail the allocation.
 */
bool __alloc_tag_should_fail(struct alloc_tag *tag, gfp_t gfp, size_t size)
{
	struct site_fail *sf;
	bool fail = false;

	if (!tag || !(READ_ONCE(tag->ct.flags) & ALLOC_TAG_FLAG_FAIL) ||
	    current->alloc_tag_fail_decided == tag ||
	    !mem_alloc_profiling_enabled())
		return false;
	rcu_read_lock();
	sf = find_site_fail(tag);
	if (sf)
		fail = site_should_fail(sf, gfp, size);
	rcu_read_unlock();
	return fail;
}

/* Whether the tags in @cmod can be changed: loaded, and not going away. */
static bool cmod_live(const struct codetag_module *cmod)
{
	if (cmod->unloaded)
		return false;
	return !cmod->mod || cmod->mod->state != MODULE_STATE_UNFORMED;
}

static bool query_matches(const struct site_query *q,
			  const struct codetag *ct)
{
	if (q->file && !match_wildcard(q->file, ct->filename) &&
	    !match_wildcard(q->file, kbasename(ct->filename)))
		return false;
	if (q->func && !match_wildcard(q->func, ct->function))
		return false;
	if (q->module && (!ct->modname || !match_wildcard(q->module, ct->modname)))
		return false;
	return ct->lineno >= q->first_line && ct->lineno <= q->last_line;
}

/*
 * The next command of *@bufp, split into words in place: commands end at
 * ';' or a newline, '#' at the start of a word comments out the rest of
 * the line, quotes keep blanks in a word. *@bufp is NULL after the last.
 * Return: the number of words (0 for an empty command), or -EINVAL.
 */
static int next_command(char **bufp, char **words)
{
	char *p = *bufp, *end, sep;
	int n = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p) {
			*bufp = NULL;
			return n;
		}
		if (*p == ';' || *p == '\n') {
			*bufp = p + 1;
			return n;
		}
		if (*p == '#') {
			p = strchrnul(p, '\n');
			continue;
		}
		if (n == MAX_WORDS) {
			pr_err("alloc_tag: more than %d words in a command at '%s'\n",
			       MAX_WORDS, p);
			return -EINVAL;
		}
		if (*p == '"' || *p == '\'') {
			end = strchr(p + 1, *p);
			if (!end) {
				pr_err("alloc_tag: unclosed quote in %s\n", p);
				return -EINVAL;
			}
			words[n++] = p + 1;
			*end = '\0';
			p = end + 1;
			if (*p && !isspace(*p) && *p != ';') {
				pr_err("alloc_tag: no blank after quoted '%s'\n",
				       words[n - 1]);
				return -EINVAL;
			}
			continue;
		}
		words[n++] = p;
		while (*p && !isspace(*p) && *p != ';')
			p++;
		sep = *p;
		if (!sep)
			continue;
		*p++ = '\0';
		if (sep == ';' || sep == '\n') {
			*bufp = p;
			return n;
		}
	}
}

/* "N", "N-M", "N-" (to the end) or "-M" (from the start). */
static int parse_lines(const char *word, struct site_query *q)
{
	char first[12], *dash = strchr(word, '-');
	size_t len = dash ? dash - word : strlen(word);

	if (len >= sizeof(first))
		goto bad;
	memcpy(first, word, len);
	first[len] = '\0';
	if (len && kstrtouint(first, 10, &q->first_line))
		goto bad;
	if (!len)
		q->first_line = 1;
	if (!dash)
		q->last_line = q->first_line;
	else if (dash[1] && kstrtouint(dash + 1, 10, &q->last_line))
		goto bad;
	if (!q->first_line || q->last_line < q->first_line)
		goto bad;
	return 0;
bad:
	pr_err("alloc_tag: bad line range '%s': expected N, N-M, N- or -M, from line 1\n",
	       word);
	return -EINVAL;
}

static int parse_flags(const char *word, struct site_query *q)
{
	const char *c, *f;

	q->op = word[0];
	q->flags = 0;
	for (c = word + 1; *c; c++) {
		f = strchr(site_flag_chars, *c);
		if (*c == '_' && q->op == '=' && c == word + 1 && !c[1])
			return 0;
		if (!f) {
			pr_err("alloc_tag: unknown flag '%c' in '%s': flags are '%s'\n",
			       *c, word, site_flag_chars);
			return -EINVAL;
		}
		q->flags |= BIT(f - site_flag_chars);
	}
	if (!q->flags && q->op != '=') {
		pr_err("alloc_tag: no flag after '%c'\n", q->op);
		return -EINVAL;
	}
	return 0;
}

/* Fault attributes after +f or =f: "probability 10 times 5". */
static int parse_attrs(char **words, int n, struct site_query *q)
{
	int i, a;
	long v;

	for (i = 0; i < n; i += 2) {
		for (a = 0; a < NR_FAIL_ATTRS; a++)
			if (!strcmp(words[i], fail_attr_names[a]))
				break;
		if (a == NR_FAIL_ATTRS) {
			pr_err("alloc_tag: unexpected '%s' after the flags: expected probability, interval, times or space\n",
			       words[i]);
			return -EINVAL;
		}
		if (q->op == '-' || !(q->flags & SITE_FAIL)) {
			pr_err("alloc_tag: '%s' without +f or =f\n", words[i]);
			return -EINVAL;
		}
		if (i + 1 == n) {
			pr_err("alloc_tag: '%s' without a value\n", words[i]);
			return -EINVAL;
		}
		if (q->attrs_given & BIT(a)) {
			pr_err("alloc_tag: '%s' given twice\n", words[i]);
			return -EINVAL;
		}
		if (kstrtol(words[i + 1], 10, &v) || v < fail_attr_min[a] ||
		    v > fail_attr_max[a]) {
			pr_err("alloc_tag: '%s %s': expected %ld to %ld\n",
			       words[i], words[i + 1], fail_attr_min[a],
			       fail_attr_max[a]);
			return -EINVAL;
		}
		q->attrs[a] = v;
		q->attrs_given |= BIT(a);
	}
	return 0;
}

static int set_term(const char **term, const char *keyword,
		    const char *value)
{
	if (*term) {
		pr_err("alloc_tag: '%s' given twice\n", keyword);
		return -EINVAL;
	}
	*term = value;
	return 0;
}

/* Keyword-value pairs, then the flags: "file F line N-M -p". */
static int parse_query(char **words, int n, struct site_query *q)
{
	const char *lines = NULL, **term;
	int i;

	memset(q, 0, sizeof(*q));
	q->first_line = 1;
	q->last_line = UINT_MAX;
	for (i = 0; i < n && !strchr("+-=", words[i][0]); i += 2) {
		if (i + 1 == n) {
			pr_err("alloc_tag: '%s' without a value or no flags\n",
			       words[i]);
			return -EINVAL;
		}
		if (!strcmp(words[i], "file"))
			term = &q->file;
		else if (!strcmp(words[i], "func"))
			term = &q->func;
		else if (!strcmp(words[i], "module"))
			term = &q->module;
		else if (!strcmp(words[i], "line"))
			term = &lines;
		else
			term = NULL;
		if (!term) {
			pr_err("alloc_tag: unknown keyword '%s': expected file, func, line or module\n",
			       words[i]);
			return -EINVAL;
		}
		if (set_term(term, words[i], words[i + 1]))
			return -EINVAL;
	}
	if (i == n) {
		pr_err("alloc_tag: no flags in the command (such as -p or +f)\n");
		return -EINVAL;
	}
	if (lines && parse_lines(lines, q))
		return -EINVAL;
	if (q->module && strlen(q->module) >= MODULE_NAME_LEN) {
		pr_err("alloc_tag: module name too long: '%s'\n", q->module);
		return -EINVAL;
	}
	if (parse_flags(words[i], q))
		return -EINVAL;
	return parse_attrs(words + i + 1, n - i - 1, q);
}

/*
 * Checks @q against the loaded tags: a line range beyond every call site
 * of the file it names is an error; a module name without wildcards that
 * is not loaded makes the query pending.
 */
static int check_query(struct site_query *q)
{
	struct site_query file_only = { .file = q->file, .func = q->func,
					.module = q->module, .first_line = 1,
					.last_line = UINT_MAX };
	unsigned int last_site = 0;
	bool module_loaded = false, matched = false;
	struct codetag_iterator iter;
	struct codetag *ct;

	iter = codetag_get_ct_iter(alloc_tag_cttype);
	while ((ct = codetag_next_ct(&iter))) {
		if (!cmod_live(iter.cmod))
			continue;
		if (q->module && ct->modname && !strcmp(q->module, ct->modname))
			module_loaded = true;
		if (query_matches(q, ct))
			matched = true;
		else if (query_matches(&file_only, ct))
			last_site = max(last_site, ct->lineno);
	}
	if (q->module && !module_loaded && !strpbrk(q->module, "*?")) {
		q->pending = true;
		return 0;
	}
	if (!matched && q->file && last_site && q->first_line > last_site) {
		pr_err("alloc_tag: line %u is beyond the last call site of file %s (line %u)\n",
		       q->first_line, q->file, last_site);
		return -EINVAL;
	}
	return 0;
}

static unsigned int new_site_flags(const struct site_query *q,
				   unsigned int old)
{
	switch (q->op) {
	case '+':
		return old | q->flags;
	case '-':
		return old & ~q->flags;
	default:
		return q->flags;
	}
}

static void set_fail_attr(struct site_fail *sf, enum fail_attr a, long v)
{
	switch (a) {
	case FAIL_PROBABILITY:
		WRITE_ONCE(sf->probability, v);
		break;
	case FAIL_INTERVAL:
		WRITE_ONCE(sf->interval, v);
		atomic_long_set(&sf->calls, 0);
		break;
	case FAIL_TIMES:
		atomic_set(&sf->times, v);
		break;
	default:
		atomic_long_set(&sf->space, v);
		break;
	}
}

static long fail_attr(struct site_fail *sf, enum fail_attr a)
{
	switch (a) {
	case FAIL_PROBABILITY:
		return READ_ONCE(sf->probability);
	case FAIL_INTERVAL:
		return READ_ONCE(sf->interval);
	case FAIL_TIMES:
		return atomic_read(&sf->times);
	default:
		return atomic_long_read(&sf->space);
	}
}

/*
 * Gives @ct the flags @flags and @q's fault attributes. A site that gains
 * f has its attributes in fail_sites before the flag says so; one that
 * loses it drops them after.
 */
static int set_site_flags(struct codetag *ct, unsigned int flags,
			  const struct site_query *q)
{
	struct alloc_tag *tag = ct_to_alloc_tag(ct);
	unsigned int old = site_flags(ct);
	bool was_flagged = old != SITE_DEFAULT;
	bool flagged = flags != SITE_DEFAULT;
	struct site_fail *sf = NULL;
	int a;

	lockdep_assert_held(&control_lock);
	if (old & SITE_FAIL)
		sf = find_site_fail(tag);
	if ((flags & SITE_FAIL) && !sf) {
		sf = kzalloc(sizeof(*sf), GFP_KERNEL);
		if (!sf)
			return -ENOMEM;
		sf->tag = tag;
		for (a = 0; a < NR_FAIL_ATTRS; a++)
			set_fail_attr(sf, a, fail_attr_default[a]);
		hash_add_rcu(fail_sites, &sf->node, (unsigned long)tag);
	}
	if (flags & SITE_FAIL)
		for (a = 0; a < NR_FAIL_ATTRS; a++)
			if (q->attrs_given & BIT(a))
				set_fail_attr(sf, a, q->attrs[a]);
	alloc_tag_change_flags(tag, ALLOC_TAG_FLAG_OFF | ALLOC_TAG_FLAG_FAIL,
			       (flags & SITE_PROFILED ? 0 : ALLOC_TAG_FLAG_OFF) |
			       (flags & SITE_FAIL ? ALLOC_TAG_FLAG_FAIL : 0));
	if (sf && !(flags & SITE_FAIL)) {
		hash_del_rcu(&sf->node);
		kfree_rcu(sf, rcu);
	}
	if (flagged && !was_flagged)
		nr_flagged_sites++;
	else if (!flagged && was_flagged)
		nr_flagged_sites--;
	return 0;
}

/*
 * The allocation paths look at the flags while some site has one. Flipped
 * after the tag list is released: a flag seen before its key is harmless,
 * and the write has not returned yet.
 */
static void update_control_key(void)
{
	lockdep_assert_held(&control_lock);
	if (nr_flagged_sites && !static_key_enabled(&alloc_tag_control_key))
		static_branch_enable(&alloc_tag_control_key);
	else if (!nr_flagged_sites && static_key_enabled(&alloc_tag_control_key))
		static_branch_disable(&alloc_tag_control_key);
}

/* Applies @q to the live tags it matches (of @mod only, if set). */
static int apply_query(const struct site_query *q, struct module *mod)
{
	struct codetag_iterator iter;
	struct codetag *ct;
	int nr = 0, err;

	iter = codetag_get_ct_iter(alloc_tag_cttype);
	while ((ct = codetag_next_ct(&iter))) {
		if (!cmod_live(iter.cmod) || (mod && iter.cmod->mod != mod) ||
		    !query_matches(q, ct))
			continue;
		err = set_site_flags(ct, new_site_flags(q, site_flags(ct)), q);
		if (err)
			return err;
		nr++;
	}
	return nr;
}

static char *copy_term(char **dst, const char *src)
{
	char *start = *dst;

	if (!src)
		return NULL;
	strcpy(start, src);
	*dst += strlen(src) + 1;
	return start;
}

static int keep_pending(const struct site_query *q)
{
	size_t len = 0;
	struct pending_query *pq;
	char *s;

	len += q->file ? strlen(q->file) + 1 : 0;
	len += q->func ? strlen(q->func) + 1 : 0;
	len += strlen(q->module) + 1;
	pq = kmalloc(struct_size(pq, strings, len), GFP_KERNEL);
	if (!pq)
		return -ENOMEM;
	pq->query = *q;
	s = pq->strings;
	pq->query.file = copy_term(&s, q->file);
	pq->query.func = copy_term(&s, q->func);
	pq->query.module = copy_term(&s, q->module);
	list_add_tail(&pq->link, &pending_queries);
	pr_info("alloc_tag: module %s is not loaded: the command is kept until it is\n",
		q->module);
	return 0;
}

/**
 * alloc_tag_control_exec - run control commands
 * @cmds: commands separated by ';' or newlines; split in place
 * @modname: if set, the module every command applies to (module parameter)
 *
 * Every command is checked before any is applied: one bad command leaves
 * every site as it was. A command naming a module that is not loaded is
 * kept and applied when the module is loaded.
 *
 * Return: the number of call sites the commands matched, or -EINVAL (the
 * reason is logged), or -ENOMEM.
 */
int alloc_tag_control_exec(char *cmds, const char *modname)
{
	struct site_query *queries;
	char *words[MAX_WORDS];
	int nq = 0, n, i, ret = 0;

	if (!alloc_tag_cttype)
		return -ENODEV;
	queries = kvmalloc_array(MAX_COMMANDS, sizeof(*queries), GFP_KERNEL);
	if (!queries)
		return -ENOMEM;
	while (cmds) {
		n = next_command(&cmds, words);
		if (n < 0) {
			ret = n;
			goto out;
		}
		if (!n)
			continue;
		if (nq == MAX_COMMANDS) {
			pr_err("alloc_tag: more than %d commands at once\n",
			       MAX_COMMANDS);
			ret = -EINVAL;
			goto out;
		}
		ret = parse_query(words, n, &queries[nq]);
		if (ret)
			goto out;
		if (modname) {
			if (queries[nq].module &&
			    strcmp(queries[nq].module, modname)) {
				pr_err("alloc_tag: %s.alloc_tag names module '%s'\n",
				       modname, queries[nq].module);
				ret = -EINVAL;
				goto out;
			}
			queries[nq].module = modname;
		}
		nq++;
	}

	mutex_lock(&control_lock);
	codetag_lock_module_list(alloc_tag_cttype, true);
	for (i = 0; i < nq && !ret; i++)
		ret = check_query(&queries[i]);
	for (i = 0; i < nq && ret >= 0; i++) {
		n = queries[i].pending ? keep_pending(&queries[i]) :
					 apply_query(&queries[i], NULL);
		ret = n < 0 ? n : ret + n;
	}
	codetag_lock_module_list(alloc_tag_cttype, false);
	update_control_key();
	mutex_unlock(&control_lock);
out:
	kvfree(queries);
	return ret;
}

/**
 * alloc_tag_control_module_param - <module>.alloc_tag=CMDS at module load
 * @val: the commands, for the module's own call sites
 * @modname: the module being loaded
 *
 * Return: 0; a bad value is logged and changes nothing, the module loads.
 */
int alloc_tag_control_module_param(char *val, const char *modname)
{
	int ret;

	if (!val) {
		pr_err("alloc_tag: %s.alloc_tag needs commands, as in %s.alloc_tag=\"-p\"\n",
		       modname, modname);
		return 0;
	}
	ret = alloc_tag_control_exec(val, modname);
	if (ret < 0)
		pr_err("alloc_tag: %s.alloc_tag ignored: %d\n", modname, ret);
	return 0;
}

/* Pending commands of @mod, now that its tags are listed. */
static void apply_pending(struct module *mod)
{
	struct pending_query *pq, *tmp;

	mutex_lock(&control_lock);
	codetag_lock_module_list(alloc_tag_cttype, true);
	list_for_each_entry_safe(pq, tmp, &pending_queries, link) {
		if (strcmp(pq->query.module, mod->name))
			continue;
		apply_query(&pq->query, mod);
		list_del(&pq->link);
		kfree(pq);
	}
	codetag_lock_module_list(alloc_tag_cttype, false);
	update_control_key();
	mutex_unlock(&control_lock);
}

/* The module's flags go with it: no allocation can happen there again. */
static void clear_module_flags(struct module *mod)
{
	struct site_query all = { .op = '=', .flags = SITE_DEFAULT,
				  .first_line = 1, .last_line = UINT_MAX };

	mutex_lock(&control_lock);
	codetag_lock_module_list(alloc_tag_cttype, true);
	apply_query(&all, mod);
	codetag_lock_module_list(alloc_tag_cttype, false);
	update_control_key();
	mutex_unlock(&control_lock);
}

static int control_module_notify(struct notifier_block *nb,
				 unsigned long state, void *data)
{
	struct module *mod = data;

	if (state == MODULE_STATE_COMING)
		apply_pending(mod);
	else if (state == MODULE_STATE_GOING)
		clear_module_flags(mod);
	return NOTIFY_OK;
}

static struct notifier_block control_module_nb = {
	.notifier_call = control_module_notify,
};

static void show_site_fail(struct seq_file *m, struct site_fail *sf)
{
	int a;

	for (a = 0; a < NR_FAIL_ATTRS; a++)
		seq_printf(m, " %s:%ld", fail_attr_names[a], fail_attr(sf, a));
	seq_printf(m, " injected:%ld nofail:%ld",
		   atomic_long_read(&sf->injected),
		   atomic_long_read(&sf->nofail));
}

static void show_query(struct seq_file *m, const struct site_query *q)
{
	unsigned int i;

	seq_printf(m, "# pending until module %s is loaded:", q->module);
	if (q->file)
		seq_printf(m, " file %s", q->file);
	if (q->func)
		seq_printf(m, " func %s", q->func);
	seq_printf(m, " module %s", q->module);
	if (q->first_line != 1 || q->last_line != UINT_MAX) {
		seq_printf(m, " line %u-", q->first_line);
		if (q->last_line != UINT_MAX)
			seq_printf(m, "%u", q->last_line);
	}
	seq_printf(m, " %c", q->op);
	for (i = 0; site_flag_chars[i]; i++)
		if (q->flags & BIT(i))
			seq_putc(m, site_flag_chars[i]);
	for (i = 0; i < NR_FAIL_ATTRS; i++)
		if (q->attrs_given & BIT(i))
			seq_printf(m, " %s %ld", fail_attr_names[i], q->attrs[i]);
	seq_putc(m, '\n');
}

/* Every site whose flags are not the default, then the pending commands. */
static int control_show(struct seq_file *m, void *v)
{
	struct codetag_iterator iter;
	struct pending_query *pq;
	struct codetag *ct;
	unsigned int flags, i;

	seq_puts(m, "# file:line [module] func:function =flags (sites other than =p)\n");
	mutex_lock(&control_lock);
	codetag_lock_module_list(alloc_tag_cttype, true);
	iter = codetag_get_ct_iter(alloc_tag_cttype);
	while ((ct = codetag_next_ct(&iter))) {
		flags = site_flags(ct);
		if (flags == SITE_DEFAULT || !cmod_live(iter.cmod))
			continue;
		codetag_to_text(m, ct);
		seq_puts(m, " =");
		if (!flags)
			seq_putc(m, '_');
		for (i = 0; site_flag_chars[i]; i++)
			if (flags & BIT(i))
				seq_putc(m, site_flag_chars[i]);
		if (flags & SITE_FAIL)
			show_site_fail(m, find_site_fail(ct_to_alloc_tag(ct)));
		seq_putc(m, '\n');
	}
	codetag_lock_module_list(alloc_tag_cttype, false);
	list_for_each_entry(pq, &pending_queries, link)
		show_query(m, &pq->query);
	mutex_unlock(&control_lock);
	return 0;
}

static int control_open(struct inode *inode, struct file *file)
{
	return single_open(file, control_show, NULL);
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char *buf;
	int ret;

	if (len > MAX_WRITE) {
		pr_err("alloc_tag: a write to control is limited to %d bytes\n",
		       MAX_WRITE);
		return -E2BIG;
	}
	buf = kvmalloc(len + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, ubuf, len)) {
		kvfree(buf);
		return -EFAULT;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		pr_err("alloc_tag: NUL byte in a write to control\n");
		ret = -EINVAL;
	} else {
		ret = alloc_tag_control_exec(buf, NULL);
	}
	kvfree(buf);
	if (ret < 0)
		return ret;
	*ppos += len;
	return len;
}

static const struct file_operations control_fops = {
	.owner		= THIS_MODULE,
	.open		= control_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= control_write,
};

/*
 * alloc_tag.control="CMDS", possibly several times: applied at init,
 * before the early command line copy that @str is in is freed.
 */
static int __init setup_boot_cmds(char *str)
{
	if (!str) {
		pr_err("alloc_tag: alloc_tag.control needs commands\n");
		return 0;
	}
	if (nr_boot_cmds == MAX_BOOT_CMDS) {
		pr_err("alloc_tag: more than %d alloc_tag.control= ignored: %s\n",
		       MAX_BOOT_CMDS, str);
		return 0;
	}
	boot_cmds[nr_boot_cmds++] = str;
	return 0;
}
early_param("alloc_tag.control", setup_boot_cmds);

/**
 * alloc_tag_control_init - start the control of call sites
 * @cttype: the allocation tags
 *
 * Called when the tag type is registered, before any module is loaded;
 * applies the command line's commands.
 */
void __init alloc_tag_control_init(struct codetag_type *cttype)
{
	unsigned int i;
	char *cmds;
	int ret;

	alloc_tag_cttype = cttype;
	register_module_notifier(&control_module_nb);
	for (i = 0; i < nr_boot_cmds; i++) {
		cmds = kstrdup(boot_cmds[i], GFP_KERNEL);
		ret = cmds ? alloc_tag_control_exec(cmds, NULL) : -ENOMEM;
		if (ret < 0)
			pr_err("alloc_tag: alloc_tag.control=\"%s\" ignored: %d\n",
			       boot_cmds[i], ret);
		else
			pr_info("alloc_tag: alloc_tag.control=\"%s\": %d call sites\n",
				boot_cmds[i], ret);
		kfree(cmds);
	}
}

static int __init alloc_tag_control_debugfs(void)
{
	struct dentry *dir;

	if (!alloc_tag_cttype)
		return 0;
	dir = debugfs_create_dir("alloc_tag", NULL);
	debugfs_create_file("control", 0600, dir, NULL, &control_fops);
	return 0;
}
late_initcall(alloc_tag_control_debugfs);
