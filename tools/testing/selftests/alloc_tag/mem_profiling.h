/* SPDX-License-Identifier: GPL-2.0 */
/* The vm.mem_profiling sysctl, for the alloc_tag kselftests. */
#ifndef ALLOC_TAG_MEM_PROFILING_H
#define ALLOC_TAG_MEM_PROFILING_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ALLOCINFO	"/proc/allocinfo"
#define SYSCTL		"/proc/sys/vm/mem_profiling"
#define BOOT_PARAM	"sysctl.vm.mem_profiling="
#define KO(name)	"/lib/modules/" name ".ko"

/*
 * The value of the @nth (from 0) "@param" (ending in '=') on the kernel
 * command line, without the quotes of a quoted value, or NULL.
 */
static inline const char *cmdline_value(const char *param, int nth)
{
	static char cmdline[4096];
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t len = fd < 0 ? -1 : read(fd, cmdline, sizeof(cmdline) - 1);
	char *v = cmdline, *end;

	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return NULL;
	cmdline[len] = '\0';
	for (;;) {
		v = strstr(v, param);
		if (!v)
			return NULL;
		/* Only at the start of a word. */
		if (v == cmdline || v[-1] == ' ') {
			v += strlen(param);
			if (!nth--)
				break;
		} else {
			v++;
		}
	}
	if (*v == '"')
		end = strchr(++v, '"');
	else
		end = v + strcspn(v, "\n ");
	if (!end)
		return NULL;
	*end = '\0';
	return v;
}

/* The value of sysctl.vm.mem_profiling= on the command line, or NULL. */
static inline const char *boot_value(void)
{
	return cmdline_value(BOOT_PARAM, 0);
}

/* Write all of @val to @path: 0, or -errno (-EIO if short). */
static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -EIO;
}

/*
 * A freed page still in a CPU's LRU batch (every page just faulted in or
 * migrated waits there) is freed, and uncharged, only when that batch is
 * drained; compaction drains every CPU's first. 0 or -errno.
 */
static inline int drain_lru_batches(void)
{
	return write_file("/proc/sys/vm/compact_memory", "1");
}

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

/* Load the module file @ko with @params: 0, or -1 with errno set. */
static inline int module_load(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = syscall(__NR_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

static inline int module_unload(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK);
}

#endif
