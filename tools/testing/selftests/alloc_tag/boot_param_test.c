// SPDX-License-Identifier: GPL-2.0
/*
 * sysctl.vm.mem_profiling= on the kernel command line. The harness boots
 * the test kernel once per value; the test reads /proc/cmdline to know
 * which value it got. Besides 0, 1 and never, the kernel takes the
 * boolean words of upstream's parameter (kstrtobool), whole, and
 * ",compressed" after any of them, as upstream spells it, or ",pointers".
 * The commands of alloc_tag.control= are applied at boot, or rejected
 * whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "allocinfo.h"
#include "mem_profiling.h"
#include "kmsg.h"

/* Bytes held by all lines of /proc/allocinfo together. */
static long long total_bytes(void)
{
	FILE *f = fopen(ALLOCINFO, "r");
	char line[1024], *end;
	long long sum = 0, bytes;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		bytes = strtoll(line, &end, 10);
		if (end != line)
			sum += bytes;
	}
	fclose(f);
	return sum;
}

/* The state a boolean word of the command line asks for, or -1. */
static int boot_state(const char *v)
{
	static const char * const words[][2] = {
		{ "0", "1" }, { "n", "y" }, { "no", "yes" }, { "off", "on" },
		{ "f", "t" }, { "false", "true" },
	};
	unsigned int i, state;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		for (state = 0; state < 2; state++)
			if (!strcasecmp(v, words[i][state]))
				return state;
	return -1;
}

#define HELD_PAGES 64
#define EXPECTED "expected 0, 1, never, y/n, yes/no, on/off, t/f or true/false, optionally followed by ,compressed or ,pointers"
#define COMPRESSED_SYSCTL "/proc/sys/vm/mem_profiling_compressed"
#define PAGE_TAGS_SYSCTL "/proc/sys/vm/mem_profiling_page_tags"

/* @v without its comma part in @word; the comma part, or "". */
static const char *split_value(const char *v, char *word, size_t size)
{
	const char *comma = strchr(v, ',');

	snprintf(word, size, "%.*s", comma ? (int)(comma - v) : (int)strlen(v), v);
	return comma ?: "";
}

/* Where page tags live, as the read-only sysctl says, even to root. */
static void expect_page_tags(struct __test_metadata *_metadata,
			     const char *where)
{
	char buf[32] = "";
	FILE *f = fopen(PAGE_TAGS_SYSCTL, "r");

	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	EXPECT_STREQ(where, buf);
	EXPECT_EQ(-EACCES, write_file(PAGE_TAGS_SYSCTL, "none"));
	EXPECT_EQ(!strcmp(where, "page_flags\n"), read_long(COMPRESSED_SYSCTL));
}

#define TOO_FEW_BITS	"compressed page tags need "
#define PAGE_EXT_INDEX	"allocation profiling: page tags are 16-bit indices in page_ext: "
#define PAGE_EXT_POINTER "allocation profiling: page tags are pointers in page_ext"

/* The default, and where page->flags has no room: 2 bytes of page_ext. */
static void expect_page_ext_index(struct __test_metadata *_metadata)
{
	expect_page_tags(_metadata, "page_ext_index\n");
	EXPECT_EQ(1, kmsg_contains(PAGE_EXT_INDEX));
	EXPECT_EQ(1, kmsg_contains("bytes of page_ext"));
}

/*
 * Page tags compressed into page->flags: said at boot, no page_ext.
 * Unless page->flags has too few free bits for the kernel's tags (32-bit
 * arm, say): then the log says so and the tags are indices in page_ext.
 */
static void expect_compressed(struct __test_metadata *_metadata)
{
	if (kmsg_contains(TOO_FEW_BITS) == 1) {
		expect_page_ext_index(_metadata);
		return;
	}
	expect_page_tags(_metadata, "page_flags\n");
	EXPECT_EQ(1, kmsg_contains("allocation profiling: page tags compressed into "));
	EXPECT_EQ(0, kmsg_contains("bytes of page_ext"));
	EXPECT_EQ(-EACCES, write_file(COMPRESSED_SYSCTL, "0"));
	EXPECT_EQ(1, read_long(COMPRESSED_SYSCTL));
}

/* Fault in anonymous memory, which profiling charges if it is on. */
static char *hold_memory(void)
{
	size_t len = HELD_PAGES * getpagesize();
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 1, len);
	return p;
}

static void release_memory(char *p)
{
	munmap(p, HELD_PAGES * getpagesize());
}

/* Bytes at do_anonymous_page's lines, which anonymous faults charge. */
static long long anon_bytes(struct __test_metadata *_metadata)
{
	struct tag_line *tags;
	long long sum = 0;
	int i, n;

	tags = read_tags(_metadata, &n);
	for (i = 0; i < n; i++)
		if (!strcmp(tags[i].func, "do_anonymous_page"))
			sum += tags[i].bytes;
	free(tags);
	return sum;
}

/* Run on CPU @cpu alone, if there is one. */
static void run_on(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Profiling on: memory faulted in is charged exactly, and uncharged
 * exactly when freed after profiling was switched off and on again, on
 * another CPU than the one whose LRU batch the last pages went to.
 */
static void expect_exact_toggle(struct __test_metadata *_metadata)
{
	long long before, held_bytes = HELD_PAGES * getpagesize();
	char *held;

	/* Our own heap stays as reading the report first grew it. */
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, -1);
	anon_bytes(_metadata);
	before = anon_bytes(_metadata);
	run_on(0);
	held = hold_memory();
	ASSERT_NE(NULL, held);
	EXPECT_EQ(before + held_bytes, anon_bytes(_metadata));
	ASSERT_EQ(0, sysctl_write("0", 1, 0));
	ASSERT_EQ(0, sysctl_write("1", 1, 0));
	run_on(1);
	release_memory(held);
	ASSERT_EQ(0, drain_lru_batches());
	EXPECT_EQ(before, anon_bytes(_metadata));
}

