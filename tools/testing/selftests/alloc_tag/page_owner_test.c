// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/allocinfo against page_owner, the kernel's own record of who
 * allocated each page: test_alloc_tag_pages allocates single pages, order-2
 * pages, alloc_pages_exact() and vmalloc() areas, four of each at one line
 * of a function of its own. The pages page_owner shows allocated from each
 * function are what that function's line in /proc/allocinfo holds, in bytes
 * and in calls, with the four allocations live and with two of each freed;
 * once the module is unloaded, its lines are gone.
 *
 * Needs CONFIG_PAGE_OWNER, page_owner=on on the kernel command line and
 * debugfs at /sys/kernel/debug; skips without them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "allocinfo.h"

#define MODNAME		"test_alloc_tag_pages"
#define MOD_PARAM(p)	"/sys/module/" MODNAME "/parameters/" p
#define PAGE_OWNER	"/sys/kernel/debug/page_owner"
#define NR		4	/* allocations of each kind at load */
#define NR_KINDS	4
/* Records of a kind kept to show on failure */
#define MAX_KEPT	64
/* page_owner hands out one record per read(), at most a page of it */
#define READ_CHUNK	65536

/* The kinds, in the order of the module's "sites". */
static const struct {
	const char *func;
	int pages;	/* per allocation */
	int records;	/* page_owner records per allocation */
	unsigned int order;	/* of each record */
} expected[NR_KINDS] = {
	{ "tatp_alloc_page", 1, 1, 0 },
	/* One record for the block: its tail pages are not printed. */
	{ "tatp_alloc_order2", 4, 1, 2 },
	/* Split, so each page kept is a record of order 0. */
	{ "tatp_alloc_exact", 3, 3, 0 },
	{ "tatp_alloc_vmalloc", 4, 4, 0 },
};

/*
 * Frames of the allocations a call makes for itself besides the memory it
 * returns, which are charged to lines of their own: the page tables of a
 * vmalloc area, KASAN shadow, stack depot storage, the split of a large
 * page of the linear map. Pages of slab caches are left out by their flag.
 */
static const char * const side_frames[] = {
	"__pte_alloc", "__pmd_alloc", "__pud_alloc", "__p4d_alloc",
	"pte_alloc", "pmd_alloc", "pud_alloc", "p4d_alloc",
	"kasan_", "__kasan_", "stack_depot_", "__stack_depot_",
	"split_large_page", "__split_large_page",
};

struct kind {
	/* From the module's "sites" */
	char func[128];
	char where[300];	/* file:line */
	/* What each allocation is charged beyond its pages */
	long long extra_bytes;
	long long extra_calls;
	/* From page_owner: records naming func, but for those left out */
	long long pages;
	long long records;
	int wrong_order;	/* records of another order than expected */
	int slab;		/* slab pages, left out */
	int side;		/* side allocations, left out */
	char *kept[MAX_KEPT];	/* the records counted, for the log */
	int nr_kept;
};

struct scan {
	struct kind *kinds;
	long long records;	/* all of them */
	long long malformed;
	char first_malformed[512];
};

/* The module's own account of its call sites. */
static void read_sites(struct __test_metadata *_metadata, struct kind *kinds)
{
	size_t len;
	char *buf = read_file(MOD_PARAM("sites"), 512, &len);
	char *line = buf;
	struct kind *k;
	int i, n, fields;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < NR_KINDS; i++) {
		k = &kinds[i];
		fields = sscanf(line, "%127s %299s %lld %lld%n", k->func,
				k->where, &k->extra_bytes, &k->extra_calls, &n);
		ASSERT_EQ(4, fields) TH_LOG("sites: '%s'", buf);
		line += n;
		ASSERT_STREQ(expected[i].func, k->func);
		EXPECT_NE(NULL, strstr(k->where, "test_alloc_tag_pages.c:"))
			TH_LOG("%s at %s", k->func, k->where);
	}
	free(buf);
	/* Only vmalloc has more than pages: its array of page pointers. */
	for (i = 0; i < NR_KINDS - 1; i++) {
		EXPECT_EQ(0, kinds[i].extra_bytes) TH_LOG("%s", kinds[i].func);
		EXPECT_EQ(0, kinds[i].extra_calls) TH_LOG("%s", kinds[i].func);
	}
	k = &kinds[NR_KINDS - 1];
	EXPECT_LE((long long)(4 * sizeof(void *)), k->extra_bytes);
	EXPECT_EQ(1, k->extra_calls);
}

