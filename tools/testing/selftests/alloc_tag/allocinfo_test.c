// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/allocinfo and vm.mem_profiling as a user sees them: the exact
 * format, permissions, reads of any size and offset, by several readers at
 * once, writes refused, the sysctl's accepted and rejected values, page
 * migration and THP split.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "mem_profiling.h"
#include "allocinfo.h"

TEST(format)
{
	struct tag_line *tags;
	int i, n;

	tags = read_tags(_metadata, &n);
	ASSERT_LT(100, n);
	for (i = 0; i < n; i++) {
		/* Counters never go negative. */
		EXPECT_LE(0, tags[i].bytes);
		/* Inline wrappers in headers never hold memory. */
		if (tags[i].bytes)
			EXPECT_TRUE(strncmp(tags[i].where, "include/", 8) &&
				    !strstr(tags[i].where, "/include/"))
				TH_LOG("header line holds memory: %s func:%s",
				       tags[i].where, tags[i].func);
		/*
		 * Nor the page allocator, but for its fragment cache and its
		 * own per-cpu page lists.
		 */
		if (tags[i].bytes && !strncmp(tags[i].where, "mm/page_alloc.c:", 16))
			EXPECT_TRUE(!strcmp(tags[i].func, "__page_frag_cache_refill") ||
				    !strcmp(tags[i].func, "setup_zone_pageset") ||
				    !strcmp(tags[i].func, "setup_per_cpu_pageset"))
				TH_LOG("page allocator line holds memory: %s func:%s",
				       tags[i].where, tags[i].func);
	}
	free(tags);
}

TEST(mode)
{
	struct stat st;

	ASSERT_EQ(0, stat(ALLOCINFO, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0400, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
}

TEST(unprivileged)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (open(ALLOCINFO, O_RDONLY) != -1 || errno != EACCES)
			_exit(11);
		if (open(SYSCTL, O_WRONLY) != -1 || errno != EACCES)
			_exit(12);
		if (open(ALLOCINFO, O_WRONLY) != -1 || errno != EACCES)
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Counter columns change between reads; everything else must not. */
static void mask_counters(char *buf, size_t len, char *mask_from, size_t off)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (mask_from[off + i] == '#')
			buf[i] = '#';
}

static char *counter_mask(const char *buf, size_t len)
{
	char *mask = strdup(buf);
	size_t pos = strlen(HEADER), i;

	while (pos < len) {
		for (i = 0; i < COUNTERS_WIDTH; i++)
			mask[pos + i] = '#';
		pos = strchr(buf + pos, '\n') - buf + 1;
	}
	return mask;
}

TEST(read_sizes)
{
	static const size_t chunks[] = { 1, 3, 100, 4095, 4096, 65536 };
	char *ref, *mask, *buf;
	size_t ref_len = 0, len = 0, i;

	ref = read_file(ALLOCINFO, 4096, &ref_len);
	ASSERT_NE(NULL, ref);
	mask = counter_mask(ref, ref_len);
	mask_counters(ref, ref_len, mask, 0);
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		buf = read_file(ALLOCINFO, chunks[i], &len);
		ASSERT_NE(NULL, buf);
		ASSERT_EQ(ref_len, len);
		mask_counters(buf, len, mask, 0);
		EXPECT_EQ(0, memcmp(ref, buf, len))
			TH_LOG("read(%zu) differs", chunks[i]);
		free(buf);
	}
	free(mask);
	free(ref);
}

