// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-call-site switches of allocation profiling, set with the query
 * language of dynamic debug: /proc/alloc_tag/control (also in debugfs,
 * which lockdown closes), alloc_tag.control= on the command line,
 * <module>.alloc_tag= at module load. For example:
 *
 *   module xfs -p                   stop charging xfs's allocations
 *   file mm/slub.c line 100-200 =p  back to the default
 *
 * A site's flags are bits of its tag's ct.flags. The allocation paths
 * look at them only while some site has one (alloc_tag_control_key). A
 * site flagged f has its fault attributes in fail_sites, found by tag; a
 * live allocation of a site flagged s has its stack in live_allocs, found
 * by the allocation's object, page or per-cpu slot.
 */
#include <linux/alloc_tag.h>
#include <linux/codetag.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/init.h>
#include <linux/kasan.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/parser.h>
#include <linux/prandom.h>
#include <linux/proc_fs.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

/* alloc_tag.stack_records=, also /sys/module/alloc_tag/parameters/. */
#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "alloc_tag."

/* Only mm's charge and allocation paths look: not exported. */
DEFINE_STATIC_KEY_FALSE(alloc_tag_control_key);

/* The flags as written; a site has only p (profiled) by default. */
#define SITE_PROFILED	BIT(0)
#define SITE_FAIL	BIT(1)
#define SITE_STACKS	BIT(2)
#define SITE_DEFAULT	SITE_PROFILED
static const char site_flag_chars[] = "pfs";

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
/* Commands kept for modules not loaded, at most. */
#define MAX_PENDING	64

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
static unsigned int nr_pending;
static unsigned long nr_flagged_sites;

static char *boot_cmds[MAX_BOOT_CMDS] __initdata;
static unsigned int nr_boot_cmds __initdata;

