/*
 * main.c: the mpsfix program — load the rules, find the files, run the
 * engine on each, report, and decide the exit status.  Only main prints
 * errors.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __APPLE__
#include <mach-o/dyld.h> /* _NSGetExecutablePath */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commit.h"
#include "config.h"
#include "discover.h"
#include "engine.h"
#include "git.h"
#include "parse.h"
#include "pool.h"
#include "report.h"
#include "review.h"
#include "rule.h"
#include "rulelist.h"
#include "ruletest.h"
#include "series.h"
#include "source.h"
#include "target.h"
#include "version.h"

#ifndef MPSFIX_RULES_DIR
#define MPSFIX_RULES_DIR "/usr/local/share/mpsfix/rules"
#endif

/* Set by SIGINT/SIGTERM: the run stops between files and exits 130.  (A
 * signal handler can only talk to the program through such a flag.) */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* What the keep callback knows of the file at hand (each worker has its own). */
typedef struct {
	const mpsfix_config *config;
	const char *rel;             /* path relative to the config folder (per-file-ignores) */
	mpsfix_line_range *since;    /* --since: lines changed */
	size_t nsince;
	bool since_active;
} file_scope;

typedef struct {
	const mpsfix_opts *opts;
	mpsfix_ctx ctx;
	mpsfix_ruleset rules;
	mpsfix_index *index;
	mpsfix_config config;
	mpsfix_reporter *reporter;
	FILE *out;                   /* the report: stdout or -o FILE */
	mpsfix_format format;
	bool unsafe_fixes;
	const char *target;          /* what the summary says of the torch target */
	mpsfix_target tgt;           /* the torch target: rules whose range misses it do not run */
	mpsfix_strings select, ignore, extend_select;
	bool has_select;
	size_t *counts, *fixable_counts; /* per rule, for --statistics */
	size_t files, skipped, findings, fixable, unsafe_fixable, manual, fixed, changed, unused;
	bool io_error;
	bool git_ready;
	size_t jobs;                 /* -j: worker threads for check, diff and fix */
	file_scope series_scope;     /* commit, patch, review: the file at hand */
	char *series_rel;            /* its path relative to the config folder */
} run_state;

static void print_error(const char *message)
{
	fprintf(stderr, "mpsfix: %s\n", message);
}

static void on_discover_error(void *payload, const char *message)
{
	run_state *st = payload;

	print_error(message);
	st->io_error = true;
}

static bool is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/*
 * The running binary's own path, symbolic links resolved (Homebrew's
 * bin/mpsfix is a link into its Cellar); false where the system cannot say.
 */
static bool exe_path(char *out, size_t size)
{
#if defined(__linux__) || defined(__CYGWIN__)
	ssize_t n = readlink("/proc/self/exe", out, size - 1);

	if (n <= 0)
		return false;
	out[n] = '\0';
	return true;
#elif defined(__APPLE__)
	char raw[PATH_MAX];
	uint32_t n = sizeof(raw);
	char *real;

	if (_NSGetExecutablePath(raw, &n) != 0 || (real = realpath(raw, NULL)) == NULL)
		return false;
	bool fits = strlen(real) < size;
	if (fits)
		memcpy(out, real, strlen(real) + 1);
	free(real);
	return fits;
#else
	(void)out;
	(void)size;
	return false;
#endif
}

/* The shipped rules: $MPSFIX_RULES_DIR, next to the binary, or the data folder. */
static char *default_rules_dir(void)
{
	const char *env = getenv("MPSFIX_RULES_DIR");
	char exe[PATH_MAX];

	if (env && *env)
		return mpsfix_xstrdup(env);
	if (exe_path(exe, sizeof(exe))) {
		char *slash, *candidate;

		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			candidate = mpsfix_xasprintf("%s/../share/mpsfix/rules", exe);
			if (is_dir(candidate))
				return candidate;
			free(candidate);
			candidate = mpsfix_xasprintf("%s/../rules", exe);
			if (is_dir(candidate))
				return candidate;
			free(candidate);
		}
	}
	return mpsfix_xstrdup(MPSFIX_RULES_DIR);
}

/* --version: the versions, and the rules folder this binary would load */
static void print_version(void)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char *dir = default_rules_dir();

	mpsfix_version_text(&b, dir);
	fwrite(b.data, 1, b.len, stdout);
	mpsfix_buf_release(&b);
	free(dir);
}

static int load_rules(run_state *st, char **extra, size_t nextra, bool defaults)
{
	int error = 0;

	if (defaults) {
		char *dir = default_rules_dir();

		if (!is_dir(dir))
			error = mpsfix_error_set(MPSFIX_ERROR, "cannot find the shipped rules in '%s' "
						 "(set MPSFIX_RULES_DIR, or use --rules)", dir);
		else
			error = mpsfix_ruleset_load(&st->rules, st->ctx.parser, dir);
		free(dir);
		if (error < 0)
			return error;
	}
	for (size_t i = 0; i < nextra; i++)
		if ((error = mpsfix_ruleset_load(&st->rules, st->ctx.parser, extra[i])) < 0)
			return error;
	return 0;
}

/*
 * The name a diff gives `path`: in a git work tree, relative to its top (as
 * `git diff` names files, and `git apply` reads them from anywhere in the
 * tree); elsewhere relative to the current folder when under it; never with
 * "." or empty components.
 */
static char *diff_name(const char *path)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char *cwd = NULL, *in_tree = mpsfix_git_worktree_path(path);
	const char *p = path;
	size_t n;

	/* in a git work tree: from its top, as git diff names it */
	if (in_tree)
		return in_tree;

	/* relative to the current folder when under it */
	if (path[0] == '/' && (cwd = getcwd(NULL, 0)) != NULL) {
		n = strlen(cwd);
		if (n > 1 && !strncmp(path, cwd, n) && path[n] == '/')
			p = path + n + 1;
	}
	if (p[0] == '/')
		mpsfix_buf_addc(&b, '/');
	/* without "." or empty components: git apply refuses "a/./x.py" */
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len && !(len == 1 && p[0] == '.')) {
			if (b.len && b.data[b.len - 1] != '/')
				mpsfix_buf_addc(&b, '/');
			mpsfix_buf_add(&b, p, len);
		}
		p += len;
		while (*p == '/')
			p++;
	}
	free(cwd);
	return mpsfix_buf_detach(&b, NULL);
}

/*
 * A file found by walking folder `root` that resolves outside it (through a
 * symbolic link) is read but never written.
 */
static bool leaves_root(const char *path, const char *root)
{
	char *real_path, *real_root;
	bool outside = false;
	size_t n;

	if (!root)
		return false;
	real_path = realpath(path, NULL);
	real_root = realpath(root, NULL);
	if (real_path && real_root) {
		n = strlen(real_root);
		outside = strncmp(real_path, real_root, n) != 0 ||
			  (real_path[n] != '/' && !(n == 1 && real_root[0] == '/'));
	}
	free(real_path);
	free(real_root);
	return outside;
}

