// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for page and percpu allocation profiling: every page and
 * percpu allocator entry point charges the line that called it, with exact
 * bytes and calls, and every way of freeing the memory uncharges exactly
 * that.
 *
 * Each allocation is made on a line of its own, which records __LINE__ on
 * the same line; the test then finds that line's tag.
 */
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/page_ext.h>
#include <linux/page_owner.h>
#include <linux/page_table_check.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/pgalloc_tag.h>
#include <linux/sched.h>
#include <asm/pgalloc.h>

#include "alloc_tag_test.h"

#define PAGE	((u64)PAGE_SIZE)

static void test_alloc_pages(struct kunit *test)
{
	struct page *page, *page0;
	struct alloc_tag *tag, *tag0;
	unsigned int line, line0;

	page = alloc_pages(GFP_KERNEL, 3); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, page);
	page0 = alloc_page(GFP_KERNEL); line0 = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, page0);
	tag = tag_at(test, line);
	tag0 = tag_at(test, line0);
	expect_charged(test, tag, 8 * PAGE, 1);
	expect_charged(test, tag0, PAGE, 1);
	__free_pages(page, 3);
	expect_charged(test, tag, 0, 0);
	__free_page(page0);
	expect_charged(test, tag0, 0, 0);
}

static void test_alloc_pages_node(struct kunit *test)
{
	struct page *a, *b, *c;
	unsigned int la, lb, lc;

	a = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL, 1); la = __LINE__;
	b = __alloc_pages_node(numa_mem_id(), GFP_KERNEL, 0); lb = __LINE__;
	c = __alloc_pages(GFP_KERNEL, 2, numa_mem_id(), NULL); lc = __LINE__;
	KUNIT_ASSERT_TRUE(test, a && b && c);
	expect_charged(test, tag_at(test, la), 2 * PAGE, 1);
	expect_charged(test, tag_at(test, lb), PAGE, 1);
	expect_charged(test, tag_at(test, lc), 4 * PAGE, 1);
	__free_pages(a, 1);
	__free_pages(b, 0);
	__free_pages(c, 2);
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), 0, 0);
	expect_charged(test, tag_at(test, lc), 0, 0);
}

static void test_folio_alloc(struct kunit *test)
{
	struct folio *a, *b, *c, *d;
	struct page *e;
	unsigned int la, lb, lc, ld, le;

	a = folio_alloc(GFP_KERNEL, 2); la = __LINE__;
	b = __folio_alloc(GFP_KERNEL, 1, numa_mem_id(), NULL); lb = __LINE__;
	c = __folio_alloc_node(GFP_KERNEL, 0, numa_mem_id()); lc = __LINE__;
	d = vma_alloc_folio(GFP_KERNEL, 2, NULL, 0, false); ld = __LINE__;
	e = alloc_page_vma(GFP_KERNEL, NULL, 0); le = __LINE__;
	KUNIT_ASSERT_TRUE(test, a && b && c && d && e);
	expect_charged(test, tag_at(test, la), 4 * PAGE, 1);
	expect_charged(test, tag_at(test, lb), 2 * PAGE, 1);
	expect_charged(test, tag_at(test, lc), PAGE, 1);
	expect_charged(test, tag_at(test, ld), 4 * PAGE, 1);
	expect_charged(test, tag_at(test, le), PAGE, 1);
	folio_put(a);
	folio_put(b);
	folio_put(c);
	folio_put(d);
	put_page(e);
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), 0, 0);
	expect_charged(test, tag_at(test, lc), 0, 0);
	expect_charged(test, tag_at(test, ld), 0, 0);
	expect_charged(test, tag_at(test, le), 0, 0);
}