TEST(seek)
{
	char *ref, *mask, *buf;
	size_t ref_len, len, i, offs[6];
	int fd;

	ref = read_file(ALLOCINFO, 4096, &ref_len);
	ASSERT_NE(NULL, ref);
	mask = counter_mask(ref, ref_len);
	mask_counters(ref, ref_len, mask, 0);
	offs[0] = 1;
	offs[1] = strlen(HEADER) + 5;
	offs[2] = ref_len / 2;
	offs[3] = ref_len - 1;
	offs[4] = ref_len;
	offs[5] = ref_len + 4096;
	fd = open(ALLOCINFO, O_RDONLY);
	ASSERT_LE(0, fd);
	for (i = 0; i < 6; i++) {
		ASSERT_EQ((off_t)offs[i], lseek(fd, offs[i], SEEK_SET));
		buf = read_fd(fd, 777, &len);
		ASSERT_NE(NULL, buf);
		if (offs[i] >= ref_len) {
			EXPECT_EQ(0, len);
		} else {
			ASSERT_EQ(ref_len - offs[i], len);
			mask_counters(buf, len, mask, offs[i]);
			EXPECT_EQ(0, memcmp(ref + offs[i], buf, len))
				TH_LOG("read at %zu differs", offs[i]);
		}
		free(buf);
	}
	close(fd);
	free(mask);
	free(ref);
}

/*
 * Root may open the file for writing (CAP_DAC_OVERRIDE), like any file of
 * /proc; the write itself is refused (a seq_file cannot pwrite at all)
 * and changes nothing.
 */
TEST(write_refused)
{
	size_t before, after;
	char *buf;
	int fd;

	buf = read_file(ALLOCINFO, 4096, &before);
	ASSERT_NE(NULL, buf);
	free(buf);
	fd = open(ALLOCINFO, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, "0\n", 2));
	EXPECT_EQ(EIO, errno);
	close(fd);
	fd = open(ALLOCINFO, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, "x", 1));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(-1, pwrite(fd, "x", 1, 100));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);
	buf = read_file(ALLOCINFO, 4096, &after);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(before, after);
	free(buf);
}

#define READERS	4

/* Readers at once, each with its own chunk size, all see the same file. */
TEST(concurrent_readers)
{
	static const size_t chunks[READERS] = { 1, 100, 4096, 65536 };
	char *ref, *mask, *buf;
	pid_t pids[READERS];
	size_t ref_len = 0, len = 0;
	int i, round, status;

	ref = read_file(ALLOCINFO, 4096, &ref_len);
	ASSERT_NE(NULL, ref);
	mask = counter_mask(ref, ref_len);
	mask_counters(ref, ref_len, mask, 0);
	for (i = 0; i < READERS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i])
			continue;
		for (round = 0; round < 3; round++) {
			buf = read_file(ALLOCINFO, chunks[i], &len);
			if (!buf || len != ref_len)
				_exit(1);
			mask_counters(buf, len, mask, 0);
			if (memcmp(ref, buf, len))
				_exit(2);
			free(buf);
		}
		_exit(0);
	}
	for (i = 0; i < READERS; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status))
			TH_LOG("reader of %zu-byte chunks saw a different file",
			       chunks[i]);
	}
	free(mask);
	free(ref);
}

static const char * const rejected[] = {
	"2", "-1", "\n", "abc", "1\n2", "01", " 1", "1 ", "0x1", "never",
	"on", "y", "99999999999999999999", "1\n\n",
};

TEST(sysctl)
{
	char big[5000];
	struct stat st;
	int state, fd;
	size_t i;

	ASSERT_EQ(0, stat(SYSCTL, &st));
	ASSERT_EQ(1, sysctl_read());
	if (!(st.st_mode & 0222)) {
		/* CONFIG_MEM_ALLOC_PROFILING_DEBUG: fixed at boot. */
		EXPECT_EQ(0444, st.st_mode & 07777);
		EXPECT_EQ(EACCES, sysctl_write("0", 1, 0));
		EXPECT_EQ(1, sysctl_read());
		return;
	}
	EXPECT_EQ(0644, st.st_mode & 07777);
	for (state = 0; state <= 1; state++) {
		ASSERT_EQ(0, sysctl_write(state ? "1\n" : "0", state ? 2 : 1, 0));
		ASSERT_EQ(state, sysctl_read());
		for (i = 0; i < ARRAY_SIZE(rejected); i++) {
			EXPECT_EQ(EINVAL, sysctl_write(rejected[i],
						       strlen(rejected[i]), 0))
				TH_LOG("value '%s' was not rejected", rejected[i]);
			EXPECT_EQ(state, sysctl_read());
		}
		/* A write at an offset is not a whole value. */
		EXPECT_EQ(EINVAL, sysctl_write("1", 1, 1));
		EXPECT_EQ(state, sysctl_read());
		/* Nor is the rest of a value written in two parts. */
		fd = open(SYSCTL, O_WRONLY);
		ASSERT_LE(0, fd);
		EXPECT_EQ(1, write(fd, state ? "1" : "0", 1));
		EXPECT_EQ(-1, write(fd, state ? "0" : "1", 1));
		EXPECT_EQ(EINVAL, errno);
		close(fd);
		EXPECT_EQ(state, sysctl_read());
		/* Nor a page and more of digits. */
		memset(big, '1', sizeof(big));
		EXPECT_EQ(EINVAL, sysctl_write(big, sizeof(big), 0));
		EXPECT_EQ(state, sysctl_read());
	}
	/* An empty write is not a value either. */
	EXPECT_EQ(EINVAL, sysctl_write("", 0, 0));
	EXPECT_EQ(1, sysctl_read());
}

