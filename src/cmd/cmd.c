/*
 * cmd.c: what the commands share: messages, the exit status, the settings,
 * where a walked file belongs, and whether a match counts in the file at
 * hand.
 */
#include "cmd.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git.h"
#include "pathutil.h"
#include "text.h"

void mpsfix_cmd_error(const char *message)
{
	/* file names and lines of a repository: no terminal control sequences */
	mpsfix_buf b = MPSFIX_BUF_INIT;

	mpsfix_text_visible(&b, message, strlen(message), "\t\n");
	fprintf(stderr, "mpsfix: %s\n", b.data ? b.data : "");
	mpsfix_buf_release(&b);
}

void mpsfix_cmd_on_error(void *payload, const char *message)
{
	mpsfix_cmd *cmd = payload;

	mpsfix_cmd_error(message);
	cmd->io_error = true;
}

void mpsfix_cmd_on_warning(void *payload, const char *message)
{
	(void)payload;
	mpsfix_cmd_error(message);
}

const char *mpsfix_cmd_plural(size_t n)
{
	return n == 1 ? "" : "s";
}

int mpsfix_cmd_settle(mpsfix_cmd *cmd)
{
	return mpsfix_settings_resolve(&cmd->set, cmd->opts, &cmd->config, cmd->rules.items, cmd->rules.len,
				       mpsfix_cmd_on_warning, NULL);
}

/*
 * The path a listed file is looked up by (standard input's
 * --stdin-filename), and the folder operand it was found under, or NULL.
 */
static const char *lookup_path(const mpsfix_opts *opts, const char *path, const char **operand)
{
	char *dot[] = {"."};

	if (!strcmp(path, "-"))
		path = opts->stdin_filename ? opts->stdin_filename : "-";
	*operand = mpsfix_cmd_folder_of(path, opts->npaths ? opts->paths : dot,
					opts->npaths ? opts->npaths : 1);
	return path;
}

size_t *mpsfix_cmd_targets(mpsfix_cmd *cmd, const mpsfix_strvec *files, size_t **used)
{
	mpsfix_targets *t = &cmd->set.targets;
	size_t *of = mpsfix_xcalloc(files->len + 1, sizeof(size_t));

	for (size_t i = 0; i < files->len; i++) {
		const char *operand, *path = lookup_path(cmd->opts, files->items[i], &operand);

		of[i] = mpsfix_targets_of_file(t, path, operand, mpsfix_cmd_on_warning, NULL);
	}
	*used = mpsfix_xcalloc(t->len + 1, sizeof(size_t));
	for (size_t i = 0; i < files->len; i++)
		(*used)[of[i]]++;
	return of;
}

uint32_t *mpsfix_cmd_line_lengths(mpsfix_cmd *cmd, const mpsfix_strvec *files)
{
	mpsfix_styles *s = &cmd->set.styles;
	uint32_t *of = mpsfix_xcalloc(files->len + 1, sizeof(uint32_t));

	for (size_t i = 0; i < files->len; i++) {
		const char *operand, *path = lookup_path(cmd->opts, files->items[i], &operand);
		/* first: it may move s->items */
		size_t style = mpsfix_styles_of_file(s, path, operand, mpsfix_cmd_on_warning, NULL);

		of[i] = s->items[style].line_length;
	}
	return of;
}

mpsfix_rule **mpsfix_cmd_enabled(const mpsfix_cmd *cmd, const size_t *used, size_t *n)
{
	const mpsfix_targets *t = &cmd->set.targets;
	size_t len = cmd->rules.len, nused = 0;
	mpsfix_rule **enabled = mpsfix_xcalloc(len + 1, sizeof(*enabled));
	bool *selected = mpsfix_xcalloc(len + 1, sizeof(bool));

	*n = 0;
	for (size_t k = 0; used && k < t->len; k++)
		nused += used[k] > 0;
	mpsfix_select_rules(selected, cmd->rules.items, len, &cmd->set.select, cmd->set.has_select,
			    &cmd->set.extend_select, &cmd->set.ignore);
	for (size_t i = 0; i < len; i++) {
		bool runs = false;

		for (size_t k = 0; selected[i] && !runs && k < t->len; k++)
			runs = (nused ? used[k] > 0 : k == 0) && mpsfix_target_runs(&t->items[k], cmd->rules.items[i]);
		if (runs)
			enabled[(*n)++] = cmd->rules.items[i];
	}
	free(selected);
	return enabled;
}

