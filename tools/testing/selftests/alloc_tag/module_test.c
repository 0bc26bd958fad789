// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation tags of a loadable module: test_alloc_tag allocates through
 * the page, kmalloc, vmalloc and percpu allocators; its lines carry its
 * name and exact bytes and calls; unloaded with live allocations, its lines
 * stay, charged and marked "module:unloaded", until test_alloc_tag_keeper
 * frees the memory, and are then gone; a new load gets lines of its own;
 * loading and unloading in a loop leaves nothing behind. What the module
 * frees with kfree_rcu() at unload is no live allocation, and the code of
 * a module kept for its lines can no longer run. The control file's
 * commands reach a module loaded after them and through its alloc_tag=
 * parameter, and go with it; so do the stacks it records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "allocinfo.h"
#include "kmsg.h"

#define MODNAME		"test_alloc_tag"
#define KEEPER		"test_alloc_tag_keeper"
#define PARAM(mod, p)	"/sys/module/" mod "/parameters/" p
#define NR_SITES	5
#define CYCLES		50

struct site {
	char where[300];
	long long bytes;
	unsigned long long calls;
};

/* The "0-N" of /sys/devices/system/cpu/possible, as a count. */
static int possible_cpus(void)
{
	size_t len;
	char *s = read_file("/sys/devices/system/cpu/possible", 64, &len);
	long first, last;
	char *end;

	if (!s)
		return -1;
	first = strtol(s, &end, 10);
	last = first;
	if (end == s)
		last = first - 2;
	else if (*end == '-')
		last = strtol(end + 1, NULL, 10);
	free(s);
	return last - first + 1;
}

/* The module's own account of its call sites. */
static void read_sites(struct __test_metadata *_metadata, struct site *sites)
{
	size_t len;
	char *buf = read_file(PARAM(MODNAME, "sites"), 512, &len);
	char *line = buf;
	int i, n, fields;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < NR_SITES; i++) {
		fields = sscanf(line, "%299s %lld %llu%n", sites[i].where,
				&sites[i].bytes, &sites[i].calls, &n);
		ASSERT_EQ(3, fields);
		line += n;
	}
	free(buf);
}

/* The allocation the module frees with kfree_rcu() at unload. */
static void read_rcu_site(struct __test_metadata *_metadata, struct site *site)
{
	size_t len;
	char *buf = read_file(PARAM(MODNAME, "rcu_site"), 128, &len);
	int fields;

	ASSERT_NE(NULL, buf);
	fields = sscanf(buf, "%299s %lld %llu", site->where, &site->bytes,
			&site->calls);
	free(buf);
	ASSERT_EQ(3, fields);
}

/*
 * Lines of @site in [test_alloc_tag] in the report @tags: how many are
 * marked unloaded and how many are not; @live gets the last of the latter.
 */
static void count_lines(struct tag_line *tags, int n, struct site *site,
			int *unloaded, int *loaded, struct tag_line *live)
{
	int i;

	*unloaded = *loaded = 0;
	for (i = 0; i < n; i++) {
		if (strcmp(tags[i].where, site->where) ||
		    strcmp(tags[i].module, MODNAME))
			continue;
		if (tags[i].unloaded) {
			(*unloaded)++;
		} else {
			(*loaded)++;
			*live = tags[i];
		}
	}
}

/*
 * Every site has @unloaded lines marked unloaded, each holding what the
 * module allocated, and @loaded (0 or 1) line of the loaded module holding
 * it if @charged, nothing otherwise.
 */
static void expect_sites(struct __test_metadata *_metadata, struct site *sites,
			 int unloaded, int loaded, int charged)
{
	struct tag_line *tags, live = { 0 };
	int i, j, n, nu, nl;

	tags = read_tags(_metadata, &n);
	for (i = 0; i < NR_SITES; i++) {
		count_lines(tags, n, &sites[i], &nu, &nl, &live);
		EXPECT_EQ(unloaded, nu) TH_LOG("%s unloaded", sites[i].where);
		EXPECT_EQ(loaded, nl) TH_LOG("%s loaded", sites[i].where);
		if (loaded == 1 && nl == 1) {
			EXPECT_EQ(charged ? sites[i].bytes : 0, live.bytes)
				TH_LOG("%s", sites[i].where);
			EXPECT_EQ(charged ? sites[i].calls : 0, live.calls)
				TH_LOG("%s", sites[i].where);
		}
		for (j = 0; j < n; j++) {
			if (!tags[j].unloaded ||
			    strcmp(tags[j].where, sites[i].where))
				continue;
			EXPECT_EQ(sites[i].bytes, tags[j].bytes);
			EXPECT_EQ(sites[i].calls, tags[j].calls);
		}
	}
	free(tags);
}