static unsigned int site_flags(const struct codetag *ct)
{
	unsigned int flags = READ_ONCE(ct->flags);

	return (flags & ALLOC_TAG_FLAG_OFF ? 0 : SITE_PROFILED) |
	       (flags & ALLOC_TAG_FLAG_FAIL ? SITE_FAIL : 0) |
	       (flags & ALLOC_TAG_FLAG_STACKS ? SITE_STACKS : 0);
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

/*
 * Takes @size from the space left if more than @size is left: one atomic
 * step, so that CPUs racing for the last bytes cannot take more than is
 * left (a negative space would never let the site fail again).
 */
static bool space_let_through(struct site_fail *sf, size_t size)
{
	long space = atomic_long_read(&sf->space);

	do {
		if (space <= 0 || (unsigned long)space <= size)
			return false;
	} while (!atomic_long_try_cmpxchg(&sf->space, &space, space - size));
	return true;
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
	if (space_let_through(sf, size))
		return false;
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

/*
 * Flag s. Each live allocation of a site flagged s has a record: its
 * stack (in the stack depot), pid and bytes, hashed by the allocation's
 * key (object, page or per-cpu slot). Records come from a pool allocated
 * when a first site gains s, of alloc_tag.stack_records entries: the
 * memory the capture costs besides the stack depot's, and its bound.
 */
struct live_alloc {
	struct hlist_node node;		/* in live_hash by key, or free_live */
	const void *key;
	struct alloc_tag *tag;
	depot_stack_handle_t stack;
	pid_t pid;
	size_t bytes;
};

#define STACK_DEPTH	32

/* Read when the pool is allocated: a change applies to the next one. */
static unsigned int stack_records = 65536;
module_param(stack_records, uint, 0644);
MODULE_PARM_DESC(stack_records,
		 "Live allocations of sites flagged s that can be recorded");

/* Taken wherever an allocation is charged or uncharged: raw, irqsave. */
static DEFINE_RAW_SPINLOCK(live_lock);
static struct live_alloc *live_pool;
static unsigned int live_pool_size;
static struct hlist_head *live_hash;
static unsigned int live_hash_bits;
static HLIST_HEAD(free_live);
static unsigned long nr_live, nr_not_recorded;
static bool live_full_reported;
/* Sites flagged s; under control_lock. */
static unsigned long nr_stack_sites;
/* Set while this CPU saves a stack: the depot's own allocations. */
static DEFINE_PER_CPU(bool, saving_stack);

/*
 * Under live_lock. Keys lose their KASAN tag: an object may be freed
 * through a pointer with another (match-all) tag.
 */
static struct hlist_head *live_bucket(const void *key)
{
	return &live_hash[hash_ptr(key, live_hash_bits)];
}

static struct live_alloc *find_live(const void *key)
{
	struct live_alloc *la;

	if (!live_hash)
		return NULL;
	key = kasan_reset_tag(key);
	hlist_for_each_entry(la, live_bucket(key), node)
		if (la->key == key)
			return la;
	return NULL;
}

static void release_live(struct live_alloc *la)
{
	hlist_del(&la->node);
	hlist_add_head(&la->node, &free_live);
	nr_live--;
}

/*
 * A record for @key, reusing one the key had (a charge moved in place):
 * NULL, counted, once the pool is used up.
 */
static struct live_alloc *new_live(const void *key)
{
	struct live_alloc *la;

	key = kasan_reset_tag(key);
	la = find_live(key);
	if (la)
		return la;
	if (hlist_empty(&free_live)) {
		nr_not_recorded++;
		return NULL;
	}
	la = hlist_entry(free_live.first, struct live_alloc, node);
	hlist_del(&la->node);
	la->key = key;
	hlist_add_head(&la->node, live_bucket(key));
	nr_live++;
	return la;
}

static void report_full(void)
{
	pr_warn("alloc_tag: %u live allocations recorded, the limit of alloc_tag.stack_records: sites flagged s miss new allocations\n",
		READ_ONCE(live_pool_size));
}

static void record_stack(struct alloc_tag *tag, size_t bytes,
			 const void *key)
{
	unsigned long entries[STACK_DEPTH], flags;
	depot_stack_handle_t stack = 0;
	struct live_alloc *la = NULL;
	bool report = false;
	unsigned int n;

	/* No stack of the depot's allocations while it saves one. */
	preempt_disable();
	if (!__this_cpu_read(saving_stack)) {
		__this_cpu_write(saving_stack, true);
		n = stack_trace_save(entries, ARRAY_SIZE(entries), 2);
		/* The caller's gfp is unknown here: no sleep, no reclaim. */
		stack = stack_depot_save(entries, n, __GFP_NOWARN);
		__this_cpu_write(saving_stack, false);
	}
	raw_spin_lock_irqsave(&live_lock, flags);
	/* The flag is cleared before its records are dropped: no stale one. */
	if (READ_ONCE(tag->ct.flags) & ALLOC_TAG_FLAG_STACKS) {
		if (stack)
			la = new_live(key);
		else
			nr_not_recorded++;
		if (la) {
			la->tag = tag;
			la->stack = stack;
			la->pid = task_pid_nr(current);
			la->bytes = bytes;
		} else if (!live_full_reported && hlist_empty(&free_live)) {
			live_full_reported = true;
			report = true;
		}
	}
	raw_spin_unlock_irqrestore(&live_lock, flags);
	preempt_enable();
	if (report)
		report_full();
}

/**
 * alloc_tag_add_controlled - charge an allocation of a flagged call site
 * @ref: where the allocation keeps its tag
 * @tag: the call site
 * @bytes: the allocation's size
 * @obj: the allocation's key: object, first page or per-cpu slot
 *
 * alloc_tag_add() for a site flagged -p (not charged) or s (charged, and
 * its stack recorded).
 */
void alloc_tag_add_controlled(union codetag_ref *ref, struct alloc_tag *tag,
			      size_t bytes, const void *obj)
{
	unsigned int flags = READ_ONCE(tag->ct.flags);

	if (flags & ALLOC_TAG_FLAG_OFF) {
		/* Left untagged on purpose: DEBUG's checks know it. */
		ref->ct = IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG) ?
			  CODETAG_EMPTY : NULL;
		return;
	}
	__alloc_tag_add(ref, tag, bytes);
	if (flags & ALLOC_TAG_FLAG_STACKS)
		record_stack(tag, bytes, obj);
}

/**
 * alloc_tag_stack_forget - an allocation of a site flagged s is freed
 * @obj: its key, as alloc_tag_add() had it
 */
void alloc_tag_stack_forget(const void *obj)
{
	struct live_alloc *la;
	unsigned long flags;

	raw_spin_lock_irqsave(&live_lock, flags);
	la = find_live(obj);
	if (la)
		release_live(la);
	raw_spin_unlock_irqrestore(&live_lock, flags);
}

/**
 * alloc_tag_stack_resize - part of an allocation is freed, or added
 * @obj: its key
 * @bytes: the bytes it now holds more (less, if negative)
 */
void alloc_tag_stack_resize(const void *obj, long bytes)
{
	struct live_alloc *la;
	unsigned long flags;

	raw_spin_lock_irqsave(&live_lock, flags);
	la = find_live(obj);
	if (la)
		la->bytes += bytes;
	raw_spin_unlock_irqrestore(&live_lock, flags);
}

static void rekey_live(struct live_alloc *la, const void *key)
{
	hlist_del(&la->node);
	la->key = kasan_reset_tag(key);
	hlist_add_head(&la->node, live_bucket(la->key));
}

/**
 * alloc_tag_stack_swap - two allocations exchange their charges (migration)
 * @obj1: the key of one
 * @obj2: the key of the other
 */
void alloc_tag_stack_swap(const void *obj1, const void *obj2)
{
	struct live_alloc *la1, *la2;
	unsigned long flags;

	raw_spin_lock_irqsave(&live_lock, flags);
	la1 = find_live(obj1);
	la2 = find_live(obj2);
	if (la1)
		rekey_live(la1, obj2);
	if (la2)
		rekey_live(la2, obj1);
	raw_spin_unlock_irqrestore(&live_lock, flags);
}

/**
 * alloc_tag_stack_split - a high-order page became @nr order-0 pages
 * @page: the first page, the allocation's key
 * @nr: the number of pages, each now freed on its own
 *
 * Each page gets a copy of the record, with its share of the bytes.
 */
void alloc_tag_stack_split(struct page *page, unsigned int nr)
{
	struct live_alloc *head, *la;
	bool report = false;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&live_lock, flags);
	head = find_live(page);
	if (head) {
		head->bytes /= nr;
		for (i = 1; i < nr; i++) {
			la = new_live(nth_page(page, i));
			if (!la)
				break;
			la->tag = head->tag;
			la->stack = head->stack;
			la->pid = head->pid;
			la->bytes = head->bytes;
		}
		/* new_live() counted page i: the pages after it too. */
		if (i < nr)
			nr_not_recorded += nr - i - 1;
		if (i < nr && !live_full_reported) {
			live_full_reported = true;
			report = true;
		}
	}
	raw_spin_unlock_irqrestore(&live_lock, flags);
	if (report)
		report_full();
}

