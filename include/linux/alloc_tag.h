/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation tags: per-callsite counters of the memory an allocation call
 * site holds right now. An allocator entry point foo() is a macro,
 * alloc_hooks(foo_noprof(...)), which defines a static tag at the call
 * site and makes it current->alloc_tag for the duration of the call; the
 * allocator charges it and remembers it (page_ext, ...) so the free path
 * can uncharge it. See lib/alloc_tag.c.
 */
#ifndef _LINUX_ALLOC_TAG_H
#define _LINUX_ALLOC_TAG_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/codetag.h>
#include <linux/container_of.h>
/* this_cpu_*() may disable interrupts (asm-generic/percpu.h). */
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>

struct alloc_tag_counters {
	u64 bytes;
	u64 calls;
};

/* A call site; lives in the "alloc_tags" section of vmlinux or a module. */
struct alloc_tag {
	struct codetag ct;
	struct alloc_tag_counters __percpu *counters;
} __aligned(8);

#ifdef CONFIG_MEM_ALLOC_PROFILING

/* Marks an object deliberately left untagged (DEBUG only checks it). */
#define CODETAG_EMPTY	((struct codetag *)1)

static inline bool is_codetag_empty(union codetag_ref *ref)
{
	return ref->ct == CODETAG_EMPTY;
}

static inline struct alloc_tag *ct_to_alloc_tag(struct codetag *ct)
{
	return container_of(ct, struct alloc_tag, ct);
}

#ifdef MODULE
/* Module tags get their counters when the module is loaded. */
#define DEFINE_ALLOC_TAG(_alloc_tag)					\
	static struct alloc_tag _alloc_tag __used __aligned(8)		\
	__section("alloc_tags") = { .ct = CODE_TAG_INIT }
