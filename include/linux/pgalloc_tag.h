/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page allocation tags: the page allocator keeps the tag that charged a
 * page in the page's page_ext, so that freeing the page uncharges it.
 * For mm internals; callers use the gfp.h entry points.
 */
#ifndef _LINUX_PGALLOC_TAG_H
#define _LINUX_PGALLOC_TAG_H

#include <linux/alloc_tag.h>

#ifdef CONFIG_MEM_ALLOC_PROFILING

#include <linux/page_ext.h>

extern struct page_ext_operations page_alloc_tagging_ops;

static inline union codetag_ref *codetag_ref_from_page_ext(struct page_ext *page_ext)
{
	return (void *)page_ext + page_alloc_tagging_ops.offset;
}

static inline struct page_ext *page_ext_from_codetag_ref(union codetag_ref *ref)
{
	return (void *)ref - page_alloc_tagging_ops.offset;
}

/* Must be followed by put_page_tag_ref() when not NULL; may not sleep. */
static inline union codetag_ref *get_page_tag_ref(struct page *page)
{
	struct page_ext *page_ext = page_ext_get(page);

	return page_ext ? codetag_ref_from_page_ext(page_ext) : NULL;
}

static inline void put_page_tag_ref(union codetag_ref *ref)
{
	page_ext_put(page_ext_from_codetag_ref(ref));
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
	union codetag_ref *ref;

	if (!mem_alloc_tags_in_use())
		return NULL;
	ref = get_page_tag_ref(page);
	if (ref) {
		if (ref->ct && !is_codetag_empty(ref))
			tag = ct_to_alloc_tag(ref->ct);
		put_page_tag_ref(ref);
	}
	return tag;
}

/* Uncharge @nr pages of an allocation, leaving the call charged. */
static inline void pgalloc_tag_sub_pages(struct alloc_tag *tag, unsigned int nr)
{
	if (tag)
		this_cpu_sub(tag->counters->bytes, PAGE_SIZE * nr);
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
static inline void pgalloc_tag_split(struct page *page, unsigned int nr) {}
static inline void pgalloc_tag_join(struct page *page, unsigned int nr) {}
static inline void pgalloc_tag_swap(struct page *new, struct page *old) {}
static inline void pgalloc_tag_mark_empty(struct page *page) {}

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#endif /* _LINUX_PGALLOC_TAG_H */
