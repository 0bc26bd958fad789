// SPDX-License-Identifier: GPL-2.0
/*
 * Memory cgroup accounting of slab objects still works with the objcg kept
 * in the slabobj_ext vector: System V messages are kmalloc'ed with
 * __GFP_ACCOUNT, so sending them to a queue charges the sender's cgroup
 * with exactly (object size + objcg pointer) per message, and removing
 * the queue uncharges it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "mem_profiling.h"

#define CGROOT		"/sys/fs/cgroup"
#define CG		CGROOT "/alloc_tag_memcg"
#define MSGS		500
#define MSG_BYTES	1000
/* struct msg_msg precedes the text: 1048 bytes, served by kmalloc-cg-2k. */
#define MSG_CACHE	"/sys/kernel/slab/kmalloc-cg-2k/slab_size"

/* The slab_unreclaimable line of the test cgroup's memory.stat. */
static long cgroup_slab_bytes(void)
{
	char line[256];
	long val = -1;
	FILE *f = fopen(CG "/memory.stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "slab_unreclaimable %ld", &val) == 1)
			break;
	fclose(f);
	return val;
}

struct msgbuf_1k {
	long mtype;
	char mtext[MSG_BYTES];
};

TEST(gfp_account_slab_objects_are_charged_and_uncharged)
{
	static struct msgbuf_1k msg = { .mtype = 1 };
	struct msqid_ds ds;
	long obj, before, sent, after, want;
	char pid[32];
	int q, i;

	mkdir(CGROOT, 0755);
	if (access(CGROOT "/cgroup.controllers", F_OK))
		ASSERT_EQ(0, mount("none", CGROOT, "cgroup2", 0, NULL));
	ASSERT_EQ(0, write_file(CGROOT "/cgroup.subtree_control", "+memory"));
	ASSERT_TRUE(mkdir(CG, 0755) == 0 || errno == EEXIST);
	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(0, write_file(CG "/cgroup.procs", pid));

	obj = read_long(MSG_CACHE);
	ASSERT_GT(obj, 1000);
	want = MSGS * (obj + (long)sizeof(void *));

	q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	ASSERT_LE(0, q);
	ASSERT_EQ(0, msgctl(q, IPC_STAT, &ds));
	ds.msg_qbytes = 2 * MSGS * MSG_BYTES;
	ASSERT_EQ(0, msgctl(q, IPC_SET, &ds));

	before = cgroup_slab_bytes();
	ASSERT_LE(0, before);
	for (i = 0; i < MSGS; i++)
		ASSERT_EQ(0, msgsnd(q, &msg, sizeof(msg.mtext), IPC_NOWAIT));
	sent = cgroup_slab_bytes();
	ASSERT_EQ(0, msgctl(q, IPC_RMID, NULL));
	after = cgroup_slab_bytes();

	TH_LOG("object %ld bytes: before %ld, with %d messages %ld, after %ld",
	       obj, before, MSGS, sent, after);
	/* Per-cpu stat batching blurs the figure by at most a few pages. */
	ASSERT_LE(labs(sent - before - want), 16 * 4096);
	ASSERT_LE(labs(after - before), 16 * 4096);

	ASSERT_EQ(0, write_file(CGROOT "/cgroup.procs", pid));
	ASSERT_EQ(0, rmdir(CG));
}

TEST_HARNESS_MAIN
