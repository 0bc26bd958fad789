// SPDX-License-Identifier: GPL-2.0-only
/*
 * A module for the alloc_tag stress kselftest. It churns through every
 * profiled allocator family on every online CPU at once, and can then
 * hold a known set of allocations so that the test can compare what
 * /proc/allocinfo says with what is really held:
 *
 *   fault=1 (at load)	the workers and hold= set make_it_fail, so that
 *			failslab and fail_page_alloc with task-filter fail
 *			their allocations (and nobody else's)
 *   run=1, run=0	start the churn workers; stop them, freeing all
 *   hold=N		allocate N objects of each held family, in the
 *			writing task
 *   release=1		free what hold allocated (after an RCU grace
 *			period for the kfree_rcu family)
 *   stats (read)	"family allocs fails" per family, then "frees" and
 *			"cross-cpu-frees"
 *   sites (read)	"line held-calls held-bytes calls bytes" per call
 *			site of this file: what hold holds there and what
 *			the site's counters sum to right now, read without
 *			clamping
 *
 * Every family allocates at one line of this file (krealloc chains at two)
 * so that each is one line of /proc/allocinfo.
 */
#include <linux/alloc_tag.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "test_alloc_tag.h"

enum stress_family {
	F_KMALLOC, F_CACHE, F_PAGES, F_VMALLOC, F_KVMALLOC, F_PERCPU,
	F_KREALLOC, F_KFREE_RCU, F_MEMPOOL, NR_FAMILIES
};

/* Families that hold= allocates: the mempool belongs to a worker. */
#define NR_HELD_FAMILIES	F_MEMPOOL

static const char * const family_names[NR_FAMILIES] = {
	"kmalloc", "kmem_cache", "pages", "vmalloc", "kvmalloc", "percpu",
	"krealloc", "kfree_rcu", "mempool",
};

/* Call sites: one per family, and the first kmalloc of a krealloc chain. */
#define S_KREALLOC_FIRST	NR_FAMILIES
#define NR_SITES		(NR_FAMILIES + 1)

static unsigned int site_line[NR_SITES];

/* Allocate with @call at site @site, whose line this is. */
#define AT(site, call) ({ WRITE_ONCE(site_line[site], __LINE__); call; })

struct stress_obj {
	void *p;
	unsigned int cpu;	/* that allocated it */
	u8 family;
	u8 site;
	u8 order;		/* F_PAGES */
	unsigned int calls;	/* what the allocation charges */
	size_t bytes;
};

struct rcu_obj {
	struct rcu_head rcu;
	char data[];
};

#define RING		32
#define POOL_MIN	8
/* Below POOL_MIN, so that mempool_alloc() never waits for a free. */
#define POOL_HELD_MAX	4
#define EXCHANGE	64

struct stress_worker {
	struct task_struct *task;
	struct rnd_state rnd;
	mempool_t *pool;
	unsigned int pool_held;
	struct stress_obj ring[RING];
};

static bool fault;
module_param(fault, bool, 0400);
MODULE_PARM_DESC(fault, "the churn workers and hold= set make_it_fail");

/* Serializes the control parameters with module exit. */
static DEFINE_MUTEX(control_lock);
static bool dying;
static struct kmem_cache *stress_cache;
static struct stress_worker *workers;	/* one per possible CPU, or NULL */
static struct stress_obj *held;
static unsigned int nr_held;

/* Objects parked for a worker on another CPU to free. */
static DEFINE_SPINLOCK(exchange_lock);
static struct stress_obj exchange[EXCHANGE];

static atomic_long_t allocs[NR_FAMILIES], fails[NR_FAMILIES];
static atomic_long_t frees, cross_cpu_frees;

/* What a kmalloc'ed object is charged: its slab's object size, or pages. */
static size_t kmalloc_charge(const void *p)
{
	struct folio *folio = virt_to_folio(p);

	if (folio_test_slab(folio))
		return folio_slab(folio)->slab_cache->size;
	return folio_size(folio);
}

