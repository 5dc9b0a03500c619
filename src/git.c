/*
 * git.c: the libgit2 boundary (the only file that includes <git2.h>).
 */
#include "git.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

/* Turn the last libgit2 error into an mpsfix error. */
static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();

	return mpsfix_error_set(MPSFIX_ERROR, "%s: git error %d: %s", what, code,
				e && e->message ? e->message : "no detail");
}

int mpsfix_git_init(void)
{
	int rc = git_libgit2_init();

	return rc < 0 ? git_fail(rc, "cannot initialise libgit2") : 0;
}

void mpsfix_git_shutdown(void)
{
	git_libgit2_shutdown();
}

const char *mpsfix_git_version(void)
{
	static _Thread_local char version[32];
	int major = 0, minor = 0, rev = 0;

	git_libgit2_version(&major, &minor, &rev);
	snprintf(version, sizeof(version), "%d.%d.%d", major, minor, rev);
	return version;
}

int mpsfix_git_diff(mpsfix_buf *out, const char *path, const char *old, size_t old_len,
		    const char *new_text, size_t new_len)
{
	git_diff_options opts;
	git_patch *patch = NULL;
	git_buf text = GIT_BUF_INIT;
	int rc, error = 0;

	/* a NULL buffer would mean "no file" to libgit2: here it is empty text */
	if (!old)
		old = "";
	if (!new_text)
		new_text = "";
	if (old_len == new_len && (old_len == 0 || memcmp(old, new_text, old_len) == 0))
		return 0;
	if ((rc = git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION)) < 0)
		return git_fail(rc, path);
	opts.context_lines = 3;
	/* a source file is text, whatever libgit2's binary heuristics say */
	opts.flags = GIT_DIFF_FORCE_TEXT;
	if ((rc = git_patch_from_buffers(&patch, old, old_len, path,
					 new_text, new_len, path, &opts)) < 0) {
		error = git_fail(rc, path);
		goto done;
	}
	if (git_patch_num_hunks(patch) == 0)
		goto done;
	if ((rc = git_patch_to_buf(&text, patch)) < 0) {
		error = git_fail(rc, path);
		goto done;
	}
	mpsfix_buf_add(out, text.ptr, text.size);
done:
	git_buf_dispose(&text);
	git_patch_free(patch);
	return error;
}

char *mpsfix_git_worktree_path(const char *path)
{
	git_repository *repo = NULL;
	char *real = realpath(path, NULL), *top = NULL, *dir = NULL, *slash, *name = NULL;
	const char *workdir;
	size_t n;

	if (!real)
		goto done;
	dir = mpsfix_xstrdup(real);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 || git_repository_is_bare(repo) ||
	    (workdir = git_repository_workdir(repo)) == NULL || (top = realpath(workdir, NULL)) == NULL)
		goto done;
	n = strlen(top);
	if (!strncmp(real, top, n) && real[n] == '/')
		name = mpsfix_xstrdup(real + n + 1);
done:
	git_error_clear();
	git_repository_free(repo);
	free(real);
	free(top);
	free(dir);
	return name;
}
