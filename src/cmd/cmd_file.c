/*
 * cmd_file.c: the work on one file for check, diff and fix: read it (a
 * file, standard input, or the index with --staged), run the engine, make
 * the diff, write the fixed text back.  It runs on worker threads: it reads
 * the command's settings and writes only its record and the file.
 */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "notebook.h"

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

static int read_stdin(mpsfix_buf *out, size_t max)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0) {
		mpsfix_buf_add(out, chunk, n);
		if (out->len > max)
			return mpsfix_error_set(MPSFIX_ESKIP, "-: skipped: standard input too large "
						"(more than %zu bytes)", max);
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

/*
 * The bytes of `path` as this run sees them: the file, standard input, or
 * the index; at most `max` bytes.
 */
static int load_source(const mpsfix_opts *opts, mpsfix_source *src, const char *path, const char *display,
		       size_t max)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	int error;

	if (!strcmp(path, "-")) {
		bool all_read = (error = read_stdin(&b, max)) == 0;

		if (all_read)
			error = mpsfix_source_from_buffer_max(src, display, b.data ? b.data : "", b.len, max);
		if (error == MPSFIX_ESKIP && opts->command == MPSFIX_CMD_FIX)
			pass_through(b.data ? b.data : "", b.len, !all_read);
	} else if (opts->staged) {
		error = mpsfix_git_read_staged(&b, path);
		if (error == MPSFIX_ENOMATCH)
			error = mpsfix_error_set(MPSFIX_ESKIP, "%s: not in the index (--staged)", path);
		if (error == 0)
			error = mpsfix_source_from_buffer_max(src, path, b.data ? b.data : "", b.len, max);
	} else {
		error = mpsfix_source_read_max(src, path, max);
	}
	mpsfix_buf_release(&b);
	return error;
}

void mpsfix_file_record_free(mpsfix_file_record *rec)
{
	if (!rec)
		return;
	mpsfix_strvec_release(&rec->messages);
	mpsfix_source_release(&rec->src);
	mpsfix_source_release(&rec->fixed);
	mpsfix_result_release(&rec->res);
	mpsfix_buf_release(&rec->diff);
	free(rec);
}

/* The message of the last error, for standard error after the file's turn comes. */
static void note_error(mpsfix_file_record *rec)
{
	mpsfix_strvec_push(&rec->messages, mpsfix_error_last()->message);
}

/* Why a notebook's fixes are not written, from mpsfix_notebook_render()'s
   message "a.ipynb: cell 2: not fixed: its source ...": "cell 2: its source ...". */
static char *render_reason(const char *display)
{
	const char *m = mpsfix_error_last()->message, *nf = strstr(m, "not fixed: ");
	size_t n = strlen(display);

	if (!strncmp(m, display, n) && m[n] == ':' && m[n + 1] == ' ')
		m += n + 2;
	return nf && nf >= m ? mpsfix_xasprintf("%.*s%s", (int)(nf - m), m, nf + 11) : mpsfix_xstrdup(m);
}

/* Why fix does not write through a link to a file outside `root`. */
static char *link_reason(const char *root)
{
	return mpsfix_xasprintf("a symbolic link to a file outside %s, which fix does not write", root);
}

/*
 * check: would fix write what it fixes?  Not through a link out of the
 * folder, nor a notebook cell laid out other than as nbformat writes it
 * (its JSON could not be written back exactly): the findings fix would make
 * are then manual, with that reason, as fix reports them.  `fixing` (may
 * be NULL) is the fixing run check --format diff made already.
 */
static int check_writable(mpsfix_ctx *ctx, const mpsfix_index *index, mpsfix_result *res,
			  const mpsfix_result *fixing, const mpsfix_engine_opts *eo, const mpsfix_source *src,
			  const mpsfix_notebook *nb, const char *display, const char *raw, size_t raw_len,
			  const char *path, const char *root)
{
	mpsfix_engine_opts fo = *eo;
	mpsfix_result fixed = MPSFIX_RESULT_INIT;
	mpsfix_buf out = MPSFIX_BUF_INIT;
	char *reason = NULL;
	bool fixable = false;
	int error = 0;

	for (size_t i = 0; i < res->len && !fixable; i++)
		fixable = res->items[i].fix == MPSFIX_FIX_AVAILABLE || res->items[i].fix == MPSFIX_FIX_UNSAFE;
	if (!fixable)
		return 0;
	if (strcmp(path, "-") && mpsfix_cmd_leaves_root(path, root)) {
		reason = link_reason(root);
	} else if (nb) {
		fo.fix = true; /* the fixes fix would make, with the run's --unsafe-fixes */
		fo.unused_suppressions = false;
		if (!fixing && (error = mpsfix_engine_run(&fixed, ctx, index, src, &fo)) < 0)
			goto done;
		if (!fixing)
			fixing = &fixed;
		if (fixing->changed &&
		    (error = mpsfix_notebook_render(&out, NULL, nb, display, raw, raw_len, fixing->text,
						    fixing->text_len)) == MPSFIX_ESKIP) {
			reason = render_reason(display);
			error = 0;
		}
		if (error < 0)
			goto done;
	}
	if (reason)
		mpsfix_result_make_manual(res, reason);
done:
	free(reason);
	mpsfix_buf_release(&out);
	mpsfix_result_release(&fixed);
	return error;
}

