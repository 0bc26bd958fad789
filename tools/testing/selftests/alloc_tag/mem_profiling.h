/* SPDX-License-Identifier: GPL-2.0 */
/* The vm.mem_profiling sysctl, for the alloc_tag kselftests. */
#ifndef ALLOC_TAG_MEM_PROFILING_H
#define ALLOC_TAG_MEM_PROFILING_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALLOCINFO	"/proc/allocinfo"
#define SYSCTL		"/proc/sys/vm/mem_profiling"

/* 0 or 1; negative if the file cannot be read or holds anything else. */
static inline int sysctl_read(void)
{
	char buf[16] = "";
	int fd = open(SYSCTL, O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	if (!strcmp(buf, "0\n"))
		return 0;
	if (!strcmp(buf, "1\n"))
		return 1;
	return -2;
}

/* A number read from a file; -1 if it cannot be read. */
static inline long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) <= 0)
		buf[0] = '\0';
	close(fd);
	return buf[0] ? strtol(buf, NULL, 10) : -1;
}

/* Write @len bytes at @off: 0, the errno of the failure, or -1 if short. */
static inline int sysctl_write(const char *val, size_t len, off_t off)
{
	int fd = open(SYSCTL, O_WRONLY);
	ssize_t r;

	if (fd < 0)
		return errno;
	r = pwrite(fd, val, len, off);
	if (r < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return -r;
	return r == (ssize_t)len ? 0 : -1;
}

#endif