static void test_get_free_pages(struct kunit *test)
{
	unsigned long a, b, c;
	unsigned int la, lb, lc;

	a = __get_free_pages(GFP_KERNEL, 2); la = __LINE__;
	b = __get_free_page(GFP_KERNEL); lb = __LINE__;
	c = get_zeroed_page(GFP_KERNEL); lc = __LINE__;
	KUNIT_ASSERT_TRUE(test, a && b && c);
	expect_charged(test, tag_at(test, la), 4 * PAGE, 1);
	expect_charged(test, tag_at(test, lb), PAGE, 1);
	expect_charged(test, tag_at(test, lc), PAGE, 1);
	KUNIT_EXPECT_TRUE(test, !memchr_inv((void *)c, 0, PAGE_SIZE));
	free_pages(a, 2);
	free_page(b);
	free_page(c);
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), 0, 0);
	expect_charged(test, tag_at(test, lc), 0, 0);
}

/* alloc_pages_exact_nid() is __meminit; KUnit runs before init is freed. */
static noinline void *__ref exact_nid(size_t size, unsigned int *line)
{
	void *p = alloc_pages_exact_nid(numa_mem_id(), size, GFP_KERNEL); *line = __LINE__;

	return p;
}

static void test_alloc_pages_exact(struct kunit *test)
{
	struct alloc_tag *tag;
	unsigned int line;
	void *p;

	/* Five pages come from an order-3 block; three are given back. */
	p = alloc_pages_exact(5 * PAGE_SIZE - 100, GFP_KERNEL); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, p);
	tag = tag_at(test, line);
	/* Once split, each page is freed on its own and counts as a call. */
	expect_charged(test, tag, 5 * PAGE, 5);
	free_pages_exact(p, 5 * PAGE_SIZE - 100);
	expect_charged(test, tag, 0, 0);

	p = exact_nid(3 * PAGE_SIZE, &line);
	KUNIT_ASSERT_NOT_NULL(test, p);
	tag = tag_at(test, line);
	expect_charged(test, tag, 3 * PAGE, 3);
	free_pages_exact(p, 3 * PAGE_SIZE);
	expect_charged(test, tag, 0, 0);
}

static void test_bulk(struct kunit *test)
{
	struct page *array[6] = {}, *page, *tmp;
	unsigned long got_a, got_b, got_c, got_d;
	unsigned int la, lb, lc, ld, i;
	LIST_HEAD(list);

	got_a = alloc_pages_bulk_array(GFP_KERNEL, 3, array); la = __LINE__;
	got_b = alloc_pages_bulk_array_node(GFP_KERNEL, NUMA_NO_NODE, 5, array); lb = __LINE__;
	got_c = alloc_pages_bulk_list(GFP_KERNEL, 4, &list); lc = __LINE__;
	got_d = __alloc_pages_bulk(GFP_KERNEL, numa_mem_id(), NULL, 6, NULL, array); ld = __LINE__;
	/*
	 * Array slots already filled are kept; the total is returned. With
	 * several nodes, a bulk call may fall back to a single page.
	 */
	KUNIT_ASSERT_TRUE(test, got_a >= 1 && got_a <= 3);
	KUNIT_ASSERT_TRUE(test, got_b > got_a && got_b <= 5);
	KUNIT_ASSERT_TRUE(test, got_c >= 1 && got_c <= 4);
	KUNIT_ASSERT_TRUE(test, got_d > got_b && got_d <= 6);
	if (num_online_nodes() == 1) {
		KUNIT_EXPECT_EQ(test, got_a, 3UL);
		KUNIT_EXPECT_EQ(test, got_b, 5UL);
		KUNIT_EXPECT_EQ(test, got_c, 4UL);
		KUNIT_EXPECT_EQ(test, got_d, 6UL);
	}
	expect_charged(test, tag_at(test, la), got_a * PAGE, got_a);
	expect_charged(test, tag_at(test, lb), (got_b - got_a) * PAGE, got_b - got_a);
	expect_charged(test, tag_at(test, lc), got_c * PAGE, got_c);
	expect_charged(test, tag_at(test, ld), (got_d - got_b) * PAGE, got_d - got_b);
	for (i = 0; i < got_d; i++)
		__free_page(array[i]);
	list_for_each_entry_safe(page, tmp, &list, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	expect_charged(test, tag_at(test, la), 0, 0);
	expect_charged(test, tag_at(test, lb), 0, 0);
	expect_charged(test, tag_at(test, lc), 0, 0);
	expect_charged(test, tag_at(test, ld), 0, 0);

#ifdef CONFIG_NUMA
	memset(array, 0, sizeof(array));
	got_a = alloc_pages_bulk_array_mempolicy(GFP_KERNEL, 2, array); la = __LINE__;
	KUNIT_ASSERT_TRUE(test, got_a >= 1 && got_a <= 2);
	expect_charged(test, tag_at(test, la), got_a * PAGE, got_a);
	for (i = 0; i < got_a; i++)
		__free_page(array[i]);
	expect_charged(test, tag_at(test, la), 0, 0);
#endif
}

static void test_split_page(struct kunit *test)
{
	struct alloc_tag *tag;
	struct page *page;
	unsigned int line, i;

	page = alloc_pages(GFP_KERNEL, 2); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, page);
	tag = tag_at(test, line);
	expect_charged(test, tag, 4 * PAGE, 1);
	split_page(page, 2);
	expect_charged(test, tag, 4 * PAGE, 4);
	for (i = 0; i < 4; i++) {
		__free_page(page + i);
		expect_charged(test, tag, (3 - i) * PAGE, 3 - i);
	}
}