/* The folder argument a walked file was found under (its path starts with it). */
static const char *folder_of(const char *path, char **args, size_t nargs)
{
	for (size_t i = 0; i < nargs; i++) {
		size_t n = strlen(args[i]);

		/* "dir", "dir/" and "dir//" all walk to "dir/..." */
		while (n > 1 && args[i][n - 1] == '/')
			n--;
		if (n && !strncmp(path, args[i], n) && (path[n] == '/' || (n == 1 && args[i][0] == '/')) &&
		    is_dir(args[i]))
			return args[i];
	}
	return NULL;
}

/* ---- one file ----------------------------------------------------------------- */

static bool line_changed(const file_scope *fs, uint32_t line)
{
	size_t lo = 0, hi = fs->nsince;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fs->since[mid].last < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fs->nsince && fs->since[lo].first <= line;
}

/* The engine asks, for each match, whether it counts here (payload: a file_scope). */
static bool keep_match(void *payload, const mpsfix_rule *rule, uint32_t line)
{
	const file_scope *fs = payload;
	const mpsfix_config *cfg = fs->config;

	if (fs->since_active && !line_changed(fs, line))
		return false;
	for (size_t i = 0; fs->rel && i < cfg->nper_file_ignores; i++) {
		const mpsfix_per_file_ignore *pfi = &cfg->per_file_ignores[i];

		if (!mpsfix_glob_matches(pfi->glob, fs->rel))
			continue;
		for (size_t k = 0; k < pfi->codes.len; k++)
			if (mpsfix_selector_matches(pfi->codes.items[k], rule))
				return false;
	}
	return true;
}

/* `path` relative to folder `dir` (both made absolute), or NULL when outside. */
static char *relative_to(const char *path, const char *dir)
{
	char *abs = realpath(path, NULL), *rel = NULL;
	size_t n;

	if (!abs || !dir)
		goto done;
	n = strlen(dir);
	if (!strncmp(abs, dir, n) && abs[n] == '/')
		rel = mpsfix_xstrdup(abs + n + 1);
	else if (n == 1 && dir[0] == '/')
		rel = mpsfix_xstrdup(abs + 1);
done:
	free(abs);
	return rel;
}

static int read_stdin(mpsfix_buf *out)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0) {
		mpsfix_buf_add(out, chunk, n);
		if (out->len > MPSFIX_SOURCE_MAX)
			return mpsfix_error_set(MPSFIX_ESKIP, "-: skipped: standard input too large "
						"(more than %u bytes)", MPSFIX_SOURCE_MAX);
	}
	if (ferror(stdin))
		return mpsfix_error_set(MPSFIX_ERROR, "-: cannot read standard input: %s", strerror(errno));
	return 0;
}

/*
 * fix -: text that is not fixed still goes to standard output, unchanged
 * (with the rest of standard input when reading it stopped early), so that
 * `mpsfix fix - <a.py >b.py` never loses it.
 */