#else
#define DEFINE_ALLOC_TAG(_alloc_tag)					\
	static DEFINE_PER_CPU(struct alloc_tag_counters, _alloc_tag##_cntr); \
	static struct alloc_tag _alloc_tag __used __aligned(8)		\
	__section("alloc_tags") = {					\
		.ct = CODE_TAG_INIT,					\
		.counters = &_alloc_tag##_cntr }
#endif

DECLARE_STATIC_KEY_MAYBE(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
			 mem_alloc_profiling_key);
DECLARE_STATIC_KEY_MAYBE(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
			 mem_alloc_tags_in_use_key);

/* New allocations are charged to their call site. */
static inline bool mem_alloc_profiling_enabled(void)
{
	return static_branch_maybe(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
				   &mem_alloc_profiling_key);
}

/*
 * Some live memory may carry a tag: profiling was on at some point since
 * boot. Frees keep uncharging after profiling is switched off, so that
 * the counters stay exact across toggles; when profiling was never on,
 * frees cost nothing.
 */
static inline bool mem_alloc_tags_in_use(void)
{
	return static_branch_maybe(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
				   &mem_alloc_tags_in_use_key);
}

/* ct.flags: the tag missed events, its counters are not exact. */
#define CODETAG_FLAG_INACCURATE	BIT(0)
/* ct.flags: switched off in the control file, new allocations not charged. */
#define ALLOC_TAG_FLAG_OFF	BIT(1)
/* ct.flags: the control file makes allocations of the site fail. */
#define ALLOC_TAG_FLAG_FAIL	BIT(2)
/* ct.flags: each live allocation of the site has its stack recorded. */
#define ALLOC_TAG_FLAG_STACKS	BIT(3)
/* The flags alloc_tag_add_controlled() handles. */
#define ALLOC_TAG_CHARGE_FLAGS	(ALLOC_TAG_FLAG_OFF | ALLOC_TAG_FLAG_STACKS)

/* ct.flags changes under allocations of the site: atomically. */
static inline void alloc_tag_change_flags(struct alloc_tag *tag,
					  unsigned int clear, unsigned int set)
{
	unsigned int old = READ_ONCE(tag->ct.flags);

	while (!try_cmpxchg(&tag->ct.flags, &old, (old & ~clear) | set))
		;
}

/*
 * Called when an allocation at @tag could not be charged (no room to
 * remember the tag), so that /proc/allocinfo can say so.
 */
static inline void alloc_tag_set_inaccurate(struct alloc_tag *tag)
{
	if (tag && !(READ_ONCE(tag->ct.flags) & CODETAG_FLAG_INACCURATE))
		alloc_tag_change_flags(tag, 0, CODETAG_FLAG_INACCURATE);
}

static inline bool alloc_tag_is_inaccurate(struct alloc_tag *tag)
{
	return READ_ONCE(tag->ct.flags) & CODETAG_FLAG_INACCURATE;
}

/*
 * ct.flags above the flag bits: the tag's index for page tags compressed
 * into page->flags (see pgalloc_tag.h); 0 while it has none.
 */
#define CODETAG_IDX_SHIFT	8
#define ALLOC_TAG_IDX_BITS	(32 - CODETAG_IDX_SHIFT)

static inline unsigned long alloc_tag_idx(struct alloc_tag *tag)
{
	return READ_ONCE(tag->ct.flags) >> CODETAG_IDX_SHIFT;
}

#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTROL
DECLARE_STATIC_KEY_FALSE(alloc_tag_control_key);

/* Some call site has a flag in the control file: look at ct.flags. */
static inline bool alloc_tag_control_active(void)
{
	return static_branch_unlikely(&alloc_tag_control_key);
}

void alloc_tag_control_init(struct codetag_type *cttype);
int alloc_tag_control_exec(char *cmds, const char *modname);

/* The live allocations of a site flagged s that share a stack. */
struct alloc_tag_stack {
	struct alloc_tag *tag;
	u32 stack;		/* depot_stack_handle_t */
	u64 bytes;
	u64 calls;
	u64 site_bytes;		/* of every stack of the site */
	u64 site_calls;
	pid_t pids[4];		/* the first few distinct ones */
	unsigned int nr_pids;
};

int alloc_tag_stacks_of(struct alloc_tag *tag, struct alloc_tag_stack **out);
void alloc_tag_add_controlled(union codetag_ref *ref, struct alloc_tag *tag,
			      size_t bytes, const void *obj);
void alloc_tag_stack_forget(const void *obj);
void alloc_tag_stack_resize(const void *obj, long bytes);
void alloc_tag_stack_swap(const void *obj1, const void *obj2);
struct page;
void alloc_tag_stack_split(struct page *page, unsigned int nr);
#else
static inline bool alloc_tag_control_active(void) { return false; }
static inline void alloc_tag_control_init(struct codetag_type *cttype) {}
static inline void alloc_tag_add_controlled(union codetag_ref *ref,
					    struct alloc_tag *tag,
					    size_t bytes, const void *obj) {}
static inline void alloc_tag_stack_forget(const void *obj) {}
static inline void alloc_tag_stack_resize(const void *obj, long bytes) {}
static inline void alloc_tag_stack_swap(const void *obj1,
					const void *obj2) {}
static inline void alloc_tag_stack_split(struct page *page,
					 unsigned int nr) {}
#endif

/* @flags, a tag's ct.flags, say: charge through the control file. */
static inline bool alloc_tag_flags_controlled(unsigned int flags)
{
	return alloc_tag_control_active() && (flags & ALLOC_TAG_CHARGE_FLAGS);
}

struct alloc_tag_counters alloc_tag_read(struct alloc_tag *tag);
struct alloc_tag *alloc_tag_find(const char *filename, unsigned int lineno);
int mem_alloc_profiling_set(bool enable);
bool mem_alloc_profiling_supported(void);
void mem_alloc_profiling_init_keys(void);
void alloc_tag_show_mem(void);

#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
static inline void alloc_tag_add_check(union codetag_ref *ref,
				       struct alloc_tag *tag)
{
	WARN_ONCE(ref && ref->ct && !is_codetag_empty(ref),
		  "alloc_tag was not cleared (got tag for %s:%u)\n",
		  ref->ct->filename, ref->ct->lineno);
	WARN_ONCE(!tag, "current->alloc_tag not set\n");
}

extern bool alloc_tag_debug_checks;

static inline void alloc_tag_sub_check(union codetag_ref *ref)
{
	/* Not before pages that predate page_ext have been marked. */
	WARN_ONCE(ref && !ref->ct && READ_ONCE(alloc_tag_debug_checks),
		  "alloc_tag was not set\n");
}
#else
static inline void alloc_tag_add_check(union codetag_ref *ref,
				       struct alloc_tag *tag) {}
static inline void alloc_tag_sub_check(union codetag_ref *ref) {}
#endif

/* Charge @bytes and one call to @tag and remember it in @ref. */
static inline void __alloc_tag_add(union codetag_ref *ref,
				   struct alloc_tag *tag, size_t bytes)
{
	/* Loaded once: the per-cpu updates may alias it for the compiler. */
	struct alloc_tag_counters __percpu *counters = tag->counters;

	ref->ct = &tag->ct;
	this_cpu_add(counters->bytes, bytes);
	this_cpu_inc(counters->calls);
}

/*
 * alloc_tag_add() for a caller that sends allocations elsewhere while
 * alloc_tag_control_active(): a site may be flagged.
 */
static inline void alloc_tag_add_unflagged(union codetag_ref *ref,
					   struct alloc_tag *tag, size_t bytes)
{
	alloc_tag_add_check(ref, tag);
	if (!tag) {
		ref->ct = NULL;
		return;
	}
	__alloc_tag_add(ref, tag, bytes);
}

/*
 * Charge the allocation @obj (the object, page or per-cpu address the
 * control file knows it by) of @bytes to @tag, the current call site.
 */
static inline void alloc_tag_add(union codetag_ref *ref,
				 struct alloc_tag *tag, size_t bytes,
				 const void *obj)
{
	/*
	 * Out of line: the flags must not cost the fast paths registers;
	 * nor a load, before the static key says to look.
	 */
	if (alloc_tag_control_active() && tag &&
	    (READ_ONCE(tag->ct.flags) & ALLOC_TAG_CHARGE_FLAGS)) {
		alloc_tag_add_check(ref, tag);
		alloc_tag_add_controlled(ref, tag, bytes, obj);
		return;
	}
	alloc_tag_add_unflagged(ref, tag, bytes);
}

/* alloc_tag_sub() for a caller as alloc_tag_add_unflagged()'s. */
static inline void alloc_tag_sub_unflagged(union codetag_ref *ref,
					   size_t bytes)
{
	struct alloc_tag_counters __percpu *counters;
	struct codetag *ct = ref->ct;

	alloc_tag_sub_check(ref);
	/* No store for an untagged object: its cache line stays clean. */
	if (!ct)
		return;
	ref->ct = NULL;
	if (ct == CODETAG_EMPTY)
		return;
	counters = ct_to_alloc_tag(ct)->counters;
	this_cpu_sub(counters->bytes, bytes);
	this_cpu_dec(counters->calls);
}

/* Uncharge what @ref was charged with for @obj, and forget it. */
static inline void alloc_tag_sub(union codetag_ref *ref, size_t bytes,
				 const void *obj)
{
	struct codetag *ct = ref->ct;

	if (alloc_tag_control_active() && ct && ct != CODETAG_EMPTY &&
	    (READ_ONCE(ct->flags) & ALLOC_TAG_FLAG_STACKS))
		alloc_tag_stack_forget(obj);
	alloc_tag_sub_unflagged(ref, bytes);
}

/*
 * current->alloc_tag is only written while profiling is enabled. The
 * task_struct is only needed where the macros below are expanded.
 */
#define alloc_tag_save(_tag)						\
({									\
	struct alloc_tag *_old_tag = current->alloc_tag;		\
	current->alloc_tag = (_tag);					\
	_old_tag;							\
})

#define alloc_tag_restore(_tag, _old)					\
do {									\
	WARN_ON_ONCE(IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG) &&	\
		     current->alloc_tag != (_tag));			\
	current->alloc_tag = (_old);					\
} while (0)

#define alloc_hooks_tag(_tag, _do_alloc)				\
({									\
	struct alloc_tag *_this_tag = (_tag);				\
	struct alloc_tag * __maybe_unused _saved_tag = NULL;		\
	bool _tagged = mem_alloc_profiling_enabled();			\
	typeof(_do_alloc) _res;						\
									\
	if (_tagged)							\
		_saved_tag = alloc_tag_save(_this_tag);			\
	_res = _do_alloc;						\
	if (_tagged)							\
		alloc_tag_restore(_this_tag, _saved_tag);		\
	_res;								\
})

#define alloc_hooks(_do_alloc)						\
({									\
	DEFINE_ALLOC_TAG(_alloc_tag);					\
	alloc_hooks_tag(&_alloc_tag, _do_alloc);			\
})

/*
 * For an entry point that remembers its caller for allocations it makes
 * later on the caller's behalf (rhashtable_init()): the tag is current
 * whatever the state, so that it is known if profiling is switched on
 * later. Nothing is charged while profiling is off.
 */
#define alloc_hooks_always(_do_alloc)					\
({									\
	DEFINE_ALLOC_TAG(_alloc_tag);					\
	struct alloc_tag *_saved_tag = alloc_tag_save(&_alloc_tag);	\
	typeof(_do_alloc) _res = _do_alloc;				\
									\
	alloc_tag_restore(&_alloc_tag, _saved_tag);			\
	_res;								\
})

#else /* CONFIG_MEM_ALLOC_PROFILING */

#define DEFINE_ALLOC_TAG(_alloc_tag)
static inline bool mem_alloc_profiling_enabled(void) { return false; }
static inline bool mem_alloc_tags_in_use(void) { return false; }
static inline bool mem_alloc_profiling_supported(void) { return false; }
static inline void mem_alloc_profiling_init_keys(void) {}
static inline void alloc_tag_show_mem(void) {}
#define alloc_hooks(_do_alloc) _do_alloc
#define alloc_hooks_tag(_tag, _do_alloc) _do_alloc
#define alloc_hooks_always(_do_alloc) _do_alloc

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTROL
int alloc_tag_control_module_param(char *val, const char *modname);
bool __alloc_tag_should_fail(struct alloc_tag *tag, gfp_t gfp, size_t size);

/* An allocation of @_size bytes at @_tag's site is to fail (flag f). */
#define alloc_tag_should_fail(_tag, _gfp, _size)			\
	(alloc_tag_control_active() &&					\
	 __alloc_tag_should_fail(_tag, _gfp, _size))

/*
 * An allocator that decided an allocation's failure at its entry and
 * allocates more for it at the same site (vmalloc's pages, kvmalloc's
 * kmalloc and vmalloc) does not let the inner calls decide again.
 */
#define alloc_tag_fail_nest_begin()					\
({									\
	struct alloc_tag *_outer = current->alloc_tag_fail_decided;	\
									\
	if (alloc_tag_control_active())					\
		current->alloc_tag_fail_decided = current->alloc_tag;	\
	_outer;								\
})

#define alloc_tag_fail_nest_end(_outer)					\
	(current->alloc_tag_fail_decided = (_outer))
#else
/* No such parameter: the module loader says it ignores it. */
static inline int alloc_tag_control_module_param(char *val,
						 const char *modname)
{
	return -ENOENT;
}

#define alloc_tag_should_fail(_tag, _gfp, _size)	false
#define alloc_tag_fail_nest_begin()			NULL
#define alloc_tag_fail_nest_end(_outer)			((void)(_outer))
#endif

#endif /* _LINUX_ALLOC_TAG_H */
