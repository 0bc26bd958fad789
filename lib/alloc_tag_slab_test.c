// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for slab and vmalloc profiling: every kmalloc, kmem_cache,
 * kvmalloc, vmalloc and string/memdup entry point charges the line that
 * called it with the object size of the cache that serves it (or the
 * pages of a large kmalloc or of a vmalloc'ed area), and every way of
 * freeing uncharges exactly that.
 *
 * Each allocation is made on a line of its own, which records __LINE__ on
 * the same line; the test then finds that line's tag.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kfence.h>
#include <linux/kthread.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/radix-tree.h>
#include <linux/rcupdate.h>
#include <linux/rhashtable.h>
#include <linux/sched/mm.h>
#include <linux/set_memory.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "../mm/slab.h"
#include "alloc_tag_test.h"

/* What a kmalloc of @size costs: the object size of the cache serving it. */
static u64 kmalloc_bytes(size_t size)
{
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return PAGE_SIZE << get_order(size);
	return kmalloc_slab(size, GFP_KERNEL)->size;
}

/* Keeps sizes from being compile-time constants: the __kmalloc path. */
static size_t __no_const(size_t size)
{
	return READ_ONCE(size);
}

static void test_kmalloc(struct kunit *test)
{
	void *a, *b, *c, *d;
	unsigned int la, lb, lc, ld;

	a = kmalloc(100, GFP_KERNEL); la = __LINE__;
	b = kmalloc(__no_const(100), GFP_KERNEL); lb = __LINE__;
	c = kmalloc_node(700, GFP_KERNEL, NUMA_NO_NODE); lc = __LINE__;
	d = kmalloc_node(__no_const(700), GFP_KERNEL, numa_mem_id()); ld = __LINE__;
	KUNIT_ASSERT_TRUE(test, a && b && c && d);
	expect_charged(test, tag_at(test, la), kmalloc_bytes(100), 1);
	expect_charged(test, tag_at(test, lb), kmalloc_bytes(100), 1);
	expect_charged(test, tag_at(test, lc), kmalloc_bytes(700), 1);
	expect_charged(test, tag_at(test, ld), kmalloc_bytes(700), 1);
	kfree(a);
	kfree(b);
	kfree(c);
	kfree(d);
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), 0, 0);
	expect_charged(test, tag_at(test, lc), 0, 0);
	expect_charged(test, tag_at(test, ld), 0, 0);
}

static void test_kzalloc_kcalloc(struct kunit *test)
{
	void *p[7];
	unsigned int l[7];
	u64 want[7];
	int i;

	p[0] = kzalloc(24, GFP_KERNEL); l[0] = __LINE__;
	p[1] = kzalloc_node(__no_const(40), GFP_KERNEL, NUMA_NO_NODE); l[1] = __LINE__;
	p[2] = kcalloc(10, 12, GFP_KERNEL); l[2] = __LINE__;
	p[3] = kcalloc_node(__no_const(5), 50, GFP_KERNEL, numa_mem_id()); l[3] = __LINE__;
	p[4] = kmalloc_array(__no_const(3), 100, GFP_KERNEL); l[4] = __LINE__;
	p[5] = kmalloc_array_node(8, 8, GFP_KERNEL, NUMA_NO_NODE); l[5] = __LINE__;
	p[6] = kmalloc_track_caller(300, GFP_KERNEL); l[6] = __LINE__;
	want[0] = kmalloc_bytes(24);
	want[1] = kmalloc_bytes(40);
	want[2] = kmalloc_bytes(120);
	want[3] = kmalloc_bytes(250);
	want[4] = kmalloc_bytes(300);
	want[5] = kmalloc_bytes(64);
	want[6] = kmalloc_bytes(300);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		expect_charged(test, tag_at(test, l[i]), want[i], 1);
	}
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p[2], 0, 120));
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		kfree(p[i]);
		expect_charged(test, tag_at(test, l[i]), 0, 0);
	}
}

static void test_kmalloc_node_track_caller(struct kunit *test)
{
	unsigned int line;
	void *p;

	p = kmalloc_node_track_caller(64, GFP_KERNEL, NUMA_NO_NODE); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_charged(test, tag_at(test, line), kmalloc_bytes(64), 1);
	kfree(p);
	expect_charged(test, tag_at(test, line), 0, 0);
}

/* Larger than the largest kmalloc cache: pages, charged once, here. */
static void test_kmalloc_large(struct kunit *test)
{
	size_t size = 3 * PAGE_SIZE;
	void *a, *b, *c;
	unsigned int la, lb, lc;

	a = kmalloc(3 * PAGE_SIZE, GFP_KERNEL); la = __LINE__;
	b = kmalloc(__no_const(size), GFP_KERNEL); lb = __LINE__;
	c = kmalloc_node(__no_const(5 * PAGE_SIZE), GFP_KERNEL, NUMA_NO_NODE); lc = __LINE__;
	KUNIT_ASSERT_TRUE(test, a && b && c);
	expect_charged(test, tag_at(test, la), 4 * PAGE_SIZE, 1);
	expect_charged(test, tag_at(test, lb), 4 * PAGE_SIZE, 1);
	expect_charged(test, tag_at(test, lc), 8 * PAGE_SIZE, 1);
	kfree(a);
	kfree(b);
	kfree(c);
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), 0, 0);
	expect_charged(test, tag_at(test, lc), 0, 0);
}

