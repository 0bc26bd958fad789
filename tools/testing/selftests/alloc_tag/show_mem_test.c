// SPDX-License-Identifier: GPL-2.0
/*
 * SysRq-m (show_mem()) appends the call sites holding the most memory
 * under a heading that says whether profiling is on: ten lines when it
 * is, at most ten (what is still charged) when it is off, in both states
 * where the state can be switched; a notice after
 * sysctl.vm.mem_profiling=never, and nothing without
 * CONFIG_MEM_ALLOC_PROFILING.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "allocinfo.h"
#include "kmsg.h"

/*
 * Press SysRq-m and read what it logged into @log; return the index of
 * its "Mem-Info:" record, where show_mem()'s report starts.
 */
static int press_sysrq_m(struct __test_metadata *_metadata,
			 struct kmsg_log *log)
{
	int kmsg = kmsg_open_at_end(), fd, i;

	ASSERT_LE(0, kmsg);
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "m", 1));
	close(fd);
	ASSERT_EQ(0, kmsg_read(kmsg, log));
	close(kmsg);
	i = kmsg_find(log, 0, "Mem-Info:");
	ASSERT_LE(0, i);
	return i;
}

/* SysRq-m's report with profiling on (@on) or off. */
static void expect_report(struct __test_metadata *_metadata, int on)
{
	static struct kmsg_log log;
	int i = press_sysrq_m(_metadata, &log);

	i = kmsg_find(&log, i, on ? HEADING_ON : HEADING_OFF);
	ASSERT_LT(0, i);
	/* Off: what is still charged from when it was on, if anything. */
	expect_top_lines(_metadata, &log, i + 1, on ? 10 : -1);
	kmsg_free(&log);
}

TEST(sysrq_m)
{
	static struct kmsg_log log;
	int i, state;

	if (access(ALLOCINFO, F_OK)) {
		/* Not built in: no heading at all. */
		press_sysrq_m(_metadata, &log);
		EXPECT_EQ(-1, kmsg_find_sub(&log, 0, "Memory allocation"));
	} else if (boot_value() && !strcmp(boot_value(), "never")) {
		i = kmsg_find(&log, press_sysrq_m(_metadata, &log),
			      HEADING_NEVER);
		ASSERT_LT(0, i);
		EXPECT_EQ(-1, kmsg_find_sub(&log, i + 1, "Memory allocation"));
	} else {
		state = sysctl_read();
		ASSERT_LE(0, state);
		expect_report(_metadata, state);
		/* And the other state, where it can change (not in DEBUG). */
		if (!sysctl_write(state ? "0" : "1", 1, 0)) {
			expect_report(_metadata, !state);
			ASSERT_EQ(0, sysctl_write(state ? "1" : "0", 1, 0));
		}
	}
	kmsg_free(&log);
}

TEST_HARNESS_MAIN