/* The physical frame of a mapped page (root sees real PFNs). */
static unsigned long long pfn_of(void *addr)
{
	unsigned long long entry = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	off_t off = (unsigned long)addr / getpagesize() * sizeof(entry);

	if (fd < 0 || pread(fd, &entry, sizeof(entry), off) != sizeof(entry))
		entry = 0;
	if (fd >= 0)
		close(fd);
	return entry & ((1ULL << 55) - 1);
}

#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE 101	/* asm-generic/mman-common.h */
#endif

#define THP_FILE	"mm/huge_memory.c"
#define THP_FUNC	"do_huge_pmd_anonymous_page"
#define MIGRATE_FILE	"mm/migrate.c"
#define MIGRATE_FUNC	"alloc_migration_target"

#define THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"
#define THP_PMD_SIZE	"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"

/*
 * The THP mode in force ("always", "madvise" or "never"), from the
 * bracketed word of @THP_ENABLED; empty if it cannot be read.
 */
static void thp_mode(char *mode, size_t size)
{
	size_t len;
	char *s = read_file(THP_ENABLED, 64, &len);
	char *open_br = s ? strchr(s, '[') : NULL;
	char *close_br = open_br ? strchr(open_br, ']') : NULL;

	mode[0] = '\0';
	if (close_br && (size_t)(close_br - open_br) <= size)
		snprintf(mode, size, "%.*s", (int)(close_br - open_br - 1),
			 open_br + 1);
	free(s);
}

/*
 * Two THPs (PMD-sized: 2 MiB on x86) are charged to the fault that
 * allocated them; splitting them keeps the bytes there (each page becomes
 * one call); migrating some of the pages (soft offline) moves nothing off
 * that line; unmapping frees it all.
 */
