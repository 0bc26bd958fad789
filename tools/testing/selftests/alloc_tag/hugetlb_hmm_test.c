// SPDX-License-Identifier: GPL-2.0
/*
 * Pages that leave through paths other than the page allocator's free:
 * 2 MiB hugetlb pages demoted from a 1 GiB page of CMA, given back to CMA
 * a page at a time (boot with hugetlb_cma=2G on a CPU with 1 GiB pages:
 * 6.1 aligns the area to 2 MiB only, and 2 GiB of it always hold an
 * aligned 1 GiB page); and anonymous pages migrated to device-private memory
 * (test_hmm) and back, best booted with page tags compressed, where every
 * page, device pages too, has a tag field.
 */
#include <malloc.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "allocinfo.h"
#include "kmsg.h"

#define HUGEPAGES	"/sys/kernel/mm/hugepages/"
#define GIGANTIC	HUGEPAGES "hugepages-1048576kB/"
#define HUGE_2M		HUGEPAGES "hugepages-2048kB/"
#define CMA_FILE	"mm/cma.c"
#define CMA_FUNC	"cma_alloc"
#define GIB		(1024LL * 1024 * 1024)

/*
 * A 1 GiB page from CMA is charged a page at a time to cma_alloc();
 * demoted to 512 pages of 2 MiB and freed, all of it comes back to CMA
 * page by page, and every page's charge goes with it.
 */
TEST(hugetlb_cma_demote)
{
	long long b0, c0, b, c;
	int page = getpagesize();

	ASSERT_EQ(1, kmsg_contains("hugetlb_cma: reserved 2048 MiB"))
		TH_LOG("booted without hugetlb_cma=2G");
	ASSERT_EQ(0, access(GIGANTIC "demote", W_OK))
		TH_LOG("no demotable 1 GiB pages (a CPU without pdpe1gb?)");
	ASSERT_EQ(0, read_long(GIGANTIC "nr_hugepages"));
	ASSERT_EQ(0, read_long(HUGE_2M "nr_hugepages"));
	sum_func(_metadata, CMA_FILE, "", CMA_FUNC, &b0, &c0);

	ASSERT_EQ(0, write_file(GIGANTIC "nr_hugepages", "1"));
	ASSERT_EQ(1, read_long(GIGANTIC "nr_hugepages"));
	sum_func(_metadata, CMA_FILE, "", CMA_FUNC, &b, &c);
	EXPECT_EQ(GIB, b - b0);
	EXPECT_EQ(GIB / page, c - c0);

	ASSERT_EQ(0, write_file(GIGANTIC "demote", "1"));
	ASSERT_EQ(0, read_long(GIGANTIC "nr_hugepages"));
	ASSERT_EQ(512, read_long(HUGE_2M "nr_hugepages"));
	sum_func(_metadata, CMA_FILE, "", CMA_FUNC, &b, &c);
	EXPECT_EQ(GIB, b - b0);
	EXPECT_EQ(GIB / page, c - c0);

	ASSERT_EQ(0, write_file(HUGE_2M "nr_hugepages", "0"));
	ASSERT_EQ(0, read_long(HUGE_2M "nr_hugepages"));
	sum_func(_metadata, CMA_FILE, "", CMA_FUNC, &b, &c);
	EXPECT_EQ(b0, b);
	EXPECT_EQ(c0, c);
}

/* lib/test_hmm_uapi.h */
struct hmm_dmirror_cmd {
	uint64_t addr;
	uint64_t ptr;
	uint64_t npages;
	uint64_t cpages;
	uint64_t faults;
};

#define HMM_DMIRROR_MIGRATE_TO_DEV	_IOWR('H', 0x02, struct hmm_dmirror_cmd)

#define HMM_MODULE	"test_hmm"
#define HMM_FILE	"lib/test_hmm.c"
#define HMM_DEV_FUNC	"dmirror_devmem_alloc_page"
#define HMM_SYS_FUNC	"dmirror_devmem_fault_alloc_and_copy"
#define ANON_FILE	"mm/memory.c"
#define ANON_FUNC	"do_anonymous_page"
#define NPAGES		64

/*
 * Anonymous pages migrated to device-private memory leave their line
 * (device memory is not counted; test_hmm's own backing pages are);
 * touched again, each is migrated back into a page charged to the
 * device's fault handler, and unmapping frees it from that line.
 */
TEST(hmm_device_private_migration)
{
	long long a0, a, d0, d, s0, s, calls;
	int i, fd, page = getpagesize();
	struct hmm_dmirror_cmd cmd = { 0 };
	char *p, *copy;

	if (module_load(KO(HMM_MODULE), ""))
		ASSERT_EQ(EEXIST, errno);
	fd = open("/dev/hmm_dmirror0", O_RDWR);
	ASSERT_LE(0, fd);
	copy = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, copy);
	p = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	/* Our own heap stays as reading the report first grew it. */
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, -1);
	sum_func(_metadata, ANON_FILE, "", ANON_FUNC, &a0, &calls);
	sum_func(_metadata, ANON_FILE, "", ANON_FUNC, &a0, &calls);
	sum_func(_metadata, HMM_FILE, HMM_MODULE, HMM_DEV_FUNC, &d0, &calls);
	sum_func(_metadata, HMM_FILE, HMM_MODULE, HMM_SYS_FUNC, &s0, &calls);

	memset(p, 0x5a, NPAGES * page);
	sum_func(_metadata, ANON_FILE, "", ANON_FUNC, &a, &calls);
	EXPECT_EQ(a0 + NPAGES * page, a);

	cmd.addr = (uintptr_t)p;
	cmd.ptr = (uintptr_t)copy;
	cmd.npages = NPAGES;
	ASSERT_EQ(0, ioctl(fd, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd));
	ASSERT_EQ(NPAGES, cmd.cpages);
	EXPECT_EQ(0x5a, copy[NPAGES * page - 1]);
	ASSERT_EQ(0, drain_lru_batches());
	sum_func(_metadata, ANON_FILE, "", ANON_FUNC, &a, &calls);
	EXPECT_EQ(a0, a);
	sum_func(_metadata, HMM_FILE, HMM_MODULE, HMM_DEV_FUNC, &d, &calls);
	EXPECT_EQ(d0 + NPAGES * page, d);

	/* Each read faults its page back from the device. */
	for (i = 0; i < NPAGES; i++)
		ASSERT_EQ(0x5a, p[i * page]);
	sum_func(_metadata, HMM_FILE, HMM_MODULE, HMM_SYS_FUNC, &s, &calls);
	EXPECT_EQ(s0 + NPAGES * page, s);
	sum_func(_metadata, HMM_FILE, HMM_MODULE, HMM_DEV_FUNC, &d, &calls);
	EXPECT_EQ(d0, d);

	ASSERT_EQ(0, munmap(p, NPAGES * page));
	ASSERT_EQ(0, drain_lru_batches());
	sum_func(_metadata, HMM_FILE, HMM_MODULE, HMM_SYS_FUNC, &s, &calls);
	EXPECT_EQ(s0, s);
	sum_func(_metadata, ANON_FILE, "", ANON_FUNC, &a, &calls);
	EXPECT_EQ(a0, a);
	munmap(copy, NPAGES * page);
	close(fd);
}

TEST_HARNESS_MAIN