FIXTURE(module) {
	struct site sites[NR_SITES];
};

FIXTURE_SETUP(module)
{
	ASSERT_EQ(0, module_load(KO(KEEPER), "")) TH_LOG("%s", strerror(errno));
}

FIXTURE_TEARDOWN(module)
{
	module_unload(MODNAME);
	EXPECT_EQ(0, module_unload(KEEPER));
}

/* What the module says it allocated is what its lines hold. */
TEST_F(module, families)
{
	struct site *s = self->sites, rcu;
	long long page = getpagesize();
	struct tag_line *tags, live;
	static struct kmsg_log log;
	int n, nu, nl, kmsg;

	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	read_sites(_metadata, s);
	for (int i = 0; i < NR_SITES; i++)
		EXPECT_EQ(0, strncmp(s[i].where, "lib/test_alloc_tag.c:", 21));
	/* order-2 pages, a page, a large kmalloc, vmalloc, percpu */
	EXPECT_EQ(4 * page, s[0].bytes);
	EXPECT_EQ(1, s[0].calls);
	EXPECT_EQ(page, s[1].bytes);
	EXPECT_EQ(1, s[1].calls);
	EXPECT_EQ(4 * page, s[2].bytes);
	EXPECT_EQ(1, s[2].calls);
	/* Four pages and the array of their struct page pointers. */
	EXPECT_LT(4 * page, s[3].bytes);
	EXPECT_GT(5 * page, s[3].bytes);
	EXPECT_EQ(5, s[3].calls);
	EXPECT_EQ(32LL * possible_cpus(), s[4].bytes);
	EXPECT_EQ(1, s[4].calls);
	expect_sites(_metadata, s, 0, 1, 1);

	read_rcu_site(_metadata, &rcu);
	EXPECT_EQ(4 * page, rcu.bytes);
	EXPECT_EQ(1, rcu.calls);

	ASSERT_EQ(0, write_file(PARAM(MODNAME, "free"), "1"));
	expect_sites(_metadata, s, 0, 1, 0);
	tags = read_tags(_metadata, &n);
	count_lines(tags, n, &rcu, &nu, &nl, &live);
	free(tags);
	ASSERT_EQ(1, nl);
	EXPECT_EQ(rcu.bytes, live.bytes);
	EXPECT_EQ(rcu.calls, live.calls);

	/* The unload frees the last allocation with kfree_rcu(). */
	kmsg = kmsg_open_at_end();
	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, module_unload(MODNAME));
	expect_sites(_metadata, s, 0, 0, 0);
	tags = read_tags(_metadata, &n);
	count_lines(tags, n, &rcu, &nu, &nl, &live);
	free(tags);
	EXPECT_EQ(0, nu) TH_LOG("%s kept after the unload", rcu.where);
	EXPECT_EQ(0, nl);
	ASSERT_EQ(0, kmsg_read(kmsg, &log));
	close(kmsg);
	EXPECT_EQ(-1, kmsg_find_sub(&log, 0, MODNAME " unloaded with"));
	kmsg_free(&log);
}

/*
 * A module kept for its lines keeps its code only as memory: a stale call
 * into it (a timer left armed) must fault rather than run.
 */
TEST_F(module, kept_code_not_executable)
{
	int own, kept, fields;
	char *buf;
	size_t len;

	ASSERT_EQ(0, module_load(KO(MODNAME), "leak=1"));
	ASSERT_EQ(0, module_unload(MODNAME));
	buf = read_file(PARAM(KEEPER, "exec"), 64, &len);
	ASSERT_NE(NULL, buf);
	fields = sscanf(buf, "%d %d", &own, &kept);
	free(buf);
	ASSERT_EQ(2, fields);
	if (own == -EOPNOTSUPP)
		SKIP(return, "page permissions are only read on x86 with NX");
	EXPECT_EQ(1, own) TH_LOG("the keeper's own code reads as not executable");
	EXPECT_EQ(0, kept) TH_LOG("the kept module's code is still executable");
	ASSERT_EQ(0, write_file(PARAM(KEEPER, "free"), "1"));
}

/*
 * What loading a module costs the kernel: the module's memory, its tags'
 * counters and bookkeeping, its sysfs and arguments.
 */
static const char * const module_cost[] = {
	"lib/codetag.c:", "lib/alloc_tag.c:", "kernel/module/",
	"arch/x86/kernel/module.c:",
};