/*
 * The pool, for the first site that gains s; the stack depot too (it may
 * be set up late, once).
 */
static int alloc_live_pool(void)
{
	unsigned int bits, i, size = READ_ONCE(stack_records);
	struct live_alloc *pool;
	struct hlist_head *hash;
	unsigned long flags;

	lockdep_assert_held(&control_lock);
	if (live_pool)
		return 0;
	if (!size) {
		pr_err("alloc_tag: s needs alloc_tag.stack_records above 0\n");
		return -EINVAL;
	}
	if (stack_depot_init())
		return -ENOMEM;
	bits = max(ilog2(size) - 2, 4);
	pool = vmalloc_array(size, sizeof(*pool));
	hash = kvcalloc(1U << bits, sizeof(*hash), GFP_KERNEL);
	if (!pool || !hash) {
		vfree(pool);
		kvfree(hash);
		return -ENOMEM;
	}
	raw_spin_lock_irqsave(&live_lock, flags);
	for (i = 0; i < size; i++)
		hlist_add_head(&pool[i].node, &free_live);
	live_pool_size = size;
	live_hash_bits = bits;
	live_hash = hash;
	live_pool = pool;
	nr_not_recorded = 0;
	live_full_reported = false;
	raw_spin_unlock_irqrestore(&live_lock, flags);
	return 0;
}

/*
 * After a command that took s from sites: their records go before the
 * next command, as their frees no longer look (and a later command may
 * give them s again). Their flags were cleared first: no new record.
 */
static void drop_unflagged_records(void)
{
	struct live_alloc *la;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&live_lock, flags);
	for (i = 0; live_hash && i < (1U << live_hash_bits); i++)
		hlist_for_each_entry_safe(la, tmp, &live_hash[i], node)
			if (!(READ_ONCE(la->tag->ct.flags) &
			      ALLOC_TAG_FLAG_STACKS))
				release_live(la);
	if (!hlist_empty(&free_live))
		live_full_reported = false;
	raw_spin_unlock_irqrestore(&live_lock, flags);
}