static void forget_records(struct kind *kinds)
{
	int i;

	for (i = 0; i < NR_KINDS; i++) {
		while (kinds[i].nr_kept)
			free(kinds[i].kept[--kinds[i].nr_kept]);
		kinds[i].pages = 0;
		kinds[i].records = 0;
		kinds[i].wrong_order = 0;
		kinds[i].slab = 0;
		kinds[i].side = 0;
	}
}

/* The length of the function name a stack line starts with. */
static size_t frame_name(const char *line, const char **name)
{
	*name = line + strspn(line, " ");
	/* "name+0x1c/0x80 [module]", or "name.constprop.0+..." */
	return strcspn(*name, "+ .\n");
}

/* Whether the "Flags 0x...(a|b|...)" of a PFN line has the flag @flag. */
static int has_flag(const char *pfn_line, const char *flag)
{
	const char *p = strstr(pfn_line, " Flags ");
	const char *end;
	size_t n;

	p = p ? strchr(p, '(') : NULL;
	end = p ? strchr(p, ')') : NULL;
	if (!end)
		return 0;
	for (p++; p < end; p += n + 1) {
		n = strcspn(p, "|)");
		if (n == strlen(flag) && !strncmp(p, flag, n))
			return 1;
	}
	return 0;
}

/*
 * One record, without the blank line that ends it: "Page allocated via
 * order N, mask ...\nPFN ... Flags 0x...(...)\n", a line per stack frame,
 * each starting with a space, then possibly lines on migration and memcg.
 */
static void scan_record(struct scan *s, const char *rec)
{
	const char *pfn_line, *line, *name;
	struct kind *k = NULL;
	unsigned int order;
	int i, side = 0;
	size_t n;

	s->records++;
	pfn_line = strchr(rec, '\n');
	if (sscanf(rec, "Page allocated via order %u, mask ", &order) != 1 ||
	    !pfn_line || strncmp(pfn_line + 1, "PFN ", 4)) {
		if (!s->malformed++)
			snprintf(s->first_malformed, sizeof(s->first_malformed),
				 "%s", rec);
		return;
	}
	pfn_line++;
	for (line = pfn_line; (line = strchr(line, '\n')) && line[1];) {
		line++;
		if (line[0] != ' ')
			continue;
		n = frame_name(line, &name);
		for (i = 0; i < NR_KINDS; i++)
			if (n == strlen(s->kinds[i].func) &&
			    !strncmp(name, s->kinds[i].func, n))
				k = &s->kinds[i];
		for (i = 0; i < (int)ARRAY_SIZE(side_frames); i++)
			side |= !strncmp(name, side_frames[i],
					 strlen(side_frames[i]));
	}
	if (!k)
		return;
	if (has_flag(pfn_line, "slab")) {
		k->slab++;
		return;
	}
	if (side) {
		k->side++;
		return;
	}
	k->pages += 1LL << order;
	k->records++;
	if (order != expected[k - s->kinds].order)
		k->wrong_order++;
	if (k->nr_kept < MAX_KEPT)
		k->kept[k->nr_kept++] = strdup(rec);
}

/*
 * Read page_owner to the end and count, for each kind, the pages of the
 * records whose stack names its function.
 */
static void scan_page_owner(struct __test_metadata *_metadata,
			    struct kind *kinds)
{
	struct scan s = { .kinds = kinds };
	size_t cap = 4 * READ_CHUNK, len = 0;
	char *buf = malloc(cap + 1), *rec, *end;
	int fd = open(PAGE_OWNER, O_RDONLY);
	struct timespec t0, t1;
	ssize_t r;

	ASSERT_LE(0, fd) TH_LOG("%s: %s", PAGE_OWNER, strerror(errno));
	ASSERT_NE(NULL, buf);
	forget_records(kinds);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (cap - len < READ_CHUNK) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			ASSERT_NE(NULL, buf);
		}
		r = read(fd, buf + len, READ_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		ASSERT_LE(0, r) TH_LOG("reading %s: %s", PAGE_OWNER,
				       strerror(errno));
		if (!r)
			break;
		len += r;
		buf[len] = '\0';
		/* Every complete record, ended by a blank line */
		for (rec = buf; (end = strstr(rec, "\n\n")); rec = end + 2) {
			end[1] = '\0';
			scan_record(&s, rec);
		}
		len -= rec - buf;
		memmove(buf, rec, len + 1);
	}
	close(fd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%s: %lld records in %.1f s", PAGE_OWNER, s.records,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	EXPECT_EQ(0, (long)len)
		TH_LOG("page_owner ends in a partial record: '%s'", buf);
	free(buf);
	ASSERT_LT(0, s.records) TH_LOG("no records in %s", PAGE_OWNER);
	EXPECT_EQ(0, s.malformed) TH_LOG("first malformed record: '%s'",
					 s.first_malformed);
}

