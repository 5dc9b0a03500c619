/*
 * git_list.c: the files git would show under a folder (mpsfix's file
 * discovery in a work tree): tracked files of the index plus untracked
 * ones that are not ignored, kept when their names say Python; and whether
 * git ignores a folder.
 */
#include "git_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pathutil.h"
#include "strvec.h"

/* Is `top/rel` in the work tree as something readable (not a folder)? */
static bool in_worktree(const char *top, const char *rel)
{
	char *path = mpsfix_xasprintf("%s%s", top, rel);
	struct stat st;
	bool ok = stat(path, &st) == 0 && !S_ISDIR(st.st_mode);

	free(path);
	return ok;
}

int mpsfix_git_list_files(char ***out, size_t *n, bool *in_repo, const char *dir, bool no_ignore)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_status_list *status = NULL;
	git_status_options opts;
	mpsfix_strvec names = MPSFIX_STRVEC_INIT; /* relative to the top of the work tree */
	char *real = NULL, *rel = NULL, *pathspec = NULL;
	const char *top;
	size_t prefix_len, count, kept = 0;
	int rc, error = 0;

	*out = NULL;
	*n = 0;
	*in_repo = false;
	if ((real = realpath(dir, NULL)) == NULL) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: %s", dir, strerror(errno));
		goto done;
	}
	if ((error = mpsfix_git__open_worktree(&repo, &rel, real)) < 0 || !repo)
		goto done;
	*in_repo = true;
	top = git_repository_workdir(repo); /* ends with '/' */
	prefix_len = strlen(rel);

	/* tracked: the index (submodules are commits there, not files) */
	if ((rc = git_repository_index(&index, repo)) < 0) {
		error = mpsfix_git__fail(rc, dir);
		goto done;
	}
	count = git_index_entrycount(index);
	for (size_t i = 0; i < count; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);

		if (!e || e->mode == GIT_FILEMODE_COMMIT ||
		    strncmp(e->path, rel, prefix_len) != 0 || !mpsfix_is_python_path(e->path) ||
		    !in_worktree(top, e->path))
			continue;
		mpsfix_strvec_push(&names, e->path);
	}

	/* untracked (and ignored with no_ignore): the work tree against the index */
	if ((rc = git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION)) < 0) {
		error = mpsfix_git__fail(rc, dir);
		goto done;
	}
	opts.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		     GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
	if (no_ignore)
		opts.flags |= GIT_STATUS_OPT_INCLUDE_IGNORED | GIT_STATUS_OPT_RECURSE_IGNORED_DIRS;
	if (prefix_len) {
		pathspec = mpsfix_xstrndup(rel, prefix_len - 1);
		opts.pathspec.strings = &pathspec;
		opts.pathspec.count = 1;
	}
	if ((rc = git_status_list_new(&status, repo, &opts)) < 0) {
		error = mpsfix_git__fail(rc, dir);
		goto done;
	}
	count = git_status_list_entrycount(status);
	for (size_t i = 0; i < count; i++) {
		const git_status_entry *s = git_status_byindex(status, i);
		const char *path;

		if (!s || !(s->status & (GIT_STATUS_WT_NEW | GIT_STATUS_IGNORED)) ||
		    !s->index_to_workdir || !(path = s->index_to_workdir->new_file.path))
			continue;
		/* a nested repository shows as its folder ("inner/"): not entered */
		if (strncmp(path, rel, prefix_len) != 0 || !mpsfix_is_python_path(path) ||
		    !in_worktree(top, path))
			continue;
		mpsfix_strvec_push(&names, path);
	}

	/* sorted and unique (a conflicted file has several index entries) */
	mpsfix_strvec_sort(&names, 0);
	*out = mpsfix_xmalloc((names.len ? names.len : 1) * sizeof(**out));
	for (size_t i = 0; i < names.len; i++) {
		if (kept && strcmp(names.items[i], names.items[i - 1]) == 0)
			continue;
		(*out)[kept++] = mpsfix_path_join(dir, names.items[i] + prefix_len);
	}
	*n = kept; /* one prefix for all: still sorted */
done:
	mpsfix_strvec_release(&names);
	git_status_list_free(status);
	git_index_free(index);
	git_repository_free(repo);
	free(pathspec);
	free(rel);
	free(real);
	return error;
}

int mpsfix_git_ignores_folder(bool *ignored, const char *dir)
{
	git_repository *repo = NULL;
	char *real = NULL, *rel = NULL;
	int is_ignored = 0, rc, error = 0;

	*ignored = false;
	if ((real = realpath(dir, NULL)) == NULL) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: %s", dir, strerror(errno));
		goto done;
	}
	if ((error = mpsfix_git__open_worktree(&repo, &rel, real)) < 0 || !repo || !*rel)
		goto done;
	/* rel ends in '/': a folder; the folders above it are looked at too */
	if ((rc = git_ignore_path_is_ignored(&is_ignored, repo, rel)) < 0) {
		error = mpsfix_git__fail(rc, dir);
		goto done;
	}
	*ignored = is_ignored == 1;
done:
	git_repository_free(repo);
	free(rel);
	free(real);
	return error;
}
