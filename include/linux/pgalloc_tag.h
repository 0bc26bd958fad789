/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page allocation tags: the page allocator keeps the tag that charged a
 * page with the page, so that freeing the page uncharges it: as the tag's
 * index, in spare bits of page->flags (compressed) or in 16 bits of the
 * page's page_ext, or as a pointer in page_ext. For mm internals; callers
 * use the gfp.h entry points.
 */
#ifndef _LINUX_PGALLOC_TAG_H
#define _LINUX_PGALLOC_TAG_H

#include <linux/alloc_tag.h>

#ifdef CONFIG_SPARSEMEM
/*
 * Bit 0 of a section's page_ext pointer: mm/page_ext.c is freeing the
 * section's page_ext. Here for the inline lookup of page tags.
 */
#define PAGE_EXT_INVALID	0x1
#endif

#ifdef CONFIG_MEM_ALLOC_PROFILING

#include <linux/atomic.h>
#include <linux/mmzone.h>
#include <linux/page_ext.h>

extern struct page_ext_operations page_alloc_tagging_ops;

#ifdef CONFIG_SPARSEMEM
/**
 * page_ext_of_owned_page() - Get the extended information of a page the
 * caller is allocating or freeing.
 * @page: The page.
 *
 * As lookup_page_ext() in mm/page_ext.c, inline for the page allocator's
 * hooks and without what an owned page need not check: its section and
 * the section's root exist. Memory offlining frees a range's page_ext only
 * once every page of the range is free, so the page_ext stays valid
 * without page_ext_get()'s RCU read-side section.
 *
 * Return: NULL if no page_ext exists for this page (not set up yet, or
 * the section's page_ext marked invalid).
 * Context: Any context.
 */
static __always_inline struct page_ext *page_ext_of_owned_page(struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	unsigned long nr = pfn_to_section_nr(pfn);
	struct mem_section *ms = &mem_section[SECTION_NR_TO_ROOT(nr)][nr & SECTION_ROOT_MASK];
	struct page_ext *page_ext = READ_ONCE(ms->page_ext);

	if (unlikely(!page_ext || ((unsigned long)page_ext & PAGE_EXT_INVALID)))
		return NULL;
	return (void *)page_ext + page_ext_size * pfn;
}
#else
/* In mm/page_ext.c, for the allocation and free hooks. */
struct page_ext *page_ext_of_owned_page(struct page *page);
#endif

static inline union codetag_ref *codetag_ref_from_page_ext(struct page_ext *page_ext)
{
	return (void *)page_ext + page_alloc_tagging_ops.offset;
}

/*
 * Compressed page tags: the bits of page->flags between the page flags
 * and the LRU generation, KASAN, last-cpupid, zone, node and section
 * fields, which nothing else uses. sparc64 keeps a CPU number in the
 * upper half of page->flags.
 */
#ifdef CONFIG_SPARC64
#define PAGE_TAG_FREE_BITS	0
#else
#define PAGE_TAG_FREE_BITS	(LRU_REFS_PGOFF - NR_PAGEFLAGS)
#endif
#define PAGE_TAG_IDX_BITS	min_t(int, PAGE_TAG_FREE_BITS, ALLOC_TAG_IDX_BITS)
#define PAGE_TAG_IDX_PGOFF	(LRU_REFS_PGOFF - PAGE_TAG_IDX_BITS)
/* The largest index marks pages deliberately left untagged (DEBUG). */
#define PAGE_TAG_IDX_EMPTY	((1UL << PAGE_TAG_IDX_BITS) - 1)
#define PAGE_TAG_IDX_MASK	(PAGE_TAG_IDX_EMPTY << PAGE_TAG_IDX_PGOFF)

/* In page_ext, an index takes 16 bits; the largest marks untagged pages. */
#define PAGE_EXT_TAG_IDX_EMPTY	((unsigned long)U16_MAX)

DECLARE_STATIC_KEY_FALSE(mem_alloc_compressed_key);
DECLARE_STATIC_KEY_FALSE(mem_alloc_page_ext_idx_key);

/* Chosen at boot, before any page is tagged; never change after. */
static inline bool page_tags_compressed(void)
{
	return static_branch_likely(&mem_alloc_compressed_key);
}

static inline bool page_tags_page_ext_idx(void)
{
	return static_branch_likely(&mem_alloc_page_ext_idx_key);
}

/* Page tags are indices, in page->flags or in page_ext. */
static inline bool page_tags_indexed(void)
{
	return page_tags_compressed() || page_tags_page_ext_idx();
}