/* The records counted for @k, a line of the log for each of their lines. */
static void show_records(struct __test_metadata *_metadata, struct kind *k)
{
	const char *line, *next;
	int i;

	TH_LOG("%s: %lld records counted (%d shown)", k->func, k->records,
	       k->nr_kept);
	for (i = 0; i < k->nr_kept; i++)
		for (line = k->kept[i]; *line; line = next + 1) {
			next = strchr(line, '\n');
			TH_LOG("%s record %d: %.*s", k->func, i,
			       (int)(next - line), line);
		}
}

/*
 * With @live allocations of each kind, page_owner shows each kind's pages,
 * and its line in /proc/allocinfo holds them and the extras.
 */
static void expect_match(struct __test_metadata *_metadata, struct kind *kinds,
			 int live)
{
	long long page = sysconf(_SC_PAGESIZE);
	struct tag_line *tags, t;
	int i, n, lines;

	scan_page_owner(_metadata, kinds);
	tags = read_tags(_metadata, &n);
	for (i = 0; i < NR_KINDS; i++) {
		struct kind *k = &kinds[i];
		long long pages = (long long)live * expected[i].pages;
		long long records = (long long)live * expected[i].records;
		long long bytes = k->pages * page + live * k->extra_bytes;
		unsigned long long calls = k->records + live * k->extra_calls;
		int bad = 0;

		bad |= k->pages != pages || k->records != records ||
		       k->wrong_order;
		EXPECT_EQ(pages, k->pages)
			TH_LOG("%s: %d live: page_owner shows %lld pages, expected %lld",
			       k->func, live, k->pages, pages);
		EXPECT_EQ(records, k->records)
			TH_LOG("%s: %d live: page_owner shows %lld records, expected %lld",
			       k->func, live, k->records, records);
		EXPECT_EQ(0, k->wrong_order)
			TH_LOG("%s: %d records not of order %u", k->func,
			       k->wrong_order, expected[i].order);

		lines = find_tag(tags, n, k->where, MODNAME, &t);
		EXPECT_EQ(1, lines)
			TH_LOG("%s: %d lines %s [%s] in allocinfo", k->func,
			       lines, k->where, MODNAME);
		if (lines == 1) {
			bad |= t.bytes != bytes || t.calls != calls;
			EXPECT_STREQ(k->func, t.func);
			EXPECT_EQ(0, t.inaccurate);
			EXPECT_EQ(bytes, t.bytes)
				TH_LOG("%s, %d live: %lld pages of %lld + %d * %lld",
				       k->func, live, k->pages, page, live,
				       k->extra_bytes);
			EXPECT_EQ(calls, t.calls)
				TH_LOG("%s, %d live: %lld records + %d * %lld",
				       k->func, live, k->records, live,
				       k->extra_calls);
		}
		if (k->slab || k->side)
			TH_LOG("%s, %d live: left out %d slab, %d side records",
			       k->func, live, k->slab, k->side);
		if (bad)
			show_records(_metadata, k);
	}
	free(tags);
}

FIXTURE(page_owner) {
	struct kind kinds[NR_KINDS];
};

FIXTURE_SETUP(page_owner)
{
}

FIXTURE_TEARDOWN(page_owner)
{
	/* Gone already unless a check failed on the way. */
	module_unload(MODNAME);
	forget_records(self->kinds);
}

/* Reading page_owner takes a while under emulation: one read per record. */
TEST_F_TIMEOUT(page_owner, matches_allocinfo, 600)
{
	struct kind *k = self->kinds;
	struct tag_line *tags, t;
	int i, n;

	if (access(PAGE_OWNER, R_OK))
		SKIP(return, "no %s (needs CONFIG_PAGE_OWNER, page_owner=on and debugfs)",
		     PAGE_OWNER);
	if (!sysctl_read())
		SKIP(return, "memory allocation profiling is off");
	ASSERT_EQ(0, module_load(KO(MODNAME), ""))
		TH_LOG("loading %s: %s", KO(MODNAME), strerror(errno));
	read_sites(_metadata, k);
	expect_match(_metadata, k, NR);

	ASSERT_EQ(0, write_file(MOD_PARAM("free_half"), "1"));
	expect_match(_metadata, k, NR / 2);

	ASSERT_EQ(0, module_unload(MODNAME));
	tags = read_tags(_metadata, &n);
	for (i = 0; i < NR_KINDS; i++)
		EXPECT_EQ(0, find_tag(tags, n, k[i].where, MODNAME, &t))
			TH_LOG("%s: line %s [%s] still in allocinfo after unload",
			       k[i].func, k[i].where, MODNAME);
	free(tags);
}

TEST_HARNESS_MAIN
