// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel built without CONFIG_MEM_ALLOC_PROFILING has neither
 * /proc/allocinfo nor vm.mem_profiling.
 */
#include <errno.h>
#include <unistd.h>

#include "../kselftest_harness.h"

TEST(no_allocinfo)
{
	ASSERT_EQ(-1, access("/proc/allocinfo", F_OK));
	ASSERT_EQ(ENOENT, errno);
}

TEST(no_sysctl)
{
	ASSERT_EQ(-1, access("/proc/sys/vm/mem_profiling", F_OK));
	ASSERT_EQ(ENOENT, errno);
}

TEST_HARNESS_MAIN
