/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel log through /dev/kmsg, for the alloc_tag kselftests: open it
 * at its end, make the kernel print, then read the new records and check
 * the report show_mem() appends about memory allocation profiling.
 * Include after kselftest_harness.h.
 */
#ifndef ALLOC_TAG_KMSG_H
#define ALLOC_TAG_KMSG_H

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allocinfo.h"

#define HEADING_ON	"Memory allocations, top 10 call sites (profiling on):"
#define HEADING_OFF	"Memory allocations, top 10 call sites (profiling off):"
#define HEADING_NEVER	"Memory allocation profiling: unavailable (booted with sysctl.vm.mem_profiling=never)"
#define TOP_LINE_RE	"^ *[0-9]+(\\.[0-9]+)? (B|KiB|MiB|GiB|TiB) +[0-9]+ " \
			"([^ :]+):([0-9]+)( \\[[^] ]+\\])? func:([^ ]+)$"
#define MAX_RECORDS	4096

struct kmsg_log {
	char *text[MAX_RECORDS];	/* messages, without the record prefix */
	int n;
};

/* /dev/kmsg, positioned after every record already logged. */
static inline int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Every record logged since, until there is none left; -1 if too many. */
static inline int kmsg_read(int fd, struct kmsg_log *log)
{
	char buf[8192], *msg, *nl;
	ssize_t len;

	log->n = 0;
	while (log->n < MAX_RECORDS) {
		len = read(fd, buf, sizeof(buf) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten records: skip them */
		if (len < 0)
			return errno == EAGAIN ? 0 : -1;
		buf[len] = '\0';
		/* "prio,seq,usec,flags;message\n[ KEY=value\n...]" */
		msg = strchr(buf, ';');
		if (!msg)
			return -1;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		log->text[log->n++] = strdup(msg);
	}
	return -1;
}

static inline void kmsg_free(struct kmsg_log *log)
{
	while (log->n)
		free(log->text[--log->n]);
}

/* The index of the first record from @from on that is @text, or -1. */
static inline int kmsg_find(struct kmsg_log *log, int from, const char *text)
{
	for (; from < log->n; from++)
		if (!strcmp(log->text[from], text))
			return from;
	return -1;
}

/* The index of the first record from @from on containing @text, or -1. */
static inline int kmsg_find_sub(struct kmsg_log *log, int from,
				const char *text)
{
	for (; from < log->n; from++)
		if (strstr(log->text[from], text))
			return from;
	return -1;
}

/* Whether a message logged since boot contains @needle; -1 on error. */
static inline int kmsg_contains(const char *needle)
{
	static struct kmsg_log log;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	int found = -1;

	if (fd < 0)
		return -1;
	if (!kmsg_read(fd, &log))
		found = kmsg_find_sub(&log, 0, needle) >= 0;
	close(fd);
	kmsg_free(&log);
	return found;
}

/* Bytes of a human-readable size as string_get_size() prints it. */
static inline double human_bytes(const char *s)
{
	static const char * const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	char unit[8];
	double v;
	int i;

	if (sscanf(s, " %lf %7s", &v, unit) != 2)
		return -1;
	for (i = 0; i < 5; i++, v *= 1024)
		if (!strcmp(unit, units[i]))
			return v;
	return -1;
}

/*
 * Records @first.. are the @nr lines of the top call sites (@nr < 0: as
 * many as there are, at most 10), sorted by bytes, each naming a line of
 * /proc/allocinfo, and the record after them is not one.
 */
static inline void expect_top_lines(struct __test_metadata *_metadata,
				    struct kmsg_log *log, int first, int nr)
{
	struct tag_line *tags, found;
	char where[300], module[64];
	regmatch_t m[7];
	double bytes, prev = -1;
	regex_t re;
	int i, n;

	ASSERT_EQ(0, regcomp(&re, TOP_LINE_RE, REG_EXTENDED));
	if (nr < 0) {
		for (nr = 0; first + nr < log->n; nr++)
			if (regexec(&re, log->text[first + nr], 0, NULL, 0))
				break;
		EXPECT_GE(10, nr);
	}
	tags = read_tags(_metadata, &n);
	for (i = first; i < first + nr; i++) {
		ASSERT_LT(i, log->n) TH_LOG("only %d top lines", i - first);
		ASSERT_EQ(0, regexec(&re, log->text[i], 7, m, 0))
			TH_LOG("not a top line: '%s'", log->text[i]);
		bytes = human_bytes(log->text[i]);
		ASSERT_LT(0, bytes) TH_LOG("'%s'", log->text[i]);
		if (prev >= 0)
			EXPECT_LE(bytes, prev) TH_LOG("'%s'", log->text[i]);
		prev = bytes;
		snprintf(where, sizeof(where), "%.*s:%.*s",
			 (int)(m[3].rm_eo - m[3].rm_so), log->text[i] + m[3].rm_so,
			 (int)(m[4].rm_eo - m[4].rm_so), log->text[i] + m[4].rm_so);
		module[0] = '\0';
		if (m[5].rm_so >= 0)
			snprintf(module, sizeof(module), "%.*s",
				 (int)(m[5].rm_eo - m[5].rm_so - 3),
				 log->text[i] + m[5].rm_so + 2);
		EXPECT_LE(1, find_tag(tags, n, where, module, &found))
			TH_LOG("no allocinfo line %s [%s]", where, module);
	}
	if (i < log->n)
		EXPECT_NE(0, regexec(&re, log->text[i], 0, NULL, 0))
			TH_LOG("more than %d top lines", nr);
	free(tags);
	regfree(&re);
}

#endif