static inline unsigned long page_tag_idx_empty(void)
{
	return page_tags_compressed() ? PAGE_TAG_IDX_EMPTY : PAGE_EXT_TAG_IDX_EMPTY;
}

/* Index i + 1 is vmlinux's tag i; module tags follow. */
extern unsigned long alloc_tag_kernel_count;
extern struct alloc_tag __start_alloc_tags[], __stop_alloc_tags[];

/*
 * Indices after vmlinux's go to module tags: at most ALLOC_TAG_MODULE_IDX_MAX
 * at a time, found through a table of pieces of ALLOC_TAG_MODULE_IDX_PIECE
 * tags, allocated as modules need them.
 */
#define ALLOC_TAG_MODULE_IDX_PIECE	1024
#define ALLOC_TAG_MODULE_IDX_MAX	\
	(IS_ENABLED(CONFIG_MODULES) ? 64 * ALLOC_TAG_MODULE_IDX_PIECE : 0)
extern struct alloc_tag **alloc_tag_module_idx[ALLOC_TAG_MODULE_IDX_MAX /
					       ALLOC_TAG_MODULE_IDX_PIECE];

/*
 * The module tag of @idx, an index above vmlinux's. The memory it was read
 * from holds a charge of the tag, which keeps the module's tags and their
 * slots. Inline: a module's frees take this path every time.
 */
static inline struct codetag *alloc_tag_module_ct(unsigned long idx)
{
#ifdef CONFIG_MODULES
	unsigned long slot = idx - alloc_tag_kernel_count - 1;
	struct alloc_tag **piece;

	piece = READ_ONCE(alloc_tag_module_idx[slot / ALLOC_TAG_MODULE_IDX_PIECE]);
	return &piece[slot % ALLOC_TAG_MODULE_IDX_PIECE]->ct;
#else
	return NULL;
#endif
}

static inline unsigned long page_tag_idx(struct page *page)
{
	return (READ_ONCE(page->flags) & PAGE_TAG_IDX_MASK) >> PAGE_TAG_IDX_PGOFF;
}

static inline u16 *page_tag_idx_from_page_ext(struct page_ext *page_ext)
{
	return (void *)page_ext + page_alloc_tagging_ops.offset;
}

/*
 * The tag of index @idx (0: none), of a page or a slab object; @empty is
 * the index that marks memory deliberately left untagged (DEBUG).
 */
static inline struct codetag *alloc_tag_idx_to_ct(unsigned long idx,
						  unsigned long empty)
{
	if (!idx)
		return NULL;
	if (likely(idx <= alloc_tag_kernel_count))
		return &__start_alloc_tags[idx - 1].ct;
	if (idx == empty)
		return CODETAG_EMPTY;
	return alloc_tag_module_ct(idx);
}

static inline unsigned long alloc_tag_ct_to_idx(struct codetag *ct,
						unsigned long empty)
{
	if (!ct)
		return 0;
	if (ct == CODETAG_EMPTY)
		return empty;
	return alloc_tag_idx(ct_to_alloc_tag(ct));
}

static inline struct codetag *page_tag_idx_to_ct(unsigned long idx)
{
	return alloc_tag_idx_to_ct(idx, page_tag_idx_empty());
}

static inline unsigned long page_tag_ct_to_idx(struct codetag *ct)
{
	return alloc_tag_ct_to_idx(ct, page_tag_idx_empty());
}

/* Other bits of page->flags change under us: atomically. */
static inline void page_tag_set_idx(struct page *page, unsigned long idx)
{
	unsigned long old = READ_ONCE(page->flags), new;

	do {
		new = (old & ~PAGE_TAG_IDX_MASK) | (idx << PAGE_TAG_IDX_PGOFF);
	} while (unlikely(!try_cmpxchg(&page->flags, &old, new)));
}

/*
 * Whether a page can remember @tag: as indices, a module tag has one only
 * if there was room for the module's tags (see lib/alloc_tag.c).
 */
static inline bool page_tag_storable(struct alloc_tag *tag)
{
	if (!page_tags_indexed() || !tag || alloc_tag_idx(tag))
		return true;
	alloc_tag_set_inaccurate(tag);
	return false;
}

/*
 * A page's tag, as a codetag_ref that alloc_tag_add() and alloc_tag_sub()
 * update: the page_ext pointer itself, or a copy of the index that
 * put_page_tag_ref() writes back.
 */
struct page_tag_ref {
	union codetag_ref *ref;
	union codetag_ref copy;
	struct codetag *orig;
	struct page *page;
	struct page_ext *page_ext;
};