static void cost(struct __test_metadata *_metadata, int *lines,
		 long long *bytes, long long *calls)
{
	struct tag_line *tags;
	int i, j, n;

	tags = read_tags(_metadata, &n);
	*lines = n;
	*bytes = *calls = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < (int)ARRAY_SIZE(module_cost); j++)
			if (!strncmp(tags[i].where, module_cost[j],
				     strlen(module_cost[j]))) {
				*bytes += tags[i].bytes;
				*calls += tags[i].calls;
			}
	free(tags);
}

/*
 * The cost once it stops changing: a module's init memory is freed by a
 * work item after its load returns.
 */
static void settled_cost(struct __test_metadata *_metadata, int *lines,
			 long long *bytes, long long *calls)
{
	long long b, c;
	int l, i;

	int stable = 0;

	cost(_metadata, lines, bytes, calls);
	/* The same for a second, within 30 s. */
	for (i = 0; i < 300 && stable < 10; i++) {
		usleep(100 * 1000);
		cost(_metadata, &l, &b, &c);
		if (l == *lines && b == *bytes && c == *calls) {
			stable++;
			continue;
		}
		stable = 0;
		*lines = l;
		*bytes = b;
		*calls = c;
	}
	ASSERT_EQ(10, stable) TH_LOG("module costs still changing after 30 s");
}

/*
 * Unloaded with live allocations: the lines stay, charged and marked; a
 * new load gets lines of its own next to them; when the keeper frees the
 * memory, the old lines go, and the old module's memory with them.
 */
TEST_F(module, unloaded_with_live_allocations)
{
	long long bytes0, calls0, bytes, calls;
	struct site *s = self->sites;
	int lines0, lines;

	settled_cost(_metadata, &lines0, &bytes0, &calls0);
	ASSERT_EQ(0, module_load(KO(MODNAME), "leak=1"));
	read_sites(_metadata, s);
	expect_sites(_metadata, s, 0, 1, 1);
	ASSERT_EQ(0, module_unload(MODNAME));
	ASSERT_EQ(-1, access(PARAM(MODNAME, "sites"), F_OK));
	EXPECT_EQ(NR_SITES, read_long(PARAM(KEEPER, "held")));
	expect_sites(_metadata, s, 1, 0, 0);

	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	expect_sites(_metadata, s, 1, 1, 1);
	ASSERT_EQ(0, module_unload(MODNAME));
	expect_sites(_metadata, s, 1, 0, 0);

	ASSERT_EQ(0, write_file(PARAM(KEEPER, "free"), "1"));
	EXPECT_EQ(0, read_long(PARAM(KEEPER, "held")));
	expect_sites(_metadata, s, 0, 0, 0);
	/* The old module's core went with its last line. */
	settled_cost(_metadata, &lines, &bytes, &calls);
	EXPECT_EQ(lines0, lines);
	EXPECT_EQ(bytes0, bytes);
	EXPECT_EQ(calls0, calls);
}

/* Load and unload in a loop: the report and the module costs stay put. */
TEST_F(module, load_unload_cycles)
{
	long long bytes0, calls0, bytes, calls;
	int lines0, lines, i;

	/* A first cycle: whatever it sets up once is not a leak. */
	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	ASSERT_EQ(0, module_unload(MODNAME));
	settled_cost(_metadata, &lines0, &bytes0, &calls0);
	ASSERT_LT(0, bytes0);
	for (i = 0; i < CYCLES; i++) {
		ASSERT_EQ(0, module_load(KO(MODNAME), ""));
		ASSERT_EQ(0, module_unload(MODNAME));
	}
	settled_cost(_metadata, &lines, &bytes, &calls);
	EXPECT_EQ(lines0, lines);
	EXPECT_EQ(bytes0, bytes);
	EXPECT_EQ(calls0, calls);
}

#define PENDING_UNTIL	"# pending until module " MODNAME " is loaded: "
#define PENDING		PENDING_UNTIL "module " MODNAME " -p"
#define PENDING_FAIL	PENDING_UNTIL "module " MODNAME " +f times 1"

#define LOCKDOWN	"/sys/kernel/security/lockdown"
#define LOCKDOWN_LOG	"Lockdown: module_test: allocation fault injection is restricted; see man kernel_lockdown.7"

/* The boot asked for lockdown: the lockdown boot of make check. */
static int lockdown_asked(void)
{
	size_t len;
	char *cmdline = read_file("/proc/cmdline", 4096, &len);
	int asked;

	if (!cmdline)
		return -1;
	asked = strstr(cmdline, "lockdown=integrity") ||
		strstr(cmdline, "lockdown=confidentiality");
	free(cmdline);
	return asked;
}

