// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of the allocation paths memory allocation profiling hooks.
 *
 * When loaded, the module times loops of kmalloc/kfree of 8 to 240 bytes,
 * of single-page and order-2 page allocations and of small vmalloc areas,
 * on one CPU, in the context of the task that loads it (so that a memory
 * cgroup it is in is charged with account=1), and logs one line per
 * measurement:
 *
 *   alloc_tag_bench: kmalloc ops 3000000 ns 1000000000 (333.33 ns/op)
 *
 * An op is one allocation and its free. The module builds with and
 * without CONFIG_MEM_ALLOC_PROFILING, also out of tree against a kernel
 * that has never heard of it, so that kernels with and without it run the
 * same code; make bench compares them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#ifdef CONFIG_MEM_ALLOC_PROFILING
#include <linux/alloc_tag.h>
#endif
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

static unsigned int ms = 1000;
module_param(ms, uint, 0444);
MODULE_PARM_DESC(ms, "Time each measurement for about this many milliseconds (default 1000)");

static unsigned int loops;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops, "Run exactly this many loops per measurement instead of timing for ms (default 0)");

static unsigned int repeat = 1;
module_param(repeat, uint, 0444);
MODULE_PARM_DESC(repeat, "Measure every test this many times, in turn (default 1)");

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "Run on this CPU (default -1: the one the loading task is on)");

static bool account;
module_param(account, bool, 0444);
MODULE_PARM_DESC(account, "Allocate with __GFP_ACCOUNT (default N)");

static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "Run only this test: kmalloc, page, order2 or vmalloc (default: all)");

#define KMALLOC_MIN	8
#define KMALLOC_MAX	240
#define KMALLOC_SIZES	(KMALLOC_MAX / KMALLOC_MIN)
#define PAGES_BATCH	16
#define ORDER2_BATCH	4
#define VMALLOC_PAGES	4
/* Loops between looks at the clock. */
#define CLOCK_EVERY	64

/* One of each size, then free them all: KMALLOC_SIZES ops. */
static int kmalloc_loop(gfp_t gfp)
{
	void *objs[KMALLOC_SIZES];
	int i, ret = 0;

	for (i = 0; i < KMALLOC_SIZES; i++)
		objs[i] = kmalloc(KMALLOC_MIN * (i + 1), gfp);
	for (i = 0; i < KMALLOC_SIZES; i++) {
		if (!objs[i])
			ret = -ENOMEM;
		kfree(objs[i]);
	}
	return ret;
}

/* @nr blocks of 2^@order pages, then free them all: @nr ops. */
static int pages_loop(gfp_t gfp, unsigned int order, unsigned int nr)
{
	struct page *pages[PAGES_BATCH];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < nr; i++)
		pages[i] = alloc_pages(gfp, order);
	for (i = 0; i < nr; i++) {
		if (pages[i])
			__free_pages(pages[i], order);
		else
			ret = -ENOMEM;
	}
	return ret;
}

static int page_loop(gfp_t gfp)
{
	return pages_loop(gfp, 0, PAGES_BATCH);
}

static int order2_loop(gfp_t gfp)
{
	return pages_loop(gfp, 2, ORDER2_BATCH);
}

static int vmalloc_loop(gfp_t gfp)
{
	void *p = __vmalloc(VMALLOC_PAGES * PAGE_SIZE, gfp);

	vfree(p);
	return p ? 0 : -ENOMEM;
}

struct bench_test {
	const char *name;
	int (*loop)(gfp_t gfp);
	unsigned int ops_per_loop;
};

static const struct bench_test tests[] = {
	{ "kmalloc", kmalloc_loop, KMALLOC_SIZES },
	{ "page", page_loop, PAGES_BATCH },
	{ "order2", order2_loop, ORDER2_BATCH },
	{ "vmalloc", vmalloc_loop, 1 },
};

static int bench_run(const struct bench_test *t, gfp_t gfp)
{
	u64 limit = (u64)ms * NSEC_PER_MSEC;
	u64 start, elapsed = 0, n = 0, ops, rem;
	int ret;

	start = ktime_get_ns();
	while (loops ? n < loops : elapsed < limit) {
		ret = t->loop(gfp);
		if (ret) {
			pr_err("%s: allocation failed\n", t->name);
			return ret;
		}
		if (++n % CLOCK_EVERY == 0) {
			cond_resched();
			elapsed = ktime_get_ns() - start;
		}
	}
	elapsed = ktime_get_ns() - start;
	ops = n * t->ops_per_loop;
	/* ns/op with two decimals, from integers. */
	rem = div64_u64(elapsed * 100, ops);
	pr_info("%s ops %llu ns %llu (%llu.%02llu ns/op)\n", t->name, ops,
		elapsed, div_u64(rem, 100), rem % 100);
	return 0;
}

static const char *profiling_state(void)
{
#ifdef CONFIG_MEM_ALLOC_PROFILING
	return mem_alloc_profiling_enabled() ? "enabled" : "disabled";
#else
	return "not built";
#endif
}

static int __init alloc_tag_bench_init(void)
{
	gfp_t gfp = GFP_KERNEL | (account ? __GFP_ACCOUNT : 0);
	cpumask_var_t saved;
	unsigned int r, i;
	int on_cpu, ret;

	if ((!ms && !loops) || !repeat)
		return -EINVAL;
	for (i = 0; only && i < ARRAY_SIZE(tests); i++)
		if (!strcmp(only, tests[i].name))
			break;
	if (i == ARRAY_SIZE(tests))
		return -EINVAL;
	if (cpu < -1 || cpu >= (int)nr_cpu_ids || (cpu >= 0 && !cpu_online(cpu)))
		return -EINVAL;
	if (!alloc_cpumask_var(&saved, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(saved, current->cpus_ptr);
	on_cpu = cpu < 0 ? raw_smp_processor_id() : cpu;
	ret = set_cpus_allowed_ptr(current, cpumask_of(on_cpu));
	if (ret)
		goto out;

	pr_info("cpu %d, profiling %s, %s\n", on_cpu, profiling_state(),
		account ? "__GFP_ACCOUNT" : "unaccounted");
	for (r = 0; r < repeat && !ret; r++)
		for (i = 0; i < ARRAY_SIZE(tests) && !ret; i++)
			if (!only || !strcmp(only, tests[i].name))
				ret = bench_run(&tests[i], gfp);
	if (!ret)
		pr_info("done\n");
	set_cpus_allowed_ptr(current, saved);
out:
	free_cpumask_var(saved);
	return ret;
}
module_init(alloc_tag_bench_init);

static void __exit alloc_tag_bench_exit(void)
{
}
module_exit(alloc_tag_bench_exit);

MODULE_DESCRIPTION("Benchmark of the allocation paths memory allocation profiling hooks");
MODULE_LICENSE("GPL");
