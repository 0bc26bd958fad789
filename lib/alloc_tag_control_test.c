// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the control of call sites (lib/alloc_tag_control.c): the
 * query language and its errors, and the flags p, f and s on a slab, a
 * page, a vmalloc and a percpu call site of this file.
 */
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>
#include <linux/vmalloc.h>

#include "../mm/slab.h"
#include "alloc_tag_test.h"

#define THIS_FILE	"alloc_tag_control_test.c"

/* One call site of each allocator family; lines learnt at suite init. */
static unsigned int kmalloc_line, pages_line, vmalloc_line, percpu_line;

static noinline void *kmalloc_site(void)
{
	void *p = kmalloc(64, GFP_KERNEL); kmalloc_line = __LINE__;

	return p;
}

static noinline struct page *pages_site(void)
{
	struct page *p = alloc_pages(GFP_KERNEL, 1); pages_line = __LINE__;

	return p;
}

static noinline void *vmalloc_site(void)
{
	void *p = vmalloc(3 * PAGE_SIZE); vmalloc_line = __LINE__;

	return p;
}

static noinline void __percpu *percpu_site(void)
{
	void __percpu *p = __alloc_percpu(32, 8); percpu_line = __LINE__;

	return p;
}

/* Not a *_site: the grammar test counts those. */
static noinline void *kmalloc_gfp(gfp_t gfp, unsigned int *line)
{
	void *p = kmalloc(64, gfp); *line = __LINE__;

	return p;
}

/* Runs control commands, formatted; returns what the control returns. */
static __printf(2, 3) int control(struct kunit *test, const char *fmt, ...)
{
	va_list args;
	char *cmds;
	int ret;

	va_start(args, fmt);
	cmds = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	KUNIT_ASSERT_NOT_NULL(test, cmds);
	ret = alloc_tag_control_exec(cmds, NULL);
	kfree(cmds);
	return ret;
}

static bool site_off(struct alloc_tag *tag)
{
	return READ_ONCE(tag->ct.flags) & ALLOC_TAG_FLAG_OFF;
}

/*
 * None of this file's sites has a flag. (Sites elsewhere may: the command
 * line can flag some, and then alloc_tag_control_active() is true.)
 */
static bool sites_default(struct kunit *test)
{
	const unsigned int lines[] = {
		kmalloc_line, pages_line, vmalloc_line, percpu_line,
	};
	unsigned int i, flags;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		flags = READ_ONCE(tag_at(test, lines[i])->ct.flags);
		if (flags & (ALLOC_TAG_FLAG_OFF | ALLOC_TAG_FLAG_FAIL |
			     ALLOC_TAG_FLAG_STACKS))
			return false;
	}
	return true;
}

static void expect_counters(struct kunit *test, struct alloc_tag *tag,
			    struct alloc_tag_counters want)
{
	expect_charged(test, tag, want.bytes, want.calls);
}

/* A site of each family, its allocation as a plain pointer. */
struct family {
	void *(*alloc)(void);
	void (*free)(const void *p);
	unsigned int *line;
};

static void *pages_alloc(void)
{
	return pages_site();
}

static void pages_free(const void *p)
{
	__free_pages((struct page *)p, 1);
}

static void *percpu_alloc(void)
{
	return (void __force *)percpu_site();
}

static void percpu_free(const void *p)
{
	free_percpu((void __percpu __force *)p);
}

static const struct family kmalloc_family = {
	kmalloc_site, kfree, &kmalloc_line,
};

static const struct family pages_family = {
	pages_alloc, pages_free, &pages_line,
};

static const struct family vmalloc_family = {
	vmalloc_site, vfree, &vmalloc_line,
};

static const struct family percpu_family = {
	percpu_alloc, percpu_free, &percpu_line,
};

/*
 * One family's site: charged while on; switched off, a new allocation is
 * not charged and the earlier one is still uncharged when freed; back on,
 * charged again.
 */