/* Writes @text to the control file: 0 or the errno of the write. */
static int control_write(const char *text)
{
	int fd = open(CONTROL, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = errno;
	close(fd);
	return err;
}

/* Lines of the control file that list a site of the module switched off. */
static int sites_off(struct __test_metadata *_metadata)
{
	size_t len;
	char *buf = read_file(CONTROL, 4096, &len), *line;
	int n = 0;

	if (!buf)
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "lib/test_alloc_tag.c:", 21) &&
		    strstr(line, " [" MODNAME "] func:") &&
		    !strcmp(line + strlen(line) - 3, " =_"))
			n++;
	free(buf);
	return n;
}

static int control_has(const char *text)
{
	size_t len;
	char *buf = read_file(CONTROL, 4096, &len);
	int found;

	if (!buf)
		return -1;
	found = !!strstr(buf, text);
	free(buf);
	return found;
}

/* The count of the module's sites: every line of allocinfo it has. */
static int module_sites(struct __test_metadata *_metadata)
{
	struct tag_line *tags;
	int i, n, nr = 0;

	tags = read_tags(_metadata, &n);
	for (i = 0; i < n; i++)
		nr += !strcmp(tags[i].module, MODNAME) && !tags[i].unloaded;
	free(tags);
	return nr;
}

/*
 * Switched off before the module is loaded: the command waits for it,
 * then none of the module's allocations is charged; the flags go with
 * the module.
 */
TEST_F(module, control_pending)
{
	struct site *s = self->sites;

	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	ASSERT_EQ(0, control_write("module " MODNAME " -p\n"));
	EXPECT_EQ(1, control_has(PENDING));
	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	EXPECT_EQ(0, control_has(PENDING));
	read_sites(_metadata, s);
	expect_sites(_metadata, s, 0, 1, 0);
	EXPECT_EQ(module_sites(_metadata), sites_off(_metadata));
	EXPECT_LE(NR_SITES, sites_off(_metadata));
	/* Back on: what it allocates from now on is charged. */
	ASSERT_EQ(0, control_write("module " MODNAME " +p"));
	EXPECT_EQ(0, sites_off(_metadata));
	ASSERT_EQ(0, module_unload(MODNAME));
	/* Applied once: the next load is profiled. */
	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	read_sites(_metadata, s);
	expect_sites(_metadata, s, 0, 1, 1);
	ASSERT_EQ(0, module_unload(MODNAME));
	EXPECT_EQ(0, sites_off(_metadata));
}

/* <module>.alloc_tag= at load: the module's own sites only. */
TEST_F(module, control_param)
{
	struct site *s = self->sites;
	static struct kmsg_log log;
	int kmsg;

	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	ASSERT_EQ(0, module_load(KO(MODNAME), "alloc_tag=\"file test_alloc_tag.c -p\""));
	read_sites(_metadata, s);
	expect_sites(_metadata, s, 0, 1, 0);
	EXPECT_EQ(module_sites(_metadata), sites_off(_metadata));
	/* Earlier charges drain while the sites are off. */
	ASSERT_EQ(0, module_unload(MODNAME));
	EXPECT_EQ(0, sites_off(_metadata));

	/* A bad value: logged, nothing changed, the module loads. */
	kmsg = kmsg_open_at_end();
	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, module_load(KO(MODNAME), "alloc_tag=\"-p junk\""));
	ASSERT_EQ(0, kmsg_read(kmsg, &log));
	close(kmsg);
	EXPECT_LE(0, kmsg_find_sub(&log, 0, "alloc_tag: unexpected 'junk' after the flags"));
	kmsg_free(&log);
	read_sites(_metadata, s);
	expect_sites(_metadata, s, 0, 1, 1);
	EXPECT_EQ(0, sites_off(_metadata));
	ASSERT_EQ(0, module_unload(MODNAME));
}

/*
 * Switched off while its memory is live, then unloaded with it: the
 * lines stay charged until the memory is freed, and the flags are gone.
 */
TEST_F(module, control_unload_with_live_allocations)
{
	struct site *s = self->sites;

	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	ASSERT_EQ(0, module_load(KO(MODNAME), "leak=1"));
	read_sites(_metadata, s);
	ASSERT_EQ(0, control_write("module " MODNAME " -p"));
	ASSERT_EQ(0, module_unload(MODNAME));
	expect_sites(_metadata, s, 1, 0, 0);
	EXPECT_EQ(0, sites_off(_metadata));
	ASSERT_EQ(0, write_file(PARAM(KEEPER, "free"), "1"));
	expect_sites(_metadata, s, 0, 0, 0);
}