/*
 * What a vmalloc'ed area of @size is charged: each page as one call, and
 * the kmalloc'ed array of its page pointers.
 */
static void vmalloc_charge(struct stress_obj *o, size_t size)
{
	unsigned int nr = DIV_ROUND_UP(size, PAGE_SIZE);

	o->calls = nr + 1;
	o->bytes = nr * PAGE_SIZE + test_vmalloc_array_charge(nr);
}

static bool stress_alloc(struct stress_obj *o, enum stress_family family,
			 struct rnd_state *rnd, mempool_t *pool)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	u32 r = prandom_u32_state(rnd);
	struct page *page;
	size_t size;
	void *p;
	int i;

	memset(o, 0, sizeof(*o));
	o->cpu = raw_smp_processor_id();
	o->family = family;
	o->site = family;
	o->calls = 1;
	switch (family) {
	case F_KMALLOC:
		p = AT(F_KMALLOC, kmalloc(8 + r % 2048, gfp));
		break;
	case F_CACHE:
		p = AT(F_CACHE, kmem_cache_alloc(stress_cache, gfp));
		break;
	case F_PAGES:
		o->order = r % 4;
		page = AT(F_PAGES, alloc_pages(gfp, o->order));
		p = page ? page_address(page) : NULL;
		o->bytes = PAGE_SIZE << o->order;
		break;
	case F_VMALLOC:
		size = PAGE_SIZE + r % (4 * PAGE_SIZE);
		p = AT(F_VMALLOC, __vmalloc(size, gfp));
		vmalloc_charge(o, size);
		break;
	case F_KVMALLOC:
		size = 512 + r % (32 << 10);
		p = AT(F_KVMALLOC, kvmalloc(size, gfp));
		if (p && is_vmalloc_addr(p))
			vmalloc_charge(o, size);
		break;
	case F_PERCPU:
		size = 8 * (1 + r % 16);
		p = (void __force *)AT(F_PERCPU, __alloc_percpu_gfp(size, 8, gfp));
		o->bytes = size * num_possible_cpus();
		break;
	case F_KREALLOC:
		o->site = S_KREALLOC_FIRST;
		size = 24 + r % 40;
		p = AT(S_KREALLOC_FIRST, kmalloc(size, gfp));
		/* Grow it by a quarter a few times: in place or moved. */
		for (i = 0; p && i < r % 8; i++) {
			void *bigger;

			size += size / 4;
			bigger = AT(F_KREALLOC, krealloc(p, size, gfp));

			if (!bigger) {
				atomic_long_inc(&fails[family]);
				break;
			}
			p = bigger;
			o->site = F_KREALLOC;
		}
		break;
	case F_KFREE_RCU:
		size = sizeof(struct rcu_obj) + r % 512;
		p = AT(F_KFREE_RCU, kmalloc(size, gfp));
		break;
	case F_MEMPOOL:
		p = AT(F_MEMPOOL, mempool_alloc(pool, gfp));
		break;
	default:
		p = NULL;
	}
	/* The slab families: the object's size class. */
	if (p && !o->bytes)
		o->bytes = kmalloc_charge(p);
	o->p = p;
	atomic_long_inc(p ? &allocs[family] : &fails[family]);
	return p;
}

static void stress_free(struct stress_obj *o, mempool_t *pool)
{
	if (!o->p)
		return;
	switch (o->family) {
	case F_KMALLOC:
	case F_KREALLOC:
		kfree(o->p);
		break;
	case F_CACHE:
		kmem_cache_free(stress_cache, o->p);
		break;
	case F_PAGES:
		free_pages((unsigned long)o->p, o->order);
		break;
	case F_VMALLOC:
		vfree(o->p);
		break;
	case F_KVMALLOC:
		kvfree(o->p);
		break;
	case F_PERCPU:
		free_percpu((void __percpu __force *)o->p);
		break;
	case F_KFREE_RCU:
		kfree_rcu((struct rcu_obj *)o->p, rcu);
		break;
	case F_MEMPOOL:
		mempool_free(o->p, pool);
		break;
	}
	if (o->cpu != raw_smp_processor_id())
		atomic_long_inc(&cross_cpu_frees);
	o->p = NULL;
	atomic_long_inc(&frees);
}

