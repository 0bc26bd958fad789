/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the alloc_tag test modules. test_alloc_tag hands its allocations
 * over to test_alloc_tag_keeper when
 * it unloads with leak=1, so that they outlive it and can be freed later,
 * and the address of its code, which must no longer be executable then.
 */
#ifndef _LIB_TEST_ALLOC_TAG_H
#define _LIB_TEST_ALLOC_TAG_H

#include <linux/mm.h>
#include <linux/slab.h>

#include "../mm/slab.h"

enum test_alloc_tag_kind {
	TEST_ALLOC_TAG_PAGES,		/* struct page *, with its order */
	TEST_ALLOC_TAG_KMALLOC,
	TEST_ALLOC_TAG_VMALLOC,
	TEST_ALLOC_TAG_PERCPU,
};

/*
 * What a vmalloc'ed area of @nr_pages charges its caller besides its pages:
 * the array of their struct page pointers, kmalloc'ed up to a page, the
 * object size of its kmalloc cache.
 */
static inline size_t test_vmalloc_array_charge(unsigned int nr_pages)
{
	size_t size = nr_pages * sizeof(struct page *);

	WARN_ON_ONCE(size > PAGE_SIZE);
	return kmalloc_caches[KMALLOC_NORMAL][kmalloc_index(size)]->size;
}

int test_alloc_tag_keep(enum test_alloc_tag_kind kind, void *p,
			unsigned int order);
void test_alloc_tag_keep_text(const void *text);

#endif /* _LIB_TEST_ALLOC_TAG_H */