static void test_kmem_cache(struct kunit *test)
{
	struct kmem_cache *s;
	void *p[4];
	unsigned int l[4];
	int i;

	s = kmem_cache_create("alloc_tag_test", 200, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	p[0] = kmem_cache_alloc(s, GFP_KERNEL); l[0] = __LINE__;
	p[1] = kmem_cache_zalloc(s, GFP_KERNEL); l[1] = __LINE__;
	p[2] = kmem_cache_alloc_node(s, GFP_KERNEL, NUMA_NO_NODE); l[2] = __LINE__;
	p[3] = kmem_cache_alloc_lru(s, NULL, GFP_KERNEL); l[3] = __LINE__;
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		expect_charged(test, tag_at(test, l[i]), s->size, 1);
	}
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p[1], 0, 200));
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		kmem_cache_free(s, p[i]);
		expect_charged(test, tag_at(test, l[i]), 0, 0);
	}
	kmem_cache_destroy(s);
}

static void test_bulk(struct kunit *test)
{
	struct kmem_cache *s;
	void *objs[40], *kobjs[3];
	unsigned int line, lk[3];
	int n;

	s = kmem_cache_create("alloc_tag_test_bulk", 72, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	n = kmem_cache_alloc_bulk(s, GFP_KERNEL, ARRAY_SIZE(objs), objs); line = __LINE__;
	KUNIT_ASSERT_EQ(test, n, (int)ARRAY_SIZE(objs));
	expect_charged(test, tag_at(test, line), ARRAY_SIZE(objs) * s->size,
		       ARRAY_SIZE(objs));
	kmem_cache_free_bulk(s, 10, objs);
	expect_charged(test, tag_at(test, line), 30 * s->size, 30);
	kmem_cache_free_bulk(s, 30, objs + 10);
	expect_charged(test, tag_at(test, line), 0, 0);
	kmem_cache_destroy(s);

	kobjs[0] = kmalloc(16, GFP_KERNEL); lk[0] = __LINE__;
	kobjs[1] = kmalloc(3 * PAGE_SIZE, GFP_KERNEL); lk[1] = __LINE__;
	kobjs[2] = kmalloc(500, GFP_KERNEL); lk[2] = __LINE__;
	KUNIT_ASSERT_TRUE(test, kobjs[0] && kobjs[1] && kobjs[2]);
	kfree_bulk(ARRAY_SIZE(kobjs), kobjs);
	expect_charged(test, tag_at(test, lk[0]), 0, 0);
	expect_charged(test, tag_at(test, lk[1]), 0, 0);
	expect_charged(test, tag_at(test, lk[2]), 0, 0);
}

/* krealloc() leaves the memory charged to its caller, moved or not. */
static void test_krealloc(struct kunit *test)
{
	unsigned int la, lb, lc, ld, le, lf;
	void *p, *q;

	p = kmalloc(64, GFP_KERNEL); la = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, p);
	q = krealloc(p, 40, GFP_KERNEL); lb = __LINE__;
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), kmalloc_bytes(64), 1);

	p = krealloc(q, 1000, GFP_KERNEL); lc = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_charged(test, tag_at(test, lb), 0, 0);
	expect_charged(test, tag_at(test, lc), kmalloc_bytes(1000), 1);

	q = krealloc(p, 3 * PAGE_SIZE, GFP_KERNEL); ld = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, q);
	expect_charged(test, tag_at(test, lc), 0, 0);
	expect_charged(test, tag_at(test, ld), 4 * PAGE_SIZE, 1);

	p = krealloc_array(q, 2, 2 * PAGE_SIZE - 16, GFP_KERNEL); le = __LINE__;
	KUNIT_ASSERT_PTR_EQ(test, p, q);
	expect_charged(test, tag_at(test, ld), 0, 0);
	expect_charged(test, tag_at(test, le), 4 * PAGE_SIZE, 1);
	kfree(p);
	expect_charged(test, tag_at(test, le), 0, 0);

	p = krealloc(NULL, 200, GFP_KERNEL); lf = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_charged(test, tag_at(test, lf), kmalloc_bytes(200), 1);
	KUNIT_EXPECT_PTR_EQ(test, krealloc(p, 0, GFP_KERNEL), ZERO_SIZE_PTR);
	expect_charged(test, tag_at(test, lf), 0, 0);
}

#define UNPROFILED	32

/*
 * An object allocated while profiling was off, on a slab that got no
 * vector then, and resized in place once it is on: the resize gives the
 * slab its vector and charges the object to the resizing line.
 */
