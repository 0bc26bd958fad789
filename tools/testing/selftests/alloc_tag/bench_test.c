// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark module of make bench works: loaded with a few loops, it
 * logs the profiling state, then one line per measurement with exactly
 * loops x (operations per loop) operations, in order, and "done"; where
 * profiling is built in, its call sites are in /proc/allocinfo under its
 * name, everything freed. Bad parameters are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../kselftest_harness.h"
#include "kmsg.h"

#define MODNAME		"alloc_tag_bench"
#define LOOPS		3
#define REPEAT		2
#define SRC		"lib/alloc_tag_bench.c"

static const struct {
	const char *name;
	unsigned long long ops_per_loop;
} tests[] = {
	{ "kmalloc", 30 },	/* one of each of 8, 16, ... 240 bytes */
	{ "page", 16 },
	{ "order2", 4 },
	{ "vmalloc", 1 },
};

/* What the module must say about profiling in this kernel. */
static const char *expected_state(void)
{
	if (access(ALLOCINFO, F_OK))
		return "not built";
	return sysctl_read() == 1 ? "enabled" : "disabled";
}

TEST(logs_every_measurement)
{
	char params[64], state[96], name[32];
	unsigned long long ops, ns;
	struct kmsg_log log;
	int fd, i, r, at, n;

	fd = kmsg_open_at_end();
	ASSERT_LE(0, fd);
	snprintf(params, sizeof(params), "loops=%d repeat=%d", LOOPS, REPEAT);
	ASSERT_EQ(0, module_load(KO(MODNAME), params));
	ASSERT_EQ(0, kmsg_read(fd, &log));
	close(fd);
	snprintf(state, sizeof(state), ", profiling %s, unaccounted",
		 expected_state());
	at = kmsg_find_sub(&log, 0, MODNAME ": cpu ");
	ASSERT_LE(0, at);
	EXPECT_NE(NULL, strstr(log.text[at], state)) TH_LOG("%s", log.text[at]);
	for (r = 0; r < REPEAT; r++) {
		for (i = 0; i < (int)ARRAY_SIZE(tests); i++) {
			at++;
			ASSERT_GT(log.n, at);
			ns = 0;
			n = sscanf(log.text[at], MODNAME ": %31s ops %llu ns %llu",
				   name, &ops, &ns);
			ASSERT_EQ(3, n) TH_LOG("%s", log.text[at]);
			EXPECT_STREQ(tests[i].name, name);
			EXPECT_EQ(LOOPS * tests[i].ops_per_loop, ops);
			EXPECT_LT(0, ns);
		}
	}
	ASSERT_GT(log.n, at + 1);
	EXPECT_STREQ(MODNAME ": done", log.text[at + 1]);
	kmsg_free(&log);
	EXPECT_EQ(0, module_unload(MODNAME));
}

/* kmalloc_loop, pages_loop and vmalloc_loop each allocate at one line. */
TEST(call_sites_in_allocinfo_freed)
{
	static const char * const funcs[] = {
		"kmalloc_loop", "pages_loop", "vmalloc_loop"
	};
	struct tag_line *tags;
	int i, j, n, found;

	ASSERT_EQ(0, module_load(KO(MODNAME), "loops=1"));
	if (access(ALLOCINFO, F_OK)) {
		/* Not built in: the module runs all the same, untagged. */
		EXPECT_EQ(ENOENT, errno);
		EXPECT_EQ(0, module_unload(MODNAME));
		return;
	}
	tags = read_tags(_metadata, &n);
	for (i = 0; i < (int)ARRAY_SIZE(funcs); i++) {
		found = 0;
		for (j = 0; j < n; j++) {
			if (strcmp(tags[j].module, MODNAME) ||
			    strcmp(tags[j].func, funcs[i]))
				continue;
			found++;
			EXPECT_EQ(0, strncmp(tags[j].where, SRC ":",
					     strlen(SRC ":")))
				TH_LOG("%s", tags[j].where);
			EXPECT_EQ(0, tags[j].bytes) TH_LOG("%s", tags[j].where);
			EXPECT_EQ(0, tags[j].calls) TH_LOG("%s", tags[j].where);
			EXPECT_EQ(0, tags[j].inaccurate);
		}
		EXPECT_EQ(1, found) TH_LOG("%s", funcs[i]);
	}
	for (j = 0, found = 0; j < n; j++)
		found += !strcmp(tags[j].module, MODNAME);
	EXPECT_EQ(ARRAY_SIZE(funcs), found);
	free(tags);
	EXPECT_EQ(0, module_unload(MODNAME));
}

TEST(bad_parameters_refused)
{
	static const char * const bad[] = {
		"ms=0", "repeat=0", "cpu=-2", "cpu=100000", "loops=x",
		"only=nope",
	};
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		errno = 0;
		EXPECT_EQ(-1, module_load(KO(MODNAME), bad[i])) TH_LOG("%s", bad[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s", bad[i]);
	}
	/* None of them left the module loaded. */
	EXPECT_EQ(0, module_load(KO(MODNAME), "loops=1"));
	EXPECT_EQ(0, module_unload(MODNAME));
}

TEST_HARNESS_MAIN