/* Split pages joined into one block again, as hugetlb demotion does. */
static void test_join(struct kunit *test)
{
	struct alloc_tag *tag;
	struct page *page;
	unsigned int line, i;

	page = alloc_pages(GFP_KERNEL, 2); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, page);
	tag = tag_at(test, line);
	split_page(page, 2);
	expect_charged(test, tag, 4 * PAGE, 4);
	for (i = 1; i < 4; i++)
		page_ref_dec(page + i);
	pgalloc_tag_join(page, 4);
	expect_charged(test, tag, 4 * PAGE, 1);
	__free_pages(page, 2);
	expect_charged(test, tag, 0, 0);
}

/* Someone holds a reference on the first page of a non-compound block. */
static void test_free_pages_with_extra_ref(struct kunit *test)
{
	struct alloc_tag *tag;
	struct page *page;
	unsigned int line;

	page = alloc_pages(GFP_KERNEL, 3); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, page);
	tag = tag_at(test, line);
	get_page(page);
	/* Frees pages 1..7; page 0 stays, still one call. */
	__free_pages(page, 3);
	expect_charged(test, tag, PAGE, 1);
	put_page(page);
	expect_charged(test, tag, 0, 0);
}

#ifdef CONFIG_CONTIG_ALLOC
static void test_alloc_contig(struct kunit *test)
{
	unsigned long pfn, end, nr = 4;
	unsigned int line, tries;
	struct alloc_tag *tag;
	struct page *page;
	int err;

	for (tries = 0; tries < 5; tries++) {
		page = alloc_contig_pages(nr, GFP_KERNEL, numa_mem_id(), NULL); line = __LINE__;
		KUNIT_ASSERT_NOT_NULL(test, page);
		tag = tag_at(test, line);
		expect_charged(test, tag, nr * PAGE, nr);
		pfn = page_to_pfn(page);
		free_contig_range(pfn, nr);
		expect_charged(test, tag, 0, 0);

		/*
		 * The range just given back is free: take it again directly.
		 * Another CPU may take a page of it first (-EBUSY), which
		 * charges nothing here; then try another range.
		 */
		end = pfn + nr;
		err = alloc_contig_range(pfn, end, MIGRATE_MOVABLE, GFP_KERNEL); line = __LINE__;
		tag = tag_at(test, line);
		if (err != -EBUSY)
			break;
		expect_charged(test, tag, 0, 0);
	}
	KUNIT_ASSERT_EQ(test, err, 0);
	expect_charged(test, tag, nr * PAGE, nr);
	free_contig_range(pfn, nr);
	expect_charged(test, tag, 0, 0);
}
#endif