static void check_switch_off(struct kunit *test, const struct family *f,
			     u64 bytes, u64 calls)
{
	struct alloc_tag_counters one = { bytes, calls }, zero = { 0, 0 };
	struct alloc_tag *tag;
	void *a, *b;

	a = f->alloc();
	KUNIT_ASSERT_NOT_NULL(test, a);
	tag = tag_at(test, *f->line);
	expect_counters(test, tag, one);
	KUNIT_EXPECT_EQ(test, control(test, "file " THIS_FILE " line %u -p",
				      *f->line), 1);
	KUNIT_EXPECT_TRUE(test, site_off(tag));
	b = f->alloc();
	KUNIT_ASSERT_NOT_NULL(test, b);
	expect_counters(test, tag, one);
	f->free(a);
	expect_counters(test, tag, zero);
	f->free(b);
	expect_counters(test, tag, zero);
	KUNIT_EXPECT_EQ(test, control(test, "file " THIS_FILE " line %u +p",
				      *f->line), 1);
	KUNIT_EXPECT_FALSE(test, site_off(tag));
	a = f->alloc();
	KUNIT_ASSERT_NOT_NULL(test, a);
	expect_counters(test, tag, one);
	f->free(a);
	expect_counters(test, tag, zero);
}

static void test_switch_off(struct kunit *test)
{
	size_t page_array = 3 * sizeof(struct page *);

	check_switch_off(test, &kmalloc_family,
			 kmalloc_slab(64, GFP_KERNEL)->size, 1);
	check_switch_off(test, &pages_family, 2 * PAGE_SIZE, 1);
	check_switch_off(test, &percpu_family, 32 * num_possible_cpus(), 1);
	/* Three pages, one call each, and the kmalloc'ed array of them. */
	check_switch_off(test, &vmalloc_family,
			 3 * PAGE_SIZE + kmalloc_slab(page_array, GFP_KERNEL)->size,
			 4);
	KUNIT_EXPECT_TRUE(test, sites_default(test));
}

/*
 * Which of @n calls of @f's site fail, as a bit mask (call 1 is bit 0);
 * what did not fail is freed.
 */
static unsigned long failed_calls(const struct family *f, unsigned int n)
{
	unsigned long mask = 0;
	unsigned int i;
	void *p;

	for (i = 0; i < n; i++) {
		p = f->alloc();
		if (p)
			f->free(p);
		else
			mask |= BIT(i);
	}
	return mask;
}

/*
 * Exactly the calls the fault attributes say fail, at each family's
 * site; charges stay exact; the flag goes with -f.
 */
static void test_fail(struct kunit *test)
{
	const unsigned long pages_size = 2 * PAGE_SIZE;
	unsigned int line;
	void *p;

	/* Every third call, twice: calls 3 and 6. */
	KUNIT_EXPECT_EQ(test, control(test, "func kmalloc_site +f interval 3 times 2"), 1);
	KUNIT_EXPECT_TRUE(test, alloc_tag_control_active());
	KUNIT_EXPECT_EQ(test, failed_calls(&kmalloc_family, 10),
			BIT(2) | BIT(5));
	expect_charged(test, tag_at(test, kmalloc_line), 0, 0);
	/* The space of two calls and a bit: the third fails, once. */
	KUNIT_EXPECT_EQ(test, control(test, "func pages_site +f space %lu times 1",
				      5 * pages_size / 2), 1);
	KUNIT_EXPECT_EQ(test, failed_calls(&pages_family, 6),
			BIT(2));
	expect_charged(test, tag_at(test, pages_line), 0, 0);
	/* Never, then every call, then the first two. */
	KUNIT_EXPECT_EQ(test, control(test, "func vmalloc_site +f probability 0"), 1);
	KUNIT_EXPECT_EQ(test, failed_calls(&vmalloc_family, 5), 0);
	KUNIT_EXPECT_EQ(test, control(test, "func vmalloc_site =pf probability 100"), 1);
	KUNIT_EXPECT_EQ(test, failed_calls(&vmalloc_family, 5), 0x1f);
	expect_charged(test, tag_at(test, vmalloc_line), 0, 0);
	KUNIT_EXPECT_EQ(test, control(test, "func percpu_site +f times 2"), 1);
	KUNIT_EXPECT_EQ(test, failed_calls(&percpu_family, 5),
			BIT(0) | BIT(1));
	expect_charged(test, tag_at(test, percpu_line), 0, 0);
	/* __GFP_NOFAIL is never failed. */
	kfree(kmalloc_gfp(GFP_KERNEL, &line));
	KUNIT_EXPECT_EQ(test, control(test, "func kmalloc_gfp line %u +f", line), 1);
	KUNIT_EXPECT_NULL(test, kmalloc_gfp(GFP_KERNEL, &line));
	p = kmalloc_gfp(GFP_KERNEL | __GFP_NOFAIL, &line);
	KUNIT_EXPECT_NOT_NULL(test, p);
	kfree(p);
	/* Failing and not profiled: =f. */
	KUNIT_EXPECT_EQ(test, control(test, "func kmalloc_gfp =f"), 1);
	KUNIT_EXPECT_TRUE(test, site_off(tag_at(test, line)));
	KUNIT_EXPECT_EQ(test, control(test, "func *_site -f; func kmalloc_gfp =p"), 5);
	KUNIT_EXPECT_TRUE(test, sites_default(test));
	KUNIT_EXPECT_EQ(test, failed_calls(&kmalloc_family, 3), 0);
}