static void test_krealloc_unprofiled_slab(struct kunit *test)
{
	void *objs[UNPROFILED], *p = NULL, *q;
	struct slab *slab = NULL;
	unsigned int line, i;

	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		kunit_skip(test, "DEBUG pins the profiling state");

	/* 8 KiB objects, 4 to a slab: some slabs are new, without vector. */
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(false), 0);
	for (i = 0; i < UNPROFILED; i++)
		objs[i] = kmalloc(5000, GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(true), 0);
	for (i = 0; i < UNPROFILED && !p; i++) {
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		slab = virt_to_slab(objs[i]);
		/* A KFENCE object is never resized in place. */
		if (!slab_obj_exts(slab) && !is_kfence_address(objs[i]))
			p = objs[i];
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, p, "every slab had a vector");

	q = krealloc(p, 6000, GFP_KERNEL); line = __LINE__;
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	KUNIT_EXPECT_NOT_NULL(test, slab_obj_exts(slab));
	expect_charged(test, tag_at(test, line), kmalloc_bytes(5000), 1);
	for (i = 0; i < UNPROFILED; i++)
		kfree(objs[i]);
	expect_charged(test, tag_at(test, line), 0, 0);
}

struct rcu_obj {
	struct rcu_head rcu;
	char data[100];
};

/*
 * Frees deferred to a grace period or to a work item: polls the tag until
 * they have run, for at most 30 s.
 */
static void wait_uncharged(struct kunit *test, unsigned int line)
{
	struct alloc_tag *tag = tag_at(test, line);
	unsigned long timeout = jiffies + 30 * HZ;

	while (alloc_tag_read(tag).calls && time_before(jiffies, timeout)) {
		rcu_barrier();
		msleep(20);
	}
	expect_charged(test, tag, 0, 0);
}

static void test_kfree_rcu(struct kunit *test)
{
	struct rcu_obj *a;
	unsigned int la, lb;
	void *b;

	a = kmalloc(sizeof(*a), GFP_KERNEL); la = __LINE__;
	b = kvmalloc(300, GFP_KERNEL); lb = __LINE__;
	KUNIT_ASSERT_TRUE(test, a && b);
	expect_charged(test, tag_at(test, la), kmalloc_bytes(sizeof(*a)), 1);
	expect_charged(test, tag_at(test, lb), kmalloc_bytes(300), 1);
	kfree_rcu(a, rcu);
	kvfree_rcu(b);
	wait_uncharged(test, la);
	wait_uncharged(test, lb);
}

/*
 * What a vmalloc'ed area of @nr pages charges its caller: each page as
 * one call, and the array of their struct page pointers, a kmalloc or,
 * when larger than a page, a vmalloc'ed area of its own.
 */
static void vmalloc_charge(unsigned long nr, u64 *bytes, u64 *calls)
{
	size_t array = nr * sizeof(struct page *);

	*bytes += nr * PAGE_SIZE;
	*calls += nr;
	if (array > PAGE_SIZE) {
		vmalloc_charge(PAGE_ALIGN(array) >> PAGE_SHIFT, bytes, calls);
	} else {
		*bytes += kmalloc_bytes(array);
		*calls += 1;
	}
}

static void expect_vmalloc_charged(struct kunit *test, struct alloc_tag *tag,
				   unsigned long nr)
{
	u64 bytes = 0, calls = 0;

	vmalloc_charge(nr, &bytes, &calls);
	expect_charged(test, tag, bytes, calls);
}

/* Half again the largest block the page allocator has (6 MiB on x86). */
#define VM_SIZE		(3 * (PAGE_SIZE << (MAX_ORDER - 1)) / 2)
#define VM_PAGES	(VM_SIZE >> PAGE_SHIFT)

static void test_kvmalloc(struct kunit *test)
{
	void *p[7];
	unsigned int l[7];
	int i;

	p[0] = kvmalloc(100, GFP_KERNEL); l[0] = __LINE__;
	p[1] = kvzalloc(__no_const(2000), GFP_KERNEL); l[1] = __LINE__;
	p[2] = kvmalloc_node(300, GFP_KERNEL, NUMA_NO_NODE); l[2] = __LINE__;
	p[3] = kvzalloc_node(3 * PAGE_SIZE, GFP_KERNEL, NUMA_NO_NODE); l[3] = __LINE__;
	p[4] = kvmalloc_array(10, 10, GFP_KERNEL); l[4] = __LINE__;
	p[5] = kvcalloc(__no_const(4), 64, GFP_KERNEL); l[5] = __LINE__;
	/* Too large for kmalloc: the vmalloc path. */
	p[6] = kvmalloc(VM_SIZE, GFP_KERNEL); l[6] = __LINE__;
	for (i = 0; i < ARRAY_SIZE(p); i++)
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	KUNIT_EXPECT_FALSE(test, is_vmalloc_addr(p[3]));
	KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(p[6]));
	expect_charged(test, tag_at(test, l[0]), kmalloc_bytes(100), 1);
	expect_charged(test, tag_at(test, l[1]), kmalloc_bytes(2000), 1);
	expect_charged(test, tag_at(test, l[2]), kmalloc_bytes(300), 1);
	expect_charged(test, tag_at(test, l[3]), 4 * PAGE_SIZE, 1);
	expect_charged(test, tag_at(test, l[4]), kmalloc_bytes(100), 1);
	expect_charged(test, tag_at(test, l[5]), kmalloc_bytes(256), 1);
	expect_vmalloc_charged(test, tag_at(test, l[6]), VM_PAGES);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		kvfree(p[i]);
		expect_charged(test, tag_at(test, l[i]), 0, 0);
	}
}