/*
 * Migration hands the new page the old page's charge; freeing the old page
 * then uncharges whatever allocated the new one.
 */
static void test_migration_swap(struct kunit *test)
{
	struct page *old, *new;
	unsigned int lold, lnew;

	old = alloc_page(GFP_KERNEL); lold = __LINE__;
	new = alloc_page(GFP_KERNEL); lnew = __LINE__;
	KUNIT_ASSERT_TRUE(test, old && new);
	pgalloc_tag_swap(new, old);
	expect_charged(test, tag_at(test, lold), PAGE, 1);
	expect_charged(test, tag_at(test, lnew), PAGE, 1);
	__free_page(old);
	expect_charged(test, tag_at(test, lold), PAGE, 1);
	expect_charged(test, tag_at(test, lnew), 0, 0);
	__free_page(new);
	expect_charged(test, tag_at(test, lold), 0, 0);
}

/*
 * Toggling profiling: what was allocated while it was off is never
 * uncharged, and what was charged is uncharged even when freed while off.
 */
static void test_toggle(struct kunit *test)
{
	struct page *on, *off;
	unsigned int lon, loff;
	struct alloc_tag *tag;

	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG)) {
		/* DEBUG pins the state so that every free finds its tag. */
		KUNIT_EXPECT_EQ(test, mem_alloc_profiling_set(false), -EPERM);
		KUNIT_EXPECT_TRUE(test, mem_alloc_profiling_enabled());
		return;
	}

	on = alloc_page(GFP_KERNEL); lon = __LINE__;
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(false), 0);
	off = alloc_page(GFP_KERNEL); loff = __LINE__;
	KUNIT_EXPECT_FALSE(test, mem_alloc_profiling_enabled());
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(true), 0);
	KUNIT_ASSERT_TRUE(test, on && off);

	tag = tag_at(test, loff);
	expect_charged(test, tag, 0, 0);
	__free_page(off);
	expect_charged(test, tag, 0, 0);

	tag = tag_at(test, lon);
	expect_charged(test, tag, PAGE, 1);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(false), 0);
	__free_page(on);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_set(true), 0);
	expect_charged(test, tag, 0, 0);
}

/* Page cache pages charge the line that fills the page cache. */
static void test_page_cache(struct kunit *test)
{
	struct address_space mapping = { };
	struct folio *folio;
	struct page *page, *page1;
	unsigned int l[3];

	mapping_set_gfp_mask(&mapping, GFP_KERNEL);
	folio = filemap_alloc_folio(GFP_KERNEL, 2); l[0] = __LINE__;
	page = __page_cache_alloc(GFP_KERNEL); l[1] = __LINE__;
	page1 = page_cache_alloc(&mapping); l[2] = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, folio);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_NOT_NULL(test, page1);
	expect_charged(test, tag_at(test, l[0]), 4 * PAGE, 1);
	expect_charged(test, tag_at(test, l[1]), PAGE, 1);
	expect_charged(test, tag_at(test, l[2]), PAGE, 1);
	folio_put(folio);
	put_page(page);
	put_page(page1);
	expect_charged(test, tag_at(test, l[0]), 0, 0);
	expect_charged(test, tag_at(test, l[1]), 0, 0);
	expect_charged(test, tag_at(test, l[2]), 0, 0);
}

#ifdef CONFIG_X86
/* The tag of the one line of @file in function @func. */
static struct alloc_tag *tag_in_func(struct kunit *test, const char *file,
				     const char *func)
{
	struct alloc_tag *tag, *found = NULL;
	unsigned int line;

	/* Our x86 files are shorter than this. */
	for (line = 1; line < 1500; line++) {
		tag = alloc_tag_find(file, line);
		if (!tag || strcmp(tag->ct.function, func))
			continue;
		KUNIT_ASSERT_NULL_MSG(test, found, "%s: two lines in %s",
				      file, func);
		found = tag;
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, found, "%s: no line in %s", file, func);
	return found;
}

