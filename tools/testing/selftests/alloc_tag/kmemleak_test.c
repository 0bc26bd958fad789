// SPDX-License-Identifier: GPL-2.0
/*
 * kmemleak at the end of the run (the harness runs this test last): a scan
 * reports no unreferenced object allocated through profiling's own code
 * (tags, counters, extension vectors) or its test modules. Reports of the
 * base kernel (ACPI's boot-time caches) are listed, not judged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "allocinfo.h"

#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

/* Names in a backtrace that make a leak ours. */
static const char * const ours[] = {
	"alloc_tag", "codetag", "obj_ext", "pcpuobj", "mem_profiling",
	"krealloc_move_charge", "module_release_core",
};

static int is_ours(const char *frame)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ours); i++)
		if (strstr(frame, ours[i]))
			return 1;
	return 0;
}

TEST(no_leak_of_ours)
{
	int reports = 0, mine = 0, in_report = 0, counted = 0;
	char *buf, *line, *next;
	size_t len;

	if (access(KMEMLEAK, F_OK))
		SKIP(return, "no " KMEMLEAK);
	ASSERT_EQ(0, write_file(KMEMLEAK, "scan"));
	buf = read_file(KMEMLEAK, 65536, &len);
	ASSERT_NE(NULL, buf);
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "unreferenced object", 19)) {
			reports++;
			in_report = 1;
			counted = 0;
			TH_LOG("%s", line);
			continue;
		}
		if (!in_report || strncmp(line, "    [<", 6))
			continue;
		/* A frame: "    [<address>] function+offset/size" */
		if (!counted && is_ours(line)) {
			mine++;
			counted = 1;
		}
		TH_LOG("%s", line);
	}
	free(buf);
	TH_LOG("%d reports, %d of them through profiling's code", reports,
	       mine);
	EXPECT_EQ(0, mine);
}

TEST_HARNESS_MAIN