/*
 * The stacks file's line of the site @where of the module: its bytes and
 * calls, and whether one of its stacks has a frame in @func. Return: the
 * number of such lines, or -1.
 */
static int stacks_site(const char *where, long long *bytes,
		       unsigned long long *calls, const char *func, int *in_func)
{
	size_t len, flen = strlen(func);
	char *buf = read_file(STACKS, 65536, &len), *line, name[300], *f;
	unsigned long long c;
	int n = 0, in_site = 0;
	long long b;

	if (!buf)
		return -1;
	*in_func = 0;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		if (line[0] != ' ') {
			in_site = sscanf(line, "%lld %llu %299s", &b, &c,
					 name) == 3 && !strcmp(name, where) &&
				  strstr(line, " [" MODNAME "] func:");
			if (in_site) {
				*bytes = b;
				*calls = c;
				n++;
			}
			continue;
		}
		/* A frame: "      func+0x1/0x2", after a stack's counts. */
		f = line + strspn(line, " ");
		if (in_site && !strncmp(f, func, flen) && f[flen] == '+')
			*in_func = 1;
	}
	free(buf);
	return n;
}

/*
 * Stacks recorded for a module loaded after the command (+s waits for
 * it): each site's live allocations are listed with exactly its bytes and
 * calls, under the stack of the module's init; unloaded with them live,
 * the records go with the flags, and the memory drains as before.
 */
TEST_F(module, control_stacks)
{
	struct site *s = self->sites;
	unsigned long long calls;
	long long bytes;
	int i, in_init;

	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	ASSERT_EQ(0, control_write("module " MODNAME " +s"));
	ASSERT_EQ(0, module_load(KO(MODNAME), "leak=1"));
	read_sites(_metadata, s);
	for (i = 0; i < NR_SITES; i++) {
		ASSERT_EQ(1, stacks_site(s[i].where, &bytes, &calls,
					 "do_one_initcall", &in_init))
			TH_LOG("%s", s[i].where);
		EXPECT_EQ(s[i].bytes, bytes) TH_LOG("%s", s[i].where);
		EXPECT_EQ(s[i].calls, calls) TH_LOG("%s", s[i].where);
		EXPECT_EQ(1, in_init) TH_LOG("%s", s[i].where);
	}
	EXPECT_EQ(1, control_has(" =ps"));
	ASSERT_EQ(0, module_unload(MODNAME));
	expect_sites(_metadata, s, 1, 0, 0);
	EXPECT_EQ(0, control_has(" =ps"));
	for (i = 0; i < NR_SITES; i++)
		EXPECT_EQ(0, stacks_site(s[i].where, &bytes, &calls,
					 "do_one_initcall", &in_init))
			TH_LOG("%s", s[i].where);
	ASSERT_EQ(0, write_file(PARAM(KEEPER, "free"), "1"));
	expect_sites(_metadata, s, 0, 0, 0);
}

#define STACK_RECORDS	PARAM("alloc_tag", "stack_records")
#define STACKS_HEADER	"# %lu live allocations recorded, at most %u " \
			"(records: %lu bytes); %lu not recorded"
#define LIMIT_LOG	"alloc_tag: 2 live allocations recorded, the limit"

/* The counts of the header of the stacks file. */
static void read_stacks_header(struct __test_metadata *_metadata,
			       unsigned long *live, unsigned int *max,
			       unsigned long *mem, unsigned long *missed)
{
	size_t len;
	char *buf = read_file(STACKS, 65536, &len);
	int fields;

	ASSERT_NE(NULL, buf);
	fields = sscanf(buf, STACKS_HEADER, live, max, mem, missed);
	ASSERT_EQ(4, fields) TH_LOG("%s", buf);
	free(buf);
}

/*
 * Room for two records (set for the next pool): the module loaded with
 * its sites flagged s records two of its allocations, counts every other
 * one as not recorded, and the log says the limit was reached; its
 * recorded order-2 pages split, each new page is one more not recorded.
 */