/*
 * x86's pte_alloc_one() charges itself one page and call; other users of
 * that line (user page tables) may allocate or free meanwhile, so this
 * tries a few times for a window in which no one else did.
 */
static void expect_pte_alloc_one_charged(struct kunit *test,
					 struct alloc_tag *tag)
{
	struct alloc_tag_counters before, mid, after;
	pgtable_t pte;
	int try;

	for (try = 0; try < 10; try++) {
		before = alloc_tag_read(tag);
		pte = pte_alloc_one(&init_mm);
		KUNIT_ASSERT_NOT_NULL(test, pte);
		mid = alloc_tag_read(tag);
		pte_free(&init_mm, pte);
		after = alloc_tag_read(tag);
		if (mid.bytes == before.bytes + PAGE &&
		    mid.calls == before.calls + 1 &&
		    after.bytes == before.bytes && after.calls == before.calls)
			return;
	}
	KUNIT_FAIL(test, "pte_alloc_one() never charged exactly its own line");
}

static void expect_pte_alloc_one(struct kunit *test)
{
	expect_pte_alloc_one_charged(test, tag_in_func(test, "arch/x86/mm/pgtable.c",
						       "pte_alloc_one"));
}
#else
/*
 * The user page table of pte_alloc_one() is charged to its caller where the
 * helper is generic (or, as arm's, a macro over it).
 */
static void expect_pte_alloc_one(struct kunit *test)
{
	pgtable_t pte;
	unsigned int l;

	pte = pte_alloc_one(&init_mm); l = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, pte);
	expect_charged(test, tag_at(test, l), PAGE, 1);
	pte_free(&init_mm, pte);
	expect_charged(test, tag_at(test, l), 0, 0);
}
#endif

/*
 * Page tables charge the function that allocates them: the callers of the
 * generic helpers, and x86's own pte_alloc_one(). Levels the architecture
 * folds allocate nothing.
 */
static void test_page_tables(struct kunit *test)
{
	void *table[3];
	unsigned int l[3], n = 0, i;

	/*
	 * Their tables are fragments of shared pages, charged by the page to
	 * the fragment allocators in arch/.../mm/: no count per call here.
	 */
	if (IS_ENABLED(CONFIG_PPC) || IS_ENABLED(CONFIG_S390))
		kunit_skip(test, "page tables are fragments of shared pages");
	table[n] = pte_alloc_one_kernel(&init_mm); l[n++] = __LINE__;
#if CONFIG_PGTABLE_LEVELS > 2
	table[n] = pmd_alloc_one(&init_mm, 0); l[n++] = __LINE__;
#endif
#if CONFIG_PGTABLE_LEVELS > 3
	table[n] = pud_alloc_one(&init_mm, 0); l[n++] = __LINE__;
#endif
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_NOT_NULL(test, table[i]);
		expect_charged(test, tag_at(test, l[i]), PAGE, 1);
	}
	pte_free_kernel(&init_mm, table[0]);
#if CONFIG_PGTABLE_LEVELS > 2
	pmd_free(&init_mm, table[1]);
#endif
#if CONFIG_PGTABLE_LEVELS > 3
	pud_free(&init_mm, table[2]);
#endif
	for (i = 0; i < n; i++)
		expect_charged(test, tag_at(test, l[i]), 0, 0);
	expect_pte_alloc_one(test);
}

/*
 * A percpu area is its size, rounded up to 4 bytes, on every possible CPU.
 * The 16 KiB areas do not all fit in the first chunk: new chunks are made.
 */