/* Not a *_site either. */
static noinline void *kmalloc_racing(void)
{
	return kmalloc(64, GFP_KERNEL | __GFP_NOWARN);
}

#define SPACE_ROUNDS	1000
#define SPACE_TRIES	4

/* Two threads, each on its CPU, allocate at one site at once. */
struct space_racer {
	struct task_struct *task;
	unsigned int passed;
};

static atomic_t space_round, space_arrived, space_done;
static DECLARE_WAIT_QUEUE_HEAD(space_start);
static DECLARE_WAIT_QUEUE_HEAD(space_finish);

static int space_racer_fn(void *data)
{
	struct space_racer *r = data;
	void *p[SPACE_TRIES];
	int round = 0, i;

	for (;;) {
		wait_event(space_start, atomic_read(&space_round) != round ||
			   kthread_should_stop());
		if (kthread_should_stop())
			return 0;
		round++;
		/* Both start together: the space's last bytes are raced for. */
		atomic_inc(&space_arrived);
		while (atomic_read(&space_arrived) < 2 * round)
			cpu_relax();
		for (i = 0; i < SPACE_TRIES; i++)
			p[i] = kmalloc_racing();
		for (i = 0; i < SPACE_TRIES; i++) {
			r->passed += !!p[i];
			kfree(p[i]);
		}
		atomic_inc(&space_done);
		wake_up(&space_finish);
	}
}

/*
 * The attribute space, raced for by two CPUs: in every round exactly as
 * many allocations pass as the space holds, never more.
 */
static void test_fail_space_race(struct kunit *test)
{
	struct space_racer racers[2] = {};
	unsigned int round, i, bad = 0, passed;
	/* One call fits, raced for by both first calls: a call asks for its object. */
	unsigned int space = kmalloc_slab(64, GFP_KERNEL)->object_size + 1;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	atomic_set(&space_round, 0);
	atomic_set(&space_arrived, 0);
	for (i = 0; i < 2; i++) {
		racers[i].task = kthread_create(space_racer_fn, &racers[i],
						"space_racer/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(racers[i].task));
		kthread_bind(racers[i].task, cpumask_nth(i, cpu_online_mask));
		wake_up_process(racers[i].task);
	}
	for (round = 1; round <= SPACE_ROUNDS; round++) {
		KUNIT_ASSERT_EQ(test, control(test, "func kmalloc_racing +f space %u",
					      space), 1);
		racers[0].passed = 0;
		racers[1].passed = 0;
		atomic_set(&space_done, 0);
		atomic_set(&space_round, round);
		wake_up_all(&space_start);
		wait_event(space_finish, atomic_read(&space_done) == 2);
		passed = racers[0].passed + racers[1].passed;
		if (passed != 1 && !bad++)
			kunit_info(test, "round %u: %u allocations passed, 1 fits\n",
				   round, passed);
	}
	for (i = 0; i < 2; i++)
		kthread_stop(racers[i].task);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, control(test, "func kmalloc_racing -f"), 1);
}

