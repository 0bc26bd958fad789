/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the allocation profiling KUnit suites: find the tag of a
 * line of the calling test file and check what it holds.
 */
#ifndef _LIB_ALLOC_TAG_TEST_H
#define _LIB_ALLOC_TAG_TEST_H

#include <kunit/test.h>
#include <linux/alloc_tag.h>

#define tag_at(test, line)	__tag_at(test, __FILE__, line)

static inline struct alloc_tag *__tag_at(struct kunit *test,
					 const char *file, unsigned int line)
{
	struct alloc_tag *tag = alloc_tag_find(file, line);

	KUNIT_ASSERT_NOT_NULL_MSG(test, tag, "no tag for %s:%u", file, line);
	return tag;
}

static inline void expect_charged(struct kunit *test, struct alloc_tag *tag,
				  u64 bytes, u64 calls)
{
	struct alloc_tag_counters c = alloc_tag_read(tag);

	KUNIT_EXPECT_EQ_MSG(test, c.bytes, bytes, "bytes at %s:%u",
			    tag->ct.filename, tag->ct.lineno);
	KUNIT_EXPECT_EQ_MSG(test, c.calls, calls, "calls at %s:%u",
			    tag->ct.filename, tag->ct.lineno);
}

static inline int alloc_tag_test_init(struct kunit *test)
{
	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "memory allocation profiling is disabled");
	return 0;
}

#endif /* _LIB_ALLOC_TAG_TEST_H */