static void pass_through(const char *data, size_t len, bool rest_of_stdin)
{
	char chunk[65536];
	size_t n;

	fwrite(data, 1, len, stdout);
	while (rest_of_stdin && (n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		fwrite(chunk, 1, n, stdout);
}

/* The bytes of `path` as this run sees them: the file, standard input, or the index. */
static int load_source(const run_state *st, mpsfix_source *src, const char *path, const char *display)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	int error;

	if (!strcmp(path, "-")) {
		bool all_read = (error = read_stdin(&b)) == 0;

		if (all_read)
			error = mpsfix_source_from_buffer(src, display, b.data ? b.data : "", b.len);
		if (error == MPSFIX_ESKIP && st->opts->command == MPSFIX_CMD_FIX)
			pass_through(b.data ? b.data : "", b.len, !all_read);
	} else if (st->opts->staged) {
		error = mpsfix_git_read_staged(&b, path);
		if (error == MPSFIX_ENOMATCH)
			error = mpsfix_error_set(MPSFIX_ESKIP, "%s: not in the index (--staged)", path);
		if (error == 0)
			error = mpsfix_source_from_buffer(src, path, b.data ? b.data : "", b.len);
	} else {
		error = mpsfix_source_read(src, path);
	}
	mpsfix_buf_release(&b);
	return error;
}

static void count_findings(run_state *st, const mpsfix_result *res)
{
	for (size_t i = 0; i < res->len; i++) {
		const mpsfix_finding *f = &res->items[i];

		st->findings++;
		st->fixable += f->fix == MPSFIX_FIX_AVAILABLE;
		st->unsafe_fixable += f->fix == MPSFIX_FIX_UNSAFE;
		st->manual += f->fix == MPSFIX_FIX_MANUAL;
		for (size_t r = 0; r < st->rules.len; r++)
			if (st->rules.items[r] == f->rule) {
				st->counts[r]++;
				st->fixable_counts[r] += f->fix == MPSFIX_FIX_AVAILABLE;
			}
	}
	st->unused += res->nunused;
}

/*
 * What the work on one file leaves for the main thread, which reports the
 * files in path order: its messages for standard error, in order, the report
 * (source, result and diff, dropped early when there is nothing to report)
 * and what it adds to the counters.
 */
typedef struct {
	mpsfix_strings messages;     /* each printed as "mpsfix: MESSAGE" */
	const char *display;         /* the name in the report (borrowed from the path) */
	mpsfix_source src, fixed;
	bool show_fixed;             /* report on `fixed` (what remains), not `src` */
	mpsfix_result res;
	mpsfix_buf diff;
	bool skipped, scanned, io_error;
	bool done;                   /* reached the report: count it and report it */
	bool report;                 /* something to report */
	bool changed;
	size_t nfixed;
} file_record;

static void record_free(file_record *rec)
{
	if (!rec)
		return;
	mpsfix_strings_release(&rec->messages);
	mpsfix_source_release(&rec->src);
	mpsfix_source_release(&rec->fixed);
	mpsfix_result_release(&rec->res);
	mpsfix_buf_release(&rec->diff);
	free(rec);
}

/* The message of the last error, for standard error after the file's turn comes. */
static void note_error(file_record *rec)
{
	mpsfix_strings_push(&rec->messages, mpsfix_error_last()->message);
}

/*
 * The work on one file: load, check, run the engine, diff, write back (fix).
 * It reads `st` and writes only `rec` and the file: it runs on worker threads.
 */
static void process_file(const run_state *st, mpsfix_ctx *ctx, file_record *rec, const char *path,
			 const char *root)
{
	const mpsfix_opts *opts = st->opts;
	bool is_stdin = !strcmp(path, "-");
	const char *display = is_stdin ? (opts->stdin_filename ? opts->stdin_filename : "-") : path;

	mpsfix_source *src = &rec->src;
	mpsfix_result *res = &rec->res, fixing = MPSFIX_RESULT_INIT;
	const mpsfix_result *diff_of = res;
	file_scope scope = {.config = &st->config};
	mpsfix_engine_opts eo = {
		.fix = opts->command != MPSFIX_CMD_CHECK,
		.unsafe_fixes = st->unsafe_fixes,
		.suppress = true,
		.unused_suppressions = opts->show_unused_suppressions,
		.no_prefilter = opts->no_prefilter,
		.keep = keep_match,
		.keep_payload = &scope,
	};
	bool write_back = opts->command == MPSFIX_CMD_FIX;
	char *rel = NULL;
	int error;

	/* files found under "." are shown as git and ruff show them: "a.py", not "./a.py" */
	while (!is_stdin && display[0] == '.' && display[1] == '/' && display[2])
		display += 2;
	rec->display = display;
	error = load_source(st, src, path, display);
	if (error == MPSFIX_ESKIP) {
		note_error(rec);
		rec->skipped = true;
		return;
	}
	if (error < 0)
		goto fail;
	if (write_back && !is_stdin && leaves_root(path, root)) {
		char *msg = mpsfix_xasprintf("%s: not fixed: a symbolic link to a file outside %s", path, root);

		mpsfix_strings_push(&rec->messages, msg);
		free(msg);
		write_back = eo.fix = false; /* its findings stay, as check reports them */
	} else if (write_back && !is_stdin && mpsfix_source_check_writable(src, path) < 0) {
		note_error(rec);
		if (mpsfix_error_last()->code != MPSFIX_ESKIP)
			goto fail_noted;
		write_back = eo.fix = false;
	}
	rel = st->config.dir ? relative_to(is_stdin ? display : path, st->config.dir) : NULL;
	scope.rel = rel;
	if (opts->since && !is_stdin) {
		/* standard input: no history to compare with */
		if ((error = mpsfix_git_changed_lines(&scope.since, &scope.nsince, path, opts->since,
						      opts->staged)) < 0)
			goto fail;
		scope.since_active = true;
	}
	error = mpsfix_engine_run(res, ctx, st->index, src, &eo);
	if (error == MPSFIX_ESKIP) {
		note_error(rec);
		rec->skipped = true;
		if (is_stdin && opts->command == MPSFIX_CMD_FIX)
			pass_through(src->data, src->len, false);
		goto done;
	}
	if (error < 0)
		goto fail;
	rec->scanned = true;
	for (size_t i = 0; i < res->nwarnings; i++)
		mpsfix_strings_push(&rec->messages, res->warnings[i]);
	if (opts->command == MPSFIX_CMD_CHECK && st->format == MPSFIX_FORMAT_DIFF) {
		/* check --format diff: the findings are the unfixed ones; a second,
		 * fixing run gives the diff */
		mpsfix_engine_opts fo = eo;

		fo.fix = true;
		fo.unused_suppressions = false;
		if ((error = mpsfix_engine_run(&fixing, ctx, st->index, src, &fo)) < 0)
			goto fail;
		diff_of = &fixing;
	}
	if (diff_of->text && diff_of->changed) {
		char *name = is_stdin ? mpsfix_xstrdup(display) : diff_name(path);

		error = mpsfix_git_diff(&rec->diff, name, src->data, src->len, diff_of->text,
					diff_of->text_len);
		free(name);
		if (error < 0)
			goto fail;
	}
	if (opts->command != MPSFIX_CMD_CHECK && eo.fix) {
		/* what remains is in the new text */
		if ((error = mpsfix_source_from_buffer(&rec->fixed, display, res->text, res->text_len)) < 0)
			goto fail;
		rec->show_fixed = true;
	}
	if (opts->command == MPSFIX_CMD_FIX && is_stdin) {
		/* the fixed text goes to standard output, the report to standard error */
		fwrite(res->text, 1, res->text_len, stdout);
	} else if (write_back && res->changed &&
		   (error = mpsfix_source_write_back(src, path, res->text, res->text_len)) < 0) {
		goto fail;
	}
	rec->done = true;
	rec->changed = res->changed;
	rec->nfixed = res->fixed;
	rec->report = res->len || res->nunused || rec->diff.len;
	/* the new text is written: the report needs only the findings, the source
	 * they are in and the diff, and nothing when there is nothing to report */
	free(res->text);
	res->text = NULL;
	res->text_len = 0;
	if (!rec->report) {
		mpsfix_result_release(res);
		mpsfix_source_release(&rec->src);
		mpsfix_source_release(&rec->fixed);
	} else if (rec->show_fixed) {
		mpsfix_source_release(&rec->src);
	}
	goto done;
fail:
	note_error(rec);
fail_noted:
	rec->io_error = true;
done:
	free(rel);
	free(scope.since);
	mpsfix_result_release(&fixing);
}

/* ---- the files, on worker threads ------------------------------------------------ */

/*
 * A file's parse tree takes about 40 times its size: files being worked on
 * weigh at most this many bytes together (a bigger file alone), so that peak
 * memory stays bounded whatever -j; before and after a file of at least
 * TRIM_AFTER bytes the freed memory of every thread's malloc arena goes back
 * to the system.  Up to 32 files a thread may be done and wait for their
 * turn to be reported: one slow file does not hold the other threads up,
 * and a file with nothing to report keeps nothing in memory.
 */
#define SOURCE_BYTES_AT_ONCE (768 * 1024)
#define TRIM_AFTER (256 * 1024)

typedef struct {
	run_state *st;
	const mpsfix_paths *files;
	size_t *sizes;               /* of each file, as found before the run */
	char **args;
	size_t nargs;
	time_t started;
	bool shown;
} files_run;

static int worker_init(void *payload, size_t k, void **state)
{
	files_run *fr = payload;
	mpsfix_ctx *ctx;
	int error;

	if (k == 0) {
		*state = &fr->st->ctx; /* the main thread's, unused while the pool runs */
		return 0;
	}
	ctx = mpsfix_xcalloc(1, sizeof(*ctx));
	if ((error = mpsfix_ctx_init(ctx)) < 0) {
		mpsfix_ctx_release(ctx);
		free(ctx);
		return error;
	}
	*state = ctx;
	return 0;
}

static void worker_release(void *payload, void *state)
{
	files_run *fr = payload;

	if (state != &fr->st->ctx) {
		mpsfix_ctx_release(state);
		free(state);
	}
}

static void *worker_file(void *payload, void *state, size_t i)
{
	files_run *fr = payload;
	file_record *rec = mpsfix_xcalloc(1, sizeof(*rec));
	const char *path = fr->files->items[i];

#ifdef __GLIBC__
	if (fr->sizes[i] >= TRIM_AFTER)
		malloc_trim(0); /* what the other threads freed, before the big tree */
#endif
	process_file(fr->st, state, rec, path, folder_of(path, fr->args, fr->nargs));
#ifdef __GLIBC__
	if (fr->sizes[i] >= TRIM_AFTER)
		malloc_trim(0);
#endif
	return rec;
}

static size_t file_weight(void *payload, size_t i)
{
	const files_run *fr = payload;

	return fr->sizes[i];
}

static void progress(const run_state *st, size_t done, size_t total, time_t started, bool *shown);

/* The main thread, in path order: the file's messages, its counts, its report. */
static void consume_file(void *payload, size_t i, void *result)
{
	files_run *fr = payload;
	run_state *st = fr->st;
	file_record *rec = result;
	const mpsfix_source *shown = rec->show_fixed ? &rec->fixed : &rec->src;

	progress(st, i, fr->files->len, fr->started, &fr->shown);
	for (size_t k = 0; k < rec->messages.len; k++)
		print_error(rec->messages.items[k]);
	st->skipped += rec->skipped;
	st->files += rec->scanned;
	if (rec->io_error)
		st->io_error = true;
	if (rec->done) {
		st->changed += rec->changed;
		st->fixed += rec->nfixed;
		count_findings(st, &rec->res);
		if (rec->report &&
		    mpsfix_report_file(st->reporter, rec->display, shown, &rec->res, rec->diff.data,
				       rec->diff.len) < 0) {
			print_error(mpsfix_error_last()->message);
			st->io_error = true;
		}
	}
	record_free(rec);
}

static bool stop_requested(void *payload)
{
	(void)payload;
	return interrupted != 0;
}

/* Every file, on st->jobs threads (standard input: on this one), reported in path order. */
static int process_files(run_state *st, const mpsfix_paths *files, char **args, size_t nargs)
{
	files_run fr = {.st = st, .files = files, .args = args, .nargs = nargs, .started = time(NULL)};
	mpsfix_pool_opts po = {
		.nthreads = st->jobs ? st->jobs : 1,
		.nitems = files->len,
		.payload = &fr,
		.init = worker_init,
		.release = worker_release,
		.work = worker_file,
		.consume = consume_file,
		.should_stop = stop_requested,
		.weight = file_weight,
		.max_weight = SOURCE_BYTES_AT_ONCE,
		.window = 32 * (st->jobs ? st->jobs : 1),
	};
	int error;

	fr.sizes = mpsfix_xcalloc(files->len + 1, sizeof(size_t));
	for (size_t i = 0; i < files->len; i++) {
		struct stat sb;

		if (!strcmp(files->items[i], "-"))
			po.nthreads = 1; /* standard input is read, and fix - written, here */
		else if (stat(files->items[i], &sb) == 0 && S_ISREG(sb.st_mode))
			fr.sizes[i] = (size_t)sb.st_size;
	}
	error = mpsfix_pool_run(&po, NULL);
	free(fr.sizes);
	if (error < 0)
		return error;
	progress(st, files->len, files->len, fr.started, &fr.shown);
	return 0;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* One line on standard error, after the report. */
static void print_summary(const run_state *st)
{
	if (st->opts->quiet)
		return;
	fflush(stdout);
	fprintf(stderr, "mpsfix: %zu file%s scanned, ", st->files, plural(st->files));
	switch (st->opts->command) {
	case MPSFIX_CMD_DIFF:
		fprintf(stderr, "%zu fix%s in the diff, %zu finding%s left", st->fixed,
			st->fixed == 1 ? "" : "es", st->findings, plural(st->findings));
		break;
	case MPSFIX_CMD_FIX:
		fprintf(stderr, "%zu fixed, %zu finding%s left", st->fixed, st->findings,
			plural(st->findings));
		break;
	default:
		fprintf(stderr, "%zu finding%s (%zu fixable)", st->findings, plural(st->findings),
			st->fixable);
	}
	if (st->unused)
		fprintf(stderr, ", %zu unused suppression%s", st->unused, plural(st->unused));
	if (st->skipped)
		fprintf(stderr, ", %zu skipped", st->skipped);
	fprintf(stderr, "; %s", st->target);
	if (st->unsafe_fixable)
		fprintf(stderr, "; %zu more fixable with --unsafe-fixes", st->unsafe_fixable);
	fputc('\n', stderr);
}

/* A progress line on a terminal, for runs longer than a second. */
static void progress(const run_state *st, size_t done, size_t total, time_t started, bool *shown)
{
	if (st->opts->quiet || !isatty(STDERR_FILENO))
		return;
	if (done == total) {
		if (*shown)
			fputs("\r\033[K", stderr);
		return;
	}
	if (!*shown && time(NULL) - started < 1)
		return;
	if (!*shown || done % 16 == 0) {
		fprintf(stderr, "\rmpsfix: %zu/%zu files", done, total);
		fflush(stderr);
	}
	*shown = true;
}

/* ---- the run ------------------------------------------------------------------- */

/* Add the comma-separated values of each argument to `out`. */
static void split_list(mpsfix_strings *out, const mpsfix_argv_list *args)
{
	for (size_t i = 0; i < args->len; i++) {
		const char *p = args->items[i];

		while (*p) {
			size_t n = strcspn(p, ",");
			char *item = mpsfix_xstrndup(p, n);
			char *s = item, *e;

			while (*s == ' ')
				s++;
			e = s + strlen(s);
			while (e > s && e[-1] == ' ')
				*--e = '\0';
			if (*s)
				mpsfix_strings_push(out, s);
			free(item);
			p += n;
			if (*p == ',')
				p++;
		}
	}
}

static void copy_strings(mpsfix_strings *out, const mpsfix_strings *in)
{
	for (size_t i = 0; i < in->len; i++)
		mpsfix_strings_push(out, in->items[i]);
}

/* Every selector must name some rule: a typo would silently check nothing. */
static int check_selectors(const run_state *st, const mpsfix_strings *list, const char *what)
{
	for (size_t i = 0; i < list->len; i++)
		if (!mpsfix_selector_known(list->items[i], st->rules.items, st->rules.len))
			return mpsfix_error_set(MPSFIX_ERROR, "%s: '%s' names no rule (give a code such as "
						"MPS001, a prefix such as MPS1, or a rule id)", what, list->items[i]);
	return 0;
}

/*
 * The torch target: --target-torch, else the configuration's target-torch,
 * else the pins of the project (mpsfix_target_root(): the configuration's
 * folder, else the git work tree of the first path, else the nearest folder
 * upward with a pin file), else every MPS-capable version.  Unreadable pins
 * are warnings.
 */
static int settle_target(run_state *st)
{
	const mpsfix_opts *opts = st->opts;
	mpsfix_target_opts to = {
		.option = opts->target_torch,
		.config_value = st->config.target_torch,
		.config_path = st->config.path,
	};
	/* explain's operand is a rule, not a path */
	const char *first = opts->npaths && opts->command != MPSFIX_CMD_EXPLAIN ? opts->paths[0] : NULL;
	char *root = NULL;
	int error;

	if (!to.option && !to.config_value)
		to.root = root = mpsfix_target_root(st->config.dir, first);
	error = mpsfix_target_resolve(&st->tgt, &to);
	free(root);
	if (error < 0)
		return error;
	for (size_t i = 0; i < st->tgt.pins.nwarnings; i++)
		print_error(st->tgt.pins.warnings[i]);
	st->target = st->tgt.summary;
	return 0;
}

/* Settings from the configuration file, then the command line, which wins. */
static int settle(run_state *st)
{
	const mpsfix_opts *opts = st->opts;
	const mpsfix_config *cfg = &st->config;
	const char *env = getenv("MPSFIX_FORMAT");
	const char *fmt = opts->format ? opts->format : env && *env ? env : NULL;
	int error;

	if (opts->has_select) {
		split_list(&st->select, &opts->select);
		st->has_select = true;
	} else if (cfg->has_select) {
		copy_strings(&st->select, &cfg->select);
		st->has_select = true;
	}
	copy_strings(&st->extend_select, &cfg->extend_select);
	split_list(&st->extend_select, &opts->extend_select);
	copy_strings(&st->ignore, &cfg->ignore);
	split_list(&st->ignore, &opts->ignore);
	st->unsafe_fixes = opts->unsafe_fixes >= 0 ? opts->unsafe_fixes > 0 : cfg->unsafe_fixes > 0;
	if ((error = check_selectors(st, &st->select, "--select")) < 0 ||
	    (error = check_selectors(st, &st->extend_select, "--extend-select")) < 0 ||
	    (error = check_selectors(st, &st->ignore, "--ignore")) < 0 ||
	    (error = settle_target(st)) < 0)
		return error;
	if (opts->command == MPSFIX_CMD_RULES || opts->command == MPSFIX_CMD_EXPLAIN)
		return 0; /* they list rules: no files, no report format */
	if (fmt) {
		if ((error = mpsfix_format_parse(&st->format, fmt)) < 0)
			return error;
	} else if (opts->command == MPSFIX_CMD_DIFF) {
		st->format = MPSFIX_FORMAT_DIFF;
	} else {
		st->format = isatty(STDOUT_FILENO) && !opts->output ? MPSFIX_FORMAT_FULL : MPSFIX_FORMAT_CONCISE;
	}
	if (opts->staged && opts->command == MPSFIX_CMD_FIX)
		return mpsfix_error_set(MPSFIX_ERROR, "--staged reads files from the index: use it with "
					"check or diff, not fix");
	for (size_t i = 0, dashes = 0; i < opts->npaths; i++)
		if (!strcmp(opts->paths[i], "-") && ++dashes > 1)
			return mpsfix_error_set(MPSFIX_ERROR, "'-' (standard input) is given twice");
	/* -j, else MPSFIX_JOBS, else a thread per online processor */
	st->jobs = opts->jobs;
	if (opts->command != MPSFIX_CMD_CHECK && opts->command != MPSFIX_CMD_DIFF &&
	    opts->command != MPSFIX_CMD_FIX)
		return 0; /* commit, patch and review work on one thread */
	if (!st->jobs && (env = getenv("MPSFIX_JOBS")) && *env &&
	    (error = mpsfix_pool_parse_jobs(&st->jobs, env, "MPSFIX_JOBS")) < 0)
		return error;
	if (!st->jobs)
		st->jobs = mpsfix_pool_cpus();
	return 0;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void on_stale_temp(void *payload, const char *path)
{
	(void)payload;
	fprintf(stderr, "mpsfix: %s: removed, a temporary file left by an interrupted run\n", path);
}

/* fix: first remove the temporary files a killed run left next to the files to fix. */
static void remove_stale_temps(run_state *st, const mpsfix_paths *files)
{
	mpsfix_paths dirs = MPSFIX_PATHS_INIT;

	for (size_t i = 0; i < files->len; i++) {
		char *real = strcmp(files->items[i], "-") ? realpath(files->items[i], NULL) : NULL;
		char *slash = real ? strrchr(real, '/') : NULL;

		if (slash) {
			slash[slash == real] = '\0'; /* the folder the temporary file goes to */
			mpsfix_grow((void **)&dirs.items, &dirs.cap, dirs.len + 1, sizeof(char *));
			dirs.items[dirs.len++] = real;
		} else {
			free(real);
		}
	}
	if (dirs.len > 1)
		qsort(dirs.items, dirs.len, sizeof(char *), cmp_path);
	for (size_t i = 0; i < dirs.len; i++) {
		if (i && !strcmp(dirs.items[i], dirs.items[i - 1]))
			continue;
		if (mpsfix_source_remove_stale_temps(dirs.items[i], on_stale_temp, st) < 0) {
			print_error(mpsfix_error_last()->message);
			st->io_error = true;
		}
	}
	mpsfix_paths_release(&dirs);
}

/* ---- commit, patch, review ------------------------------------------------------ */

/* The value of the Mpsfix-Target-Torch trailer: the run's torch target ("2.1", ">=2.4"). */
static const char *torch_target_label(const run_state *st)
{
	return mpsfix_target_label(&st->tgt);
}

/* Before the engine runs on a file of a series: what keep_match needs to know. */
static void series_on_file(void *payload, const mpsfix_series_file *f)
{
	run_state *st = payload;

	free(st->series_rel);
	st->series_rel = st->config.dir ? relative_to(f->path, st->config.dir) : NULL;
	st->series_scope.rel = st->series_rel;
	st->series_scope.since_active = false;
}

/* Create folder `dir` and its parents (as git format-patch -o does). */
static int make_dirs(const char *dir)
{
	char *p = mpsfix_xstrdup(dir);
	int error = 0;

	for (char *s = p + 1; ; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			error = mpsfix_error_set(MPSFIX_ERROR, "cannot create %s: %s", p, strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	if (!error && !is_dir(dir))
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not a folder", dir);
	free(p);
	return error;
}

/* mpsfix patch: the e-mails to standard output, or one file each. */
static int write_patches(const run_state *st, const mpsfix_patch_list *patches)
{
	const char *dir = st->opts->output_directory;
	int error = 0;

	if (st->opts->to_stdout) {
		for (size_t i = 0; i < patches->len; i++)
			fwrite(patches->items[i].text.data, 1, patches->items[i].text.len, stdout);
		return 0;
	}
	if (dir && patches->len && (error = make_dirs(dir)) < 0)
		return error;
	for (size_t i = 0; i < patches->len && error == 0; i++) {
		const mpsfix_patch *p = &patches->items[i];
		char *path = dir ? mpsfix_path_join(dir, p->file) : mpsfix_xstrdup(p->file);

		error = mpsfix_source_write_atomic(path, p->text.data, p->text.len, false, 0);
		if (error == 0)
			printf("%s\n", path);
		free(path);
	}
	return error;
}

/* mpsfix review: the accepted fixes into the files. */
static int write_reviewed(run_state *st, const mpsfix_series *s, char **args, size_t nargs, size_t *written)
{
	size_t n, *changed = mpsfix_series_changed(s, &n);
	int status = 0;

	*written = 0;
	for (size_t i = 0; i < n; i++) {
		const mpsfix_series_file *f = &s->files[changed[i]];
		const char *root = folder_of(f->path, args, nargs);
		size_t len;
		const char *text = mpsfix_series_text(s, changed[i], &len);

		if (leaves_root(f->path, root)) {
			fprintf(stderr, "mpsfix: %s: not fixed: a symbolic link to a file outside %s\n",
				f->path, root);
			continue;
		}
		if (mpsfix_source_write_atomic(f->path, text, len, f->have_mode, f->mode) < 0) {
			print_error(mpsfix_error_last()->message);
			status = MPSFIX_ERROR;
			continue;
		}
		(*written)++;
	}
	free(changed);
	return status;
}

/* Before anything is read: what commit, patch and review cannot do. */
static int series_refusals(const run_state *st)
{
	const mpsfix_opts *opts = st->opts;
	const char *cmd = mpsfix_command_name(opts->command);

	if (opts->staged)
		return mpsfix_error_set(MPSFIX_ERROR, "--staged reads files from the index: use it with "
					"check or diff, not %s", cmd);
	if (opts->since)
		return mpsfix_error_set(MPSFIX_ERROR, "--since: use it with check, diff or fix, not %s", cmd);
	for (size_t i = 0; i < opts->npaths; i++)
		if (!strcmp(opts->paths[i], "-"))
			return mpsfix_error_set(MPSFIX_ERROR, "%s works on files: standard input ('-') "
						"cannot be used", cmd);
	if (opts->command == MPSFIX_CMD_REVIEW && !isatty(STDIN_FILENO))
		return mpsfix_error_set(MPSFIX_ERROR, "review asks about each fix on a terminal, and "
					"standard input is not one; see the fixes with 'mpsfix diff', "
					"apply them with 'mpsfix fix' or 'mpsfix commit'");
	return 0;
}

/* The files of a series: from HEAD when recording, else from the file system. */
static void series_files(run_state *st, mpsfix_series *s, mpsfix_recorder *rec,
			 const mpsfix_paths *files, size_t *skipped)
{
	for (size_t i = 0; i < files->len && !interrupted; i++) {
		const char *path = files->items[i];
		mpsfix_source src = MPSFIX_SOURCE_INIT;
		int error;

		while (path[0] == '.' && path[1] == '/' && path[2])
			path += 2;
		if (rec) {
			error = mpsfix_recorder_add(rec, s, path);
		} else if ((error = mpsfix_source_read(&src, path)) == 0) {
			mpsfix_series_add_file(s, path, NULL, src.data, src.len, src.have_mode, src.mode);
			mpsfix_source_release(&src);
		}
		if (error == MPSFIX_ESKIP) {
			fprintf(stderr, "mpsfix: note: %s\n", mpsfix_error_last()->message);
			(*skipped)++;
		} else if (error < 0) {
			print_error(mpsfix_error_last()->message);
			st->io_error = true;
		}
	}
}

/* A note for each submodule in the folders named: its files are not recorded. */
static int series_submodules(mpsfix_recorder *rec, const mpsfix_opts *opts)
{
	char *dot[] = {"."};
	char **subs = NULL;
	size_t n = 0;
	int error = mpsfix_recorder_submodules(&subs, &n, rec, opts->npaths ? opts->paths : dot,
					       opts->npaths ? opts->npaths : 1);

	for (size_t i = 0; i < n; i++) {
		fprintf(stderr, "mpsfix: note: %s: a submodule: its files are skipped (run mpsfix in "
			"the submodule to fix it there)\n", subs[i]);
		free(subs[i]);
	}
	free(subs);
	return error;
}

/* Review the fixes on the terminal (after refusing a dirty work tree when committing). */
static int series_review(run_state *st, mpsfix_series *s, mpsfix_recorder *rec, mpsfix_rule **order,
			 size_t n, const mpsfix_engine_opts *eo, mpsfix_review_result *rr)
{
	mpsfix_review_opts ro = {
		.in = STDIN_FILENO,
		.out = stdout,
		.color = st->opts->color == MPSFIX_COLOR_ALWAYS ||
			 (st->opts->color == MPSFIX_COLOR_AUTO && isatty(STDOUT_FILENO) &&
			  !(getenv("NO_COLOR") && *getenv("NO_COLOR"))),
		.interrupted = &interrupted,
	};
	int error = 0;

	if (rec) {
		/* refuse a dirty work tree before the questions, not after the answers */
		mpsfix_series probe = MPSFIX_SERIES_INIT;

		for (size_t i = 0; i < s->nfiles; i++)
			mpsfix_series_add_file(&probe, s->files[i].path, s->files[i].name, s->files[i].text,
					       s->files[i].len, s->files[i].have_mode, s->files[i].mode);
		if ((error = mpsfix_series_fix(&probe, &st->ctx, order, n, eo, series_on_file, st)) == 0)
			error = mpsfix_recorder_check(rec, &probe, true);
		mpsfix_series_release(&probe);
		if (error < 0)
			return error;
	}
	return mpsfix_review_run(rr, s, &st->ctx, order, n, eo, &ro, series_on_file, st);
}

/*
 * commit, patch, review: the fixes rule by rule (code order) as a series,
 * then commits, patch files, or the files themselves.
 */
static int run_series(run_state *st, const mpsfix_paths *files, mpsfix_rule **enabled, size_t nenabled)
{
	const mpsfix_opts *opts = st->opts;
	bool review = opts->command == MPSFIX_CMD_REVIEW;
	bool record = !review || opts->review_commit;
	mpsfix_commit_opts co = {
		.patch = opts->command == MPSFIX_CMD_PATCH,
		.squash = opts->squash,
		.signoff = opts->signoff,
		.allow_dirty = opts->allow_dirty,
		.branch = opts->branch,
		.target_torch = torch_target_label(st),
	};
	mpsfix_engine_opts eo = {
		.fix = true,
		.unsafe_fixes = st->unsafe_fixes,
		.suppress = true,
		.no_prefilter = opts->no_prefilter,
		.keep = keep_match,
		.keep_payload = &st->series_scope,
	};
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_series_left left = {0};
	mpsfix_review_result rr = {MPSFIX_REVIEW_DONE, 0, 0};
	mpsfix_commit_list commits = {NULL, 0};
	mpsfix_patch_list patches = {NULL, 0};
	mpsfix_recorder *rec = NULL;
	mpsfix_rule **order = mpsfix_xcalloc(nenabled + 1, sizeof(*order));
	size_t skipped = 0, sites = 0, written = 0;
	int status = MPSFIX_EXIT_OK;

	memcpy(order, enabled, nenabled * sizeof(*order));
	mpsfix_series_order(order, nenabled);
	if (series_refusals(st) < 0 || (record && mpsfix_recorder_open(&rec, ".", &co) < 0))
		goto fail;
	series_files(st, &s, rec, files, &skipped);
	if (rec && series_submodules(rec, opts) < 0)
		goto fail;
	if (interrupted)
		goto interrupt;
	if (review) {
		if (series_review(st, &s, rec, order, nenabled, &eo, &rr) < 0)
			goto fail;
		if (rr.end == MPSFIX_REVIEW_INTERRUPTED)
			goto interrupt;
	} else if (mpsfix_series_fix(&s, &st->ctx, order, nenabled, &eo, series_on_file, st) < 0) {
		goto fail;
	}
	for (size_t i = 0; i < s.nwarnings; i++)
		print_error(s.warnings[i]);
	for (size_t i = 0; i < s.nsteps; i++)
		sites += s.steps[i].sites;
	if (mpsfix_series_remaining(&left, &s, &st->ctx, st->index, &eo, series_on_file, st) < 0)
		goto fail;
	if (interrupted)
		goto interrupt;

	if (opts->command == MPSFIX_CMD_PATCH) {
		if (mpsfix_recorder_patches(&patches, rec, &s) < 0 || write_patches(st, &patches) < 0)
			goto fail;
	} else if (record) {
		if (mpsfix_recorder_check(rec, &s, false) < 0 || mpsfix_recorder_commit(&commits, rec, &s) < 0)
			goto fail;
		for (size_t i = 0; i < commits.len; i++)
			printf("[%s %.7s] %s\n", opts->branch ? opts->branch : mpsfix_recorder_branch(rec),
			       commits.items[i].id, commits.items[i].subject);
	} else if (write_reviewed(st, &s, opts->npaths ? opts->paths : (char *[]){"."},
				  opts->npaths ? opts->npaths : 1, &written) < 0) {
		st->io_error = true;
	}

	if (!opts->quiet) {
		size_t scanned = s.nfiles;

		for (size_t i = 0; i < s.nfiles; i++)
			scanned -= s.files[i].skipped;
		fflush(stdout);
		fprintf(stderr, "mpsfix: %zu file%s scanned", scanned, plural(scanned));
		if (review)
			fprintf(stderr, ", %zu fix%s accepted, %zu declined", rr.accepted,
				rr.accepted == 1 ? "" : "es", rr.declined);
		if (opts->command == MPSFIX_CMD_PATCH)
			fprintf(stderr, ", %zu patch%s", patches.len, patches.len == 1 ? "" : "es");
		else if (record)
			fprintf(stderr, ", %zu commit%s", commits.len, plural(commits.len));
		else
			fprintf(stderr, ", %zu file%s written", written, plural(written));
		fprintf(stderr, " (%zu fix%s), %zu finding%s left", sites, sites == 1 ? "" : "es",
			left.findings, plural(left.findings));
		if (skipped)
			fprintf(stderr, ", %zu skipped", skipped);
		fprintf(stderr, "; %s", st->target);
		if (left.unsafe_fixable)
			fprintf(stderr, "; %zu more fixable with --unsafe-fixes", left.unsafe_fixable);
		fputc('\n', stderr);
		if (opts->branch && commits.len)
			fprintf(stderr, "mpsfix: the commits are on branch %s; HEAD, the index and the work "
				"tree are as they were\n", opts->branch);
		if (record && !s.nsteps)
			fprintf(stderr, "mpsfix: nothing to %s: no fix to make\n", opts->command == MPSFIX_CMD_PATCH
				? "write" : "commit");
	}
	status = left.findings ? MPSFIX_EXIT_FINDINGS : MPSFIX_EXIT_OK;
	if (opts->exit_zero)
		status = MPSFIX_EXIT_OK;
	if (opts->exit_non_zero_on_fix && sites)
		status = MPSFIX_EXIT_FINDINGS;
	if (st->io_error)
		status = MPSFIX_EXIT_ERROR;
	goto done;
interrupt:
	status = MPSFIX_EXIT_INTERRUPT;
	goto done;
fail:
	print_error(mpsfix_error_last()->message);
	status = MPSFIX_EXIT_ERROR;
done:
	st->series_scope.rel = NULL;
	mpsfix_patch_list_release(&patches);
	mpsfix_commit_list_release(&commits);
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
	free(order);
	return status;
}

static int run_files(run_state *st)
{
	const mpsfix_opts *opts = st->opts;
	mpsfix_paths files = MPSFIX_PATHS_INIT;
	char *dot[] = {"."};
	char **args = opts->npaths ? opts->paths : dot;
	size_t nargs = opts->npaths ? opts->npaths : 1;
	mpsfix_rule **enabled = mpsfix_xcalloc(st->rules.len + 1, sizeof(*enabled));
	bool *selected = mpsfix_xcalloc(st->rules.len + 1, sizeof(bool));
	size_t nenabled = 0;
	mpsfix_discover_opts dopts = {
		.no_ignore = opts->no_ignore,
		.use_git = true,
	};
	mpsfix_report_opts ro = {
		.tool_version = mpsfix_version(),
		.rules = st->rules.items,
		.nrules = st->rules.len,
		.show_unused = opts->show_unused_suppressions,
	};
	mpsfix_report_summary sum;
	int status = MPSFIX_EXIT_OK;

	if (settle(st) < 0) {
		print_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto done;
	}
	mpsfix_select_rules(selected, st->rules.items, st->rules.len, &st->select, st->has_select,
			    &st->extend_select, &st->ignore);
	for (size_t i = 0; i < st->rules.len; i++)
		if (selected[i] && mpsfix_target_runs(&st->tgt, st->rules.items[i]))
			enabled[nenabled++] = st->rules.items[i];
	st->index = mpsfix_index_new(enabled, nenabled);
	st->counts = mpsfix_xcalloc(st->rules.len + 1, sizeof(size_t));
	st->fixable_counts = mpsfix_xcalloc(st->rules.len + 1, sizeof(size_t));

	if (opts->output && !(st->out = fopen(opts->output, "w"))) {
		fprintf(stderr, "mpsfix: cannot write %s: %s\n", opts->output, strerror(errno));
		status = MPSFIX_EXIT_ERROR;
		goto done;
	}
	if (!st->out)
		st->out = (opts->command == MPSFIX_CMD_FIX && nargs == 1 && !strcmp(args[0], "-")) ? stderr : stdout;
	ro.format = st->format;
	ro.color = opts->color == MPSFIX_COLOR_ALWAYS ||
		   (opts->color == MPSFIX_COLOR_AUTO && isatty(fileno(st->out)) &&
		    !(getenv("NO_COLOR") && *getenv("NO_COLOR")));
	st->reporter = mpsfix_reporter_new(st->out, &ro);

	/* command-line globs are relative to the current folder, the configuration's to its own */
	dopts.exclude = opts->exclude.items;
	dopts.nexclude = opts->exclude.len;
	dopts.include = opts->include.items;
	dopts.ninclude = opts->include.len;
	dopts.extra_exclude = st->config.exclude.items;
	dopts.nextra_exclude = st->config.exclude.len;
	dopts.extra_base = st->config.dir;
	if (mpsfix_discover_files(&files, args, nargs, &dopts, on_discover_error, st) < 0) {
		print_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto done;
	}
	if (opts->command == MPSFIX_CMD_FIX)
		remove_stale_temps(st, &files);
	if (opts->command == MPSFIX_CMD_COMMIT || opts->command == MPSFIX_CMD_PATCH ||
	    opts->command == MPSFIX_CMD_REVIEW) {
		status = run_series(st, &files, enabled, nenabled);
		goto done;
	}
	if (process_files(st, &files, args, nargs) < 0) {
		print_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto done;
	}
	sum = (mpsfix_report_summary){
		.files = st->files, .skipped = st->skipped, .findings = st->findings,
		.fixable = st->fixable, .unsafe_fixable = st->unsafe_fixable, .manual = st->manual,
		.fixed = st->fixed, .errors = st->io_error, .target = st->target,
		.command = mpsfix_command_name(opts->command),
	};
	if (mpsfix_report_finish(st->reporter, &sum) < 0) {
		print_error(mpsfix_error_last()->message);
		st->io_error = true;
	}
	if (opts->statistics)
		mpsfix_report_statistics(st->out, st->rules.items, st->rules.len, st->counts,
					 st->fixable_counts);
	print_summary(st);
	if (opts->command == MPSFIX_CMD_DIFF)
		status = st->changed ? MPSFIX_EXIT_FINDINGS : MPSFIX_EXIT_OK;
	else
		status = st->findings + st->unused ? MPSFIX_EXIT_FINDINGS : MPSFIX_EXIT_OK;
	if (opts->exit_zero)
		status = MPSFIX_EXIT_OK;
	if (opts->exit_non_zero_on_fix && st->fixed)
		status = MPSFIX_EXIT_FINDINGS;
	if (st->io_error)
		status = MPSFIX_EXIT_ERROR;
	if (interrupted)
		status = MPSFIX_EXIT_INTERRUPT;
done:
	mpsfix_paths_release(&files);
	free(enabled);
	free(selected);
	return status;
}

static int run_tests(run_state *st)
{
	mpsfix_ruletest_counts counts;

	if (mpsfix_ruletest_run(&counts, stdout, &st->ctx, st->rules.items, st->rules.len) < 0) {
		print_error(mpsfix_error_last()->message);
		return MPSFIX_EXIT_ERROR;
	}
	printf("%zu passed, %zu failed\n", counts.passed, counts.failed);
	return counts.failed ? MPSFIX_EXIT_FINDINGS : MPSFIX_EXIT_OK;
}

/* `mpsfix rules` and `mpsfix explain CODE|ID`: the rules, and whether each runs here. */
static int run_rules(run_state *st)
{
	const mpsfix_opts *opts = st->opts;
	size_t n = st->rules.len, found, nrun = 0;
	bool *selected = mpsfix_xcalloc(n + 1, sizeof(bool));
	mpsfix_rule_status *status = mpsfix_xcalloc(n + 1, sizeof(*status));
	mpsfix_rulelist_format format;
	FILE *out = stdout;
	int result = MPSFIX_EXIT_OK, error;

	if ((error = settle(st)) < 0 || (error = mpsfix_rulelist_format_parse(&format, opts->format)) < 0)
		goto fail;
	mpsfix_select_rules(selected, st->rules.items, n, &st->select, st->has_select,
			    &st->extend_select, &st->ignore);
	for (size_t i = 0; i < n; i++) {
		status[i].selected = selected[i];
		status[i].in_target = mpsfix_target_runs(&st->tgt, st->rules.items[i]);
		for (size_t k = 0; k < st->ignore.len; k++)
			status[i].ignored |= mpsfix_selector_matches(st->ignore.items[k], st->rules.items[i]);
		nrun += selected[i] && status[i].in_target;
	}
	if (opts->command == MPSFIX_CMD_EXPLAIN &&
	    (error = mpsfix_rulelist_find(&found, st->rules.items, n, opts->paths[0])) < 0)
		goto fail;
	if (opts->output && !(out = st->out = fopen(opts->output, "w"))) {
		error = mpsfix_error_set(MPSFIX_ERROR, "cannot write %s: %s", opts->output, strerror(errno));
		goto fail;
	}
	if (opts->command == MPSFIX_CMD_EXPLAIN)
		error = mpsfix_rulelist_explain(out, st->rules.items[found], &status[found], st->target, format);
	else
		error = mpsfix_rulelist_print(out, st->rules.items, status, n, format);
	if (error < 0)
		goto fail;
	if (opts->command == MPSFIX_CMD_RULES && !opts->quiet)
		fprintf(stderr, "mpsfix: %zu rule%s, %zu run; %s\n", n, plural(n), nrun, st->target);
	goto done;
fail:
	print_error(mpsfix_error_last()->message);
	result = MPSFIX_EXIT_ERROR;
done:
	free(selected);
	free(status);
	return result;
}

/* `.mpsfix.yml`: --config FILE, none with --isolated, else found upward. */
static int load_config(run_state *st)
{
	const mpsfix_opts *opts = st->opts;
	char *found = NULL, *cwd;
	int error = 0;

	if (opts->isolated)
		return 0;
	if (opts->config)
		return mpsfix_config_load(&st->config, opts->config);
	if (!(cwd = getcwd(NULL, 0)))
		return mpsfix_error_set(MPSFIX_ERROR, "cannot read the current folder: %s", strerror(errno));
	if ((error = mpsfix_config_find(&found, cwd)) == 0 && found)
		error = mpsfix_config_load(&st->config, found);
	free(found);
	free(cwd);
	return error;
}

int main(int argc, char **argv)
{
	mpsfix_opts opts;
	run_state st = {.opts = &opts, .config = MPSFIX_CONFIG_INIT};
	struct sigaction sa;
	int status = MPSFIX_EXIT_OK;

	if (mpsfix_cli_parse(&opts, argc, argv) < 0) {
		print_error(mpsfix_error_last()->message);
		mpsfix_opts_release(&opts);
		return MPSFIX_EXIT_ERROR;
	}
	if (opts.help) {
		mpsfix_cli_usage(stdout);
		goto out;
	}
	if (opts.version) {
		print_version();
		goto out;
	}
	st.series_scope.config = &st.config;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	st.git_ready = mpsfix_git_init() == 0;
	if (!st.git_ready || mpsfix_ctx_init(&st.ctx) < 0) {
		print_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto out;
	}
	if (opts.command == MPSFIX_CMD_TEST) {
		/* rule files named on the command line are tested alone */
		bool defaults = !opts.no_default_rules && opts.npaths == 0;

		if (load_rules(&st, opts.rule_paths.items, opts.rule_paths.len, defaults) < 0 ||
		    load_rules(&st, opts.paths, opts.npaths, false) < 0) {
			print_error(mpsfix_error_last()->message);
			status = MPSFIX_EXIT_ERROR;
			goto out;
		}
		status = run_tests(&st);
		goto out;
	}
	if (load_config(&st) < 0 ||
	    load_rules(&st, opts.rule_paths.items, opts.rule_paths.len, !opts.no_default_rules) < 0 ||
	    load_rules(&st, st.config.rules.items, st.config.rules.len, false) < 0) {
		print_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto out;
	}
	if (opts.command == MPSFIX_CMD_RULES || opts.command == MPSFIX_CMD_EXPLAIN)
		status = run_rules(&st);
	else
		status = run_files(&st);
out:
	if (st.out && st.out != stdout && st.out != stderr && fclose(st.out) != 0) {
		fprintf(stderr, "mpsfix: error writing %s: %s\n", opts.output, strerror(errno));
		status = MPSFIX_EXIT_ERROR;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "mpsfix: error writing output: %s\n", strerror(errno));
		status = MPSFIX_EXIT_ERROR;
	}
	mpsfix_reporter_free(st.reporter);
	mpsfix_index_free(st.index);
	mpsfix_ruleset_release(&st.rules);
	mpsfix_config_release(&st.config);
	mpsfix_strings_release(&st.select);
	mpsfix_strings_release(&st.ignore);
	mpsfix_strings_release(&st.extend_select);
	free(st.counts);
	free(st.fixable_counts);
	mpsfix_target_release(&st.tgt);
	free(st.series_rel);
	mpsfix_ctx_release(&st.ctx);
	if (st.git_ready)
		mpsfix_git_shutdown();
	mpsfix_opts_release(&opts);
	return status;
}
