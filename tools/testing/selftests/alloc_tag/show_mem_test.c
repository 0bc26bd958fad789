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

static void trigger_sysrq(struct __test_metadata *_metadata, char key)
{
	int fd = open("/proc/sysrq-trigger", O_WRONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, &key, 1));
	close(fd);
}

static int booted_with(const char *param)
{
	size_t len;
	char *cmdline = read_file("/proc/cmdline", 4096, &len);
	int found = cmdline && strstr(cmdline, param);

	free(cmdline);
	return found;
}

/* SysRq-m's report with profiling on (@on) or off. */
static void expect_report(struct __test_metadata *_metadata, int on)
{
	static struct kmsg_log log;
	int fd = kmsg_open_at_end(), i;

	ASSERT_LE(0, fd);
	trigger_sysrq(_metadata, 'm');
	ASSERT_EQ(0, kmsg_read(fd, &log));
	close(fd);
	i = kmsg_find(&log, 0, "Mem-Info:");
	ASSERT_LE(0, i);
	i = kmsg_find(&log, i, on ? HEADING_ON : HEADING_OFF);
	ASSERT_LT(0, i);
	/* Off: what is still charged from when it was on, if anything. */
	expect_top_lines(_metadata, &log, i + 1, on ? 10 : -1);
	kmsg_free(&log);
}

TEST(sysrq_m)
{
	static struct kmsg_log log;
	int fd, i, state;

	if (access(ALLOCINFO, F_OK)) {
		/* Not built in: no heading at all. */
		fd = kmsg_open_at_end();
		ASSERT_LE(0, fd);
		trigger_sysrq(_metadata, 'm');
		ASSERT_EQ(0, kmsg_read(fd, &log));
		close(fd);
		ASSERT_LE(0, kmsg_find(&log, 0, "Mem-Info:"));
		EXPECT_EQ(-1, kmsg_find_sub(&log, 0, "Memory allocation"));
	} else if (booted_with("sysctl.vm.mem_profiling=never")) {
		fd = kmsg_open_at_end();
		ASSERT_LE(0, fd);
		trigger_sysrq(_metadata, 'm');
		ASSERT_EQ(0, kmsg_read(fd, &log));
		close(fd);
		i = kmsg_find(&log, 0, "Mem-Info:");
		ASSERT_LE(0, i);
		i = kmsg_find(&log, i, HEADING_NEVER);
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
