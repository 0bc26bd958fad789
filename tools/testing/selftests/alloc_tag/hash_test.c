// SPDX-License-Identifier: GPL-2.0
/*
 * Large system hashes on a machine with several NUMA nodes: the kernel
 * spreads them over the nodes with vmalloc (hashdist), and each is charged
 * to the line of the subsystem that asked for it, not to
 * alloc_large_system_hash() in mm/page_alloc.c. The harness boots the
 * hardening kernel with two nodes (harness.numa=2). The VFS hashes are
 * allocated before page_ext exists, so only their arrays of pages are
 * charged; the futex hash comes later, from an initcall, and is charged
 * whole.
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
#include "kmsg.h"

/* The boot-time hashes of the kernel's config and who asks for them. */
static const struct {
	const char *table;
	const char *func;
	int pages_charged;
} callers[] = {
	{ "Dentry cache", "dcache_init", 0 },
	{ "Inode-cache", "inode_init", 0 },
	{ "Mount-cache", "mnt_init", 0 },
	{ "Mountpoint-cache", "mnt_init", 0 },
	{ "futex", "futex_init", 1 },
};

#define NR_CALLERS	ARRAY_SIZE(callers)

TEST(hashes_charged_to_callers)
{
	unsigned long long table_bytes[NR_CALLERS] = { 0 };
	long long held;
	static struct kmsg_log log;
	struct tag_line *tags;
	char name[64], how[32], *entries;
	unsigned long long bytes;
	int fd, i, j, n, vmalloced = 0;

	if (!cmdline_value("harness.numa=", 0))
		SKIP(return, "booted with one NUMA node: the hashes are linear");
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kmsg_read(fd, &log));
	close(fd);
	for (i = 0; i < log.n; i++) {
		/* "%s hash table entries: %ld (order: %d, %lu bytes, %s)" */
		entries = strstr(log.text[i], " hash table entries: ");
		if (!entries || entries - log.text[i] >= (int)sizeof(name) ||
		    sscanf(entries, " hash table entries: %*d (order: %*d, %llu bytes, %31[a-z ])",
			   &bytes, how) != 2 ||
		    strncmp(how, "vmalloc", 7))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(entries - log.text[i]),
			 log.text[i]);
		for (j = 0; j < (int)NR_CALLERS; j++)
			if (!strcmp(name, callers[j].table))
				break;
		ASSERT_GT((int)NR_CALLERS, j) TH_LOG("unknown hash '%s'", name);
		table_bytes[j] += bytes;
		vmalloced++;
	}
	kmsg_free(&log);
	ASSERT_LT(0, vmalloced) TH_LOG("no hash was vmalloc'ed: hashdist off?");

	tags = read_tags(_metadata, &n);
	for (i = 0; i < n; i++) {
		if (strncmp(tags[i].func, "alloc_large_system_hash", 23))
			continue;
		EXPECT_EQ(0, tags[i].bytes)
			TH_LOG("%s holds %lld bytes", tags[i].where, tags[i].bytes);
	}
	/* The array of the table's pages, and its pages once countable. */
	for (j = 0; j < (int)NR_CALLERS; j++) {
		if (!table_bytes[j])
			continue;
		held = 0;
		for (i = 0; i < n; i++)
			if (!strcmp(tags[i].func, callers[j].func))
				held += tags[i].bytes;
		EXPECT_LT(callers[j].pages_charged ? (long long)table_bytes[j] : 0, held)
			TH_LOG("%s: %llu bytes of tables, %s holds %lld",
			       callers[j].table, table_bytes[j], callers[j].func,
			       held);
	}
	free(tags);
}

TEST_HARNESS_MAIN