/* After a write: the pool goes with the last site flagged s. */
static void free_unused_pool(void)
{
	struct live_alloc *pool = NULL;
	struct hlist_head *hash = NULL;
	unsigned long flags;

	lockdep_assert_held(&control_lock);
	raw_spin_lock_irqsave(&live_lock, flags);
	if (!nr_stack_sites) {
		pool = live_pool;
		hash = live_hash;
		live_pool = NULL;
		live_hash = NULL;
		INIT_HLIST_HEAD(&free_live);
	}
	raw_spin_unlock_irqrestore(&live_lock, flags);
	vfree(pool);
	kvfree(hash);
}

/*
 * Whether the tags in @cmod can be changed: loaded, and not going away.
 * The state is GOING before the notifier that clears the module's flags
 * runs, which takes control_lock: a command either sees GOING or has its
 * flags cleared by it.
 */
static bool cmod_live(const struct codetag_module *cmod)
{
	enum module_state state;

	if (cmod->unloaded)
		return false;
	if (!cmod->mod)
		return true;
	state = READ_ONCE(cmod->mod->state);
	return state != MODULE_STATE_UNFORMED && state != MODULE_STATE_GOING;
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
	/* Failing allocations at will steers the kernel into its error paths. */
	if (q->op != '-' && (q->flags & SITE_FAIL) &&
	    security_locked_down(LOCKDOWN_ALLOC_FAULT_INJECTION))
		return -EPERM;
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
 * Return: 1 if the site lost s (its records are to go), 0, or -ENOMEM.
 */
static int set_site_flags(struct codetag *ct, unsigned int flags,
			  const struct site_query *q)
{
	struct alloc_tag *tag = ct_to_alloc_tag(ct);
	unsigned int old = site_flags(ct);
	bool was_flagged = old != SITE_DEFAULT;
	bool flagged = flags != SITE_DEFAULT;
	struct site_fail *sf = NULL;
	int a, err;

	lockdep_assert_held(&control_lock);
	if (flags & SITE_STACKS) {
		err = alloc_live_pool();
		if (err)
			return err;
	}
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
	alloc_tag_change_flags(tag, ALLOC_TAG_FLAG_OFF | ALLOC_TAG_FLAG_FAIL |
			       ALLOC_TAG_FLAG_STACKS,
			       (flags & SITE_PROFILED ? 0 : ALLOC_TAG_FLAG_OFF) |
			       (flags & SITE_FAIL ? ALLOC_TAG_FLAG_FAIL : 0) |
			       (flags & SITE_STACKS ? ALLOC_TAG_FLAG_STACKS : 0));
	if (sf && !(flags & SITE_FAIL)) {
		hash_del_rcu(&sf->node);
		kfree_rcu(sf, rcu);
	}
	if (flagged && !was_flagged)
		nr_flagged_sites++;
	else if (!flagged && was_flagged)
		nr_flagged_sites--;
	if ((flags & SITE_STACKS) && !(old & SITE_STACKS)) {
		nr_stack_sites++;
	} else if (!(flags & SITE_STACKS) && (old & SITE_STACKS)) {
		nr_stack_sites--;
		return 1;
	}
	return 0;
}

/*
 * After flags changed: the pool goes if no site has s; the allocation
 * paths look at the flags while some site has one. Called after the tag
 * list is released: a flag seen before its key is harmless, and the write
 * has not returned yet.
 */
static void control_changed(void)
{
	lockdep_assert_held(&control_lock);
	free_unused_pool();
	if (nr_flagged_sites && !static_key_enabled(&alloc_tag_control_key))
		static_branch_enable(&alloc_tag_control_key);
	else if (!nr_flagged_sites && static_key_enabled(&alloc_tag_control_key))
		static_branch_disable(&alloc_tag_control_key);
}

/* Applies @q to the live tags it matches (of @mod only, if set). */
static int apply_query(const struct site_query *q, struct module *mod)
{
	struct codetag_iterator iter;
	bool lost_stacks = false;
	struct codetag *ct;
	int nr = 0, ret;

	iter = codetag_get_ct_iter(alloc_tag_cttype);
	while ((ct = codetag_next_ct(&iter))) {
		/* @mod's notifiers: coming, or going with flags to clear. */
		if ((mod ? iter.cmod->mod != mod || iter.cmod->unloaded :
			   !cmod_live(iter.cmod)) ||
		    !query_matches(q, ct))
			continue;
		ret = set_site_flags(ct, new_site_flags(q, site_flags(ct)), q);
		if (ret < 0) {
			nr = ret;
			break;
		}
		lost_stacks |= ret;
		nr++;
	}
	if (lost_stacks)
		drop_unflagged_records();
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
	nr_pending++;
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
 * kept and applied when the module is loaded, up to MAX_PENDING commands.
 *
 * Return: the number of call sites the commands matched, or -EINVAL (the
 * reason is logged), -ENOSPC (too many commands kept), or -ENOMEM.
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
	for (i = 0, n = 0; i < nq && !ret; i++) {
		ret = check_query(&queries[i]);
		/*
		 * The module being loaded (its alloc_tag= parameter) has no
		 * allocation site: nothing to apply, nothing to keep for a
		 * later module of that name.
		 */
		if (modname)
			queries[i].pending = false;
		if (!ret && queries[i].pending && nr_pending + ++n > MAX_PENDING) {
			pr_err("alloc_tag: more than %d commands waiting for modules to be loaded\n",
			       MAX_PENDING);
			ret = -ENOSPC;
		}
		/* Before any site changes: the only way s can fail. */
		if (!ret && !queries[i].pending && queries[i].op != '-' &&
		    (queries[i].flags & SITE_STACKS))
			ret = alloc_live_pool();
	}
	for (i = 0; i < nq && ret >= 0; i++) {
		n = queries[i].pending ? keep_pending(&queries[i]) :
					 apply_query(&queries[i], NULL);
		ret = n < 0 ? n : ret + n;
	}
	codetag_lock_module_list(alloc_tag_cttype, false);
	control_changed();
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
		nr_pending--;
		kfree(pq);
	}
	codetag_lock_module_list(alloc_tag_cttype, false);
	control_changed();
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
	control_changed();
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

static const struct proc_ops control_proc_ops = {
	.proc_open	= control_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= control_write,
};

/* A live allocation as the stacks file reads it. */
struct live_snap {
	struct alloc_tag *tag;
	depot_stack_handle_t stack;
	pid_t pid;
	size_t bytes;
};

static int cmp_snap(const void *a, const void *b)
{
	const struct live_snap *x = a, *y = b;

	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->pid - y->pid;
}

/* Largest site first, and in a site the largest stack first. */
static int cmp_stack(const void *a, const void *b)
{
	const struct alloc_tag_stack *x = a, *y = b;

	if (x->site_bytes != y->site_bytes)
		return x->site_bytes > y->site_bytes ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/*
 * The live allocations of sites flagged s (of @only, if set), one entry
 * per site and stack. Under control_lock: the tags stay flagged.
 */
static int collect_stacks(struct alloc_tag *only, struct alloc_tag_stack **out)
{
	struct alloc_tag_stack *groups, *g = NULL;
	struct live_snap *snaps;
	struct live_alloc *la;
	unsigned long flags, max = READ_ONCE(nr_live), n = 0, i, j;
	unsigned int b;

	lockdep_assert_held(&control_lock);
	*out = NULL;
	snaps = kvmalloc_array(max + 1, sizeof(*snaps), GFP_KERNEL);
	if (!snaps)
		return -ENOMEM;
	raw_spin_lock_irqsave(&live_lock, flags);
	for (b = 0; live_hash && b < (1U << live_hash_bits); b++)
		hlist_for_each_entry(la, &live_hash[b], node) {
			if (n == max)
				break;
			if (only && la->tag != only)
				continue;
			snaps[n].tag = la->tag;
			snaps[n].stack = la->stack;
			snaps[n].pid = la->pid;
			snaps[n++].bytes = la->bytes;
		}
	raw_spin_unlock_irqrestore(&live_lock, flags);
	sort(snaps, n, sizeof(*snaps), cmp_snap, NULL);

	groups = kvcalloc(n + 1, sizeof(*groups), GFP_KERNEL);
	if (!groups) {
		kvfree(snaps);
		return -ENOMEM;
	}
	for (i = 0, j = 0; i < n; i++) {
		if (!g || g->tag != snaps[i].tag || g->stack != snaps[i].stack) {
			g = &groups[j++];
			g->tag = snaps[i].tag;
			g->stack = snaps[i].stack;
		}
		g->bytes += snaps[i].bytes;
		g->calls++;
		if (g->nr_pids < ARRAY_SIZE(g->pids) &&
		    (!g->nr_pids || g->pids[g->nr_pids - 1] != snaps[i].pid))
			g->pids[g->nr_pids++] = snaps[i].pid;
	}
	kvfree(snaps);
	/* Each entry learns its site's totals, for sorting and the listing. */
	for (i = 0; i < j; i = n) {
		u64 bytes = 0, calls = 0;

		for (n = i; n < j && groups[n].tag == groups[i].tag; n++) {
			bytes += groups[n].bytes;
			calls += groups[n].calls;
		}
		while (i < n) {
			groups[i].site_bytes = bytes;
			groups[i++].site_calls = calls;
		}
	}
	sort(groups, j, sizeof(*groups), cmp_stack, NULL);
	*out = groups;
	return j;
}

/**
 * alloc_tag_stacks_of - the live allocations of a call site flagged s
 * @tag: the call site
 * @out: set to an array, one entry per stack, largest first; kvfree() it
 *
 * Return: the number of entries, or -ENOMEM.
 */
int alloc_tag_stacks_of(struct alloc_tag *tag, struct alloc_tag_stack **out)
{
	int n;

	mutex_lock(&control_lock);
	n = collect_stacks(tag, out);
	mutex_unlock(&control_lock);
	return n;
}

static void show_stack_entry(struct seq_file *m,
			     const struct alloc_tag_stack *g, bool first)
{
	unsigned long *entries;
	unsigned int i, n;

	if (first) {
		seq_printf(m, "%llu %llu ", g->site_bytes, g->site_calls);
		codetag_to_text(m, &g->tag->ct);
		seq_putc(m, '\n');
	}
	seq_printf(m, "  %llu %llu pid", g->bytes, g->calls);
	for (i = 0; i < g->nr_pids; i++)
		seq_printf(m, "%c%d", i ? ',' : ' ', g->pids[i]);
	if (g->nr_pids == ARRAY_SIZE(g->pids))
		seq_puts(m, ",...");
	seq_putc(m, '\n');
	n = stack_depot_fetch(g->stack, &entries);
	for (i = 0; i < n; i++)
		seq_printf(m, "      %pS\n", (void *)entries[i]);
}

/* Per site flagged s and per stack: the bytes and calls still live. */
static int stacks_show(struct seq_file *m, void *v)
{
	struct alloc_tag_stack *groups;
	int n, i;

	mutex_lock(&control_lock);
	codetag_lock_module_list(alloc_tag_cttype, true);
	n = collect_stacks(NULL, &groups);
	if (n >= 0) {
		seq_printf(m, "# %lu live allocations recorded, at most %u (records: %zu bytes); %lu not recorded\n",
			   READ_ONCE(nr_live), live_pool ? live_pool_size : stack_records,
			   live_pool ? live_pool_size * sizeof(*live_pool) +
			   (sizeof(*live_hash) << live_hash_bits) : 0,
			   READ_ONCE(nr_not_recorded));
		seq_puts(m, "# bytes calls file:line [module] func:function, per site\n#   bytes calls pid,... per stack, then its frames\n");
	}
	for (i = 0; i < n; i++)
		show_stack_entry(m, &groups[i],
				 !i || groups[i].tag != groups[i - 1].tag);
	codetag_lock_module_list(alloc_tag_cttype, false);
	mutex_unlock(&control_lock);
	kvfree(groups);
	return n < 0 ? n : 0;
}

static int stacks_open(struct inode *inode, struct file *file)
{
	return single_open(file, stacks_show, NULL);
}

static const struct file_operations stacks_fops = {
	.owner		= THIS_MODULE,
	.open		= stacks_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static const struct proc_ops stacks_proc_ops = {
	.proc_open	= stacks_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
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

/*
 * In /proc as well as debugfs, as dynamic debug does: under lockdown
 * debugfs refuses every file that has a write permission.
 */
static int __init alloc_tag_control_files(void)
{
	struct proc_dir_entry *proc_dir;
	struct dentry *dir;

	if (!alloc_tag_cttype)
		return 0;
	dir = debugfs_create_dir("alloc_tag", NULL);
	debugfs_create_file("control", 0600, dir, NULL, &control_fops);
	debugfs_create_file("stacks", 0400, dir, NULL, &stacks_fops);
	proc_dir = proc_mkdir("alloc_tag", NULL);
	if (!proc_dir ||
	    !proc_create("control", 0600, proc_dir, &control_proc_ops) ||
	    !proc_create("stacks", 0400, proc_dir, &stacks_proc_ops))
		pr_err("alloc_tag: cannot create /proc/alloc_tag/\n");
	return 0;
}
late_initcall(alloc_tag_control_files);