/* Two callers of each site: stacks tell them apart. */
static noinline void alloc_from_one(const struct family *f, void **p)
{
	p[0] = f->alloc();
	barrier();
}

static noinline void alloc_from_two(const struct family *f, void **p)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		p[i] = f->alloc();
	barrier();
}

/* The bytes and calls of @stacks whose stack passes through @caller. */
static struct alloc_tag_counters caller_counters(struct alloc_tag_stack *stacks,
						 int n, const char *caller)
{
	struct alloc_tag_counters c = { 0, 0 };
	char sym[KSYM_SYMBOL_LEN];
	unsigned long *entries;
	unsigned int i, j, nr;
	size_t len = strlen(caller);

	for (i = 0; i < n; i++) {
		nr = stack_depot_fetch(stacks[i].stack, &entries);
		for (j = 0; j < nr; j++) {
			sprint_symbol_no_offset(sym, entries[j]);
			/* GCC may have cloned it: caller.constprop.0 */
			if (!strncmp(sym, caller, len) &&
			    (!sym[len] || sym[len] == '.'))
				break;
		}
		if (j < nr) {
			c.bytes += stacks[i].bytes;
			c.calls += stacks[i].calls;
		}
	}
	return c;
}

/*
 * One family's site flagged s, allocated at from two callers (once and
 * twice, @one being one allocation's charge): the stacks split the site's
 * charge by caller exactly; frees leave the stacks; -s drops them.
 */
static void check_stacks(struct kunit *test, const struct family *f,
			 struct alloc_tag_counters one)
{
	struct alloc_tag *tag = tag_at(test, *f->line);
	struct alloc_tag_counters c;
	struct alloc_tag_stack *stacks;
	void *p[3];
	int n, i;

	KUNIT_EXPECT_EQ(test, control(test, "file " THIS_FILE " line %u +s",
				      *f->line), 1);
	alloc_from_one(f, p);
	alloc_from_two(f, p + 1);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	expect_charged(test, tag, 3 * one.bytes, 3 * one.calls);
	n = alloc_tag_stacks_of(tag, &stacks);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_EXPECT_EQ(test, stacks[0].site_bytes, 3 * one.bytes);
	KUNIT_EXPECT_EQ(test, stacks[0].site_calls, 3 * one.calls);
	KUNIT_EXPECT_EQ(test, stacks[0].pids[0], task_pid_nr(current));
	KUNIT_EXPECT_EQ(test, stacks[0].nr_pids, 1);
	c = caller_counters(stacks, n, "alloc_from_one");
	KUNIT_EXPECT_EQ(test, c.bytes, one.bytes);
	KUNIT_EXPECT_EQ(test, c.calls, one.calls);
	c = caller_counters(stacks, n, "alloc_from_two");
	KUNIT_EXPECT_EQ(test, c.bytes, 2 * one.bytes);
	KUNIT_EXPECT_EQ(test, c.calls, 2 * one.calls);
	/* Largest first. */
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_GE(test, stacks[i - 1].bytes, stacks[i].bytes);
	kvfree(stacks);

	f->free(p[1]);
	n = alloc_tag_stacks_of(tag, &stacks);
	KUNIT_ASSERT_GT(test, n, 0);
	c = caller_counters(stacks, n, "alloc_from_two");
	KUNIT_EXPECT_EQ(test, c.bytes, one.bytes);
	KUNIT_EXPECT_EQ(test, c.calls, one.calls);
	KUNIT_EXPECT_EQ(test, stacks[0].site_bytes, 2 * one.bytes);
	kvfree(stacks);

	KUNIT_EXPECT_EQ(test, control(test, "file " THIS_FILE " line %u -s",
				      *f->line), 1);
	KUNIT_EXPECT_EQ(test, alloc_tag_stacks_of(tag, &stacks), 0);
	kvfree(stacks);
	f->free(p[0]);
	f->free(p[2]);
	expect_charged(test, tag, 0, 0);
}