int mpsfix_cmd_files(mpsfix_cmd *cmd, mpsfix_strvec *files)
{
	const mpsfix_opts *opts = cmd->opts;
	char *dot[] = {"."};
	mpsfix_command c = opts->command;
	/* commit, patch and review --commit read HEAD, --staged the index: there a
	   folder git ignores has only the tracked files git lists */
	bool from_git = opts->staged || c == MPSFIX_CMD_COMMIT || c == MPSFIX_CMD_PATCH ||
			(c == MPSFIX_CMD_REVIEW && opts->review_commit);
	mpsfix_discover_opts dopts = {
		.no_ignore = opts->no_ignore,
		.use_git = true,
		.walk_ignored = !from_git,
		/* command-line globs are relative to the current folder, the configuration's to its own */
		.exclude = opts->exclude.items,
		.nexclude = opts->exclude.len,
		.include = opts->include.items,
		.ninclude = opts->include.len,
		.extra_exclude = cmd->config.exclude.items,
		.nextra_exclude = cmd->config.exclude.len,
		.extra_base = cmd->config.dir,
		.on_warning = mpsfix_cmd_on_warning,
	};

	int error = mpsfix_discover_files(files, opts->npaths ? opts->paths : dot, opts->npaths ? opts->npaths : 1,
					  &dopts, mpsfix_cmd_on_error, cmd);
	size_t kept = 0;

	for (size_t i = 0; opts->staged && error >= 0 && i < files->len; i++) {
		/* --staged: the files that have staged changes (a file it cannot
		   tell about stays, and says why when it is read) */
		bool changed = true;

		if (strcmp(files->items[i], "-") && mpsfix_git_staged_changed(&changed, files->items[i]) == 0 &&
		    !changed)
			free(files->items[i]);
		else
			files->items[kept++] = files->items[i];
	}
	if (opts->staged && error >= 0)
		files->len = kept;
	return error;
}

bool mpsfix_cmd_color(const mpsfix_cmd *cmd, FILE *f)
{
	mpsfix_color color = cmd->opts->color;

	return color == MPSFIX_COLOR_ALWAYS ||
	       (color == MPSFIX_COLOR_AUTO && isatty(fileno(f)) &&
		!(getenv("NO_COLOR") && *getenv("NO_COLOR")));
}

int mpsfix_cmd_exit_status(const mpsfix_cmd *cmd, bool left, size_t fixed)
{
	int status = left ? MPSFIX_EXIT_FINDINGS : MPSFIX_EXIT_OK;

	if (cmd->opts->exit_zero)
		status = MPSFIX_EXIT_OK;
	if (cmd->opts->exit_non_zero_on_fix && fixed)
		status = MPSFIX_EXIT_FINDINGS;
	if (cmd->io_error)
		status = MPSFIX_EXIT_ERROR;
	return status;
}

const char *mpsfix_cmd_folder_of(const char *path, char *const *args, size_t nargs)
{
	for (size_t i = 0; i < nargs; i++) {
		size_t n = strlen(args[i]);

		/* "dir", "dir/" and "dir//" all walk to "dir/..." */
		while (n > 1 && args[i][n - 1] == '/')
			n--;
		if (n && !strncmp(path, args[i], n) && (path[n] == '/' || (n == 1 && args[i][0] == '/')) &&
		    mpsfix_path_is_dir(args[i]))
			return args[i];
	}
	return NULL;
}

bool mpsfix_cmd_leaves_root(const char *path, const char *root)
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

char *mpsfix_cmd_skip_path(const char *path, const char *root)
{
	char *rel = NULL, *top, *dir, *real;
	const char *name = strrchr(path, '/');

	name = name ? name + 1 : path;
	if (root) {
		top = realpath(root, NULL);
		rel = mpsfix_cmd_relative_to(path, top);
		free(top);
		return rel;
	}
	if ((rel = mpsfix_git_worktree_path(path)))
		return rel;
	/* a file that is not there yet (an editor's new buffer): its folder's place */
	dir = mpsfix_xstrndup(path, (size_t)(name - path));
	if ((top = mpsfix_git_worktree_top(*dir ? dir : ".")) != NULL && (real = realpath(*dir ? dir : ".", NULL))) {
		size_t n = strlen(top);

		if (!strncmp(real, top, n) && (real[n] == '/' || !real[n]))
			rel = real[n] ? mpsfix_xasprintf("%s/%s", real + n + 1, name) : mpsfix_xstrdup(name);
		free(real);
	}
	free(top);
	free(dir);
	if (!rel) {
		top = realpath(".", NULL);
		rel = mpsfix_cmd_relative_to(path, top);
		free(top);
	}
	return rel ? rel : mpsfix_xstrdup(name);
}

char *mpsfix_cmd_relative_to(const char *path, const char *dir)
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

static bool line_changed(const mpsfix_file_scope *fs, uint32_t line)
{
	/* the first range that does not end before the line */
	size_t i = mpsfix_lower_bound(fs->since, fs->nsince, sizeof(*fs->since),
				      offsetof(mpsfix_line_range, last), line);

	return i < fs->nsince && fs->since[i].first <= line;
}

bool mpsfix_cmd_keep(void *payload, const mpsfix_rule *rule, uint32_t line)
{
	const mpsfix_file_scope *fs = payload;
	const mpsfix_config *cfg = fs->config;
	uint32_t cell, cell_line;

	if (fs->src)
		mpsfix_source_cell_of(fs->src, line, &cell, &cell_line, &line);
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
