// SPDX-License-Identifier: GPL-2.0
/*
 * Profiling under load. test_alloc_tag_stress churns through every
 * allocator family on every CPU while other processes read
 * /proc/allocinfo with varied buffer sizes, toggle vm.mem_profiling and
 * load and unload test_alloc_tag, and flag the module's call sites in the
 * control file (failing, not profiled, and back). Then, with profiling
 * on and no site flagged, the module
 * holds a known set of allocations, which the report must show exactly
 * or mark accurate:no, and frees them; every counter of the module's
 * lines is back at zero, and no report ever showed a negative counter.
 * The faults test does the same while failslab and fail_page_alloc fail
 * the module's allocations (only the module's: task-filter) at random.
 *
 * KFENCE samples an allocation every millisecond meanwhile.
 *
 * alloc_tag_stress.seconds=N on the kernel command line sets how long
 * each churn lasts (default 10). Lines "# stress TEST: WHAT N" are the
 * figures make stress puts in its table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "mem_profiling.h"
#include "allocinfo.h"

#define STRESS		"test_alloc_tag_stress"
#define PARAM(name)	"/sys/module/" STRESS "/parameters/" name
#define STRESS_FILE	"lib/test_alloc_tag_stress.c"
#define SECONDS_PARAM	"alloc_tag_stress.seconds="
#define HOLD		"200"
/* Call sites of the module: one per family, two for krealloc chains. */
#define NR_SITES	10
#define FAULT_DIR	"/sys/kernel/debug/"
#define KFENCE_INTERVAL	"/sys/module/kfence/parameters/sample_interval"
#define KFENCE_STATS	"/sys/kernel/debug/kfence/stats"
#define KFENCE_ALLOCS	"total allocations: "
/* Faults left to inject: what is left at the end says how many were. */
#define FAULT_TIMES	1000000000L

/* What the helper processes did, in memory they share. */
struct shared {
	int stop;
	long reads, lines, malformed, negative, site_reads, raw_negative;
	long toggles, toggle_errors, loads, load_errors;
	long flag_writes, flag_errors;
};

#define ADD(field, n)	__atomic_add_fetch(&(field), (n), __ATOMIC_RELAXED)
#define STOPPED(sh)	__atomic_load_n(&(sh)->stop, __ATOMIC_RELAXED)

/* One call site of the module: "line held-calls held-bytes calls bytes". */
struct site {
	unsigned int line;
	long long held_calls, held_bytes, calls, bytes;
};

static int read_sites(struct site *sites, int max)
{
	size_t len;
	char *buf = read_file(PARAM("sites"), 4096, &len), *p;
	int n = 0, used;

	if (!buf)
		return -1;
	for (p = buf; n < max; p += used) {
		struct site *s = &sites[n];

		if (sscanf(p, "%u %lld %lld %lld %lld\n%n", &s->line,
			   &s->held_calls, &s->held_bytes, &s->calls, &s->bytes,
			   &used) != 5)
			break;
		n++;
	}
	free(buf);
	return n;
}

/* Read the whole report again and again, in chunks of varied sizes. */
static void reader(struct shared *sh, int id)
{
	static const size_t chunks[] = { 7, 64, 1000, 4096, 65536 };
	struct tag_line t;
	struct site sites[NR_SITES + 1];
	unsigned int i = id;
	char *buf, *line, *next;
	size_t len;
	int n, s;

	while (!STOPPED(sh)) {
		buf = read_file(ALLOCINFO, chunks[i++ % 5], &len);
		if (!buf || strncmp(buf, HEADER, strlen(HEADER))) {
			ADD(sh->malformed, 1);
			free(buf);
			continue;
		}
		n = 0;
		for (line = buf + strlen(HEADER); *line; line = next) {
			next = strchr(line, '\n');
			if (!next) {
				ADD(sh->malformed, 1);
				break;
			}
			*next++ = '\0';
			n++;
			if (parse_line(line, &t))
				ADD(sh->malformed, 1);
			else if (t.bytes < 0)
				ADD(sh->negative, 1);
		}
		free(buf);
		ADD(sh->reads, 1);
		ADD(sh->lines, n);
		/* The module's raw sums: briefly negative ones are expected. */
		if (id)
			continue;
		n = read_sites(sites, NR_SITES + 1);
		for (s = 0; s < n; s++)
			if (sites[s].calls < 0 || sites[s].bytes < 0)
				ADD(sh->raw_negative, 1);
		ADD(sh->site_reads, 1);
	}
}