TEST_F(module, control_stacks_limit)
{
	unsigned long live, missed, split_missed, mem;
	struct site *s = self->sites, rcu;
	static struct kmsg_log log;
	long long charges;
	unsigned int max;
	int i, kmsg;
	size_t len;
	char *old;

	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	old = read_file(STACK_RECORDS, 64, &len);
	ASSERT_NE(NULL, old);
	ASSERT_EQ(0, write_file(STACK_RECORDS, "2"));
	kmsg = kmsg_open_at_end();
	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, module_load(KO(MODNAME), "alloc_tag=+s"));
	ASSERT_EQ(0, kmsg_read(kmsg, &log));
	close(kmsg);
	read_sites(_metadata, s);
	read_rcu_site(_metadata, &rcu);
	charges = rcu.calls;
	for (i = 0; i < NR_SITES; i++)
		charges += s[i].calls;
	read_stacks_header(_metadata, &live, &max, &mem, &missed);
	EXPECT_EQ(2, live);
	EXPECT_EQ(2, max);
	EXPECT_LT(0, mem);
	EXPECT_EQ(charges - 2, (long long)missed);
	EXPECT_LE(0, kmsg_find_sub(&log, 0, LIMIT_LOG));
	kmsg_free(&log);
	/* Split with the pool full: the three new pages are not recorded. */
	ASSERT_EQ(0, write_file(PARAM(MODNAME, "split"), "1"));
	read_stacks_header(_metadata, &live, &max, &mem, &split_missed);
	EXPECT_EQ(2, live);
	EXPECT_EQ(missed + 3, split_missed);
	ASSERT_EQ(0, module_unload(MODNAME));
	/* The pool went with the flags; the next one has the old size. */
	EXPECT_EQ(0, write_file(STACK_RECORDS, old));
	free(old);
}

/*
 * Each of the module's sites flagged f in turn, by its parameter: that
 * allocation fails, so does its init and the load; then by a command that
 * waits for the module, once (times 1); the next load is untouched.
 */
TEST_F(module, control_fail)
{
	struct site *s = self->sites;
	char params[128];
	int i;

	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	if (lockdown_asked())
		SKIP(return, "lockdown refuses +f: control_fail_locked_down");
	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	read_sites(_metadata, s);
	ASSERT_EQ(0, module_unload(MODNAME));
	for (i = 0; i < NR_SITES; i++) {
		snprintf(params, sizeof(params), "alloc_tag=\"line %s +f\"",
			 strrchr(s[i].where, ':') + 1);
		errno = 0;
		EXPECT_EQ(-1, module_load(KO(MODNAME), params))
			TH_LOG("%s", s[i].where);
		EXPECT_EQ(ENOMEM, errno) TH_LOG("%s", s[i].where);
		EXPECT_EQ(0, control_has(" =pf "));
	}
	ASSERT_EQ(0, control_write("module " MODNAME " +f times 1"));
	EXPECT_EQ(1, control_has(PENDING_FAIL));
	errno = 0;
	EXPECT_EQ(-1, module_load(KO(MODNAME), ""));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(0, control_has(PENDING_FAIL));
	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	read_sites(_metadata, s);
	expect_sites(_metadata, s, 0, 1, 1);
	EXPECT_EQ(0, control_has(" =pf "));
	ASSERT_EQ(0, module_unload(MODNAME));
}

/*
 * Under lockdown: debugfs refuses the control file, /proc serves it (the
 * other control tests use it: -p and +s work), and f is refused from the
 * control file and from a module's parameter, which still loads the module.
 */
TEST_F(module, control_fail_locked_down)
{
	struct site *s = self->sites;
	static struct kmsg_log log;
	size_t len;
	char *state;
	int kmsg;

	if (!lockdown_asked())
		SKIP(return, "not booted with lockdown=");
	mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	state = read_file(LOCKDOWN, 256, &len);
	ASSERT_NE(NULL, state);
	EXPECT_STREQ("none [integrity] confidentiality\n", state);
	free(state);
	errno = 0;
	EXPECT_EQ(-1, open(DEBUGFS_CONTROL, O_RDONLY));
	EXPECT_EQ(EPERM, errno);

	kmsg = kmsg_open_at_end();
	ASSERT_LE(0, kmsg);
	EXPECT_EQ(EPERM, control_write("module " MODNAME " +f times 1"));
	EXPECT_EQ(0, control_has(PENDING_FAIL));
	ASSERT_EQ(0, module_load(KO(MODNAME), "alloc_tag=\"+f\""));
	ASSERT_EQ(0, kmsg_read(kmsg, &log));
	close(kmsg);
	EXPECT_LE(0, kmsg_find_sub(&log, 0, LOCKDOWN_LOG));
	EXPECT_LE(0, kmsg_find_sub(&log, 0,
				   "alloc_tag: " MODNAME ".alloc_tag ignored: -1"));
	kmsg_free(&log);
	read_sites(_metadata, s);
	expect_sites(_metadata, s, 0, 1, 1);
	EXPECT_EQ(0, control_has(" =pf "));
	/* Taking f away is not refused. */
	EXPECT_EQ(0, control_write("module " MODNAME " -f"));
	ASSERT_EQ(0, module_unload(MODNAME));
}

