/*
 * main.c: the mpsfix program — load the rules, find the files, run the
 * engine on each, report, and decide the exit status.  Only main prints
 * errors.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "discover.h"
#include "engine.h"
#include "git.h"
#include "parse.h"
#include "rule.h"
#include "ruletest.h"
#include "source.h"

#ifndef MPSFIX_VERSION
#define MPSFIX_VERSION "0.0.0"
#endif
#ifndef MPSFIX_RULES_DIR
#define MPSFIX_RULES_DIR "/usr/local/share/mpsfix/rules"
#endif

typedef struct {
	const mpsfix_opts *opts;
	mpsfix_ctx ctx;
	mpsfix_ruleset rules;
	mpsfix_index *index;
	size_t files, skipped, findings, fixable, fixed, hidden_unsafe, changed;
	bool io_error;
	bool git_ready;
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

/* The shipped rules: $MPSFIX_RULES_DIR, next to the binary, or the data folder. */
static char *default_rules_dir(void)
{
	const char *env = getenv("MPSFIX_RULES_DIR");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return mpsfix_xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash, *candidate;

		exe[n] = '\0';
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

static void print_finding(const char *path, const mpsfix_finding *f)
{
	switch (f->fix) {
	case MPSFIX_FIX_AVAILABLE:
		printf("%s:%u:%u: %s [*] %s\n", path, f->line, f->col, f->rule->code, f->rule->message);
		break;
	case MPSFIX_FIX_MANUAL:
		printf("%s:%u:%u: %s %s (needs a manual fix: %s)\n", path, f->line, f->col,
		       f->rule->code, f->rule->message, f->reason);
		break;
	default:
		printf("%s:%u:%u: %s %s\n", path, f->line, f->col, f->rule->code, f->rule->message);
	}
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

static void process_file(run_state *st, const char *path, const char *root)
{
	const mpsfix_opts *opts = st->opts;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts eo = {
		.fix = opts->command != MPSFIX_CMD_CHECK,
		.unsafe_fixes = opts->unsafe_fixes > 0,
	};
	mpsfix_buf diff = MPSFIX_BUF_INIT;
	int error;

	error = mpsfix_source_read(&src, path);
	if (error == MPSFIX_ESKIP) {
		print_error(mpsfix_error_last()->message);
		st->skipped++;
		return;
	}
	if (error < 0)
		goto fail;
	if (eo.fix && leaves_root(path, root)) {
		fprintf(stderr, "mpsfix: %s: not fixed: a symbolic link to a file outside %s\n", path, root);
		eo.fix = false;
	}
	error = mpsfix_engine_run(&res, &st->ctx, st->index, &src, &eo);
	if (error == MPSFIX_ESKIP) {
		print_error(mpsfix_error_last()->message);
		st->skipped++;
		goto done;
	}
	if (error < 0)
		goto fail;
	st->files++;
	for (size_t i = 0; i < res.nwarnings; i++)
		print_error(res.warnings[i]);
	if (opts->command == MPSFIX_CMD_DIFF && res.changed) {
		char *name = diff_name(path);

		error = mpsfix_git_diff(&diff, name, src.data, src.len, res.text, res.text_len);
		free(name);
		if (error < 0)
			goto fail;
		fwrite(diff.data, 1, diff.len, stdout);
	}
	if (opts->command == MPSFIX_CMD_FIX && res.changed &&
	    (error = mpsfix_source_write_atomic(path, res.text, res.text_len,
						src.have_mode, src.mode)) < 0)
		goto fail;
	if (res.changed)
		st->changed++;
	st->fixed += res.fixed;
	for (size_t i = 0; i < res.len; i++) {
		const mpsfix_finding *f = &res.items[i];

		st->findings++;
		st->fixable += f->fix == MPSFIX_FIX_AVAILABLE;
		st->hidden_unsafe += f->fix == MPSFIX_FIX_UNSAFE;
		if (opts->command != MPSFIX_CMD_DIFF)
			print_finding(path, f);
	}
	goto done;
fail:
	print_error(mpsfix_error_last()->message);
	st->io_error = true;
done:
	mpsfix_buf_release(&diff);
	mpsfix_result_release(&res);
	mpsfix_source_release(&src);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* One line on standard error, after everything on standard output. */
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
	if (st->skipped)
		fprintf(stderr, ", %zu skipped", st->skipped);
	if (st->hidden_unsafe)
		fprintf(stderr, "; %zu more fixable with --unsafe-fixes", st->hidden_unsafe);
	fputc('\n', stderr);
}

static int run_files(run_state *st)
{
	const mpsfix_opts *opts = st->opts;
	mpsfix_paths files = MPSFIX_PATHS_INIT;
	char *dot[] = {"."};
	char **args = opts->npaths ? opts->paths : dot;
	size_t nargs = opts->npaths ? opts->npaths : 1;
	mpsfix_rule **enabled = mpsfix_xcalloc(st->rules.len + 1, sizeof(*enabled));
	size_t nenabled = 0;
	int status = MPSFIX_EXIT_OK;

	for (size_t i = 0; i < st->rules.len; i++)
		if (st->rules.items[i]->enabled)
			enabled[nenabled++] = st->rules.items[i];
	st->index = mpsfix_index_new(enabled, nenabled);
	if (mpsfix_discover(&files, args, nargs, on_discover_error, st) < 0) {
		print_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto done;
	}
	for (size_t i = 0; i < files.len; i++)
		process_file(st, files.items[i], folder_of(files.items[i], args, nargs));
	print_summary(st);
	if (opts->command == MPSFIX_CMD_DIFF)
		status = st->changed ? MPSFIX_EXIT_FINDINGS : MPSFIX_EXIT_OK;
	else
		status = st->findings ? MPSFIX_EXIT_FINDINGS : MPSFIX_EXIT_OK;
	if (st->io_error)
		status = MPSFIX_EXIT_ERROR;
done:
	mpsfix_paths_release(&files);
	free(enabled);
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

int main(int argc, char **argv)
{
	mpsfix_opts opts;
	run_state st = {.opts = &opts};
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
		printf("mpsfix %s (tree-sitter-python %s, libgit2 %s)\n", MPSFIX_VERSION,
		       mpsfix_grammar_version(), mpsfix_git_version());
		goto out;
	}
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
	if (load_rules(&st, opts.rule_paths.items, opts.rule_paths.len, !opts.no_default_rules) < 0) {
		print_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto out;
	}
	status = run_files(&st);
out:
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "mpsfix: error writing output: %s\n", strerror(errno));
		status = MPSFIX_EXIT_ERROR;
	}
	mpsfix_index_free(st.index);
	mpsfix_ruleset_release(&st.rules);
	mpsfix_ctx_release(&st.ctx);
	if (st.git_ready)
		mpsfix_git_shutdown();
	mpsfix_opts_release(&opts);
	return status;
}