static void test_kvrealloc(struct kunit *test)
{
	unsigned int la, lb, lc, ld;
	void *p, *q;

	p = kvmalloc(100, GFP_KERNEL); la = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, p);
	q = kvrealloc(p, 100, 1500, GFP_KERNEL); lb = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, q);
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), kmalloc_bytes(1500), 1);

	p = kvrealloc(q, 1500, 1000, GFP_KERNEL); lc = __LINE__;
	KUNIT_ASSERT_PTR_EQ(test, p, q);
	expect_charged(test, tag_at(test, lb), 0, 0);
	expect_charged(test, tag_at(test, lc), kmalloc_bytes(1500), 1);

	q = kvrealloc(p, 1000, VM_SIZE, GFP_KERNEL); ld = __LINE__;
	KUNIT_ASSERT_TRUE(test, q && is_vmalloc_addr(q));
	expect_charged(test, tag_at(test, lc), 0, 0);
	expect_vmalloc_charged(test, tag_at(test, ld), VM_PAGES);
	kvfree(q);
	expect_charged(test, tag_at(test, ld), 0, 0);
}

/*
 * The vmalloc family charges its caller one call of PAGE_SIZE per page of
 * the area, and the array of pages; the vm_struct is charged to
 * mm/vmalloc.c. vmalloc_huge() of PMD_SIZE gets a huge page split into
 * PMD_SIZE / PAGE_SIZE pages, or as many small pages if there is none:
 * the same.
 */
static void test_vmalloc(struct kunit *test)
{
	/* Not static: PMD_SIZE is known only at run time on some machines. */
	const unsigned long want[] = {
		4, 1, VM_PAGES + 1, 2, 5, 2, 3, 1, 4, PMD_SIZE / PAGE_SIZE, 8, 2, 4,
	};
	unsigned long lo = VMALLOC_START, hi = VMALLOC_END;
	unsigned long sz = 3 * PAGE_SIZE + 100;
	unsigned int l[ARRAY_SIZE(want)];
	void *p[ARRAY_SIZE(want)];
	pgprot_t prot = PAGE_KERNEL;
	int nid = NUMA_NO_NODE;
	gfp_t gfp = GFP_KERNEL;
	int i;

	p[0] = vmalloc(3 * PAGE_SIZE + 100); l[0] = __LINE__;
	p[1] = vzalloc(__no_const(PAGE_SIZE)); l[1] = __LINE__;
	/* More than a page of page pointers: the array is vmalloc'ed too. */
	p[2] = vzalloc(VM_SIZE + 100); l[2] = __LINE__;
	p[3] = vmalloc_user(2 * PAGE_SIZE - 1); l[3] = __LINE__;
	p[4] = vmalloc_node(5 * PAGE_SIZE, NUMA_NO_NODE); l[4] = __LINE__;
	p[5] = vzalloc_node(PAGE_SIZE + 1, numa_mem_id()); l[5] = __LINE__;
	p[6] = vmalloc_32(3 * PAGE_SIZE); l[6] = __LINE__;
	p[7] = vmalloc_32_user(100); l[7] = __LINE__;
	p[8] = vmalloc_huge(3 * PAGE_SIZE + 100, GFP_KERNEL); l[8] = __LINE__;
	p[9] = vmalloc_huge(PMD_SIZE, GFP_KERNEL); l[9] = __LINE__;
	p[10] = __vmalloc(7 * PAGE_SIZE + 1, GFP_KERNEL | __GFP_ZERO); l[10] = __LINE__;
	p[11] = __vmalloc_node(2 * PAGE_SIZE, SHMLBA, gfp, nid, NULL); l[11] = __LINE__;
	p[12] = __vmalloc_node_range(sz, 1, lo, hi, gfp, prot, 0, nid, NULL); l[12] = __LINE__;
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		expect_vmalloc_charged(test, tag_at(test, l[i]), want[i]);
	}
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		vfree(p[i]);
		expect_charged(test, tag_at(test, l[i]), 0, 0);
	}
}

