/*
 * cmd_series.c: commit, patch and review.  The fixes are made rule by rule
 * (code order) as a series (series.c), then recorded as commits or e-mail
 * patches (commit.c, through libgit2), or, for review, asked about on the
 * terminal (review.c) and written to the files.
 */
#include "cmd.h"

#include "notebook.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit.h"
#include "pathutil.h"
#include "report.h"
#include "review.h"
#include "series.h"
#include "targets.h"

/* A file of the run (as the series names it), its torch target and its line length. */
typedef struct {
	const char *path;            /* borrowed from the run's files */
	size_t target;               /* an index into set.targets */
	uint32_t line_length;
} file_target;

/*
 * The file at hand, for the engine's keep callback: series_on_file sets it
 * before the engine runs on each file (and the file's target and line
 * length in the engine's options), mpsfix_cmd_keep reads the scope (both
 * are given the same series_scope as their payload).
 */
typedef struct {
	mpsfix_file_scope scope;
	char *rel;                   /* its path relative to the config folder (owned) */
	char *skip_rel;              /* the path its rules' skip-paths see (owned) */
	char **args;                 /* the run's paths (borrowed) */
	size_t nargs;
	const mpsfix_targets *targets;
	uint32_t line_length;        /* the run's, for a file that is not one of the run's files */
	file_target *files;          /* sorted by path */
	size_t nfiles;
} series_scope;

static int by_path(const void *a, const void *b)
{
	return strcmp(((const file_target *)a)->path, ((const file_target *)b)->path);
}

/* The series file at `path` among the run's, or NULL. */
static const file_target *file_of(const series_scope *ss, const char *path)
{
	file_target key = {path, 0, 0};

	return ss->nfiles ? bsearch(&key, ss->files, ss->nfiles, sizeof(key), by_path) : NULL;
}

/* The torch target of the series file at `path` (the run's when it is not one of the files). */
static size_t target_of(const series_scope *ss, const char *path)
{
	const file_target *found = file_of(ss, path);

	return found ? found->target : 0;
}

/* Before the engine runs on a file of a series: what keep_match needs to know, its options. */
static void series_on_file(void *payload, const mpsfix_series_file *f, mpsfix_engine_opts *eo)
{
	series_scope *ss = payload;
	const char *dir = ss->scope.config->dir;
	const file_target *ft = file_of(ss, f->path);

	free(ss->rel);
	ss->rel = dir ? mpsfix_cmd_relative_to(f->path, dir) : NULL;
	free(ss->skip_rel);
	ss->skip_rel = mpsfix_cmd_skip_path(f->path, mpsfix_cmd_folder_of(f->path, ss->args, ss->nargs));
	eo->rel_path = ss->skip_rel;
	ss->scope.rel = ss->rel;
	ss->scope.since_active = false;
	eo->target = &ss->targets->items[ft ? ft->target : 0].range;
	eo->line_length = ft ? ft->line_length : ss->line_length;
	eo->disk_path = f->path;
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
	if (!error && !mpsfix_path_is_dir(dir))
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not a folder", dir);
	free(p);
	return error;
}

/* mpsfix patch: the e-mails to standard output, or one file each. */
static int write_patches(const mpsfix_cmd *st, const mpsfix_patch_list *patches)
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

/*
 * git am drops the CRs of a patch's lines (git mailsplit reads mail, whose
 * lines end in CRLF), so a series that changes a CRLF file applies only
 * with --keep-cr: say so.
 */
static void crlf_note(const mpsfix_patch_list *patches)
{
	for (size_t i = 0; i < patches->len; i++)
		if (memchr(patches->items[i].text.data, '\r', patches->items[i].text.len)) {
			fprintf(stderr, "mpsfix: note: the patches change lines that end in CRLF, which "
				"git am drops by default: apply them with git am --keep-cr\n");
			return;
		}
}