/* Outside lockdown debugfs serves the same file as /proc. */
TEST_F(module, control_in_debugfs)
{
	size_t len;
	char *text;

	if (lockdown_asked())
		SKIP(return, "lockdown closes debugfs: control_fail_locked_down");
	if (access(DEBUGFS_CONTROL, F_OK))
		SKIP(return, "no " DEBUGFS_CONTROL);
	ASSERT_EQ(0, control_write("module " MODNAME " -p"));
	text = read_file(DEBUGFS_CONTROL, 4096, &len);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, PENDING));
	free(text);
	/* The load takes the command. */
	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	EXPECT_EQ(0, control_has(PENDING_UNTIL));
	ASSERT_EQ(0, module_unload(MODNAME));
}

/* Bad writes: EINVAL naming the word, E2BIG when too long; no change. */
TEST_F(module, control_bad_writes)
{
	static const char * const bad[][2] = {
		{ "module " MODNAME " -p; flie x -p", "unknown keyword 'flie'" },
		{ "module " MODNAME " -q", "unknown flag 'q' in '-q'" },
		{ "module " MODNAME " -p probability 10",
		  "'probability' without +f or =f" },
		{ "module " MODNAME " +f times 1 chance 2",
		  "unexpected 'chance' after the flags" },
		{ "file lib/test_alloc_tag.c line 99999 -p",
		  "line 99999 is beyond the last call site of file lib/test_alloc_tag.c" },
	};
	static struct kmsg_log log;
	size_t big = 300 * 1024;
	char *junk;
	int i, fd, kmsg;
	ssize_t n;

	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		/* Refused before its attributes are read. */
		if (strstr(bad[i][0], "+f") && lockdown_asked())
			continue;
		kmsg = kmsg_open_at_end();
		ASSERT_LE(0, kmsg);
		EXPECT_EQ(EINVAL, control_write(bad[i][0]))
			TH_LOG("'%s'", bad[i][0]);
		ASSERT_EQ(0, kmsg_read(kmsg, &log));
		close(kmsg);
		EXPECT_LE(0, kmsg_find_sub(&log, 0, bad[i][1]))
			TH_LOG("no '%s' in the log", bad[i][1]);
		kmsg_free(&log);
		EXPECT_EQ(0, sites_off(_metadata));
	}
	/* 64 KiB of junk, and more than the 256 KiB a write may hold. */
	junk = malloc(big);
	ASSERT_NE(NULL, junk);
	memset(junk, 'x', big);
	fd = open(CONTROL, O_WRONLY);
	ASSERT_LE(0, fd);
	n = write(fd, junk, 64 * 1024);
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EINVAL, errno);
	n = write(fd, junk, big);
	EXPECT_EQ(-1, n);
	EXPECT_EQ(E2BIG, errno);
	close(fd);
	free(junk);
	EXPECT_EQ(0, sites_off(_metadata));
	ASSERT_EQ(0, module_unload(MODNAME));
}

/*
 * alloc_tag= given to a module without allocation sites (the keeper)
 * applies to nothing, and is not kept for a later module of that name.
 */
TEST_F(module, control_param_no_sites)
{
	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	ASSERT_EQ(0, module_unload(KEEPER));
	ASSERT_EQ(0, module_load(KO(KEEPER), "alloc_tag=\"-p\""));
	EXPECT_EQ(0, control_has("# pending until module " KEEPER " "));
}

#define MAX_PENDING	64
#define PENDING_LIMIT_LOG \
	"alloc_tag: more than 64 commands waiting for modules to be loaded"

/* Commands the control file lists as waiting for a module. */
static int kept_commands(void)
{
	size_t len;
	char *buf = read_file(CONTROL, 4096, &len), *p;
	int n = 0;

	for (p = buf; p && (p = strstr(p, "# pending until module ")); p++)
		n++;
	free(buf);
	return n;
}

/*
 * Commands waiting for modules are bounded: a write that would keep
 * more than 64 is refused whole (ENOSPC, logged); the module's load
 * applies and drops those kept.
 */