/* The array variants: n * size bytes, rounded up to pages. */
static void test_vmalloc_array(struct kunit *test)
{
	static const unsigned long want[] = { 3, 4, 2, 4 };
	unsigned int l[ARRAY_SIZE(want)];
	void *p[ARRAY_SIZE(want)];
	int i;

	p[0] = vmalloc_array(10, PAGE_SIZE / 4 + 1); l[0] = __LINE__;
	p[1] = __vmalloc_array(__no_const(3), PAGE_SIZE + 8, GFP_KERNEL); l[1] = __LINE__;
	p[2] = vcalloc(2, PAGE_SIZE / 2 + 1); l[2] = __LINE__;
	p[3] = __vcalloc(4, PAGE_SIZE - 1, GFP_KERNEL); l[3] = __LINE__;
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		expect_vmalloc_charged(test, tag_at(test, l[i]), want[i]);
	}
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p[2], 0, PAGE_SIZE + 2));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p[3], 0, 4 * PAGE_SIZE - 4));
	vfree(p[0]);
	vfree(p[1]);
	expect_charged(test, tag_at(test, l[0]), 0, 0);
	expect_charged(test, tag_at(test, l[1]), 0, 0);
	/*
	 * vfree_atomic() leaves the freeing to a work item private to
	 * mm/vmalloc.c, which cannot be flushed from here: poll the tags.
	 */
	vfree_atomic(p[2]);
	vfree_atomic(p[3]);
	wait_uncharged(test, l[2]);
	wait_uncharged(test, l[3]);
}

static void test_string_helpers(struct kunit *test)
{
	static const char rodata[] = "in .rodata";
	char str[] = "profile me";
	char buf[200] = { 1 };
	const char *c;
	const void *p[5];
	unsigned int l[5], lc;
	u64 want[5];
	int i;

	p[0] = kstrdup(str, GFP_KERNEL); l[0] = __LINE__;
	p[1] = kstrndup(str, 4, GFP_KERNEL); l[1] = __LINE__;
	p[2] = kmemdup(buf, sizeof(buf), GFP_KERNEL); l[2] = __LINE__;
	p[3] = kmemdup_nul(str, 3, GFP_KERNEL); l[3] = __LINE__;
	p[4] = kstrdup_const(str, GFP_KERNEL); l[4] = __LINE__;
	want[0] = kmalloc_bytes(sizeof(str));
	want[1] = kmalloc_bytes(5);
	want[2] = kmalloc_bytes(200);
	want[3] = kmalloc_bytes(4);
	want[4] = kmalloc_bytes(sizeof(str));
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		expect_charged(test, tag_at(test, l[i]), want[i], 1);
	}
	KUNIT_EXPECT_STREQ(test, (char *)p[1], "prof");
	KUNIT_EXPECT_STREQ(test, (char *)p[3], "pro");
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		kfree(p[i]);
		expect_charged(test, tag_at(test, l[i]), 0, 0);
	}

	/* A string in .rodata is not copied, so nothing is charged. */
	c = kstrdup_const(rodata, GFP_KERNEL); lc = __LINE__;
	KUNIT_EXPECT_PTR_EQ(test, c, (const char *)rodata);
	expect_charged(test, tag_at(test, lc), 0, 0);
	kfree_const(c);
}

/* The user-copy helpers need a user address: map one in a private mm. */
static void test_memdup_user(struct kunit *test)
{
	static const char data[] = "copied from user space";
	struct mm_struct *mm;
	unsigned long uaddr;
	void __user *u;
	void *p[6];
	unsigned int l[6];
	u64 want[6];
	int i;

	if (current->mm)
		kunit_skip(test, "the test thread has an mm of its own");
	mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, mm);
	mm->task_size = TASK_SIZE;
	arch_pick_mmap_layout(mm, &current->signal->rlim[RLIMIT_STACK]);
	kthread_use_mm(mm);
	uaddr = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(uaddr))
		goto out;
	u = (void __user *)uaddr;
	if (copy_to_user(u, data, sizeof(data)))
		goto out_unmap;

	p[0] = memdup_user(u, sizeof(data)); l[0] = __LINE__;
	p[1] = memdup_user_nul(u, 6); l[1] = __LINE__;
	p[2] = vmemdup_user(u, 100); l[2] = __LINE__;
	p[3] = strndup_user(u, PAGE_SIZE); l[3] = __LINE__;
	p[4] = memdup_array_user(u, 3, 8); l[4] = __LINE__;
	p[5] = vmemdup_array_user(u, 2, 100); l[5] = __LINE__;
	want[0] = kmalloc_bytes(sizeof(data));
	want[1] = kmalloc_bytes(7);
	want[2] = kmalloc_bytes(100);
	want[3] = kmalloc_bytes(sizeof(data));
	want[4] = kmalloc_bytes(24);
	want[5] = kmalloc_bytes(200);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		KUNIT_EXPECT_FALSE(test, IS_ERR(p[i]));
		if (IS_ERR(p[i]))
			continue;
		expect_charged(test, tag_at(test, l[i]), want[i], 1);
		kvfree(p[i]);
		expect_charged(test, tag_at(test, l[i]), 0, 0);
	}
out_unmap:
	vm_munmap(uaddr, PAGE_SIZE);
out:
	kthread_unuse_mm(mm);
	mmput(mm);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(uaddr));
}

/* A cache created without object extensions is never charged. */
static void test_no_obj_ext(struct kunit *test)
{
	struct kmem_cache *s;
	unsigned int la, lb;
	void *a, *b;

	s = kmem_cache_create("alloc_tag_test_noext", 64, 0, SLAB_NO_OBJ_EXT, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL); la = __LINE__;
	b = kmalloc(64, GFP_KERNEL | __GFP_NO_OBJ_EXT); lb = __LINE__;
	KUNIT_ASSERT_TRUE(test, a && b);
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), 0, 0);
	kmem_cache_free(s, a);
	kfree(b);
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), 0, 0);
	kmem_cache_destroy(s);
}

