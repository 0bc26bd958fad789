/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code tagging: static per-callsite descriptors collected in a linker
 * section, found again in vmlinux and in every loaded module, and iterated
 * by the subsystem that owns the section (see lib/codetag.c).
 */
#ifndef _LINUX_CODETAG_H
#define _LINUX_CODETAG_H

#include <linux/types.h>

#include <linux/list.h>

struct codetag_type;
struct module;
struct seq_file;

/*
 * One call site. Embedded first in a subsystem's own tag structure, which
 * is what the section holds; all tags of a section have the same size.
 */
struct codetag {
	unsigned int flags;	/* owned by the tag type */
	unsigned int lineno;
	const char *modname;	/* NULL when built into vmlinux */
	const char *function;
	const char *filename;
} __aligned(8);

/* What an object remembers of the tag that charged it. */
union codetag_ref {
	struct codetag *ct;
};

/* The tags of one type in vmlinux (mod == NULL) or in one module. */
struct codetag_module {
	struct list_head link;
	struct module *mod;
	struct codetag *start;
	struct codetag *stop;
	bool unloaded;		/* module gone, its tags still charged */
	void *data;		/* owned by the tag type */
};

/**
 * struct codetag_type_desc - a kind of tag and where its tags live
 * @section: ELF section name; vmlinux brackets it with __start_/__stop_
 * @tag_size: size of one tag in the section
 * @module_load: called for each module with tags of this type, before the
 *	module's code runs; non-zero fails the module load
 * @module_unload: called when such a module goes away; returns false if
 *	the tags are still in use, in which case the module's core (and so
 *	the tags) is kept and the tags stay in the iteration, marked
 *	unloaded; it is called again from time to time until it returns
 *	true, and the core is freed when no type keeps it
 */
struct codetag_type_desc {
	const char *section;
	size_t tag_size;
	int (*module_load)(struct codetag_type *cttype,
			   struct codetag_module *cmod);
	bool (*module_unload)(struct codetag_type *cttype,
			      struct codetag_module *cmod);
};

struct codetag_iterator {
	struct codetag_type *cttype;
	struct codetag_module *cmod;
	struct codetag *ct;
};

#ifdef MODULE
#define CT_MODNAME KBUILD_MODNAME
#else
#define CT_MODNAME NULL
#endif

#define CODE_TAG_INIT {					\
	.modname	= CT_MODNAME,			\
	.function	= __func__,			\
	.filename	= __FILE__,			\
	.lineno		= __LINE__,			\
	.flags		= 0,				\
}

struct codetag_type *
codetag_register_type(const struct codetag_type_desc *desc);
void codetag_lock_module_list(struct codetag_type *cttype, bool lock);
bool codetag_trylock_module_list(struct codetag_type *cttype);
struct codetag_iterator codetag_get_ct_iter(struct codetag_type *cttype);
struct codetag *codetag_next_ct(struct codetag_iterator *iter);
void codetag_to_text(struct seq_file *m, const struct codetag *ct);

/* Looks up a section of a module being loaded: its address and size. */
typedef void *(*codetag_find_section_t)(void *info, const char *name,
					size_t *size);

#ifdef CONFIG_MODULES
void module_free_core(struct module *mod);
#endif

#ifdef CONFIG_CODE_TAGGING
int codetag_load_module(struct module *mod, codetag_find_section_t find,
			void *info);
bool codetag_unload_module(struct module *mod);
#else
static inline int codetag_load_module(struct module *mod,
				      codetag_find_section_t find, void *info)
{
	return 0;
}

static inline bool codetag_unload_module(struct module *mod)
{
	return true;
}
#endif

#if defined(CONFIG_CODE_TAGGING) && defined(CONFIG_MODULES)
void codetag_free_unused(void);
#else
static inline void codetag_free_unused(void)
{
}
#endif

#endif /* _LINUX_CODETAG_H */