TEST(command_line_value)
{
	const char *v = boot_value();
	char msg[256], word[16], *held;
	const char *where;
	int i;

	ASSERT_NE(NULL, v) TH_LOG("booted without " BOOT_PARAM);
	where = split_value(v, word, sizeof(word));
	if (!strcmp(v, "never")) {
		EXPECT_EQ(0, sysctl_read());
		expect_page_tags(_metadata, "none\n");
		EXPECT_EQ(0, kmsg_contains("page tags compressed"));
		EXPECT_EQ(0, kmsg_contains("allocation profiling: page tags"));
		EXPECT_EQ(EOPNOTSUPP, sysctl_write("1", 1, 0));
		EXPECT_EQ(0, sysctl_read());
		EXPECT_EQ(0, sysctl_write("0", 1, 0));
		/* Only the boot-time replay may write "never". */
		EXPECT_EQ(EINVAL, sysctl_write("never", 5, 0));
		EXPECT_EQ(0, kmsg_contains("bytes of page_ext"));
		/* The boot-time replay of the parameter was accepted. */
		EXPECT_EQ(0, kmsg_contains("Failed to set sysctl parameter"));
		held = hold_memory();
		ASSERT_NE(NULL, held);
		EXPECT_EQ(0, total_bytes());
		release_memory(held);
	} else if (boot_state(word) == 0) {
		/* Off at boot: page tags compressed, or 2 bytes a page. */
		EXPECT_EQ(0, sysctl_read());
		expect_compressed(_metadata);
		EXPECT_EQ(0, kmsg_contains("Failed to set sysctl parameter"));
		held = hold_memory();
		ASSERT_NE(NULL, held);
		EXPECT_EQ(0, total_bytes());
		release_memory(held);
		EXPECT_EQ(EINVAL, sysctl_write("never", 5, 0));
		ASSERT_EQ(0, sysctl_write("1", 1, 0));
		EXPECT_EQ(1, sysctl_read());
		expect_exact_toggle(_metadata);
	} else if (boot_state(word) == 1) {
		/* Compressed or pointers if asked; otherwise indices. */
		EXPECT_EQ(1, sysctl_read());
		if (!strcmp(where, ",compressed")) {
			expect_compressed(_metadata);
		} else if (!strcmp(where, ",pointers")) {
			expect_page_tags(_metadata, "page_ext_pointer\n");
			EXPECT_EQ(1, kmsg_contains(PAGE_EXT_POINTER));
			EXPECT_EQ(1, kmsg_contains("bytes of page_ext"));
		} else {
			expect_page_ext_index(_metadata);
		}
		EXPECT_EQ(0, kmsg_contains("Failed to set sysctl parameter"));
		expect_exact_toggle(_metadata);
	} else {
		/*
		 * Each value is rejected in turn, and the default (on, in the
		 * test kernel) is kept.
		 */
		for (i = 0; (v = cmdline_value(BOOT_PARAM, i)); i++) {
			snprintf(msg, sizeof(msg),
				 BOOT_PARAM "%s: %s; keeping the default (1)",
				 v, EXPECTED);
			EXPECT_EQ(1, kmsg_contains(msg)) TH_LOG("no '%s'", msg);
		}
		EXPECT_EQ(1, sysctl_read());
		EXPECT_LT(0, total_bytes());
		expect_page_ext_index(_metadata);
	}
}

#define CONTROL_PARAM	"alloc_tag.control="
/* What the harness switches off at boot; other values are junk. */
#define CONTROL_GOOD	"file kernel/fork.c -p"

/* Lines of the control file listing a site of @file switched off. */
static int sites_off_in(const char *file)
{
	FILE *f = fopen(CONTROL, "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, file, strlen(file)) &&
		     !!strstr(line, " =_\n");
	fclose(f);
	return n;
}

/*
 * Each alloc_tag.control= value is applied at boot (the log says to how
 * many sites, and the control file lists them) or, junk, rejected whole.
 */
TEST(control_command_line)
{
	static struct kmsg_log log;
	char msg[700];
	const char *v;
	int i, at, kmsg, sites;

	/* From the first record. */
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, kmsg_read(kmsg, &log));
	close(kmsg);
	for (i = 0; (v = cmdline_value(CONTROL_PARAM, i)); i++) {
		if (!strcmp(v, CONTROL_GOOD)) {
			snprintf(msg, sizeof(msg),
				 "alloc_tag: " CONTROL_PARAM "\"%s\": ", v);
			at = kmsg_find_sub(&log, 0, msg);
			ASSERT_LE(0, at) TH_LOG("no '%s'", msg);
			sites = atoi(strstr(log.text[at], "\": ") + 3);
			EXPECT_LT(0, sites);
			EXPECT_EQ(sites, sites_off_in("kernel/fork.c:"));
			continue;
		}
		snprintf(msg, sizeof(msg),
			 "alloc_tag: " CONTROL_PARAM "\"%s\" ignored: -22", v);
		EXPECT_LE(0, kmsg_find_sub(&log, 0, msg)) TH_LOG("no '%s'", msg);
	}
	kmsg_free(&log);
	if (!i)
		SKIP(return, "booted without " CONTROL_PARAM);
}

TEST_HARNESS_MAIN