/* False if the page has no tag slot; else put_page_tag_ref(), no sleeping. */
static inline bool get_page_tag_ref(struct page *page, struct page_tag_ref *pt)
{
	unsigned long idx;

	pt->page_ext = NULL;
	if (page_tags_compressed()) {
		pt->page = page;
		idx = page_tag_idx(page);
	} else {
		pt->page_ext = page_ext_get(page);
		if (!pt->page_ext)
			return false;
		if (!page_tags_page_ext_idx()) {
			pt->ref = codetag_ref_from_page_ext(pt->page_ext);
			return true;
		}
		idx = READ_ONCE(*page_tag_idx_from_page_ext(pt->page_ext));
	}
	pt->orig = page_tag_idx_to_ct(idx);
	pt->copy.ct = pt->orig;
	pt->ref = &pt->copy;
	return true;
}

static inline void put_page_tag_ref(struct page_tag_ref *pt)
{
	if (page_tags_indexed() && pt->copy.ct != pt->orig) {
		if (pt->page_ext)
			WRITE_ONCE(*page_tag_idx_from_page_ext(pt->page_ext),
				   page_tag_ct_to_idx(pt->copy.ct));
		else
			page_tag_set_idx(pt->page, page_tag_ct_to_idx(pt->copy.ct));
	}
	if (pt->page_ext)
		page_ext_put(pt->page_ext);
}

void __pgalloc_tag_add(struct page *page, unsigned int nr);
void __pgalloc_tag_sub(struct page *page, unsigned int nr);

/*
 * Charge a new allocation of @nr pages to the current tag. The work is out
 * of line: inlined, it costs the allocator's fast paths, into which this
 * is inlined, registers and instructions even while profiling is off.
 */
static inline void pgalloc_tag_add(struct page *page, unsigned int nr)
{
	if (mem_alloc_profiling_enabled())
		__pgalloc_tag_add(page, nr);
}

/* Uncharge @nr pages starting at @page, which carries the tag. */
static inline void pgalloc_tag_sub(struct page *page, unsigned int nr)
{
	if (mem_alloc_tags_in_use())
		__pgalloc_tag_sub(page, nr);
}

/* The tag of @page, or NULL; for uncharging part of an allocation. */
static inline struct alloc_tag *pgalloc_tag_get(struct page *page)
{
	struct alloc_tag *tag = NULL;
	struct page_tag_ref pt;

	if (!mem_alloc_tags_in_use())
		return NULL;
	if (get_page_tag_ref(page, &pt)) {
		if (pt.ref->ct && !is_codetag_empty(pt.ref))
			tag = ct_to_alloc_tag(pt.ref->ct);
		put_page_tag_ref(&pt);
	}
	return tag;
}

/* Uncharge @nr pages of an allocation, leaving the call charged. */
static inline void pgalloc_tag_sub_pages(struct alloc_tag *tag, unsigned int nr)
{
	if (tag)
		this_cpu_sub(tag->counters->bytes, PAGE_SIZE * nr);
}

/*
 * The same for the stack record of the allocation at @page, @tag's, if
 * the control file keeps one (flag s); a negative @nr adds pages.
 */
static inline void pgalloc_tag_stack_sub_pages(struct page *page,
					       struct alloc_tag *tag, int nr)
{
	if (tag && alloc_tag_control_active() &&
	    (READ_ONCE(tag->ct.flags) & ALLOC_TAG_FLAG_STACKS))
		alloc_tag_stack_resize(page, -(long)PAGE_SIZE * nr);
}

void pgalloc_tag_split(struct page *page, unsigned int nr);
void pgalloc_tag_join(struct page *page, unsigned int nr);
void pgalloc_tag_swap(struct page *new, struct page *old);
void pgalloc_tag_mark_empty(struct page *page);

#else /* CONFIG_MEM_ALLOC_PROFILING */

static inline void pgalloc_tag_add(struct page *page, unsigned int nr) {}
static inline void pgalloc_tag_sub(struct page *page, unsigned int nr) {}
static inline struct alloc_tag *pgalloc_tag_get(struct page *page) { return NULL; }
static inline void pgalloc_tag_sub_pages(struct alloc_tag *tag, unsigned int nr) {}
static inline void pgalloc_tag_stack_sub_pages(struct page *page,
					       struct alloc_tag *tag, int nr) {}
static inline void pgalloc_tag_split(struct page *page, unsigned int nr) {}
static inline void pgalloc_tag_join(struct page *page, unsigned int nr) {}
static inline void pgalloc_tag_swap(struct page *new, struct page *old) {}
static inline void pgalloc_tag_mark_empty(struct page *page) {}

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#endif /* _LINUX_PGALLOC_TAG_H */