/* Park @o for another CPU and take over what was parked in its slot. */
static void exchange_obj(struct stress_obj *o, u32 r)
{
	struct stress_obj *slot = &exchange[r % EXCHANGE];

	spin_lock(&exchange_lock);
	swap(*o, *slot);
	spin_unlock(&exchange_lock);
}

static int stress_worker_fn(void *data)
{
	struct stress_worker *w = data;
	struct stress_obj *o;
	enum stress_family family;
	u32 r;
	int i;

#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = fault;
#endif
	while (!kthread_should_stop()) {
		r = prandom_u32_state(&w->rnd);
		o = &w->ring[r % RING];
		family = (r >> 8) % NR_FAMILIES;
		/* Frees a slot: mempool elements go back to their pool. */
		if (o->p && o->family == F_MEMPOOL)
			w->pool_held--;
		/* Now and then, free something another CPU allocated. */
		if (o->p && o->family != F_MEMPOOL && !((r >> 16) & 7))
			exchange_obj(o, r >> 19);
		stress_free(o, w->pool);
		if (family == F_MEMPOOL && w->pool_held >= POOL_HELD_MAX)
			family = F_KMALLOC;
		if (stress_alloc(o, family, &w->rnd, w->pool) &&
		    family == F_MEMPOOL)
			w->pool_held++;
		cond_resched();
	}
	for (i = 0; i < RING; i++)
		stress_free(&w->ring[i], w->pool);
	w->pool_held = 0;
	return 0;
}

static void stop_workers(void)
{
	unsigned int cpu, i;

	if (!workers)
		return;
	for_each_possible_cpu(cpu) {
		if (workers[cpu].task)
			kthread_stop(workers[cpu].task);
		mempool_destroy(workers[cpu].pool);
	}
	kvfree(workers);
	workers = NULL;
	for (i = 0; i < EXCHANGE; i++)
		stress_free(&exchange[i], NULL);
}

static int start_workers(void)
{
	struct task_struct *task;
	unsigned int cpu;

	workers = kvcalloc(nr_cpu_ids, sizeof(*workers), GFP_KERNEL);
	if (!workers)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct stress_worker *w = &workers[cpu];

		prandom_seed_state(&w->rnd, cpu + 1);
		w->pool = mempool_create_kmalloc_pool(POOL_MIN, 256);
		if (!w->pool)
			goto fail;
		task = kthread_create_on_cpu(stress_worker_fn, w, cpu,
					     "alloc_tag_stress/%u");
		if (IS_ERR(task))
			goto fail;
		w->task = task;
		wake_up_process(task);
	}
	return 0;
fail:
	stop_workers();
	return -ENOMEM;
}

static void release_held(void)
{
	unsigned int i;

	for (i = 0; i < nr_held; i++)
		stress_free(&held[i], NULL);
	kvfree(held);
	held = NULL;
	nr_held = 0;
}

static int hold(unsigned int n)
{
	struct rnd_state rnd;
	unsigned int i;
#ifdef CONFIG_FAULT_INJECTION
	int make_it_fail = current->make_it_fail;
#endif

	held = kvcalloc(n, NR_HELD_FAMILIES * sizeof(*held), GFP_KERNEL);
	if (!held)
		return -ENOMEM;
	prandom_seed_state(&rnd, n);
#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = fault;
#endif
	for (i = 0; i < n * NR_HELD_FAMILIES; i++)
		stress_alloc(&held[nr_held++], i % NR_HELD_FAMILIES, &rnd, NULL);
#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = make_it_fail;
#endif
	return 0;
}

/* run=1: start the workers; run=0: stop them and free all they hold. */
static int run_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err = kstrtobool(val, &on);

	if (err)
		return err;
	mutex_lock(&control_lock);
	if (dying)
		err = -ENODEV;
	else if (on && workers)
		err = -EBUSY;
	else if (on)
		err = start_workers();
	else
		stop_workers();
	mutex_unlock(&control_lock);
	return err;
}