/* mpsfix review: the accepted fixes into the files. */
static int write_reviewed(mpsfix_cmd *st, const mpsfix_series *s, char **args, size_t nargs, size_t *written)
{
	size_t n, *changed = mpsfix_series_changed(s, &n);
	int status = 0;

	*written = 0;
	for (size_t i = 0; i < n; i++) {
		const mpsfix_series_file *f = &s->files[changed[i]];
		const char *root = mpsfix_cmd_folder_of(f->path, args, nargs);
		size_t len;
		const char *text = mpsfix_series_text(s, changed[i], &len);

		if (mpsfix_cmd_leaves_root(f->path, root)) {
			fprintf(stderr, "mpsfix: %s: not fixed: a symbolic link to a file outside %s\n",
				f->path, root);
			continue;
		}
		if (mpsfix_source_write_atomic(f->path, text, len, f->have_mode, f->mode) < 0) {
			mpsfix_cmd_error(mpsfix_error_last()->message);
			status = MPSFIX_ERROR;
			continue;
		}
		(*written)++;
	}
	free(changed);
	return status;
}

/* Before anything is read: what commit, patch and review cannot do. */
static int series_refusals(const mpsfix_cmd *st)
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
static void series_files(mpsfix_cmd *st, mpsfix_series *s, mpsfix_recorder *rec,
			 const mpsfix_strvec *files, size_t *skipped)
{
	for (size_t i = 0; i < files->len && !*st->interrupted; i++) {
		const char *path = files->items[i];
		mpsfix_source src = MPSFIX_SOURCE_INIT;
		int error;

		while (path[0] == '.' && path[1] == '/' && path[2])
			path += 2;
		if (rec) {
			error = mpsfix_recorder_add(rec, s, path);
		} else if ((error = mpsfix_source_read_max(&src, path, mpsfix_notebook_size_limit(path))) == 0) {
			mpsfix_series_add_file(s, path, NULL, src.data, src.len, src.have_mode, src.mode);
			mpsfix_source_release(&src);
		}
		if (error == MPSFIX_ESKIP) {
			fprintf(stderr, "mpsfix: note: %s\n", mpsfix_error_last()->message);
			(*skipped)++;
		} else if (error < 0) {
			mpsfix_cmd_error(mpsfix_error_last()->message);
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
static int series_review(mpsfix_cmd *st, mpsfix_series *s, mpsfix_recorder *rec, mpsfix_rule **order,
			 size_t n, const mpsfix_engine_opts *eo, series_scope *ss, mpsfix_review_result *rr)
{
	mpsfix_review_opts ro = {
		.in = STDIN_FILENO,
		.out = stdout,
		.color = mpsfix_cmd_color(st, stdout),
		.interrupted = st->interrupted,
	};
	int error = 0;

	if (rec) {
		/* refuse a dirty work tree before the questions, not after the answers */
		mpsfix_series probe = MPSFIX_SERIES_INIT;

		for (size_t i = 0; i < s->nfiles; i++)
			mpsfix_series_add_file(&probe, s->files[i].path, s->files[i].name, s->files[i].text,
					       s->files[i].len, s->files[i].have_mode, s->files[i].mode);
		if ((error = mpsfix_series_fix(&probe, &st->ctx, order, n, eo, series_on_file, ss)) == 0)
			error = mpsfix_recorder_check(rec, &probe, true);
		mpsfix_series_release(&probe);
		if (error < 0)
			return error;
	}
	return mpsfix_review_run(rr, s, &st->ctx, order, n, eo, &ro, series_on_file, ss);
}

/* A file's findings that remain: on standard error, as check --format concise writes them. */
static void series_left(void *payload, const mpsfix_source *src, const mpsfix_result *res)
{
	mpsfix_reporter *r = payload;

	if (mpsfix_report_file(r, src->path, src, res, NULL, 0) < 0)
		mpsfix_cmd_error(mpsfix_error_last()->message);
}

/* The summary line's words for the targets of the files scanned (owned). */
static char *series_target_words(const mpsfix_cmd *st, const mpsfix_series *s, const series_scope *ss)
{
	size_t *scanned = mpsfix_xcalloc(st->set.targets.len + 1, sizeof(size_t));
	char *words;

	for (size_t i = 0; i < s->nfiles; i++)
		if (!s->files[i].skipped)
			scanned[target_of(ss, s->files[i].path)]++;
	words = mpsfix_targets_summary(&st->set.targets, scanned);
	free(scanned);
	return words;
}

/*
 * commit, patch, review: the fixes rule by rule (code order) as a series,
 * then commits, patch files, or the files themselves.  `target_of`: each
 * file's torch target, `used`: the files of each target, `line_length_of`:
 * each file's line length.
 */
static int run_series(mpsfix_cmd *st, const mpsfix_strvec *files, const size_t *target_of_file,
		      const size_t *used, const uint32_t *line_length_of, mpsfix_rule **enabled, size_t nenabled,
		      const mpsfix_index *index)
{
	const mpsfix_opts *opts = st->opts;
	bool review = opts->command == MPSFIX_CMD_REVIEW;
	bool record = !review || opts->review_commit;
	char trailer[MPSFIX_TORCH_RANGE_STRMAX];
	mpsfix_commit_opts co = {
		.patch = opts->command == MPSFIX_CMD_PATCH,
		.squash = opts->squash,
		.signoff = opts->signoff,
		.allow_dirty = opts->allow_dirty,
		.branch = opts->branch,
		/* the Mpsfix-Target-Torch trailer: the files' targets, all in one range */
		.target_torch = mpsfix_torch_range_format(trailer, mpsfix_targets_hull(&st->set.targets, used)),
	};
	series_scope ss = {
		.scope = {.config = &st->config},
		.args = st->opts->npaths ? st->opts->paths : (char *[]){"."},
		.nargs = st->opts->npaths ? st->opts->npaths : 1,
		.targets = &st->set.targets,
		.line_length = st->set.styles.items[st->set.styles.run].line_length,
		.files = mpsfix_xcalloc(files->len + 1, sizeof(file_target)),
	};
	mpsfix_engine_opts eo = {
		.fix = true,
		.unsafe_fixes = st->set.unsafe_fixes,
		.suppress = true,
		.no_prefilter = opts->no_prefilter,
		.verbose = opts->verbose,
		.keep = mpsfix_cmd_keep,
		.keep_payload = &ss.scope,
		/* the run's: series_on_file sets each file's */
		.target = &st->set.targets.items[0].range,
		.line_length = st->set.styles.items[st->set.styles.run].line_length,
	};
	char *words = NULL;
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_series_left left = {0};
	mpsfix_review_result rr = {MPSFIX_REVIEW_DONE, 0, 0};
	mpsfix_commit_list commits = {NULL, 0};
	mpsfix_patch_list patches = {NULL, 0};
	mpsfix_recorder *rec = NULL;
	mpsfix_reporter *left_rep = NULL;
	mpsfix_rule **order = mpsfix_xcalloc(nenabled + 1, sizeof(*order));
	size_t skipped = 0, sites = 0, written = 0;
	int status = MPSFIX_EXIT_OK;

	memcpy(order, enabled, nenabled * sizeof(*order));
	mpsfix_series_order(order, nenabled);
	/* the series names the files without a leading "./", as series_files adds them */
	for (size_t i = 0; i < files->len; i++) {
		const char *path = files->items[i];

		while (path[0] == '.' && path[1] == '/' && path[2])
			path += 2;
		ss.files[ss.nfiles++] = (file_target){path, target_of_file[i], line_length_of[i]};
	}
	if (ss.nfiles > 1)
		qsort(ss.files, ss.nfiles, sizeof(*ss.files), by_path);
	if (series_refusals(st) < 0 || (record && mpsfix_recorder_open(&rec, ".", &co) < 0))
		goto fail;
	series_files(st, &s, rec, files, &skipped);
	if (rec && series_submodules(rec, opts) < 0)
		goto fail;
	if (*st->interrupted)
		goto interrupt;
	if (review) {
		if (series_review(st, &s, rec, order, nenabled, &eo, &ss, &rr) < 0)
			goto fail;
		if (rr.end == MPSFIX_REVIEW_INTERRUPTED)
			goto interrupt;
	} else if (mpsfix_series_fix(&s, &st->ctx, order, nenabled, &eo, series_on_file, &ss) < 0) {
		goto fail;
	}
	for (size_t i = 0; i < s.nwarnings; i++)
		mpsfix_cmd_error(s.warnings[i]);
	for (size_t i = 0; i < s.nsteps; i++)
		sites += s.steps[i].sites;
	fflush(stdout);
	left_rep = mpsfix_reporter_new(stderr, &(mpsfix_report_opts){
		.format = MPSFIX_FORMAT_CONCISE, .color = mpsfix_cmd_color(st, stderr)});
	if (mpsfix_series_remaining(&left, &s, &st->ctx, index, &eo, series_on_file, &ss, series_left,
				    left_rep) < 0)
		goto fail;
	if (*st->interrupted)
		goto interrupt;

	if (opts->command == MPSFIX_CMD_PATCH) {
		if (mpsfix_recorder_patches(&patches, rec, &s) < 0 || write_patches(st, &patches) < 0)
			goto fail;
		crlf_note(&patches);
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
		fprintf(stderr, "mpsfix: %zu file%s scanned", scanned, mpsfix_cmd_plural(scanned));
		if (review)
			fprintf(stderr, ", %zu fix%s accepted, %zu declined", rr.accepted,
				rr.accepted == 1 ? "" : "es", rr.declined);
		if (opts->command == MPSFIX_CMD_PATCH)
			fprintf(stderr, ", %zu patch%s", patches.len, patches.len == 1 ? "" : "es");
		else if (record)
			fprintf(stderr, ", %zu commit%s", commits.len, mpsfix_cmd_plural(commits.len));
		else
			fprintf(stderr, ", %zu file%s written", written, mpsfix_cmd_plural(written));
		fprintf(stderr, " (%zu fix%s), %zu finding%s left", sites, sites == 1 ? "" : "es",
			left.findings, mpsfix_cmd_plural(left.findings));
		if (skipped)
			fprintf(stderr, ", %zu skipped", skipped);
		words = series_target_words(st, &s, &ss);
		fprintf(stderr, "; %s", words);
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
	status = mpsfix_cmd_exit_status(st, left.findings, sites);
	goto done;
interrupt:
	status = MPSFIX_EXIT_INTERRUPT;
	goto done;
fail:
	mpsfix_cmd_error(mpsfix_error_last()->message);
	status = MPSFIX_EXIT_ERROR;
done:
	free(words);
	free(ss.rel);
	free(ss.skip_rel);
	free(ss.files);
	mpsfix_patch_list_release(&patches);
	mpsfix_commit_list_release(&commits);
	mpsfix_recorder_free(rec);
	mpsfix_reporter_free(left_rep);
	mpsfix_series_release(&s);
	free(order);
	return status;
}

int mpsfix_cmd_series(mpsfix_cmd *cmd)
{
	mpsfix_strvec files = MPSFIX_STRVEC_INIT;
	mpsfix_rule **enabled = NULL;
	mpsfix_index *index = NULL;
	size_t nenabled = 0, *target_of_file = NULL, *used = NULL;
	uint32_t *line_length_of = NULL;
	int status;

	if (mpsfix_cmd_settle(cmd) < 0 || mpsfix_cmd_files(cmd, &files) < 0)
		goto fail;
	/* each file's torch target, then the rules that run for some file */
	target_of_file = mpsfix_cmd_targets(cmd, &files, &used);
	line_length_of = mpsfix_cmd_line_lengths(cmd, &files);
	enabled = mpsfix_cmd_enabled(cmd, used, &nenabled);
	index = mpsfix_index_new(enabled, nenabled);
	status = run_series(cmd, &files, target_of_file, used, line_length_of, enabled, nenabled, index);
	goto done;
fail:
	mpsfix_cmd_error(mpsfix_error_last()->message);
	status = MPSFIX_EXIT_ERROR;
done:
	mpsfix_strvec_release(&files);
	mpsfix_index_free(index);
	free(enabled);
	free(target_of_file);
	free(line_length_of);
	free(used);
	return status;
}