static void toggler(struct shared *sh, int id)
{
	int on = 0;

	while (!STOPPED(sh)) {
		if (sysctl_write(on ? "1" : "0", 1, 0))
			ADD(sh->toggle_errors, 1);
		else
			ADD(sh->toggles, 1);
		on = !on;
		usleep(20000);
	}
	if (sysctl_write("1", 1, 0))
		ADD(sh->toggle_errors, 1);
}

/*
 * The module's sites failing, recording stacks, off, on, not failing, not
 * recording, in turn; listed, with their stacks.
 */
static void flagger(struct shared *sh, int id)
{
	static const char * const cmds[] = {
		"module " STRESS " +f probability 10",
		"module " STRESS " +s",
		"module " STRESS " -p",
		"module " STRESS " -f",
		"module " STRESS " +p",
		"module " STRESS " -s",
	};
	unsigned int i = 0;
	size_t len;
	char *buf;

	while (!STOPPED(sh)) {
		if (write_file(CONTROL, cmds[i++ % ARRAY_SIZE(cmds)]))
			ADD(sh->flag_errors, 1);
		else
			ADD(sh->flag_writes, 1);
		buf = read_file(CONTROL, 4096, &len);
		if (!buf)
			ADD(sh->flag_errors, 1);
		free(buf);
		buf = read_file(STACKS, 65536, &len);
		if (!buf)
			ADD(sh->flag_errors, 1);
		free(buf);
		usleep(20000);
	}
	if (write_file(CONTROL, "module " STRESS " =p"))
		ADD(sh->flag_errors, 1);
}

/* test_alloc_tag allocates at load and frees at unload. */
static void loader(struct shared *sh, int id)
{
	while (!STOPPED(sh)) {
		if (module_load(KO("test_alloc_tag"), "")) {
			ADD(sh->load_errors, 1);
			continue;
		}
		usleep(10000);
		if (module_unload("test_alloc_tag"))
			ADD(sh->load_errors, 1);
		else
			ADD(sh->loads, 1);
	}
}

static pid_t spawn(struct shared *sh, void (*fn)(struct shared *sh, int id),
		   int id)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		fn(sh, id);
		_exit(0);
	}
	return pid;
}

static int write_fault_attr(const char *attr, const char *file,
			    const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAULT_DIR "%s/%s", attr, file);
	return write_file(path, val);
}

/* Fail @attr's allocations in tasks with make_it_fail, @percent of them. */
static int set_faults(const char *attr, int percent)
{
	char val[16], times[32];
	int err = 0;

	snprintf(val, sizeof(val), "%d", percent);
	snprintf(times, sizeof(times), "%ld", FAULT_TIMES);
	err |= write_fault_attr(attr, "task-filter", "Y");
	err |= write_fault_attr(attr, "verbose", "0");
	err |= write_fault_attr(attr, "interval", "1");
	err |= write_fault_attr(attr, "ignore-gfp-wait", "N");
	if (!strcmp(attr, "fail_page_alloc")) {
		err |= write_fault_attr(attr, "ignore-gfp-highmem", "N");
		err |= write_fault_attr(attr, "min-order", "0");
	}
	err |= write_fault_attr(attr, "times", times);
	err |= write_fault_attr(attr, "probability", val);
	return err;
}

/* Faults @attr injected since set_faults(); stops injecting. */
static long faults_injected(const char *attr)
{
	char path[128];
	long left;

	snprintf(path, sizeof(path), FAULT_DIR "%s/times", attr);
	left = read_long(path);
	write_fault_attr(attr, "probability", "0");
	return left < 0 ? -1 : FAULT_TIMES - left;
}

/* KFENCE's allocations since boot, or -1 without KFENCE. */
static long kfence_allocs(void)
{
	size_t len;
	char *buf = read_file(KFENCE_STATS, 4096, &len);
	char *p = buf ? strstr(buf, KFENCE_ALLOCS) : NULL;
	long n = p ? atol(p + strlen(KFENCE_ALLOCS)) : -1;

	free(buf);
	return n;
}

/*
 * Poll until every site of the module counts nothing (kfree_rcu lags), for
 * at most 60 s. Returns how many still count something, or -1 if the sites
 * cannot be read or are not all there.
 */
static int wait_zero(struct site *sites, int *n)
{
	int i, tries, busy = 0;

	for (tries = 0; tries < 600; tries++) {
		*n = read_sites(sites, NR_SITES + 1);
		if (*n != NR_SITES)
			return -1;
		for (busy = 0, i = 0; i < *n; i++)
			busy += sites[i].calls || sites[i].bytes;
		if (!busy)
			break;
		usleep(100000);
	}
	return busy;
}

