/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading /proc/allocinfo strictly, for the alloc_tag kselftests: include
 * after kselftest_harness.h.
 */
#ifndef ALLOC_TAG_ALLOCINFO_H
#define ALLOC_TAG_ALLOCINFO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mem_profiling.h"

/* The per-site control, in /proc (served by debugfs too, but not under lockdown) */
#define CONTROL		"/proc/alloc_tag/control"
#define STACKS		"/proc/alloc_tag/stacks"
#define DEBUGFS_CONTROL	"/sys/kernel/debug/alloc_tag/control"

#define HEADER		"allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n"
/* "%12lli %8llu " */
#define COUNTERS_WIDTH	22

struct tag_line {
	long long bytes;
	unsigned long long calls;
	char where[300];	/* file:line */
	char module[64];	/* empty for vmlinux */
	char func[128];
	int inaccurate;		/* " accurate:no" */
	int unloaded;		/* " module:unloaded", after it */
};

/* The whole file, read @chunk bytes at a time from @fd. */
static inline char *read_fd(int fd, size_t chunk, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	ssize_t r;

	while (buf) {
		if (n + chunk > cap) {
			cap = 2 * (n + chunk);
			buf = realloc(buf, cap + 1);
			if (!buf)
				break;
		}
		r = read(fd, buf + n, chunk);
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (!r) {
			buf[n] = '\0';
			*len = n;
			break;
		}
		n += r;
	}
	return buf;
}

static inline char *read_file(const char *path, size_t chunk, size_t *len)
{
	int fd = open(path, O_RDONLY);
	char *buf;

	if (fd < 0)
		return NULL;
	buf = read_fd(fd, chunk, len);
	close(fd);
	return buf;
}

/*
 * Parse one tag line (without its newline) strictly: printing the parsed
 * fields in the kernel's format must give back exactly the same line.
 */
static inline int parse_line(const char *line, struct tag_line *t)
{
	char file[256], again[600];
	unsigned int lineno;
	int pos, n = 0;

	if (strlen(line) >= 500)
		return -1;
	if (sscanf(line, "%lld %llu %255[^: ]:%u%n", &t->bytes, &t->calls,
		   file, &lineno, &pos) != 4)
		return -1;
	t->module[0] = '\0';
	if (!strncmp(line + pos, " [", 2)) {
		if (sscanf(line + pos, " [%63[^]]]%n", t->module, &n) != 1)
			return -1;
		pos += n;
	}
	n = 0;
	if (sscanf(line + pos, " func:%127s%n", t->func, &n) != 1)
		return -1;
	pos += n;
	t->inaccurate = !strncmp(line + pos, " accurate:no", 12);
	t->unloaded = !!strstr(line + pos, " module:unloaded");
	snprintf(t->where, sizeof(t->where), "%s:%u", file, lineno);
	if (t->module[0])
		snprintf(again, sizeof(again), "%12lli %8llu %s [%s] func:%s%s%s",
			 t->bytes, t->calls, t->where, t->module, t->func,
			 t->inaccurate ? " accurate:no" : "",
			 t->unloaded ? " module:unloaded" : "");
	else
		snprintf(again, sizeof(again), "%12lli %8llu %s func:%s%s%s",
			 t->bytes, t->calls, t->where, t->func,
			 t->inaccurate ? " accurate:no" : "",
			 t->unloaded ? " module:unloaded" : "");
	return strcmp(again, line) ? -1 : 0;
}

/* Tag lines of the file; @n gets their count. Fails the test on junk. */
static inline struct tag_line *read_tags(struct __test_metadata *_metadata,
					 int *n)
{
	struct tag_line *tags = NULL;
	char *buf, *line, *next;
	size_t len;
	int count = 0;

	buf = read_file(ALLOCINFO, 4096, &len);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, strncmp(buf, HEADER, strlen(HEADER)));
	ASSERT_EQ('\n', buf[len - 1]);
	for (line = buf + strlen(HEADER); *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		tags = realloc(tags, (count + 1) * sizeof(*tags));
		ASSERT_NE(NULL, tags);
		if (parse_line(line, &tags[count]))
			TH_LOG("malformed line: '%s'", line);
		ASSERT_EQ(0, parse_line(line, &tags[count]));
		count++;
	}
	free(buf);
	*n = count;
	return tags;
}

/* How many lines name @where in @module ("" for vmlinux); the last one. */
static inline int find_tag(struct tag_line *tags, int n, const char *where,
			   const char *module, struct tag_line *found)
{
	int i, matches = 0;

	for (i = 0; i < n; i++) {
		if (strcmp(tags[i].where, where) ||
		    strcmp(tags[i].module, module))
			continue;
		matches++;
		*found = tags[i];
	}
	return matches;
}

/*
 * Bytes and calls of every line in @file:* of @module ("" for vmlinux)
 * with func:@func. Fails the test if there is none.
 */
static inline void sum_func(struct __test_metadata *_metadata,
			    const char *file, const char *module,
			    const char *func, long long *bytes,
			    long long *calls)
{
	struct tag_line *tags;
	int i, n, lines = 0;

	tags = read_tags(_metadata, &n);
	*bytes = *calls = 0;
	for (i = 0; i < n; i++) {
		if (strncmp(tags[i].where, file, strlen(file)) ||
		    tags[i].where[strlen(file)] != ':' ||
		    strcmp(tags[i].module, module) ||
		    strcmp(tags[i].func, func))
			continue;
		*bytes += tags[i].bytes;
		*calls += tags[i].calls;
		lines++;
	}
	free(tags);
	ASSERT_LT(0, lines) TH_LOG("no line %s func:%s", file, func);
}

#endif
