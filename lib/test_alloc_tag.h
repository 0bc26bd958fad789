/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_alloc_tag hands its allocations over to test_alloc_tag_keeper when
 * it unloads with leak=1, so that they outlive it and can be freed later,
 * and the address of its code, which must no longer be executable then.
 */
#ifndef _LIB_TEST_ALLOC_TAG_H
#define _LIB_TEST_ALLOC_TAG_H

enum test_alloc_tag_kind {
	TEST_ALLOC_TAG_PAGES,		/* struct page *, with its order */
	TEST_ALLOC_TAG_KMALLOC,
	TEST_ALLOC_TAG_VMALLOC,
	TEST_ALLOC_TAG_PERCPU,
};

int test_alloc_tag_keep(enum test_alloc_tag_kind kind, void *p,
			unsigned int order);
void test_alloc_tag_keep_text(const void *text);

#endif /* _LIB_TEST_ALLOC_TAG_H */