/*
 * One figure for make stress's table. Flushed: the test runs in a child
 * that exits without flushing stdio.
 */
static void figure(const char *name, const char *what, long n)
{
	printf("# stress %s: %s %ld\n", name, what, n);
	fflush(stdout);
}

static void print_stats(const char *name)
{
	char *buf, *line, *next;
	size_t len;
	long allocs, fails, total_allocs = 0, total_fails = 0;
	char what[32];

	buf = read_file(PARAM("stats"), 4096, &len);
	if (!buf)
		return;
	for (line = buf; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		if (sscanf(line, "%31s %ld %ld", what, &allocs, &fails) == 3) {
			printf("# stress %s: %s allocs %ld fails %ld\n", name,
			       what, allocs, fails);
			fflush(stdout);
			total_allocs += allocs;
			total_fails += fails;
		} else if (sscanf(line, "%31s %ld", what, &allocs) == 2) {
			figure(name, what, allocs);
		}
	}
	figure(name, "allocs", total_allocs);
	figure(name, "fails", total_fails);
	free(buf);
}

/*
 * The held set against the report: exact, or marked accurate:no and
 * short, never over. Returns the number of lines marked accurate:no.
 */
static int check_held(struct __test_metadata *_metadata)
{
	struct site sites[NR_SITES + 1];
	struct tag_line *tags, t = { 0 };
	char where[64];
	int i, n, ntags, inaccurate = 0;

	n = read_sites(sites, NR_SITES + 1);
	ASSERT_EQ(NR_SITES, n);
	tags = read_tags(_metadata, &ntags);
	for (i = 0; i < n; i++) {
		snprintf(where, sizeof(where), STRESS_FILE ":%u", sites[i].line);
		ASSERT_EQ(1, find_tag(tags, ntags, where, STRESS, &t))
			TH_LOG("no line %s", where);
		/* Nothing else allocates there now: report = raw sums. */
		EXPECT_EQ(sites[i].calls, (long long)t.calls) TH_LOG("%s", where);
		EXPECT_EQ(sites[i].bytes, t.bytes) TH_LOG("%s", where);
		if (!t.calls)
			EXPECT_EQ(0, t.bytes) TH_LOG("%s", where);
		if (t.inaccurate) {
			inaccurate++;
			EXPECT_LE((long long)t.calls, sites[i].held_calls)
				TH_LOG("%s", where);
			EXPECT_LE(t.bytes, sites[i].held_bytes)
				TH_LOG("%s", where);
			continue;
		}
		EXPECT_EQ(sites[i].held_calls, (long long)t.calls)
			TH_LOG("%s: %lld held, %llu counted", where,
			       sites[i].held_calls, t.calls);
		EXPECT_EQ(sites[i].held_bytes, t.bytes)
			TH_LOG("%s: %lld bytes held, %lld counted", where,
			       sites[i].held_bytes, t.bytes);
	}
	free(tags);
	return inaccurate;
}

/* Lines of the report in @module. */
static int module_lines(struct __test_metadata *_metadata, const char *module)
{
	struct tag_line *tags;
	int i, n, count = 0;

	tags = read_tags(_metadata, &n);
	for (i = 0; i < n; i++)
		count += !strcmp(tags[i].module, module);
	free(tags);
	return count;
}

FIXTURE(stress) {
	struct shared *sh;
	int loaded_keeper;
	long kfence_interval;
};

FIXTURE_SETUP(stress)
{
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	memset(self->sh, 0, sizeof(*self->sh));
	self->loaded_keeper = !module_load(KO("test_alloc_tag_keeper"), "");
	ASSERT_TRUE(self->loaded_keeper || errno == EEXIST);
	/* A KFENCE object every millisecond, not every 100. */
	self->kfence_interval = read_long(KFENCE_INTERVAL);
	if (self->kfence_interval > 0)
		ASSERT_EQ(0, write_file(KFENCE_INTERVAL, "1"));
}

FIXTURE_TEARDOWN(stress)
{
	char val[32];

	if (self->kfence_interval > 0) {
		snprintf(val, sizeof(val), "%ld", self->kfence_interval);
		write_file(KFENCE_INTERVAL, val);
	}
	module_unload(STRESS);
	if (self->loaded_keeper)
		module_unload("test_alloc_tag_keeper");
	munmap(self->sh, sizeof(*self->sh));
}