TEST_F(module, control_pending_limit)
{
	static struct kmsg_log log;
	struct site *s = self->sites;
	char cmds[MAX_PENDING * 32] = "";
	int i, kmsg;

	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	/* Others may wait already (the command line's, say). */
	for (i = kept_commands(); i < MAX_PENDING - 1; i++)
		strcat(cmds, "module " MODNAME " +p\n");
	ASSERT_EQ(0, control_write(cmds));
	kmsg = kmsg_open_at_end();
	ASSERT_LE(0, kmsg);
	EXPECT_EQ(ENOSPC, control_write("module " MODNAME " +p; module " MODNAME " -p"));
	ASSERT_EQ(0, kmsg_read(kmsg, &log));
	close(kmsg);
	EXPECT_LE(0, kmsg_find_sub(&log, 0, PENDING_LIMIT_LOG));
	kmsg_free(&log);
	EXPECT_EQ(0, control_has(PENDING));
	ASSERT_EQ(0, control_write("module " MODNAME " +p"));
	EXPECT_EQ(ENOSPC, control_write("module " MODNAME " +p"));
	ASSERT_EQ(0, module_load(KO(MODNAME), ""));
	EXPECT_EQ(0, control_has(PENDING_UNTIL));
	read_sites(_metadata, s);
	expect_sites(_metadata, s, 0, 1, 1);
	ASSERT_EQ(0, module_unload(MODNAME));
}

#define RACE_CYCLES	4
#define NO_RECORDS	"(records: 0 bytes)"

/*
 * Commands written in a loop while the module is loaded and unloaded,
 * the keeper holding the unload 50 ms after the module's going was
 * notified: no flag outlives the module: the record pool of flag s is
 * freed, and no site is left flagged.
 */
TEST_F(module, control_write_racing_unload)
{
	int i, status;
	size_t len;
	char *buf;
	pid_t writer;

	if (access(CONTROL, F_OK))
		SKIP(return, "no " CONTROL);
	ASSERT_EQ(0, write_file(PARAM(KEEPER, "going_delay_ms"), "50"));
	for (i = 0; i < RACE_CYCLES; i++) {
		ASSERT_EQ(0, module_load(KO(MODNAME), ""));
		writer = fork();
		ASSERT_LE(0, writer);
		if (!writer) {
			for (;;)
				control_write("module test_alloc_ta* +sf probability 0");
		}
		/* Let it catch the module loaded, then unload under it. */
		usleep(5000);
		ASSERT_EQ(0, module_unload(MODNAME));
		kill(writer, SIGKILL);
		ASSERT_EQ(writer, waitpid(writer, &status, 0));
	}
	ASSERT_EQ(0, write_file(PARAM(KEEPER, "going_delay_ms"), "0"));
	buf = read_file(STACKS, 65536, &len);
	ASSERT_NE(NULL, buf);
	EXPECT_NE(NULL, strstr(buf, NO_RECORDS)) TH_LOG("%s", buf);
	free(buf);
	EXPECT_EQ(0, control_has(" [" MODNAME "] "));
	EXPECT_EQ(0, control_has(" =psf"));
}

#define UNLOADS		9
#define ALLOCINFO_PATH	"/proc/allocinfo"

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n unloads of the module, each after a fresh load. */
static long long median_unload_us(void)
{
	long long took[UNLOADS], t;
	int i;

	for (i = 0; i < UNLOADS; i++) {
		if (module_load(KO(MODNAME), ""))
			return -1;
		t = now_us();
		if (module_unload(MODNAME))
			return -1;
		took[i] = now_us() - t;
	}
	qsort(took, UNLOADS, sizeof(took[0]), cmp_ll);
	return took[UNLOADS / 2];
}

/*
 * Not a test of speed: prints what an unload costs that waits for the
 * module's kfree_rcu() object, alone and while another process reads
 * /proc/allocinfo in a loop, and the longest of those reads (which waits
 * if the unload holds the tag list).
 */
TEST_F(module, unload_waiting_for_rcu)
{
	long long alone, busy, *longest, t;
	int status, fd;
	pid_t reader;
	char buf[65536];

	alone = median_unload_us();
	ASSERT_LT(0, alone);
	longest = mmap(NULL, sizeof(*longest), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, longest);
	*longest = 0;
	reader = fork();
	ASSERT_LE(0, reader);
	if (!reader) {
		for (;;) {
			t = now_us();
			fd = open(ALLOCINFO_PATH, O_RDONLY);
			while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
			t = now_us() - t;
			if (t > *longest)
				*longest = t;
		}
	}
	busy = median_unload_us();
	kill(reader, SIGKILL);
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	ASSERT_LT(0, busy);
	printf("# unload, kfree_rcu() object pending, median of %d: %lld us\n",
	       UNLOADS, alone);
	printf("# the same while /proc/allocinfo is read: %lld us\n", busy);
	printf("# longest /proc/allocinfo read meanwhile: %lld us\n", *longest);
	fflush(stdout);
	munmap(longest, sizeof(*longest));
}

TEST_HARNESS_MAIN
