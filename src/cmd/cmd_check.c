/*
 * cmd_check.c: check, diff and fix: the files on worker threads (the work
 * on each is in cmd_file.c), reported in path order on the main thread,
 * then the summary line and the exit status.  commit, patch and review find
 * their files the same way (mpsfix_cmd_files) and go on in cmd_series.c.
 */
#include "cmd.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"
#include "report.h"
#include "version.h"

/* A run of check, diff or fix: the report and its counters. */
typedef struct {
	mpsfix_cmd *cmd;
	mpsfix_rule **enabled;
	size_t nenabled;
	mpsfix_index *index;
	mpsfix_reporter *reporter;
	size_t *counts, *fixable_counts; /* per rule, for --statistics */
	size_t *target_of;           /* per file: its torch target (an index into set.targets) */
	size_t *target_files;        /* per target: the files scanned for it */
	uint32_t *line_length_of;    /* per file: its longest line (style.h) */
	size_t files, skipped, findings, fixable, unsafe_fixable, manual, fixed, changed, unused;
} check_run;

static void count_findings(check_run *st, const mpsfix_result *res)
{
	for (size_t i = 0; i < res->len; i++) {
		const mpsfix_finding *f = &res->items[i];

		st->findings++;
		st->fixable += f->fix == MPSFIX_FIX_AVAILABLE;
		st->unsafe_fixable += f->fix == MPSFIX_FIX_UNSAFE;
		st->manual += f->fix == MPSFIX_FIX_MANUAL;
		for (size_t r = 0; r < st->cmd->rules.len; r++)
			if (st->cmd->rules.items[r] == f->rule) {
				st->counts[r]++;
				st->fixable_counts[r] += f->fix == MPSFIX_FIX_AVAILABLE;
			}
	}
	st->unused += res->nunused;
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
	check_run *st;
	const mpsfix_strvec *files;
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
		*state = &fr->st->cmd->ctx; /* the main thread's, unused while the pool runs */
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

	if (state != &fr->st->cmd->ctx) {
		mpsfix_ctx_release(state);
		free(state);
	}
}

