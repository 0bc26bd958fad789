// SPDX-License-Identifier: GPL-2.0
/*
 * The OOM killer's report ends with the call sites holding the most
 * memory: a child fills a small guest until the OOM killer kills it, and
 * the kernel log shows the heading and ten well-formed lines after the
 * report's Mem-Info. The console is quieted meanwhile, as the report's
 * stack dump is expected; the test itself rejects any other splat.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "allocinfo.h"
#include "kmsg.h"

#define PRINTK	"/proc/sys/kernel/printk"
#define CHUNK	(16 << 20)

/* Take memory until the OOM killer comes; never returns. */
static void hog(void)
{
	char *p;

	if (write_file("/proc/self/oom_score_adj", "1000"))
		_exit(2);
	for (;;) {
		p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			usleep(1000);
	}
}

TEST(oom_report)
{
	static struct kmsg_log log;
	char printk[64] = "";
	int fd, status, i, oom;
	size_t len;
	char *saved;
	pid_t pid;

	ASSERT_EQ(1, sysctl_read());
	ASSERT_EQ(0, write_file("/proc/self/oom_score_adj", "-1000"));
	saved = read_file(PRINTK, 64, &len);
	ASSERT_NE(NULL, saved);
	snprintf(printk, sizeof(printk), "%s", saved);
	free(saved);
	fd = kmsg_open_at_end();
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, write_file(PRINTK, "1"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		hog();
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, write_file(PRINTK, printk));
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGKILL, WTERMSIG(status));

	ASSERT_EQ(0, kmsg_read(fd, &log));
	close(fd);
	oom = kmsg_find_sub(&log, 0, "invoked oom-killer");
	ASSERT_LE(0, oom);
	oom = kmsg_find(&log, oom, "Mem-Info:");
	ASSERT_LE(0, oom);
	i = kmsg_find(&log, oom, HEADING_ON);
	ASSERT_LT(oom, i);
	expect_top_lines(_metadata, &log, i + 1, 10);
	EXPECT_LE(0, kmsg_find_sub(&log, i, "Out of memory: Killed process"));
	for (i = 0; i < log.n; i++) {
		EXPECT_EQ(NULL, strstr(log.text[i], "WARNING:"))
			TH_LOG("%s", log.text[i]);
		EXPECT_EQ(NULL, strstr(log.text[i], "BUG:"))
			TH_LOG("%s", log.text[i]);
	}
	kmsg_free(&log);
}

TEST_HARNESS_MAIN