/* Flag s on each family's site; a split page keeps its stack per page. */
static void test_stacks(struct kunit *test)
{
	size_t page_array = 3 * sizeof(struct page *);
	struct alloc_tag_stack *stacks;
	struct alloc_tag *tag;
	struct page *page;
	int n;

	check_stacks(test, &kmalloc_family,
		     (struct alloc_tag_counters){ kmalloc_slab(64, GFP_KERNEL)->size, 1 });
	check_stacks(test, &pages_family,
		     (struct alloc_tag_counters){ 2 * PAGE_SIZE, 1 });
	check_stacks(test, &percpu_family,
		     (struct alloc_tag_counters){ 32 * num_possible_cpus(), 1 });
	check_stacks(test, &vmalloc_family,
		     (struct alloc_tag_counters){
			3 * PAGE_SIZE + kmalloc_slab(page_array, GFP_KERNEL)->size,
			4 });

	tag = tag_at(test, pages_line);
	KUNIT_EXPECT_EQ(test, control(test, "func pages_site +s"), 1);
	page = pages_site();
	KUNIT_ASSERT_NOT_NULL(test, page);
	split_page(page, 1);
	n = alloc_tag_stacks_of(tag, &stacks);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, stacks[0].bytes, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, stacks[0].calls, 2);
	kvfree(stacks);
	__free_page(page);
	n = alloc_tag_stacks_of(tag, &stacks);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, stacks[0].bytes, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, stacks[0].calls, 1);
	kvfree(stacks);
	__free_page(page + 1);
	KUNIT_EXPECT_EQ(test, alloc_tag_stacks_of(tag, &stacks), 0);
	kvfree(stacks);
	expect_charged(test, tag, 0, 0);
	KUNIT_EXPECT_EQ(test, control(test, "func pages_site -s"), 1);
	KUNIT_EXPECT_TRUE(test, sites_default(test));
}

/* The four sites of this file, selected in each way the grammar has. */
static void test_grammar(struct kunit *test)
{
	unsigned int first = kmalloc_line, last = percpu_line;

	KUNIT_EXPECT_EQ(test, control(test, "func kmalloc_site -p"), 1);
	KUNIT_EXPECT_TRUE(test, site_off(tag_at(test, kmalloc_line)));
	KUNIT_EXPECT_EQ(test, control(test, "func kmalloc_site =p"), 1);
	KUNIT_EXPECT_FALSE(test, site_off(tag_at(test, kmalloc_line)));
	/* Wildcards, full path or base name, quotes, ranges. */
	KUNIT_EXPECT_EQ(test, control(test, "file lib/" THIS_FILE " func *_site line %u-%u =p",
				      first, last), 4);
	KUNIT_EXPECT_EQ(test, control(test, "file '" THIS_FILE "' func \"*_s?te\" line %u- +p",
				      first), 4);
	KUNIT_EXPECT_EQ(test, control(test, "file alloc_tag_control_te*.c line -%u func *_site +p",
				      last), 4);
	/* Several commands, comments and blank lines. */
	KUNIT_EXPECT_EQ(test, control(test, "# a comment\n\nfunc pages_site -p ; %s\n;\n",
				      "func vmalloc_site -p # off"), 2);
	KUNIT_EXPECT_TRUE(test, site_off(tag_at(test, pages_line)));
	KUNIT_EXPECT_TRUE(test, site_off(tag_at(test, vmalloc_line)));
	KUNIT_EXPECT_FALSE(test, site_off(tag_at(test, percpu_line)));
	KUNIT_EXPECT_EQ(test, control(test, "func pages_site =_\nfunc vmalloc_site line %u +p",
				      vmalloc_line), 2);
	KUNIT_EXPECT_TRUE(test, site_off(tag_at(test, pages_line)));
	KUNIT_EXPECT_FALSE(test, site_off(tag_at(test, vmalloc_line)));
	KUNIT_EXPECT_EQ(test, control(test, "func pages_site +p"), 1);
	/* Nothing matched is no error: nothing changed. */
	KUNIT_EXPECT_EQ(test, control(test, "func no_such_function_here -p"), 0);
	KUNIT_EXPECT_EQ(test, control(test, "# only a comment"), 0);
	KUNIT_EXPECT_EQ(test, control(test, "%s", ""), 0);
	KUNIT_EXPECT_TRUE(test, sites_default(test));
	/* No flag anywhere: the allocation paths do not look. */
	if (!strstr(saved_command_line, "alloc_tag.control="))
		KUNIT_EXPECT_FALSE(test, alloc_tag_control_active());
}

