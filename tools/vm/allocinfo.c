// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo - the largest, grouped, filtered and growing call sites of
 * /proc/allocinfo, as text, JSON or Prometheus metrics
 *
 * /proc/allocinfo (CONFIG_MEM_ALLOC_PROFILING) has one line per allocation
 * call site in the kernel and its loaded modules: the bytes it holds, its
 * live allocations, and where it is. This tool shows the top of that list,
 * sums it per module, file, directory or function, filters it, compares two
 * snapshots to show what grew, and exports it for a fleet's Prometheus
 * (node_exporter's textfile collector).
 *
 * Usage: allocinfo [OPTION]... [FILE]
 *        allocinfo --diff [OPTION]... OLD NEW
 *
 * FILE is /proc/allocinfo by default, a saved copy of it, or - for stdin.
 *
 *   -n, --top=N          show the top N rows (default 10; 0: all of them)
 *   -s, --sort=KEY       sort by bytes (default) or calls
 *   -g, --group=BY       one row per call site (none, the default), or the
 *                        sums per module (built-in code is "vmlinux"), file,
 *                        dir (the file's directory) or function
 *       --module=NAME    only call sites in module NAME (vmlinux: built in)
 *       --file=PATTERN   only call sites whose file name contains PATTERN;
 *                        a PATTERN with * ? or [ is a shell glob that must
 *                        match the whole name, * matching / too: 'fs/ext4*'
 *                        matches fs/ext4/inode.c
 *       --func=NAME      only call sites in function NAME
 *       --min-bytes=SIZE only rows that hold at least SIZE bytes (with
 *                        --diff: whose bytes changed by at least SIZE); SIZE
 *                        may end in K, M, G or T (powers of 1024): 1.5M
 *   -d, --diff           compare snapshots OLD and NEW: what grew most
 *       --shrunk         with --diff, also show what shrank most
 *       --raw            plain byte counts instead of 1.5 MiB (text output)
 *   -j, --json           JSON output
 *   -p, --prometheus     Prometheus text exposition output
 *   -o, --output=FILE    write to FILE, replacing it at once: the output goes
 *                        to a new file in FILE's directory, renamed to FILE
 *                        when complete, so a reader never sees a partial one
 *   -h, --help           show the usage and exit
 *   -V, --version        show the version and exit
 *
 * --module and --func take a shell glob too when NAME has * ? or [. Each
 * filter may be given more than once: a call site then passes if it matches
 * any of them; different filters must all pass. --module, --file and --func
 * select call sites before grouping, --min-bytes selects the rows shown
 * after it.
 *
 * -n applies to every output format (Prometheus too: -n 0 exports all).
 *
 * Rows. Lines of /proc/allocinfo for the same call site (file, line, module
 * and function: a static inline function in a header has one line per
 * compilation unit that calls it, and a module reloaded while its unloaded
 * copy still holds memory has two) are one row, the sum of its lines; the
 * text output then says "(N lines)". Rows are sorted by bytes (or calls),
 * largest first, ties by the other counter, then by name. Bytes are
 * printed in powers of 1024 with one decimal (B, KiB, MiB, GiB, TiB, PiB,
 * EiB), calls as plain numbers. A row shows " accurate:no" when some of its
 * lines had that flag (its figures are a lower bound) and " module:unloaded"
 * when some of them had that one. The last line of the text output is the
 * total of all rows that passed the filters, also those not shown.
 *
 * --diff: OLD and NEW are matched call site by call site; one only in OLD
 * went to 0, one only in NEW came from 0; its lines are those of the
 * snapshot with more of them. Rows are sorted by the change of bytes (or
 * of calls with -s calls), largest growth first. The top N that grew are
 * shown, with --shrunk also the N that shrank most, at the end. Grouping
 * and filters work as above, on the changes.
 *
 * Output. Text: aligned columns, a header line and a total line.
 *
 * JSON: one object, {"version": the input's format version, "input",
 * "group", "sort", "total", "entries"}; with --diff "old", "new" and
 * "old_version" instead of "input". "total" has the counters below and
 * "rows" (with --diff also "grew" and "shrank"); "entries" are the rows
 * shown. An entry has "file", "line", "module", "function" (a call site;
 * built-in code has module "vmlinux") or the group's "module", "file",
 * "directory" or "function"; then "bytes", "calls" (with --diff
 * "old_bytes", "new_bytes", "delta_bytes", "old_calls", "new_calls",
 * "delta_calls"), "lines", "accurate", "module_unloaded" and, for a call
 * site, "extra": the key:value tokens of a 2.x line that this tool does not
 * know. Strings are escaped; bytes that are not UTF-8 become U+FFFD.
 *
 * Prometheus (text exposition format, for node_exporter's textfile
 * collector): gauges allocinfo_bytes and allocinfo_calls (and, grouped,
 * allocinfo_lines), labelled file, line, module and function, or with the
 * group's label (module, file, directory, function); label values are
 * escaped as the format requires, and not UTF-8 bytes become U+FFFD. E.g.
 * "allocinfo -p -n 0 -g module -o $D/allocinfo.prom" with $D the
 * collector's --collector.textfile.directory. A change is not a metric: --diff
 * --prometheus is refused.
 *
 * Input. Line 1 is "allocinfo - version: N.N"; versions 1.x (upstream Linux
 * 6.10) and 2.x are read, other versions are refused. Then one line per
 * call site:
 *
 *   <bytes> <calls> <file>:<line> [<module>] func:<function> [<key:value>]...
 *
 * bytes is a signed 64-bit integer (a counter can be negative for a moment),
 * calls an unsigned 64-bit one, line an unsigned 32-bit one, "[module]"
 * only for a call site in a module. Fields are separated by any amount of
 * blanks (upstream ends its lines in a space). After the function, a 2.x
 * line may have key:value tokens in any order: accurate:no and
 * module:unloaded are known, others are kept (JSON "extra"), each key at
 * most once per line. A 1.x line may only end in accurate:no, which later
 * upstream kernels print without changing the version. Lines starting with
 * # are comments (line 2 is one). A last line without a newline is read
 * like any other, so a line cut at a field boundary is not noticed (the
 * kernel writes whole lines). A header alone is a valid, empty report.
 *
 * These are errors, reported as "allocinfo: FILE:LINE: expected ..., got
 * ..." (exit status 1), after which nothing is printed: an empty file, a
 * missing or malformed header, another version, an empty line, a missing or
 * malformed field (counters that are not decimal integers or do not fit,
 * "file" without ":line", a "[module" without "]", no "func:"), a trailing
 * token that is not key:value (or, in 1.x, not accurate:no), a repeated
 * key, a NUL byte, and a line longer than 4096 bytes.
 *
 * Exit status: 0 on success, 1 on unreadable or malformed input or a write
 * error (--output: FILE is then left as it was), 2 on bad usage.
 *
 * Examples:
 *   allocinfo                              top 10 call sites by bytes
 *   allocinfo -g module -n 0               every module's total
 *   allocinfo --file 'fs/ext4*' -s calls   ext4's call sites by calls
 *   cp /proc/allocinfo a; sleep 600; allocinfo --diff a /proc/allocinfo
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define DEFAULT_INPUT	"/proc/allocinfo"
#ifndef ALLOCINFO_VERSION	/* packages define it */
#define ALLOCINFO_VERSION	"(built from the kernel tree)"
#endif
#define MAX_LINE	4096	/* bytes in an input line, without '\n' */
#define EXIT_RUNTIME	1	/* unreadable or malformed input, write error */
#define EXIT_USAGE	2
#define SNIPPET		40	/* bytes of bad input quoted in an error */
#define QUOTE_SIZE	(SNIPPET * 4 + 8)
#define CELL_SIZE	32
#define MAX_COLS	5

/* Flags of a call site */
#define SITE_INACCURATE	1	/* accurate:no */
#define SITE_UNLOADED	2	/* module:unloaded */

enum sort_key { SORT_BYTES, SORT_CALLS };
enum group_by { GROUP_NONE, GROUP_MODULE, GROUP_FILE, GROUP_DIR, GROUP_FUNC };
enum out_format { OUT_TEXT, OUT_JSON, OUT_PROM };

/* A call site of a snapshot: one or more of its lines */
struct site {
	char *file;
	char *module;		/* NULL: built in */
	char *func;
	char *extra;		/* unknown key:value tokens, or NULL */
	const char *dir;	/* the file's directory, once needed */
	unsigned int line;
	unsigned int flags;
	long long bytes;
	unsigned long long calls;
	unsigned long lines;
};

struct snapshot {
	const char *path;	/* as given, - for stdin */
	const char *name;	/* for messages */
	char version[24];
	unsigned long major;
	struct site *sites;
	size_t nr;
	size_t alloc;
};

/* A row of the output: a call site or a group, of one or two snapshots */
struct row {
	const struct site *site;	/* a call site of the row */
	const char *key;		/* grouped: the module, file, ... */
	long long bytes[2];		/* [0]: OLD, [1]: NEW or the only one */
	unsigned long long calls[2];
	unsigned long lines;
	unsigned int flags;
	int in_new;			/* site is of NEW (or the only one) */
};

struct totals {
	struct row sum;
	size_t rows;
	size_t grew;
	size_t shrank;
};

struct pattern_list {
	const char **v;
	size_t nr;
};

struct options {
	size_t top;
	enum sort_key sort;
	enum group_by group;
	enum out_format format;
	struct pattern_list modules;
	struct pattern_list files;
	struct pattern_list funcs;
	unsigned long long min_bytes;
	int has_min_bytes;
	int diff;
	int shrunk;
	int raw;
	const char *output;	/* --output, or NULL: stdout */
};

static struct options opt = { .top = 10 };

struct reader {
	FILE *f;
	const char *name;
	unsigned long lineno;
	char buf[MAX_LINE + 1];
};

/* How each grouping is named: option, one, several, column header. */
static const struct {
	const char *name, *singular, *plural, *header;
} groups[] = {
	[GROUP_NONE] = { "none", "call site", "call sites", "CALL SITE" },
	[GROUP_MODULE] = { "module", "module", "modules", "MODULE" },
	[GROUP_FILE] = { "file", "file", "files", "FILE" },
	[GROUP_DIR] = { "directory", "directory", "directories", "DIRECTORY" },
	[GROUP_FUNC] = { "function", "function", "functions", "FUNCTION" },
};

static void print_help(FILE *f)
{
	fputs("Usage: allocinfo [OPTION]... [FILE]\n"
	      "       allocinfo --diff [OPTION]... OLD NEW\n"
	      "Show the call sites of /proc/allocinfo (or FILE; - for stdin) that hold\n"
	      "the most memory, or, with --diff, whose memory grew the most.\n"
	      "\n"
	      "  -n, --top=N           show the top N rows (default 10; 0: all)\n"
	      "  -s, --sort=KEY        sort by bytes (default) or calls\n"
	      "  -g, --group=BY        none (a row per call site, default), module,\n"
	      "                        file, dir or function\n"
	      "      --module=NAME     only call sites in module NAME (vmlinux: built in)\n"
	      "      --file=PATTERN    only files whose name contains PATTERN; with * ? [\n"
	      "                        a glob of the whole name (* also matches /)\n"
	      "      --func=NAME       only call sites in function NAME\n"
	      "      --min-bytes=SIZE  only rows of at least SIZE bytes (with --diff: that\n"
	      "                        changed by at least SIZE); suffixes K, M, G, T\n"
	      "  -d, --diff            compare two snapshots OLD and NEW: what grew\n"
	      "      --shrunk          with --diff, also show what shrank\n"
	      "      --raw             plain byte counts instead of KiB, MiB, ...\n"
	      "  -j, --json            JSON output\n"
	      "  -p, --prometheus      Prometheus text exposition output\n"
	      "  -o, --output=FILE     write FILE whole or not at all (a new file renamed)\n"
	      "  -h, --help            show this help and exit\n"
	      "  -V, --version         show the version and exit\n"
	      "\n"
	      "--module and --func take globs too; a filter given twice matches either.\n"
	      "Exit status: 0 on success, 1 on unreadable or malformed input or a write\n"
	      "error, 2 on bad usage.\n",
	      f);
}

static noreturn void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("allocinfo: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_RUNTIME);
}

static noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("allocinfo: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'allocinfo --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

static noreturn void bad_input(const struct reader *r, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "allocinfo: %s:%lu: ", r->name, r->lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_RUNTIME);
}

/* --output: the new file, renamed to opt.output once complete */
static char *output_tmp;

static void remove_output_tmp(void)
{
	if (output_tmp)
		unlink(output_tmp);
}

/* Sends stdout to a new file beside opt.output, as a shell's > would create it */
static void open_output(void)
{
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	if (asprintf(&output_tmp, "%s.XXXXXX", opt.output) < 0) {
		output_tmp = NULL;
		die("out of memory");
	}
	fd = mkstemp(output_tmp);
	if (fd < 0) {
		free(output_tmp);
		output_tmp = NULL;
		die("%s: cannot create a file beside it: %s", opt.output,
		    strerror(errno));
	}
	atexit(remove_output_tmp);
	if (fchmod(fd, 0666 & ~mask) || dup2(fd, STDOUT_FILENO) < 0)
		die("%s: %s", output_tmp, strerror(errno));
	close(fd);
}

/* The output is complete and on disk: it replaces opt.output */
static void close_output(void)
{
	if (fsync(STDOUT_FILENO))
		die("write error: %s", strerror(errno));
	if (rename(output_tmp, opt.output))
		die("%s: %s", opt.output, strerror(errno));
	free(output_tmp);
	output_tmp = NULL;
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		die("out of memory");
	p = realloc(p, bytes ? bytes : 1);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrndup(const char *s, size_t len)
{
	char *p = xrealloc(NULL, len + 1, 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* Saturating arithmetic: sums of many counters must not overflow. */
static long long add_ll(long long a, long long b)
{
	long long r;

	if (__builtin_add_overflow(a, b, &r))
		return a < 0 ? LLONG_MIN : LLONG_MAX;
	return r;
}

static long long sub_ll(long long a, long long b)
{
	long long r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? LLONG_MAX : LLONG_MIN;
	return r;
}

static unsigned long long add_ull(unsigned long long a, unsigned long long b)
{
	return a + b < a ? ULLONG_MAX : a + b;
}

static long long sub_ull(unsigned long long a, unsigned long long b)
{
	if (a >= b)
		return a - b > LLONG_MAX ? LLONG_MAX : (long long)(a - b);
	return b - a > LLONG_MAX ? LLONG_MIN : -(long long)(b - a);
}

/* The first bytes of s, quoted and escaped for an error message, in buf */
static const char *quote(char *buf, const char *s)
{
	char *p = buf;
	size_t i;

	if (!s)
		return "end of line";
	*p++ = '"';
	for (i = 0; s[i] && i < SNIPPET; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			p += sprintf(p, "\\%c", c);
		else if (c < ' ' || c >= 0x7f)
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = c;
	}
	if (s[i])
		p += sprintf(p, "...");
	*p++ = '"';
	*p = '\0';
	return buf;
}

/*
 * Reads the next line into r->buf, without its '\n'. Returns 0 at the end
 * of the input, where r->lineno is the number of the line that is missing.
 */
static int read_line(struct reader *r)
{
	size_t len = 0;
	int c;

	r->lineno++;
	while ((c = getc_unlocked(r->f)) != EOF && c != '\n') {
		if (!c)
			bad_input(r, "expected text, got a NUL byte");
		if (len == MAX_LINE)
			bad_input(r, "expected a line of at most %d bytes, got a longer one",
				  MAX_LINE);
		r->buf[len++] = c;
	}
	if (c == EOF) {
		if (ferror(r->f))
			die("%s: %s", r->name, strerror(errno));
		if (!len)
			return 0;
	}
	r->buf[len] = '\0';
	return 1;
}

/* The next blank-separated token at *p, NUL-terminated, or NULL */
static char *next_token(char **p)
{
	char *s = *p, *tok;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	tok = s;
	while (*s && !isspace((unsigned char)*s))
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return tok;
}

static int all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static int parse_ll(const char *s, long long *v)
{
	char *end;

	if (!all_digits(*s == '-' ? s + 1 : s))
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno ? -1 : 0;
}

static int parse_ull(const char *s, unsigned long long *v)
{
	char *end;

	if (!all_digits(s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno ? -1 : 0;
}

static void parse_header(struct reader *r, struct snapshot *s)
{
	static const char prefix[] = "allocinfo - version: ";
	unsigned long minor;
	char q[QUOTE_SIZE];
	size_t major_len, minor_len;
	char *v, *end;

	if (!read_line(r))
		bad_input(r, "expected header \"%sN.N\", got end of file", prefix);
	if (strncmp(r->buf, prefix, sizeof(prefix) - 1))
		bad_input(r, "expected header \"%sN.N\", got %s", prefix,
			  quote(q, r->buf));
	v = r->buf + sizeof(prefix) - 1;
	major_len = strspn(v, "0123456789");
	minor_len = v[major_len] == '.' ?
		    strspn(v + major_len + 1, "0123456789") : 0;
	end = v + major_len + 1 + minor_len;
	if (!major_len || !minor_len || major_len + minor_len > 9 ||
	    strspn(end, " \t\r") != strlen(end))
		bad_input(r, "expected a version N.N, got %s", quote(q, v));
	*end = '\0';
	s->major = strtoul(v, NULL, 10);
	minor = strtoul(v + major_len + 1, NULL, 10);
	if (s->major != 1 && s->major != 2)
		bad_input(r, "expected version 1.x or 2.x, got %s", quote(q, v));
	snprintf(s->version, sizeof(s->version), "%lu.%lu", s->major, minor);
}

static struct site *new_site(struct snapshot *s)
{
	if (s->nr == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 1024;
		s->sites = xrealloc(s->sites, s->alloc, sizeof(*s->sites));
	}
	memset(&s->sites[s->nr], 0, sizeof(*s->sites));
	return &s->sites[s->nr];
}

/* The key:value tokens after "func:" */
static void parse_flags(const struct reader *r, const struct snapshot *s,
			struct site *site, char *p)
{
	char *keys[MAX_LINE / 2];
	char extra[MAX_LINE + 1];
	size_t nkeys = 0, len = 0, i, klen;
	char q[QUOTE_SIZE];
	char *tok, *colon;

	while ((tok = next_token(&p))) {
		colon = strchr(tok, ':');
		if (s->major == 1 && strcmp(tok, "accurate:no"))
			bad_input(r, "expected accurate:no or end of line, got %s",
				  quote(q, tok));
		if (!colon || colon == tok || !colon[1])
			bad_input(r, "expected key:value, got %s", quote(q, tok));
		klen = colon - tok + 1;
		for (i = 0; i < nkeys; i++)
			if (!strncmp(keys[i], tok, klen))
				bad_input(r, "expected each key once, got %s again",
					  quote(q, xstrndup(tok, klen)));
		keys[nkeys++] = tok;
		if (!strcmp(tok, "accurate:no"))
			site->flags |= SITE_INACCURATE;
		else if (!strcmp(tok, "module:unloaded"))
			site->flags |= SITE_UNLOADED;
		else
			len += sprintf(extra + len, "%s%s", len ? " " : "", tok);
	}
	if (len)
		site->extra = xstrndup(extra, len);
}

static void parse_site(const struct reader *r, struct snapshot *s)
{
	struct site *site = new_site(s);
	char *buf = xstrndup(r->buf, strlen(r->buf));
	char *p = buf, *tok, *colon;
	unsigned long long line;
	char q[QUOTE_SIZE];
	size_t len;

	tok = next_token(&p);
	if (!tok || parse_ll(tok, &site->bytes))
		bad_input(r, "expected a signed 64-bit byte count, got %s",
			  quote(q, tok));
	tok = next_token(&p);
	if (!tok || parse_ull(tok, &site->calls))
		bad_input(r, "expected an unsigned 64-bit call count, got %s",
			  quote(q, tok));
	tok = next_token(&p);
	colon = tok ? strrchr(tok, ':') : NULL;
	if (!colon || colon == tok || parse_ull(colon + 1, &line) ||
	    line > UINT_MAX)
		bad_input(r, "expected file:line, got %s", quote(q, tok));
	*colon = '\0';
	site->file = tok;
	site->line = line;
	tok = next_token(&p);
	if (tok && *tok == '[') {
		len = strlen(tok);
		if (len < 3 || strcspn(tok + 1, "[]") != len - 2 ||
		    tok[len - 1] != ']')
			bad_input(r, "expected [module], got %s", quote(q, tok));
		tok[len - 1] = '\0';
		site->module = tok + 1;
		tok = next_token(&p);
	}
	if (!tok || strncmp(tok, "func:", 5) || !tok[5])
		bad_input(r, "expected func:NAME, got %s", quote(q, tok));
	site->func = tok + 5;
	parse_flags(r, s, site, p);
	site->lines = 1;
	s->nr++;
}

static const char *module_name(const struct site *site)
{
	return site->module ? site->module : "vmlinux";
}

static int cmp_str(const char *a, const char *b)
{
	int c = strcmp(a, b);

	return c < 0 ? -1 : c > 0;
}

static int site_cmp(const struct site *a, const struct site *b)
{
	int c = cmp_str(a->file, b->file);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	c = cmp_str(module_name(a), module_name(b));
	if (c)
		return c;
	return cmp_str(a->func, b->func);
}

static int site_qsort_cmp(const void *a, const void *b)
{
	return site_cmp(a, b);
}

/* One site per call site: the sum of its lines */
static void merge_sites(struct snapshot *s)
{
	size_t i, n = 0;

	if (!s->nr)
		return;
	qsort(s->sites, s->nr, sizeof(*s->sites), site_qsort_cmp);
	for (i = 0; i < s->nr; i++) {
		struct site *a = n ? &s->sites[n - 1] : NULL, *b = &s->sites[i];

		if (a && !site_cmp(a, b)) {
			a->bytes = add_ll(a->bytes, b->bytes);
			a->calls = add_ull(a->calls, b->calls);
			a->lines += b->lines;
			a->flags |= b->flags;
			if (!a->extra)
				a->extra = b->extra;
		} else {
			s->sites[n++] = *b;
		}
	}
	s->nr = n;
}

static void read_snapshot(struct snapshot *s, const char *path)
{
	static struct reader r;
	char *p;

	memset(&r, 0, sizeof(r));
	s->path = path;
	if (!strcmp(path, "-")) {
		r.f = stdin;
		s->name = "<stdin>";
	} else {
		r.f = fopen(path, "r");
		if (!r.f)
			die("%s: %s%s", path, strerror(errno),
			    errno == ENOENT && !strcmp(path, DEFAULT_INPUT) ?
			    " (a kernel without CONFIG_MEM_ALLOC_PROFILING?)" : "");
		s->name = path;
	}
	r.name = s->name;
	parse_header(&r, s);
	while (read_line(&r)) {
		p = r.buf;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			bad_input(&r, "expected a call site line, got an empty line");
		if (*p != '#')
			parse_site(&r, s);
	}
	if (r.f != stdin)
		fclose(r.f);
	merge_sites(s);
}

static int match(const struct pattern_list *l, const char *s, int substring)
{
	size_t i;

	if (!l->nr)
		return 1;
	for (i = 0; i < l->nr; i++) {
		const char *pat = l->v[i];

		if (strpbrk(pat, "*?[")) {
			if (!fnmatch(pat, s, 0))
				return 1;
		} else if (substring ? !!strstr(s, pat) : !strcmp(s, pat)) {
			return 1;
		}
	}
	return 0;
}

static int site_selected(const struct site *site)
{
	return match(&opt.modules, module_name(site), 0) &&
	       match(&opt.files, site->file, 1) &&
	       match(&opt.funcs, site->func, 0);
}

static const char *dir_name(struct site *site)
{
	const char *slash = strrchr(site->file, '/');

	if (!site->dir) {
		if (!slash)
			site->dir = ".";
		else if (slash == site->file)
			site->dir = "/";
		else
			site->dir = xstrndup(site->file, slash - site->file);
	}
	return site->dir;
}

static const char *group_key(const struct site *site)
{
	switch (opt.group) {
	case GROUP_MODULE:
		return module_name(site);
	case GROUP_FILE:
		return site->file;
	case GROUP_DIR:
		return dir_name((struct site *)site);
	case GROUP_FUNC:
		return site->func;
	case GROUP_NONE:
	default:
		return NULL;
	}
}

static int row_key_cmp(const struct row *a, const struct row *b)
{
	if (a->key)
		return cmp_str(a->key, b->key);
	return site_cmp(a->site, b->site);
}

static int row_qsort_key_cmp(const void *a, const void *b)
{
	return row_key_cmp(a, b);
}

/*
 * Merges the rows with the same key into one: the lines of a call site in
 * both snapshots are counted once (the larger count), those of a group are
 * summed.
 */
static void merge_rows(struct row *rows, size_t *nr, int max_lines)
{
	size_t i, j, n = 0;

	qsort(rows, *nr, sizeof(*rows), row_qsort_key_cmp);
	for (i = 0; i < *nr; i++) {
		struct row *a = n ? &rows[n - 1] : NULL, *b = &rows[i];

		if (!a || row_key_cmp(a, b)) {
			rows[n++] = *b;
			continue;
		}
		for (j = 0; j < 2; j++) {
			a->bytes[j] = add_ll(a->bytes[j], b->bytes[j]);
			a->calls[j] = add_ull(a->calls[j], b->calls[j]);
		}
		if (!max_lines)
			a->lines += b->lines;
		else if (b->lines > a->lines)
			a->lines = b->lines;
		a->flags |= b->flags;
		if (b->in_new && !a->in_new) {
			a->site = b->site;
			a->in_new = 1;
		}
	}
	*nr = n;
}

static void add_rows(struct row *rows, size_t *nr, const struct snapshot *s,
		     int idx)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		const struct site *site = &s->sites[i];
		struct row *row = &rows[*nr];

		if (!site_selected(site))
			continue;
		memset(row, 0, sizeof(*row));
		row->site = site;
		row->bytes[idx] = site->bytes;
		row->calls[idx] = site->calls;
		row->lines = site->lines;
		row->flags = site->flags;
		row->in_new = idx;
		(*nr)++;
	}
}

static long long delta_bytes(const struct row *r)
{
	return sub_ll(r->bytes[1], r->bytes[0]);
}

static long long delta_calls(const struct row *r)
{
	return sub_ull(r->calls[1], r->calls[0]);
}

/* The change that --diff sorts by */
static long long delta(const struct row *r)
{
	return opt.sort == SORT_CALLS ? delta_calls(r) : delta_bytes(r);
}

static int cmp_ll(long long a, long long b)
{
	return a < b ? -1 : a > b;
}

static int cmp_ull(unsigned long long a, unsigned long long b)
{
	return a < b ? -1 : a > b;
}

/* Largest first, ties by the other counter, then by name */
static int row_order(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int by_bytes, by_calls;

	if (opt.diff) {
		by_bytes = cmp_ll(delta_bytes(b), delta_bytes(a));
		by_calls = cmp_ll(delta_calls(b), delta_calls(a));
	} else {
		by_bytes = cmp_ll(b->bytes[1], a->bytes[1]);
		by_calls = cmp_ull(b->calls[1], a->calls[1]);
	}
	if (opt.sort == SORT_CALLS && by_calls)
		return by_calls;
	if (by_bytes)
		return by_bytes;
	if (by_calls)
		return by_calls;
	return row_key_cmp(a, b);
}

static int row_wanted(const struct row *r)
{
	long long v;

	if (!opt.has_min_bytes)
		return 1;
	v = opt.diff ? delta_bytes(r) : r->bytes[1];
	if (opt.diff && v < 0)
		return (unsigned long long)-(v + 1) + 1 >= opt.min_bytes;
	return v >= 0 && (unsigned long long)v >= opt.min_bytes;
}

/*
 * The rows of one snapshot, or of the change between two, filtered,
 * grouped and sorted; *shown gets those to print, in order.
 */
static struct row *make_rows(struct snapshot *snap, size_t *nr,
			     const struct row ***shown, size_t *nshown,
			     struct totals *t)
{
	size_t i, n = 0, grew, shrank, top;
	const struct row **show;
	struct row *rows;

	rows = xrealloc(NULL, snap[0].nr + snap[1].nr, sizeof(*rows));
	add_rows(rows, &n, &snap[1], 1);
	if (opt.diff) {
		add_rows(rows, &n, &snap[0], 0);
		merge_rows(rows, &n, 1);
	}
	if (opt.group != GROUP_NONE) {
		for (i = 0; i < n; i++)
			rows[i].key = group_key(rows[i].site);
		merge_rows(rows, &n, 0);
	}

	memset(t, 0, sizeof(*t));
	for (i = 0, *nr = 0; i < n; i++) {
		struct row *r = &rows[i];

		if (!row_wanted(r))
			continue;
		t->sum.bytes[0] = add_ll(t->sum.bytes[0], r->bytes[0]);
		t->sum.bytes[1] = add_ll(t->sum.bytes[1], r->bytes[1]);
		t->sum.calls[0] = add_ull(t->sum.calls[0], r->calls[0]);
		t->sum.calls[1] = add_ull(t->sum.calls[1], r->calls[1]);
		t->sum.lines += r->lines;
		if (opt.diff && delta(r) > 0)
			t->grew++;
		else if (opt.diff && delta(r) < 0)
			t->shrank++;
		rows[(*nr)++] = *r;
	}
	t->rows = *nr;
	qsort(rows, *nr, sizeof(*rows), row_order);

	show = xrealloc(NULL, *nr, sizeof(*show));
	*nshown = 0;
	if (!opt.diff) {
		top = opt.top && opt.top < *nr ? opt.top : *nr;
		for (i = 0; i < top; i++)
			show[(*nshown)++] = &rows[i];
	} else {
		grew = t->grew;
		shrank = opt.shrunk ? t->shrank : 0;
		if (opt.top && grew > opt.top)
			grew = opt.top;
		if (opt.top && shrank > opt.top)
			shrank = opt.top;
		for (i = 0; i < grew; i++)
			show[(*nshown)++] = &rows[i];
		for (i = *nr - shrank; i < *nr; i++)
			show[(*nshown)++] = &rows[i];
	}
	*shown = show;
	return rows;
}

/* Bytes in powers of 1024 with one decimal, or plain with --raw */
static const char *size_str(char *buf, long long v, int sign)
{
	static const char * const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	unsigned long long u;
	const char *s = "";
	unsigned int i = 0;
	double d;

	if (sign && v > 0)
		s = "+";
	else if (v < 0)
		s = "-";
	u = v < 0 ? (unsigned long long)-(v + 1) + 1 : (unsigned long long)v;
	if (opt.raw || u < 1024) {
		snprintf(buf, CELL_SIZE, "%s%llu%s", s, u, opt.raw ? "" : " B");
		return buf;
	}
	d = u;
	while (d >= 1024 && i < 6) {
		d /= 1024;
		i++;
	}
	if (d >= 1023.95 && i < 6) {
		d /= 1024;
		i++;
	}
	snprintf(buf, CELL_SIZE, "%s%.1f %s", s, d, units[i]);
	return buf;
}

/* A name in the text output, its control characters escaped */
static void text_str(const char *s)
{
	for (; *s; s++) {
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
	}
}

static void print_label(const struct row *r)
{
	const struct site *site = r->site;

	if (r->key) {
		text_str(r->key);
	} else {
		text_str(site->file);
		printf(":%u ", site->line);
		if (site->module) {
			putchar('[');
			text_str(site->module);
			fputs("] ", stdout);
		}
		fputs("func:", stdout);
		text_str(site->func);
	}
	if (r->flags & SITE_INACCURATE)
		fputs(" accurate:no", stdout);
	if (r->flags & SITE_UNLOADED)
		fputs(" module:unloaded", stdout);
	if (!r->key && site->extra) {
		putchar(' ');
		text_str(site->extra);
	}
	if (!r->key && r->lines > 1)
		printf(" (%lu lines)", r->lines);
}

/* The number columns of a row of the text output; returns how many */
static int cells(const struct row *r, char c[MAX_COLS][CELL_SIZE])
{
	int n = 0;

	if (opt.diff) {
		size_str(c[n++], delta_bytes(r), 1);
		snprintf(c[n++], CELL_SIZE, "%+lld", delta_calls(r));
		if (!delta_calls(r))
			snprintf(c[n - 1], CELL_SIZE, "0");
		size_str(c[n++], r->bytes[0], 0);
		size_str(c[n++], r->bytes[1], 0);
	} else {
		size_str(c[n++], r->bytes[1], 0);
		snprintf(c[n++], CELL_SIZE, "%llu", r->calls[1]);
	}
	if (opt.group != GROUP_NONE)
		snprintf(c[n++], CELL_SIZE, "%lu", r->lines);
	return n;
}

static void print_text(const struct row **shown, size_t nshown,
		       const struct totals *t)
{
	static const char * const plain[] = { "SIZE", "CALLS", "LINES" };
	static const char * const diff[] = {
		"SIZE DIFF", "CALLS DIFF", "OLD SIZE", "NEW SIZE", "LINES"
	};
	const char * const *head = opt.diff ? diff : plain;
	char c[MAX_COLS][CELL_SIZE];
	int width[MAX_COLS];
	size_t i;
	int j, n;

	n = cells(&t->sum, c);
	for (j = 0; j < n; j++) {
		width[j] = strlen(head[j]);
		if ((int)strlen(c[j]) > width[j])
			width[j] = strlen(c[j]);
	}
	for (i = 0; i < nshown; i++) {
		cells(shown[i], c);
		for (j = 0; j < n; j++)
			if ((int)strlen(c[j]) > width[j])
				width[j] = strlen(c[j]);
	}

	for (j = 0; j < n; j++)
		printf("%*s  ", width[j], head[j]);
	printf("%s\n", groups[opt.group].header);
	for (i = 0; i < nshown; i++) {
		cells(shown[i], c);
		for (j = 0; j < n; j++)
			printf("%*s  ", width[j], c[j]);
		print_label(shown[i]);
		putchar('\n');
	}
	cells(&t->sum, c);
	for (j = 0; j < n; j++)
		printf("%*s  ", width[j], c[j]);
	if (opt.diff) {
		printf("total: %zu %s grew, %zu shrank, %zu unchanged\n",
		       t->grew, t->grew == 1 ? groups[opt.group].singular :
		       groups[opt.group].plural, t->shrank,
		       t->rows - t->grew - t->shrank);
	} else {
		printf("total: %zu %s", t->rows, t->rows == 1 ?
		       groups[opt.group].singular : groups[opt.group].plural);
		if (nshown < t->rows)
			printf(", %zu shown", nshown);
		putchar('\n');
	}
}

/* Length of the valid UTF-8 sequence at s, 0 if there is none */
static int utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static void json_str(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	putchar('"');
	while (*s) {
		n = utf8_len(s);
		if (!n) {
			fputs("\\ufffd", stdout);
			s++;
		} else if (*s == '"' || *s == '\\') {
			printf("\\%c", *s++);
		} else if (*s < ' ') {
			printf("\\u%04x", *s++);
		} else {
			fwrite(s, 1, n, stdout);
			s += n;
		}
	}
	putchar('"');
}

static void json_extra(const char *extra)
{
	char *copy, *p, *tok, *colon;
	int first = 1;

	putchar('{');
	copy = xstrndup(extra ? extra : "", extra ? strlen(extra) : 0);
	p = copy;
	while ((tok = next_token(&p))) {
		colon = strchr(tok, ':');
		*colon = '\0';
		printf("%s", first ? "" : ", ");
		json_str(tok);
		printf(": ");
		json_str(colon + 1);
		first = 0;
	}
	free(copy);
	putchar('}');
}

static void json_counters(const struct row *r)
{
	if (opt.diff) {
		printf("\"old_bytes\": %lld, \"new_bytes\": %lld, ",
		       r->bytes[0], r->bytes[1]);
		printf("\"delta_bytes\": %lld, \"old_calls\": %llu, ",
		       delta_bytes(r), r->calls[0]);
		printf("\"new_calls\": %llu, \"delta_calls\": %lld",
		       r->calls[1], delta_calls(r));
	} else {
		printf("\"bytes\": %lld, \"calls\": %llu",
		       r->bytes[1], r->calls[1]);
	}
	printf(", \"lines\": %lu", r->lines);
}

static void print_json(const struct snapshot *snap, const struct row **shown,
		       size_t nshown, const struct totals *t)
{
	const struct row *r;
	size_t i;

	printf("{\n  \"version\": ");
	json_str(snap[1].version);
	if (opt.diff) {
		printf(",\n  \"old_version\": ");
		json_str(snap[0].version);
		printf(",\n  \"old\": ");
		json_str(snap[0].path);
		printf(",\n  \"new\": ");
		json_str(snap[1].path);
	} else {
		printf(",\n  \"input\": ");
		json_str(snap[1].path);
	}
	printf(",\n  \"group\": \"%s\",\n  \"sort\": \"%s\",\n  \"total\": {",
	       groups[opt.group].name,
	       opt.sort == SORT_CALLS ? "calls" : "bytes");
	json_counters(&t->sum);
	printf(", \"rows\": %zu", t->rows);
	if (opt.diff)
		printf(", \"grew\": %zu, \"shrank\": %zu", t->grew, t->shrank);
	printf("},\n  \"entries\": [");
	for (i = 0; i < nshown; i++) {
		r = shown[i];
		printf("%s\n    {", i ? "," : "");
		if (r->key) {
			printf("\"%s\": ", groups[opt.group].name);
			json_str(r->key);
		} else {
			printf("\"file\": ");
			json_str(r->site->file);
			printf(", \"line\": %u, \"module\": ", r->site->line);
			json_str(module_name(r->site));
			printf(", \"function\": ");
			json_str(r->site->func);
		}
		printf(", ");
		json_counters(r);
		printf(", \"accurate\": %s, \"module_unloaded\": %s",
		       r->flags & SITE_INACCURATE ? "false" : "true",
		       r->flags & SITE_UNLOADED ? "true" : "false");
		if (!r->key) {
			printf(", \"extra\": ");
			json_extra(r->site->extra);
		}
		putchar('}');
	}
	printf("%s]\n}\n", nshown ? "\n  " : "");
}

/* A label value of the exposition format: UTF-8, \ " and newline escaped */
static void prom_value(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	putchar('"');
	while (*s) {
		n = utf8_len(s);
		if (!n) {
			fputs("\xef\xbf\xbd", stdout);
			s++;
		} else if (*s == '"' || *s == '\\') {
			printf("\\%c", *s++);
		} else if (*s == '\n') {
			fputs("\\n", stdout);
			s++;
		} else {
			fwrite(s, 1, n, stdout);
			s += n;
		}
	}
	putchar('"');
}

static void prom_labels(const struct row *r)
{
	if (r->key) {
		printf("{%s=", groups[opt.group].name);
		prom_value(r->key);
	} else {
		printf("{file=");
		prom_value(r->site->file);
		printf(",line=\"%u\",module=", r->site->line);
		prom_value(module_name(r->site));
		printf(",function=");
		prom_value(r->site->func);
	}
	putchar('}');
}

static void print_prom(const struct row **shown, size_t nshown)
{
	static const char * const help[] = {
		"Bytes allocated and not yet freed, from /proc/allocinfo.",
		"Allocations not yet freed, from /proc/allocinfo.",
		"Lines of /proc/allocinfo summed in the group.",
	};
	static const char * const name[] = {
		"allocinfo_bytes", "allocinfo_calls", "allocinfo_lines",
	};
	int m, nmetrics = opt.group == GROUP_NONE ? 2 : 3;
	size_t i;

	for (m = 0; m < nmetrics; m++) {
		printf("# HELP %s %s\n# TYPE %s gauge\n", name[m], help[m],
		       name[m]);
		for (i = 0; i < nshown; i++) {
			fputs(name[m], stdout);
			prom_labels(shown[i]);
			if (m == 0)
				printf(" %lld\n", shown[i]->bytes[1]);
			else if (m == 1)
				printf(" %llu\n", shown[i]->calls[1]);
			else
				printf(" %lu\n", shown[i]->lines);
		}
	}
}

static void add_pattern(struct pattern_list *l, const char *pat)
{
	l->v = xrealloc(l->v, l->nr + 1, sizeof(*l->v));
	l->v[l->nr++] = pat;
}

static int parse_size(const char *s, unsigned long long *v)
{
	static const char units[] = "KMGT";
	unsigned long long n, mult = 1;
	const char *unit;
	double frac = 0;
	const char *p = s;
	size_t len;

	len = strspn(p, "0123456789");
	if (!len || len > 19)
		return -1;
	n = strtoull(p, NULL, 10);
	p += len;
	if (*p == '.') {
		len = strspn(++p, "0123456789");
		if (!len)
			return -1;
		frac = strtod(p - 1, NULL);
		p += len;
	}
	unit = *p ? strchr(units, toupper((unsigned char)*p)) : NULL;
	if (unit) {
		mult = 1ULL << (10 * (unit - units + 1));
		p++;
		if (!strcmp(p, "iB"))
			p += 2;
	}
	if (!strcmp(p, "B"))
		p++;
	if (*p || __builtin_mul_overflow(n, mult, v) ||
	    __builtin_add_overflow(*v, (unsigned long long)(frac * mult), v))
		return -1;
	return 0;
}

/* getopt_long() returned c, ':' or '?', for the option in arg */
static noreturn void bad_option(int c, const char *arg)
{
	if (strncmp(arg, "--", 2)) {
		if (c == ':')
			usage_error("-%c: expected an argument", optopt);
		usage_error("unknown option -%c", optopt);
	}
	if (c == ':')
		usage_error("%s: expected an argument", arg);
	if (optopt)
		usage_error("%s: expected no argument", arg);
	usage_error("unknown or ambiguous option %s", arg);
}

static enum group_by parse_group(const char *s)
{
	if (!strcmp(s, "none"))
		return GROUP_NONE;
	if (!strcmp(s, "module"))
		return GROUP_MODULE;
	if (!strcmp(s, "file"))
		return GROUP_FILE;
	if (!strcmp(s, "dir") || !strcmp(s, "directory"))
		return GROUP_DIR;
	if (!strcmp(s, "func") || !strcmp(s, "function"))
		return GROUP_FUNC;
	usage_error("-g: expected none, module, file, dir or function, got '%s'",
		    s);
}

int main(int argc, char **argv)
{
	enum { OPT_MODULE = 256, OPT_FILE, OPT_FUNC, OPT_MIN_BYTES, OPT_SHRUNK,
	       OPT_RAW };
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "group", required_argument, NULL, 'g' },
		{ "module", required_argument, NULL, OPT_MODULE },
		{ "file", required_argument, NULL, OPT_FILE },
		{ "func", required_argument, NULL, OPT_FUNC },
		{ "min-bytes", required_argument, NULL, OPT_MIN_BYTES },
		{ "diff", no_argument, NULL, 'd' },
		{ "shrunk", no_argument, NULL, OPT_SHRUNK },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct snapshot snap[2];
	const struct row **shown;
	unsigned long long n;
	struct totals totals;
	size_t nrows, nshown;
	int c, json = 0, prom = 0;

	memset(snap, 0, sizeof(snap));
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:s:g:djpo:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_ull(optarg, &n))
				usage_error("-n: expected a number of rows, got '%s'",
					    optarg);
			opt.top = n > SIZE_MAX ? SIZE_MAX : n;
			break;
		case 's':
			if (!strcmp(optarg, "bytes"))
				opt.sort = SORT_BYTES;
			else if (!strcmp(optarg, "calls"))
				opt.sort = SORT_CALLS;
			else
				usage_error("-s: expected bytes or calls, got '%s'",
					    optarg);
			break;
		case 'g':
			opt.group = parse_group(optarg);
			break;
		case OPT_MODULE:
			add_pattern(&opt.modules, optarg);
			break;
		case OPT_FILE:
			add_pattern(&opt.files, optarg);
			break;
		case OPT_FUNC:
			add_pattern(&opt.funcs, optarg);
			break;
		case OPT_MIN_BYTES:
			if (parse_size(optarg, &opt.min_bytes))
				usage_error("--min-bytes: expected a size (64K, 1.5M), got '%s'",
					    optarg);
			opt.has_min_bytes = 1;
			break;
		case 'd':
			opt.diff = 1;
			break;
		case OPT_SHRUNK:
			opt.shrunk = 1;
			break;
		case OPT_RAW:
			opt.raw = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'p':
			prom = 1;
			break;
		case 'o':
			if (!*optarg)
				usage_error("--output: expected a file name");
			opt.output = optarg;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		case 'V':
			puts("allocinfo " ALLOCINFO_VERSION);
			return 0;
		default:
			bad_option(c, argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (json && prom)
		usage_error("--json and --prometheus exclude each other");
	opt.format = json ? OUT_JSON : prom ? OUT_PROM : OUT_TEXT;
	if (opt.diff) {
		if (argc != 2)
			usage_error("--diff: expected two files OLD NEW");
		if (!strcmp(argv[0], "-") && !strcmp(argv[1], "-"))
			usage_error("--diff: only one of OLD and NEW can be -");
		if (opt.format == OUT_PROM)
			usage_error("--diff: a change is not a metric; no --prometheus");
		read_snapshot(&snap[0], argv[0]);
		read_snapshot(&snap[1], argv[1]);
	} else {
		if (argc > 1)
			usage_error("expected one FILE, got %d", argc);
		if (opt.shrunk)
			usage_error("--shrunk needs --diff");
		read_snapshot(&snap[1], argc ? argv[0] : DEFAULT_INPUT);
	}

	make_rows(snap, &nrows, &shown, &nshown, &totals);
	if (opt.output)
		open_output();
	switch (opt.format) {
	case OUT_JSON:
		print_json(snap, shown, nshown, &totals);
		break;
	case OUT_PROM:
		print_prom(shown, nshown);
		break;
	case OUT_TEXT:
	default:
		print_text(shown, nshown, &totals);
		break;
	}
	if (fflush(stdout) || ferror(stdout))
		die("write error: %s", strerror(errno));
	if (opt.output)
		close_output();
	return 0;
}