/*
 * A slab object remembers its call site as the tag's 16-bit index, after
 * the slab's header, whatever the mode of page tags.
 */
static void test_slab_tag_index(struct kunit *test)
{
	struct kmem_cache *s;
	struct slab *slab;
	unsigned int line;
	void *p;

	s = kmem_cache_create("alloc_tag_test_index", 48, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	p = kmem_cache_alloc(s, GFP_KERNEL); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, p);
	slab = virt_to_slab(p);
	KUNIT_ASSERT_NOT_NULL(test, slab_tags(slab));
	KUNIT_EXPECT_PTR_EQ(test, (void *)slab_tags(slab),
			    (void *)slab_obj_exts(slab) +
			    sizeof(struct slabobj_ext));
	KUNIT_EXPECT_NE(test, alloc_tag_idx(tag_at(test, line)), 0);
	KUNIT_EXPECT_EQ(test, slab_tags(slab)[obj_to_index(s, slab, p)],
			alloc_tag_idx(tag_at(test, line)));
	expect_charged(test, tag_at(test, line), s->size, 1);
	kmem_cache_free(s, p);
	expect_charged(test, tag_at(test, line), 0, 0);
	kmem_cache_destroy(s);
}

/* The object index the tags are kept by, for sizes of every kind. */
static void test_obj_to_index(struct kunit *test)
{
	static const unsigned int sizes[] = {
		8, 24, 40, 96, 192, 200, 1000, 3000, 4096, 5000,
	};
	unsigned int i, j, n;
	struct kmem_cache *s;
	struct slab *slab;
	void **p;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		s = kmem_cache_create("alloc_tag_test_obj_index", sizes[i], 0,
				      0, NULL);
		KUNIT_ASSERT_NOT_NULL(test, s);
		/* Twice an order-3 slab: every index of at least one slab. */
		n = 2 * DIV_ROUND_UP(PAGE_SIZE << 3, s->size);
		p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, n, p), n);
		for (j = 0; j < n; j++) {
			if (is_kfence_address(p[j]))
				continue;
			slab = virt_to_slab(p[j]);
			KUNIT_EXPECT_EQ_MSG(test, obj_to_index(s, slab, p[j]),
					    (p[j] - slab_address(slab)) / s->size,
					    "size %u", s->size);
		}
		kmem_cache_free_bulk(s, n, p);
		kmem_cache_destroy(s);
	}
}

/* KFENCE objects live outside slabs; they are charged all the same. */
static void test_kfence(struct kunit *test)
{
	unsigned long timeout = jiffies + 30 * HZ;
	unsigned int line, lr;
	void *p, *q;

	if (!IS_ENABLED(CONFIG_KFENCE))
		kunit_skip(test, "KFENCE is not built in");
	for (;;) {
		p = kmalloc(__no_const(48), GFP_KERNEL); line = __LINE__;
		KUNIT_ASSERT_NOT_NULL(test, p);
		if (is_kfence_address(p))
			break;
		kfree(p);
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, timeout),
				      "no KFENCE object in 30 s");
		usleep_range(500, 1000);
	}
	expect_charged(test, tag_at(test, line), kmalloc_bytes(48), 1);
	q = krealloc(p, 40, GFP_KERNEL); lr = __LINE__;
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	expect_charged(test, tag_at(test, line), 0, 0);
	expect_charged(test, tag_at(test, lr), kmalloc_bytes(48), 1);
	kfree(q);
	expect_charged(test, tag_at(test, lr), 0, 0);
}

/*
 * A mempool, its array and its reserved elements are charged to the line
 * that created the pool, an element allocated later to the line that
 * called mempool_alloc().
 */