void mpsfix_cmd_file(const mpsfix_cmd *cmd, const mpsfix_index *index, mpsfix_ctx *ctx,
		     mpsfix_file_record *rec, const char *path, const char *root,
		     const mpsfix_torch_range *target, uint32_t line_length)
{
	const mpsfix_opts *opts = cmd->opts;
	bool is_stdin = !strcmp(path, "-");
	const char *display = is_stdin ? (opts->stdin_filename ? opts->stdin_filename : "-") : path;

	mpsfix_source *src = &rec->src;
	mpsfix_result *res = &rec->res, fixing = MPSFIX_RESULT_INIT;
	const mpsfix_result *diff_of = res;
	mpsfix_file_scope scope = {.config = &cmd->config};
	mpsfix_engine_opts eo = {
		.fix = opts->command != MPSFIX_CMD_CHECK,
		.unsafe_fixes = cmd->set.unsafe_fixes,
		.suppress = true,
		.unused_suppressions = opts->show_unused_suppressions,
		.no_prefilter = opts->no_prefilter,
		.verbose = opts->verbose,
		.keep = mpsfix_cmd_keep,
		.keep_payload = &scope,
		.target = target,
		.line_length = line_length,
	};
	bool write_back = opts->command == MPSFIX_CMD_FIX;
	char *rel = NULL, *skip_rel = NULL, *manual = NULL; /* why fix writes nothing, for the findings */
	/* a notebook: its file, its cells, and the fixed file */
	bool notebook = mpsfix_is_notebook_path(display);
	mpsfix_source raw = MPSFIX_SOURCE_INIT;
	mpsfix_notebook nb = MPSFIX_NOTEBOOK_INIT, fixed_nb = MPSFIX_NOTEBOOK_INIT;
	mpsfix_buf nb_out = MPSFIX_BUF_INIT;
	const char *out_data;
	size_t out_len;
	int error;

	/* files found under "." are shown as git and ruff show them: "a.py", not "./a.py" */
	while (!is_stdin && display[0] == '.' && display[1] == '/' && display[2])
		display += 2;
	rec->display = display;
	error = load_source(opts, notebook ? &raw : src, path, display, mpsfix_notebook_size_limit(display));
	if (error == 0 && notebook &&
	    (error = mpsfix_notebook_source(src, &nb, display, raw.data, raw.len)) == MPSFIX_ESKIP &&
	    is_stdin && opts->command == MPSFIX_CMD_FIX)
		pass_through(raw.data, raw.len, false);
	if (error == MPSFIX_ESKIP) {
		note_error(rec);
		rec->skipped = true;
		goto done;
	}
	if (error < 0)
		goto fail;
	if (write_back && !is_stdin && mpsfix_cmd_leaves_root(path, root)) {
		char *msg = mpsfix_xasprintf("%s: not fixed: a symbolic link to a file outside %s", display, root);

		mpsfix_strvec_push(&rec->messages, msg);
		free(msg);
		write_back = eo.fix = false; /* its findings stay, as check reports them */
		manual = link_reason(root);
	} else if (write_back && !is_stdin && mpsfix_source_check_writable(notebook ? &raw : src, display) < 0) {
		note_error(rec);
		if (mpsfix_error_last()->code != MPSFIX_ESKIP)
			goto fail_noted;
		write_back = eo.fix = false;
	}
	rel = cmd->config.dir ? mpsfix_cmd_relative_to(is_stdin ? display : path, cmd->config.dir) : NULL;
	scope.rel = rel;
	scope.src = notebook ? src : NULL;
	if (strcmp(display, "-"))
		skip_rel = mpsfix_cmd_skip_path(is_stdin ? display : path, is_stdin ? NULL : root);
	eo.rel_path = skip_rel ? skip_rel : display;
	/* standard input's modules lie beside the file it stands for, if it names one */
	eo.disk_path = is_stdin ? opts->stdin_filename : path;
	if (opts->since && !is_stdin) {
		/* standard input: no history to compare with */
		if ((error = mpsfix_git_changed_lines(&scope.since, &scope.nsince, path, opts->since,
						      opts->staged)) < 0)
			goto fail;
		scope.since_active = true;
	}
	error = mpsfix_engine_run(res, ctx, index, src, &eo);
	if (error == 0 && manual)
		mpsfix_result_make_manual(res, manual);
	if (error == MPSFIX_ESKIP) {
		note_error(rec);
		rec->skipped = true;
		if (is_stdin && opts->command == MPSFIX_CMD_FIX)
			pass_through(notebook ? raw.data : src->data, notebook ? raw.len : src->len, false);
		goto done;
	}
	if (error < 0)
		goto fail;
	rec->scanned = true;
	for (size_t i = 0; i < res->nwarnings; i++)
		mpsfix_strvec_push(&rec->messages, res->warnings[i]);
	if (opts->command == MPSFIX_CMD_CHECK && cmd->set.format == MPSFIX_FORMAT_DIFF) {
		/* check --format diff: the findings are the unfixed ones; a second,
		 * fixing run gives the diff */
		mpsfix_engine_opts fo = eo;

		fo.fix = true;
		fo.unused_suppressions = false;
		if ((error = mpsfix_engine_run(&fixing, ctx, index, src, &fo)) < 0)
			goto fail;
		diff_of = &fixing;
	}
	if (opts->command == MPSFIX_CMD_CHECK &&
	    (error = check_writable(ctx, index, res, diff_of != res ? diff_of : NULL, &eo, src, notebook ? &nb : NULL,
				    display, raw.data, raw.len, path, root)) < 0)
		goto fail;
	if (notebook && diff_of->text && diff_of->changed &&
	    (error = mpsfix_notebook_render(&nb_out, &fixed_nb, &nb, display, raw.data, raw.len,
					    diff_of->text, diff_of->text_len)) < 0) {
		if (error != MPSFIX_ESKIP)
			goto fail;
		/* not written: its findings stay, as check reports them */
		manual = render_reason(display);
		note_error(rec);
		write_back = false;
		if (diff_of == res) {
			mpsfix_result_release(res);
			eo.fix = false;
			if ((error = mpsfix_engine_run(res, ctx, index, src, &eo)) < 0)
				goto fail;
			mpsfix_result_make_manual(res, manual);
		}
		diff_of = NULL;
	}
	if (diff_of && diff_of->text && diff_of->changed) {
		char *name = is_stdin ? mpsfix_xstrdup(display) : diff_name(path);

		if (notebook)
			error = mpsfix_git_diff(&rec->diff, name, raw.data, raw.len, nb_out.data, nb_out.len);
		else
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
		if (notebook)
			mpsfix_notebook_attach(&rec->fixed, res->changed ? &fixed_nb : &nb);
		rec->show_fixed = true;
	}
	out_data = notebook ? (res->changed ? nb_out.data : raw.data) : res->text;
	out_len = notebook ? (res->changed ? nb_out.len : raw.len) : res->text_len;
	if (opts->command == MPSFIX_CMD_FIX && is_stdin) {
		/* the fixed text goes to standard output, the report to standard error */
		fwrite(out_data, 1, out_len, stdout);
	} else if (write_back && res->changed &&
		   mpsfix_source_write_back(notebook ? &raw : src, display, out_data, out_len) < 0) {
		/* not written (a full disk, a file changed meanwhile): an error, and
		 * the file's findings stay, as check reports them */
		note_error(rec);
		rec->io_error = true;
		mpsfix_result_release(res);
		mpsfix_source_release(&rec->fixed);
		mpsfix_buf_release(&rec->diff); /* (fix --format diff: nothing was changed) */
		rec->show_fixed = false;
		eo.fix = false;
		if ((error = mpsfix_engine_run(res, ctx, index, src, &eo)) < 0)
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
	mpsfix_source_release(&raw);
	mpsfix_notebook_release(&nb);
	mpsfix_notebook_release(&fixed_nb);
	mpsfix_buf_release(&nb_out);
	free(rel);
	free(skip_rel);
	free(manual);
	free(scope.since);
	mpsfix_result_release(&fixing);
}

