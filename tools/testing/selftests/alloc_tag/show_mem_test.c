// SPDX-License-Identifier: GPL-2.0
/*
 * SysRq-m (show_mem()) appends the call sites holding the most memory
 * under a heading that says whether profiling is on: ten lines when it
 * is, none when it never was, a notice after sysctl.vm.mem_profiling=never
 * and nothing without CONFIG_MEM_ALLOC_PROFILING.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "allocinfo.h"
#include "kmsg.h"

static void sysrq(struct __test_metadata *_metadata, char key)
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

TEST(sysrq_m)
{
	static struct kmsg_log log;
	int fd = kmsg_open_at_end(), i, mem_info;

	ASSERT_LE(0, fd);
	sysrq(_metadata, 'm');
	ASSERT_EQ(0, kmsg_read(fd, &log));
	close(fd);
	mem_info = kmsg_find(&log, 0, "Mem-Info:");
	ASSERT_LE(0, mem_info);

	if (access(ALLOCINFO, F_OK)) {
		/* Not built in: no heading at all. */
		EXPECT_EQ(-1, kmsg_find_sub(&log, 0, "Memory allocation"));
	} else if (booted_with("sysctl.vm.mem_profiling=never")) {
		i = kmsg_find(&log, mem_info, HEADING_NEVER);
		ASSERT_LT(0, i);
		EXPECT_TRUE(i + 1 == log.n ||
			    strncmp(log.text[i + 1], "    ", 4));
	} else if (sysctl_read() == 1) {
		i = kmsg_find(&log, mem_info, HEADING_ON);
		ASSERT_LT(0, i);
		expect_top_lines(_metadata, &log, i + 1, 10);
	} else {
		/* Off since boot: nothing was ever charged. */
		ASSERT_EQ(0, sysctl_read());
		i = kmsg_find(&log, mem_info, HEADING_OFF);
		ASSERT_LT(0, i);
		expect_top_lines(_metadata, &log, i + 1, 0);
	}
	kmsg_free(&log);
}

TEST_HARNESS_MAIN