static void test_mempool(struct kunit *test)
{
	unsigned int lpool, lpages, lalloc, lresize;
	struct kmem_cache *s;
	mempool_t *pool, pages;
	void *elem, *page;

	s = kmem_cache_create("alloc_tag_test_pool", 96, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	pool = mempool_create_slab_pool(4, s); lpool = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, pool);
	/* The elements, the pool and its array of elements. */
	expect_charged(test, tag_at(test, lpool),
		       4 * s->size + kmalloc_bytes(sizeof(*pool)) +
		       kmalloc_bytes(4 * sizeof(void *)), 4 + 2);

	elem = mempool_alloc(pool, GFP_KERNEL); lalloc = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, elem);
	expect_charged(test, tag_at(test, lalloc), s->size, 1);
	KUNIT_ASSERT_EQ(test, mempool_resize(pool, 6), 0); lresize = __LINE__;
	/* A new array replaced the one charged to the pool's line. */
	expect_charged(test, tag_at(test, lresize),
		       2 * s->size + kmalloc_bytes(6 * sizeof(void *)), 2 + 1);
	expect_charged(test, tag_at(test, lpool),
		       4 * s->size + kmalloc_bytes(sizeof(*pool)), 4 + 1);
	/* The pool holds its six reserved elements: this one is freed. */
	mempool_free(elem, pool);
	expect_charged(test, tag_at(test, lalloc), 0, 0);
	mempool_destroy(pool);
	expect_charged(test, tag_at(test, lpool), 0, 0);
	expect_charged(test, tag_at(test, lalloc), 0, 0);
	expect_charged(test, tag_at(test, lresize), 0, 0);
	kmem_cache_destroy(s);

	KUNIT_ASSERT_EQ(test, mempool_init_page_pool(&pages, 2, 1), 0); lpages = __LINE__;
	expect_charged(test, tag_at(test, lpages),
		       4 * PAGE_SIZE + kmalloc_bytes(2 * sizeof(void *)), 2 + 1);
	page = mempool_alloc(&pages, GFP_KERNEL); lalloc = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, page);
	expect_charged(test, tag_at(test, lalloc), 2 * PAGE_SIZE, 1);
	mempool_free(page, &pages);
	expect_charged(test, tag_at(test, lalloc), 0, 0);
	mempool_exit(&pages);
	expect_charged(test, tag_at(test, lpages), 0, 0);
	expect_charged(test, tag_at(test, lalloc), 0, 0);
}

struct rht_obj {
	int key;
	struct rhash_head node;
};

static const struct rhashtable_params rht_params = {
	.key_len = sizeof(int),
	.key_offset = offsetof(struct rht_obj, key),
	.head_offset = offsetof(struct rht_obj, node),
};

/* What the hash table's current bucket table costs. */
static u64 rht_table_bytes(struct rhashtable *ht)
{
	struct bucket_table *tbl = rcu_dereference_protected(ht->tbl, 1);

	return kmalloc_bytes(struct_size(tbl, buckets, tbl->size));
}

/* Waits for a pass of the resize worker; true while resizing goes on. */
static bool rht_resizing(struct rhashtable *ht)
{
	struct bucket_table *tbl = rcu_dereference_protected(ht->tbl, 1);

	return flush_work(&ht->run_work) || rcu_access_pointer(tbl->future_tbl);
}

/*
 * Inserts @n objects into @ht, then lets the worker finish growing the
 * table and the old tables be freed.
 */
static void rht_fill(struct kunit *test, struct rhashtable *ht,
		     struct rht_obj *objs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		objs[i].key = i;
		KUNIT_ASSERT_EQ(test, rhashtable_insert_fast(ht, &objs[i].node,
							     rht_params), 0);
	}
	for (i = 0; i < 100 && rht_resizing(ht); i++)
		msleep(20);
	rcu_barrier();
}

/*
 * A hash table's bucket tables are charged to its rhashtable_init() line,
 * also those its resize worker allocates later.
 */
static void test_rhashtable(struct kunit *test)
{
	struct rhashtable ht;
	struct rht_obj *objs;
	unsigned int line, size0;
	int n = 200;

	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_EQ(test, rhashtable_init(&ht, &rht_params), 0); line = __LINE__;
	size0 = rcu_dereference_protected(ht.tbl, 1)->size;
	expect_charged(test, tag_at(test, line), rht_table_bytes(&ht), 1);

	rht_fill(test, &ht, objs, n);
	KUNIT_EXPECT_GT(test, rcu_dereference_protected(ht.tbl, 1)->size, size0);
	expect_charged(test, tag_at(test, line), rht_table_bytes(&ht), 1);

	rhashtable_destroy(&ht);
	expect_charged(test, tag_at(test, line), 0, 0);
	kfree(objs);
}

/*
 * A hash table set up while profiling was off: the tables its resizes
 * allocate once profiling is on are charged to its rhashtable_init() line.
 */
static void test_rhashtable_init_while_off(struct kunit *test)
{
	struct rhashtable ht;
	struct rht_obj *objs;
	unsigned int line;
	int n = 200;

	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		kunit_skip(test, "DEBUG pins the profiling state");

	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(false), 0);
	KUNIT_EXPECT_EQ(test, rhashtable_init(&ht, &rht_params), 0); line = __LINE__;
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(true), 0);
	expect_charged(test, tag_at(test, line), 0, 0);

	rht_fill(test, &ht, objs, n);
	expect_charged(test, tag_at(test, line), rht_table_bytes(&ht), 1);
	rhashtable_destroy(&ht);
	expect_charged(test, tag_at(test, line), 0, 0);
	kfree(objs);
}

/*
 * The gfp bits leave room above them for the radix tree's root tags
 * below bit 31, every tag works there, and trace output names the slab
 * metadata flag.
 */