static void test_percpu(struct kunit *test)
{
	const u64 cpus = num_possible_cpus();
	const u64 size[] = { 8, 12, 12, 100, 64, 16384, 16384, 16384, 16384 };
	void __percpu *p[ARRAY_SIZE(size)];
	unsigned int l[ARRAY_SIZE(size)], i;

	p[0] = alloc_percpu(u64); l[0] = __LINE__;
	p[1] = alloc_percpu_gfp(u32[3], GFP_KERNEL); l[1] = __LINE__;
	p[2] = __alloc_percpu(10, 4); l[2] = __LINE__;
	p[3] = __alloc_percpu_gfp(100, 4, GFP_KERNEL); l[3] = __LINE__;
	p[4] = __alloc_reserved_percpu(64, 8); l[4] = __LINE__;
	for (i = 5; i < ARRAY_SIZE(size); i++) {
		p[i] = __alloc_percpu(16384, 8); l[i] = __LINE__;
	}
	for (i = 0; i < ARRAY_SIZE(size); i++)
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	for (i = 0; i < 5; i++)
		expect_charged(test, tag_at(test, l[i]), size[i] * cpus, 1);
	expect_charged(test, tag_at(test, l[5]), 4 * size[5] * cpus, 4);
	for (i = 0; i < ARRAY_SIZE(size); i++)
		free_percpu(p[i]);
	for (i = 0; i < ARRAY_SIZE(size); i++)
		expect_charged(test, tag_at(test, l[i]), 0, 0);
}

/* The call site is the caller's line, not an allocator helper's. */
static void test_tag_names_the_caller(struct kunit *test)
{
	struct alloc_tag *tag;
	unsigned int line;
	unsigned long p;

	p = get_zeroed_page(GFP_KERNEL); line = __LINE__;
	KUNIT_ASSERT_NE(test, p, 0UL);
	tag = tag_at(test, line);
	KUNIT_EXPECT_STREQ(test, tag->ct.filename, __FILE__);
	KUNIT_EXPECT_STREQ(test, tag->ct.function, __func__);
	KUNIT_EXPECT_NULL(test, tag->ct.modname);
	free_page(p);
}

/*
 * page_ext holds a tag per page and nothing else for us: a 16-bit index,
 * or a pointer with sysctl.vm.mem_profiling=1,pointers; nothing with page
 * tags compressed. Its shared flags word is there only for the users that
 * need it (page_owner, page_idle on 32-bit), when they are enabled. Tags
 * come last; an entry is as long as its users' alignment asks, so an
 * index alone makes entries of 2 bytes.
 */
static void test_page_ext_size(struct kunit *test)
{
	bool flags = IS_ENABLED(CONFIG_PAGE_IDLE_FLAG) && !IS_ENABLED(CONFIG_64BIT);
	unsigned long others = 0;

#ifdef CONFIG_PAGE_OWNER
	if (static_branch_unlikely(&page_owner_inited)) {
		flags = true;
		others += page_owner_ops.size;
	}
#endif
#ifdef CONFIG_PAGE_TABLE_CHECK
	if (!static_branch_likely(&page_table_check_disabled))
		others += page_table_check_ops.size;
#endif
	unsigned long tag_size = sizeof(union codetag_ref);

	if (flags)
		others += sizeof(struct page_ext);
	if (page_tags_compressed()) {
		KUNIT_EXPECT_EQ(test, page_ext_size, others);
		return;
	}
	if (page_tags_page_ext_idx())
		tag_size = 2;
	KUNIT_EXPECT_EQ(test, page_alloc_tagging_ops.size, tag_size);
	KUNIT_EXPECT_EQ(test, page_alloc_tagging_ops.offset, others);
	if (others)
		KUNIT_EXPECT_EQ(test, page_ext_size,
				ALIGN(others + tag_size, sizeof(long)));
	else
		KUNIT_EXPECT_EQ(test, page_ext_size, tag_size);
}

/* The index a page holds, in page->flags or in its page_ext. */
static unsigned long page_idx_held(struct kunit *test, struct page *page)
{
	struct page_ext *page_ext;
	unsigned long idx;

	if (page_tags_compressed())
		return (page->flags & PAGE_TAG_IDX_MASK) >> PAGE_TAG_IDX_PGOFF;
	page_ext = page_ext_get(page);
	KUNIT_ASSERT_NOT_NULL(test, page_ext);
	idx = *page_tag_idx_from_page_ext(page_ext);
	page_ext_put(page_ext);
	return idx;
}