static void *worker_file(void *payload, void *state, size_t i)
{
	files_run *fr = payload;
	mpsfix_file_record *rec = mpsfix_xcalloc(1, sizeof(*rec));
	const char *path = fr->files->items[i];

#ifdef __GLIBC__
	if (fr->sizes[i] >= TRIM_AFTER)
		malloc_trim(0); /* what the other threads freed, before the big tree */
#endif
	mpsfix_cmd_file(fr->st->cmd, fr->st->index, state, rec, path, mpsfix_cmd_folder_of(path, fr->args, fr->nargs),
			&fr->st->cmd->set.targets.items[fr->st->target_of[i]].range, fr->st->line_length_of[i]);
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

static void progress(const check_run *st, size_t done, size_t total, time_t started, bool *shown);

/* The main thread, in path order: the file's messages, its counts, its report. */
static void consume_file(void *payload, size_t i, void *result)
{
	files_run *fr = payload;
	check_run *st = fr->st;
	mpsfix_file_record *rec = result;
	const mpsfix_source *shown = rec->show_fixed ? &rec->fixed : &rec->src;

	progress(st, i, fr->files->len, fr->started, &fr->shown);
	for (size_t k = 0; k < rec->messages.len; k++)
		mpsfix_cmd_error(rec->messages.items[k]);
	st->skipped += rec->skipped;
	st->files += rec->scanned;
	st->target_files[st->target_of[i]] += rec->scanned;
	if (rec->io_error)
		st->cmd->io_error = true;
	if (rec->done) {
		st->changed += rec->changed;
		st->fixed += rec->nfixed;
		count_findings(st, &rec->res);
		if (rec->report &&
		    mpsfix_report_file(st->reporter, rec->display, shown, &rec->res, rec->diff.data,
				       rec->diff.len) < 0) {
			mpsfix_cmd_error(mpsfix_error_last()->message);
			st->cmd->io_error = true;
		}
	}
	mpsfix_file_record_free(rec);
}

static bool stop_requested(void *payload)
{
	const files_run *fr = payload;

	return *fr->st->cmd->interrupted != 0;
}

/* Every file, on st->cmd->set.jobs threads (standard input: on this one), reported in path order. */
static int process_files(check_run *st, const mpsfix_strvec *files, char **args, size_t nargs)
{
	files_run fr = {.st = st, .files = files, .args = args, .nargs = nargs, .started = time(NULL)};
	mpsfix_pool_opts po = {
		.nthreads = st->cmd->set.jobs ? st->cmd->set.jobs : 1,
		.nitems = files->len,
		.payload = &fr,
		.init = worker_init,
		.release = worker_release,
		.work = worker_file,
		.consume = consume_file,
		.should_stop = stop_requested,
		.weight = file_weight,
		.max_weight = SOURCE_BYTES_AT_ONCE,
		.window = 32 * (st->cmd->set.jobs ? st->cmd->set.jobs : 1),
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

/* One line on standard error, after the report. */
static void print_summary(const check_run *st, const char *target)
{
	if (st->cmd->opts->quiet)
		return;
	fflush(stdout);
	fprintf(stderr, "mpsfix: %zu file%s scanned, ", st->files, mpsfix_cmd_plural(st->files));
	switch (st->cmd->opts->command) {
	case MPSFIX_CMD_DIFF:
		fprintf(stderr, "%zu fix%s in the diff, %zu finding%s left", st->fixed,
			st->fixed == 1 ? "" : "es", st->findings, mpsfix_cmd_plural(st->findings));
		break;
	case MPSFIX_CMD_FIX:
		fprintf(stderr, "%zu fixed, %zu finding%s left", st->fixed, st->findings,
			mpsfix_cmd_plural(st->findings));
		break;
	default:
		fprintf(stderr, "%zu finding%s (%zu fixable)", st->findings, mpsfix_cmd_plural(st->findings),
			st->fixable);
	}
	if (st->unused)
		fprintf(stderr, ", %zu unused suppression%s", st->unused, mpsfix_cmd_plural(st->unused));
	if (st->skipped)
		fprintf(stderr, ", %zu skipped", st->skipped);
	fprintf(stderr, "; %s", target);
	if (st->unsafe_fixable)
		fprintf(stderr, "; %zu more fixable with --unsafe-fixes", st->unsafe_fixable);
	fputc('\n', stderr);
}

/*
 * The targets files were scanned for, in the order they were found, for
 * the json summary (owned; borrowed strings): the run's when there were none.
 */
static mpsfix_report_target *report_targets(const mpsfix_targets *t, const size_t *files, size_t *n)
{
	mpsfix_report_target *out = mpsfix_xcalloc(t->len + 1, sizeof(*out));

	*n = 0;
	for (size_t i = 0; i < t->len; i++)
		if (files[i])
			out[(*n)++] = (mpsfix_report_target){t->items[i].label, t->items[i].origin, files[i]};
	if (!*n)
		out[(*n)++] = (mpsfix_report_target){t->items[0].label, t->items[0].origin, 0};
	return out;
}

/* A progress line on a terminal, for runs longer than a second. */
static void progress(const check_run *st, size_t done, size_t total, time_t started, bool *shown)
{
	if (st->cmd->opts->quiet || !isatty(STDERR_FILENO))
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

static void on_stale_temp(void *payload, const char *path)
{
	(void)payload;
	fprintf(stderr, "mpsfix: %s: removed, a temporary file left by an interrupted run\n", path);
}

/* fix: first remove the temporary files a killed run left next to the files to fix. */
static void remove_stale_temps(check_run *st, const mpsfix_strvec *files)
{
	mpsfix_strvec dirs = MPSFIX_STRVEC_INIT;

	for (size_t i = 0; i < files->len; i++) {
		char *real = strcmp(files->items[i], "-") ? realpath(files->items[i], NULL) : NULL;
		char *slash = real ? strrchr(real, '/') : NULL;

		if (slash) {
			slash[slash == real] = '\0'; /* the folder the temporary file goes to */
			mpsfix_strvec_push_owned(&dirs, real);
		} else {
			free(real);
		}
	}
	mpsfix_strvec_sort(&dirs, 0);
	for (size_t i = 0; i < dirs.len; i++) {
		if (i && !strcmp(dirs.items[i], dirs.items[i - 1]))
			continue;
		if (mpsfix_source_remove_stale_temps(dirs.items[i], on_stale_temp, NULL) < 0) {
			mpsfix_cmd_error(mpsfix_error_last()->message);
			st->cmd->io_error = true;
		}
	}
	mpsfix_strvec_release(&dirs);
}

int mpsfix_cmd_check(mpsfix_cmd *cmd)
{
	const mpsfix_opts *opts = cmd->opts;
	check_run run = {.cmd = cmd}, *st = &run;
	mpsfix_strvec files = MPSFIX_STRVEC_INIT;
	char *dot[] = {"."};
	char **args = opts->npaths ? opts->paths : dot;
	size_t nargs = opts->npaths ? opts->npaths : 1;
	mpsfix_report_opts ro = {
		.tool_version = mpsfix_version(),
		.rules = cmd->rules.items,
		.nrules = cmd->rules.len,
		.show_unused = opts->show_unused_suppressions,
	};
	mpsfix_report_summary sum;
	mpsfix_report_target *targets = NULL;
	size_t *used = NULL;
	char *target = NULL;
	int status = MPSFIX_EXIT_OK;

	if (mpsfix_cmd_settle(cmd) < 0) {
		mpsfix_cmd_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto done;
	}
	run.counts = mpsfix_xcalloc(cmd->rules.len + 1, sizeof(size_t));
	run.fixable_counts = mpsfix_xcalloc(cmd->rules.len + 1, sizeof(size_t));

	if (opts->output && !(cmd->out = fopen(opts->output, "w"))) {
		fprintf(stderr, "mpsfix: cannot write %s: %s\n", opts->output, strerror(errno));
		status = MPSFIX_EXIT_ERROR;
		goto done;
	}
	if (!cmd->out)
		cmd->out = (opts->command == MPSFIX_CMD_FIX && nargs == 1 && !strcmp(args[0], "-")) ? stderr : stdout;
	ro.format = cmd->set.format;
	ro.color = mpsfix_cmd_color(cmd, cmd->out);
	run.reporter = mpsfix_reporter_new(cmd->out, &ro);

	if (mpsfix_cmd_files(cmd, &files) < 0) {
		mpsfix_cmd_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto done;
	}
	if (opts->command == MPSFIX_CMD_FIX)
		remove_stale_temps(st, &files);
	/* each file's torch target, then the rules that run for some file */
	run.target_of = mpsfix_cmd_targets(cmd, &files, &used);
	run.target_files = mpsfix_xcalloc(cmd->set.targets.len + 1, sizeof(size_t));
	run.line_length_of = mpsfix_cmd_line_lengths(cmd, &files);
	run.enabled = mpsfix_cmd_enabled(cmd, used, &run.nenabled);
	run.index = mpsfix_index_new(run.enabled, run.nenabled);
	if (process_files(st, &files, args, nargs) < 0) {
		mpsfix_cmd_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto done;
	}
	target = mpsfix_targets_summary(&cmd->set.targets, run.target_files);
	sum = (mpsfix_report_summary){
		.files = run.files, .skipped = run.skipped, .findings = run.findings,
		.fixable = run.fixable, .unsafe_fixable = run.unsafe_fixable, .manual = run.manual,
		.fixed = run.fixed, .errors = cmd->io_error, .target = target,
		.command = mpsfix_command_name(opts->command),
	};
	targets = report_targets(&cmd->set.targets, run.target_files, &sum.ntargets);
	sum.targets = targets;
	if (mpsfix_report_finish(run.reporter, &sum) < 0) {
		mpsfix_cmd_error(mpsfix_error_last()->message);
		cmd->io_error = true;
	}
	if (opts->statistics)
		mpsfix_report_statistics(cmd->out, cmd->rules.items, cmd->rules.len, run.counts,
					 run.fixable_counts);
	print_summary(st, target);
	if (opts->command == MPSFIX_CMD_DIFF)
		status = mpsfix_cmd_exit_status(cmd, run.changed, run.fixed);
	else
		status = mpsfix_cmd_exit_status(cmd, run.findings + run.unused, run.fixed);
	if (*cmd->interrupted)
		status = MPSFIX_EXIT_INTERRUPT;
done:
	mpsfix_strvec_release(&files);
	mpsfix_reporter_free(run.reporter);
	mpsfix_index_free(run.index);
	free(run.enabled);
	free(run.counts);
	free(run.fixable_counts);
	free(run.target_of);
	free(run.target_files);
	free(run.line_length_of);
	free(used);
	free(targets);
	free(target);
	return status;
}