static void test_gfp_layout(struct kunit *test)
{
	RADIX_TREE(root, GFP_KERNEL);
	gfp_t gfp = __GFP_NO_OBJ_EXT;
	static int item;
	unsigned int tag;
	char name[32];

	if (!IS_ENABLED(CONFIG_KASAN_HW_TAGS))
		KUNIT_EXPECT_LE(test, __GFP_BITS_SHIFT + RADIX_TREE_MAX_TAGS, 31);
	KUNIT_ASSERT_EQ(test, radix_tree_insert(&root, 1, &item), 0);
	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
		radix_tree_tag_set(&root, 1, tag);
		KUNIT_EXPECT_TRUE(test, radix_tree_tagged(&root, tag));
		radix_tree_tag_clear(&root, 1, tag);
		KUNIT_EXPECT_FALSE(test, radix_tree_tagged(&root, tag));
	}
	KUNIT_EXPECT_PTR_EQ(test, radix_tree_delete(&root, 1), (void *)&item);
	KUNIT_EXPECT_EQ(test, root.xa_flags, GFP_KERNEL);

	snprintf(name, sizeof(name), "%pGg", &gfp);
	KUNIT_EXPECT_STREQ(test, name, "__GFP_NO_OBJ_EXT");
}

/*
 * Uncharging an object that carries no tag does not write its reference:
 * CPUs freeing neighbouring untagged objects do not share a dirty line.
 */
static void test_sub_untagged_no_store(struct kunit *test)
{
	union codetag_ref *ref;
	void *page;

	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		kunit_skip(test, "DEBUG warns about untagged objects");
	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	ref = page;
	ref->ct = NULL;
	/* A store would now fault. */
	KUNIT_ASSERT_EQ(test, set_memory_ro((unsigned long)page, 1), 0);
	alloc_tag_sub(ref, 64, ref);
	KUNIT_EXPECT_NULL(test, ref->ct);
	KUNIT_ASSERT_EQ(test, set_memory_rw((unsigned long)page, 1), 0);
	vfree(page);
}

/* Inodes charge the filesystem's alloc_inode line. */
static void test_alloc_inode_sb(struct kunit *test)
{
	struct kmem_cache *s;
	struct super_block *sb;
	unsigned int line;
	void *inode;

	sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sb);
	s = kmem_cache_create("alloc_tag_test_inode", 600, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	inode = alloc_inode_sb(sb, s, GFP_KERNEL); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, inode);
	expect_charged(test, tag_at(test, line), s->size, 1);
	kmem_cache_free(s, inode);
	expect_charged(test, tag_at(test, line), 0, 0);
	kmem_cache_destroy(s);
}

/*
 * Toggling profiling: an object allocated while it was off is never
 * uncharged, and one that was charged is uncharged even when freed while
 * it is off.
 */
static void test_toggle(struct kunit *test)
{
	unsigned int lon, loff;
	void *on, *off;

	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		kunit_skip(test, "DEBUG pins the profiling state");

	on = kmalloc(128, GFP_KERNEL); lon = __LINE__;
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(false), 0);
	off = kmalloc(128, GFP_KERNEL); loff = __LINE__;
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(true), 0);
	KUNIT_ASSERT_TRUE(test, on && off);

	expect_charged(test, tag_at(test, loff), 0, 0);
	kfree(off);
	expect_charged(test, tag_at(test, loff), 0, 0);

	expect_charged(test, tag_at(test, lon), kmalloc_bytes(128), 1);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(false), 0);
	kfree(on);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(true), 0);
	expect_charged(test, tag_at(test, lon), 0, 0);
}

static struct kunit_case alloc_tag_slab_test_cases[] = {
	KUNIT_CASE(test_kmalloc),
	KUNIT_CASE(test_kzalloc_kcalloc),
	KUNIT_CASE(test_kmalloc_node_track_caller),
	KUNIT_CASE(test_kmalloc_large),
	KUNIT_CASE(test_kmem_cache),
	KUNIT_CASE(test_bulk),
	KUNIT_CASE(test_krealloc),
	KUNIT_CASE(test_krealloc_unprofiled_slab),
	KUNIT_CASE(test_kfree_rcu),
	KUNIT_CASE(test_kvmalloc),
	KUNIT_CASE(test_kvrealloc),
	KUNIT_CASE(test_vmalloc),
	KUNIT_CASE(test_vmalloc_array),
	KUNIT_CASE(test_string_helpers),
	KUNIT_CASE(test_memdup_user),
	KUNIT_CASE(test_no_obj_ext),
	KUNIT_CASE(test_obj_to_index),
	KUNIT_CASE(test_slab_tag_index),
	KUNIT_CASE(test_kfence),
	KUNIT_CASE(test_mempool),
	KUNIT_CASE(test_rhashtable),
	KUNIT_CASE(test_rhashtable_init_while_off),
	KUNIT_CASE(test_gfp_layout),
	KUNIT_CASE(test_sub_untagged_no_store),
	KUNIT_CASE(test_alloc_inode_sb),
	KUNIT_CASE(test_toggle),
	{}
};

static struct kunit_suite alloc_tag_slab_test_suite = {
	.name = "alloc_tag_slab",
	.init = alloc_tag_test_init,
	.test_cases = alloc_tag_slab_test_cases,
};

kunit_test_suite(alloc_tag_slab_test_suite);

MODULE_LICENSE("GPL");