/*
 * Page tags as indices: a page holds its line's index in the free bits of
 * page->flags (compressed), between the page flags and the LRU fields, or
 * in 16 bits of its page_ext; freeing clears it. Index i + 1 is vmlinux's
 * tag i, module tags come after.
 */
static void test_page_tag_indices(struct kunit *test)
{
	unsigned long idx, pos;
	struct alloc_tag *tag;
	struct page *page;
	unsigned int line;

	if (!page_tags_indexed())
		kunit_skip(test, "page tags are pointers in page_ext");
	if (page_tags_compressed()) {
		KUNIT_EXPECT_GE(test, PAGE_TAG_IDX_PGOFF, NR_PAGEFLAGS);
		KUNIT_EXPECT_EQ(test, PAGE_TAG_IDX_PGOFF + PAGE_TAG_IDX_BITS,
				LRU_REFS_PGOFF);
		KUNIT_EXPECT_EQ(test, page_tag_idx_empty(), PAGE_TAG_IDX_EMPTY);
	} else {
		KUNIT_EXPECT_EQ(test, page_tag_idx_empty(), 65535UL);
	}
	KUNIT_EXPECT_EQ(test, alloc_tag_kernel_count,
			(unsigned long)(__stop_alloc_tags - __start_alloc_tags));
	KUNIT_EXPECT_LT(test, alloc_tag_kernel_count + 1, page_tag_idx_empty());

	page = alloc_pages(GFP_KERNEL, 1); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, page);
	tag = tag_at(test, line);
	idx = alloc_tag_idx(tag);
	KUNIT_EXPECT_NE(test, idx, 0UL);
	KUNIT_EXPECT_EQ(test, page_idx_held(test, page), idx);
	KUNIT_EXPECT_PTR_EQ(test, page_tag_idx_to_ct(idx), &tag->ct);
	if (tag >= __start_alloc_tags && tag < __stop_alloc_tags) {
		pos = tag - __start_alloc_tags;
		KUNIT_EXPECT_EQ(test, idx, pos + 1);
	} else {
		KUNIT_EXPECT_GT(test, idx, alloc_tag_kernel_count);
		KUNIT_EXPECT_LT(test, idx, page_tag_idx_empty());
	}
	expect_charged(test, tag, 2 * PAGE, 1);
	__free_pages(page, 1);
	KUNIT_EXPECT_EQ(test, page_idx_held(test, page), 0UL);
	expect_charged(test, tag, 0, 0);
}

static struct kunit_case alloc_tag_test_cases[] = {
	KUNIT_CASE(test_alloc_pages),
	KUNIT_CASE(test_alloc_pages_node),
	KUNIT_CASE(test_folio_alloc),
	KUNIT_CASE(test_get_free_pages),
	KUNIT_CASE(test_alloc_pages_exact),
	KUNIT_CASE(test_bulk),
	KUNIT_CASE(test_split_page),
	KUNIT_CASE(test_join),
	KUNIT_CASE(test_free_pages_with_extra_ref),
#ifdef CONFIG_CONTIG_ALLOC
	KUNIT_CASE(test_alloc_contig),
#endif
	KUNIT_CASE(test_migration_swap),
	KUNIT_CASE(test_percpu),
	KUNIT_CASE(test_page_cache),
	KUNIT_CASE(test_page_tables),
	KUNIT_CASE(test_toggle),
	KUNIT_CASE(test_tag_names_the_caller),
	KUNIT_CASE(test_page_ext_size),
	KUNIT_CASE(test_page_tag_indices),
	{}
};

static struct kunit_suite alloc_tag_test_suite = {
	.name = "alloc_tag",
	.init = alloc_tag_test_init,
	.test_cases = alloc_tag_test_cases,
};

kunit_test_suite(alloc_tag_test_suite);

MODULE_LICENSE("GPL");