TEST(thp_split_and_migration)
{
	long long b0, c0, b, c, mb0, mc0, mb, mc;
	unsigned long long pfn[16];
	char *raw, *p, cmd[128], mode[16], *size;
	int fd, i, page = getpagesize();
	unsigned long thp_size;
	size_t len;

	/*
	 * Only the madvised range below may get THPs: with "always", the
	 * test's own heap, grown by reading the report, sometimes got one
	 * too, charged to the same line.
	 */
	if (access(THP_ENABLED, F_OK))
		SKIP(return, "no transparent huge pages in this kernel");
	size = read_file(THP_PMD_SIZE, 32, &len);
	ASSERT_NE(NULL, size);
	thp_size = strtoul(size, NULL, 10);
	free(size);
	ASSERT_NE(0, thp_size);
	thp_mode(mode, sizeof(mode));
	ASSERT_NE('\0', mode[0]);
	ASSERT_EQ(0, write_file(THP_ENABLED, "madvise"));
	raw = mmap(NULL, 3 * thp_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, raw);
	p = (char *)(((unsigned long)raw + thp_size - 1) & ~(thp_size - 1));
	ASSERT_EQ(0, madvise(p, 2 * thp_size, MADV_HUGEPAGE));
	sum_func(_metadata, THP_FILE, "", THP_FUNC, &b0, &c0);
	sum_func(_metadata, MIGRATE_FILE, "", MIGRATE_FUNC, &mb0, &mc0);

	memset(p, 1, 2 * thp_size);
	sum_func(_metadata, THP_FILE, "", THP_FUNC, &b, &c);
	EXPECT_EQ(2 * thp_size, b - b0);
	EXPECT_EQ(2, c - c0);

	fd = open("/sys/kernel/debug/split_huge_pages", O_WRONLY);
	ASSERT_LE(0, fd);
	snprintf(cmd, sizeof(cmd), "%d,%#lx,%#lx", getpid(), (unsigned long)p,
		 (unsigned long)p + 2 * thp_size);
	ASSERT_EQ((ssize_t)strlen(cmd), write(fd, cmd, strlen(cmd)));
	close(fd);
	sum_func(_metadata, THP_FILE, "", THP_FUNC, &b, &c);
	EXPECT_EQ(2 * thp_size, b - b0);
	EXPECT_EQ(2 * thp_size / page, c - c0);

	for (i = 0; i < 16; i++)
		pfn[i] = pfn_of(p + i * page);
	ASSERT_EQ(0, madvise(p, 16 * page, MADV_SOFT_OFFLINE));
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(1, p[i * page]);
		EXPECT_NE(pfn[i], pfn_of(p + i * page))
			TH_LOG("page %d was not migrated", i);
	}
	sum_func(_metadata, THP_FILE, "", THP_FUNC, &b, &c);
	EXPECT_EQ(2 * thp_size, b - b0);
	EXPECT_EQ(2 * thp_size / page, c - c0);
	sum_func(_metadata, MIGRATE_FILE, "", MIGRATE_FUNC, &mb, &mc);
	EXPECT_EQ(mb0, mb);
	EXPECT_EQ(mc0, mc);

	ASSERT_EQ(0, munmap(raw, 3 * thp_size));
	sum_func(_metadata, THP_FILE, "", THP_FUNC, &b, &c);
	EXPECT_EQ(b0, b);
	EXPECT_EQ(c0, c);
	EXPECT_EQ(0, write_file(THP_ENABLED, mode));
}

/*
 * The allocinfo tool on the live file: its top five, in raw bytes, are
 * sorted and name lines of the file; the total says five were shown.
 */
TEST(allocinfo_tool)
{
	FILE *out = popen("/bin/allocinfo --raw -n 5 " ALLOCINFO, "r");
	long long bytes, prev = -1;
	struct tag_line *tags, found;
	char line[512], where[300];
	unsigned long long calls;
	int rows = 0, n, fields;

	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, fgets(line, sizeof(line), out));
	EXPECT_TRUE(strstr(line, "SIZE  CALLS  CALL SITE\n") &&
		    !strncmp(line, "    ", 4));
	tags = read_tags(_metadata, &n);
	while (fgets(line, sizeof(line), out)) {
		if (strstr(line, " total: ")) {
			EXPECT_NE(NULL, strstr(line, " call sites, 5 shown\n"));
			rows = -rows;
			continue;
		}
		fields = sscanf(line, "%lld %llu %299s", &bytes, &calls, where);
		ASSERT_EQ(3, fields) TH_LOG("'%s'", line);
		if (prev >= 0)
			EXPECT_LE(bytes, prev);
		prev = bytes;
		EXPECT_LE(1, find_tag(tags, n, where, "", &found))
			TH_LOG("no line %s", where);
		rows++;
	}
	EXPECT_EQ(-5, rows);
	EXPECT_EQ(0, pclose(out));
	free(tags);
}

TEST(kallsyms_section_bounds)
{
	size_t len;
	char *syms = read_file("/proc/kallsyms", 65536, &len);

	ASSERT_NE(NULL, syms);
	EXPECT_NE(NULL, strstr(syms, " __start_alloc_tags\n"));
	EXPECT_NE(NULL, strstr(syms, " __stop_alloc_tags\n"));
	free(syms);
}

TEST_HARNESS_MAIN