/* Each bad command: -EINVAL, and not one site of the write changed. */
static void test_errors(struct kunit *test)
{
	static const char * const bad[] = {
		"flie " THIS_FILE " -p",		/* unknown keyword */
		"file " THIS_FILE,			/* no flags */
		"file " THIS_FILE " +",			/* no flag */
		"file " THIS_FILE " -x",		/* unknown flag */
		"file " THIS_FILE " =p_",		/* '_' only alone */
		"file " THIS_FILE " -p probability 1",	/* attributes need f */
		"file " THIS_FILE " +f probability",	/* no value */
		"file " THIS_FILE " +f probability 101",
		"file " THIS_FILE " +f interval 0",
		"file " THIS_FILE " +f times -2",
		"file " THIS_FILE " +f space x",
		"file " THIS_FILE " +f times 1 times 2",
		"file " THIS_FILE " +f chance 5",	/* no such attribute */
		"file",					/* no value */
		"file a file b -p",			/* a term twice */
		"line 0 -p",				/* lines count from 1 */
		"line 9-3 -p",
		"line x -p",
		"line 1-2-3 -p",
		"line 99999999999 -p",
		"file " THIS_FILE " line 100000 -p",	/* beyond the file */
		"file 'unclosed -p",
		"file 'a'b -p",
		"module a_module_name_longer_than_any_module_name_on_any_architecture -p",
		"func kmalloc_site -p; junk",		/* the first is not applied */
		"func kmalloc_site -p\nfile",
	};
	const size_t junk_size = 64 * 1024;
	unsigned int i;
	char *junk;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, control(test, "%s", bad[i]), -EINVAL,
				    "'%s'", bad[i]);
		KUNIT_EXPECT_TRUE_MSG(test, sites_default(test), "'%s'",
				      bad[i]);
	}
	/* 64 KiB of junk: one word too many, or an unknown keyword. */
	junk = kvmalloc(junk_size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, junk);
	for (i = 0; i < junk_size; i++)
		junk[i] = "jk -\n#;'x"[i % 10];
	junk[junk_size] = '\0';
	KUNIT_EXPECT_EQ(test, alloc_tag_control_exec(junk, NULL), -EINVAL);
	memset(junk, 'j', junk_size);
	KUNIT_EXPECT_EQ(test, alloc_tag_control_exec(junk, NULL), -EINVAL);
	kvfree(junk);
	KUNIT_EXPECT_TRUE(test, sites_default(test));
}

/* A module parameter's commands apply to the module's sites only. */
static void test_module_param(struct kunit *test)
{
	char cmds[] = "module other_module -p";

	KUNIT_EXPECT_EQ(test, alloc_tag_control_exec(cmds, "this_module"),
			-EINVAL);
}

static int control_suite_init(struct kunit_suite *suite)
{
	struct page *page = pages_site();

	if (page)
		__free_pages(page, 1);
	kfree(kmalloc_site());
	vfree(vmalloc_site());
	free_percpu(percpu_site());
	return 0;
}

static struct kunit_case alloc_tag_control_test_cases[] = {
	KUNIT_CASE(test_switch_off),
	KUNIT_CASE(test_grammar),
	KUNIT_CASE(test_fail),
	KUNIT_CASE(test_fail_space_race),
	KUNIT_CASE(test_stacks),
	KUNIT_CASE(test_errors),
	KUNIT_CASE(test_module_param),
	{}
};

static struct kunit_suite alloc_tag_control_test_suite = {
	.name = "alloc_tag_control",
	.suite_init = control_suite_init,
	.init = alloc_tag_test_init,
	.test_cases = alloc_tag_control_test_cases,
};

kunit_test_suite(alloc_tag_control_test_suite);

MODULE_LICENSE("GPL");