static const struct kernel_param_ops run_ops = {
	.set = run_set,
};
module_param_cb(run, &run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "1: start a churn worker on every online CPU; 0: stop them");

static int hold_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err = kstrtouint(val, 0, &n);

	if (err)
		return err;
	if (!n || n > 100000)
		return -EINVAL;
	mutex_lock(&control_lock);
	err = dying ? -ENODEV : held ? -EBUSY : hold(n);
	mutex_unlock(&control_lock);
	return err;
}

static const struct kernel_param_ops hold_ops = {
	.set = hold_set,
};
module_param_cb(hold, &hold_ops, NULL, 0200);
MODULE_PARM_DESC(hold, "allocate and hold this many objects of each family");

static int release_set(const char *val, const struct kernel_param *kp)
{
	bool now;
	int err = kstrtobool(val, &now);

	if (err)
		return err;
	if (now) {
		mutex_lock(&control_lock);
		release_held();
		mutex_unlock(&control_lock);
	}
	return 0;
}

static const struct kernel_param_ops release_ops = {
	.set = release_set,
};
module_param_cb(release, &release_ops, NULL, 0200);
MODULE_PARM_DESC(release, "1: free what hold allocated");

static int stats_get(char *buf, const struct kernel_param *kp)
{
	int len = 0, f;

	for (f = 0; f < NR_FAMILIES; f++)
		len += sysfs_emit_at(buf, len, "%s %ld %ld\n", family_names[f],
				     atomic_long_read(&allocs[f]),
				     atomic_long_read(&fails[f]));
	len += sysfs_emit_at(buf, len, "frees %ld\ncross-cpu-frees %ld\n",
			     atomic_long_read(&frees),
			     atomic_long_read(&cross_cpu_frees));
	return len;
}

static const struct kernel_param_ops stats_ops = {
	.get = stats_get,
};
module_param_cb(stats, &stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats, "allocations and failures per family");

static int sites_get(char *buf, const struct kernel_param *kp)
{
	u64 held_bytes[NR_SITES] = { 0 };
	unsigned int held_calls[NR_SITES] = { 0 };
	struct alloc_tag_counters c;
	struct alloc_tag *tag;
	unsigned int i, line;
	int len = 0, s;

	mutex_lock(&control_lock);
	for (i = 0; i < nr_held; i++) {
		s = held[i].site;
		if (!held[i].p)
			continue;
		held_calls[s] += held[i].calls;
		held_bytes[s] += held[i].bytes;
	}
	mutex_unlock(&control_lock);
	for (s = 0; s < NR_SITES; s++) {
		line = READ_ONCE(site_line[s]);
		tag = line ? alloc_tag_find(__FILE__, line) : NULL;
		if (!tag)
			continue;
		c = alloc_tag_read(tag);
		len += sysfs_emit_at(buf, len, "%u %u %llu %lld %lld\n", line,
				     held_calls[s], held_bytes[s],
				     (s64)c.calls, (s64)c.bytes);
	}
	return len;
}

static const struct kernel_param_ops sites_ops = {
	.get = sites_get,
};
module_param_cb(sites, &sites_ops, NULL, 0444);
MODULE_PARM_DESC(sites, "per call site: line, held calls and bytes, counted calls and bytes");

static int __init stress_init(void)
{
	stress_cache = kmem_cache_create("alloc_tag_stress", 192, 0, 0, NULL);
	return stress_cache ? 0 : -ENOMEM;
}

static void __exit stress_exit(void)
{
	/* The parameters outlive this function: refuse them from now on. */
	mutex_lock(&control_lock);
	dying = true;
	stop_workers();
	release_held();
	mutex_unlock(&control_lock);
	kmem_cache_destroy(stress_cache);
}

module_init(stress_init);
module_exit(stress_exit);
MODULE_DESCRIPTION("Allocation churn and known holdings for the alloc_tag stress test");
MODULE_LICENSE("GPL");