static void stress(struct __test_metadata *_metadata, struct shared *sh,
		   const char *name, int fault)
{
	const char *v = cmdline_value(SECONDS_PARAM, 0);
	int seconds = v ? atoi(v) : 10, toggling, i, n, status, inaccurate;
	int counters_off, flagging = !access(CONTROL, F_OK);
	long slab_faults = 0, page_faults = 0, kfence = kfence_allocs();
	struct site sites[NR_SITES + 1];
	pid_t pids[5];
	struct stat st;
	time_t start;

	ASSERT_LT(0, seconds);
	ASSERT_EQ(0, stat(SYSCTL, &st));
	/* Read-only with CONFIG_MEM_ALLOC_PROFILING_DEBUG. */
	toggling = !!(st.st_mode & 0200);
	ASSERT_EQ(1, sysctl_read());
	if (fault) {
		ASSERT_EQ(0, set_faults("failslab", 10));
		ASSERT_EQ(0, set_faults("fail_page_alloc", 10));
	}
	ASSERT_EQ(0, module_load(KO(STRESS), fault ? "fault=1" : ""));
	ASSERT_EQ(0, write_file(PARAM("run"), "1"));
	start = time(NULL);
	pids[0] = spawn(sh, reader, 0);
	pids[1] = spawn(sh, reader, 1);
	pids[2] = spawn(sh, loader, 0);
	pids[3] = toggling ? spawn(sh, toggler, 0) : 0;
	pids[4] = flagging ? spawn(sh, flagger, 0) : 0;
	sleep(seconds);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 5; i++) {
		if (!pids[i])
			continue;
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	ASSERT_EQ(0, write_file(PARAM("run"), "0"));
	figure(name, "seconds", (long)(time(NULL) - start));
	ASSERT_EQ(1, sysctl_read());

	/* Churn over, all freed: back at zero once kfree_rcu is done. */
	EXPECT_EQ(0, wait_zero(sites, &n));
	EXPECT_EQ(0, module_lines(_metadata, "test_alloc_tag"));

	/* Profiling on for the whole of this phase, faults still coming. */
	ASSERT_EQ(0, write_file(PARAM("hold"), HOLD));
	inaccurate = check_held(_metadata);
	/*
	 * Under faults a line is inaccurate if one of its slabs lost its
	 * vector; that a new slab was made while faults came depends on
	 * timing: check_held() checks such lines, here only the count.
	 */
	if (fault) {
		slab_faults = faults_injected("failslab");
		page_faults = faults_injected("fail_page_alloc");
	} else {
		EXPECT_EQ(0, inaccurate);
	}
	ASSERT_EQ(0, write_file(PARAM("release"), "1"));
	counters_off = wait_zero(sites, &n);
	for (i = 0; i < n; i++)
		if (sites[i].calls || sites[i].bytes)
			TH_LOG("line %u: %lld calls %lld bytes", sites[i].line,
			       sites[i].calls, sites[i].bytes);
	EXPECT_EQ(NR_SITES, n);
	EXPECT_EQ(0, counters_off);
	check_held(_metadata);

	if (kfence >= 0) {
		kfence = kfence_allocs() - kfence;
		EXPECT_LT(0, kfence);
	}
	print_stats(name);
	figure(name, "reads", sh->reads);
	figure(name, "lines-read", sh->lines);
	figure(name, "site-reads", sh->site_reads);
	figure(name, "raw-negative", sh->raw_negative);
	figure(name, "toggles", sh->toggles);
	figure(name, "module-loads", sh->loads);
	figure(name, "control-writes", sh->flag_writes);
	figure(name, "faults-slab", slab_faults);
	figure(name, "faults-page", page_faults);
	figure(name, "inaccurate-lines", inaccurate);
	figure(name, "kfence-allocs", kfence);
	figure(name, "counters-off", counters_off);
	figure(name, "malformed", sh->malformed);
	figure(name, "negative", sh->negative);
	EXPECT_LT(0, sh->reads);
	EXPECT_LT(0, sh->loads);
	EXPECT_EQ(0, sh->load_errors);
	EXPECT_EQ(0, sh->malformed);
	EXPECT_EQ(0, sh->negative);
	EXPECT_EQ(0, sh->toggle_errors);
	if (toggling)
		EXPECT_LT(0, sh->toggles);
	EXPECT_EQ(0, sh->flag_errors);
	if (flagging)
		EXPECT_LT(0, sh->flag_writes);

	/* Nothing live: the module's lines go with it. */
	ASSERT_EQ(0, module_unload(STRESS));
	EXPECT_EQ(0, module_lines(_metadata, STRESS));
}

TEST_F_TIMEOUT(stress, churn, 7200)
{
	stress(_metadata, self->sh, "churn", 0);
}

TEST_F_TIMEOUT(stress, faults, 7200)
{
	stress(_metadata, self->sh, "faults", 1);
}

TEST_HARNESS_MAIN
